// The tour of docs/clients-typescript.md, executed (tests/test_client_docs.py
// checks that the document shows exactly the region between the markers).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { EngramClient, InvalidArgumentError, MemoryStatus, NotFoundError, ProposalOutcome } from "../src/index.js";
import { startServer, type TestServer } from "./server.js";

let server: TestServer;

before(async () => {
  server = await startServer();
  process.env.ENGRAM_ADDRESS = server.address;
  process.env.ENGRAM_API_KEY = server.tenants.A.key;
});

after(() => server?.stop());

test("the tour", async () => {
  const space = `agents/support-bot-${randomBytes(4).toString("hex")}`;
  const log: unknown[] = [];
  const print = (...values: unknown[]) => log.push(values);
  // tour:start
  const client = new EngramClient(); // ENGRAM_ADDRESS and ENGRAM_API_KEY
  try {
    // Write: enums are numbers in TypeScript (result.outcome is 1); the generated
    // enum object names them: ACCEPTED, PENDING_CONFIRMATION, REJECTED or DUPLICATE.
    const result = await client.propose({
      space,
      content: "Customer Ada prefers email over phone calls.",
      confidence: 0.9,
      tags: ["preferences"],
    });
    print(ProposalOutcome[result.outcome], result.memory?.name);

    // Read: hits, best first, with the score's breakdown.
    const found = await client.recall({ query: "How should I contact Ada?", spaces: [space] });
    for (const hit of found.hits) {
      print(hit.score.toFixed(3), hit.memory?.content);
    }

    // Working memory: the conversation buffer of a session.
    const appended = await client.appendMessage(space, "chat-42", {
      role: "user",
      content: "Please send the invoice by email.",
    });
    print(appended.bufferedMessages, "message(s) buffered");

    // Errors are typed and name the bad field.
    try {
      await client.propose({ space, content: " ", confidence: 0.9 });
    } catch (error) {
      if (!(error instanceof InvalidArgumentError)) throw error;
      print(error.fieldViolations); // [{ field: "proposal.content", description: "..." }]
    }
    try {
      await client.get("memories/00000000-0000-0000-0000-000000000000");
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }

    // Streams are async iterables: replay the space's changes from the start.
    const stop = new AbortController();
    for await (const event of client.watch({ space, cursor: "0" }, { signal: stop.signal })) {
      print(MemoryStatus[event.entry!.toStatus], event.entry?.memory); // PROPOSED memories/… (its first event)
      if (event.entry?.memory === result.memory?.name) break; // ends the stream
    }
  } finally {
    client.close();
  }
  // tour:end
  assert.equal(log[0] && (log[0] as unknown[])[0], "ACCEPTED");
  assert.match(String((log[1] as unknown[])[1]), /Ada prefers email/);
  assert.deepEqual((log[2] as unknown[])[0], 1);
  assert.deepEqual(((log[3] as unknown[])[0] as { field: string }[]).map((v) => v.field), ["proposal.content"]);
  assert.ok(log.length >= 5);
  assert.equal((log.at(-1) as unknown[])[0], "PROPOSED"); // the watch stopped at the memory's first event
});
