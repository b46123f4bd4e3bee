// The client's conventions, beyond the shared scenario.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { randomUUID } from "node:crypto";
import type { Interceptor } from "@connectrpc/connect";
import {
  ADDRESS_FORMS,
  EngramClient,
  InvalidArgumentError,
  NotFoundError,
  ResourceExhaustedError,
  UnauthenticatedError,
  UnavailableError,
  ProposalOutcome,
  ProposeMemoryRequestSchema,
} from "../src/index.js";
import { create, toBinary } from "@bufbuild/protobuf";
import { startServer, type TestServer } from "./server.js";

let server: TestServer;

before(async () => {
  server = await startServer();
});

after(() => server?.stop());

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

test("UNAVAILABLE is retried with the same generated request id", async () => {
  const seen: string[] = [];
  const record: Interceptor = (next) => (req) => {
    seen.push((req.message as { requestId?: string }).requestId ?? "");
    return next(req);
  };
  const client = new EngramClient({
    address: `127.0.0.1:${await closedPort()}`,
    apiKey: "unused",
    retry: { maxAttempts: 3, initialBackoffMs: 1, maxBackoffMs: 2 },
    interceptors: [record],
  });
  try {
    await assert.rejects(client.propose({ space: "s", content: "c", confidence: 1 }), UnavailableError);
    // The generated clients follow the same conventions, on a copy of the message.
    const request = create(ProposeMemoryRequestSchema, { proposal: { space: "s", content: "c", confidence: 1 } });
    await assert.rejects(client.lifecycle.proposeMemory(request), UnavailableError);
    assert.equal(request.requestId, "");
  } finally {
    client.close();
  }
  assert.equal(seen.length, 6);
  assert.match(seen[0], /^[0-9a-f-]{36}$/);
  assert.equal(new Set(seen.slice(0, 3)).size, 1);
  assert.equal(new Set(seen.slice(3)).size, 1);
  assert.notEqual(seen[0], seen[3]);
});

test("a caller's request id is kept, and repeating it returns the first outcome", async () => {
  const client = new EngramClient({ address: server.address, apiKey: server.tenants.A.key });
  try {
    const space = `clients/typescript-ids-${Date.now()}`;
    const requestId = `ts-${randomUUID()}`;
    const first = await client.propose({ space, content: "Idempotent write.", confidence: 1 }, { requestId });
    const again = await client.propose({ space, content: "Idempotent write.", confidence: 1 }, { requestId });
    assert.equal(first.outcome, ProposalOutcome.ACCEPTED);
    assert.equal(again.outcome, ProposalOutcome.ACCEPTED);
    assert.equal(again.memory?.name, first.memory?.name);
  } finally {
    client.close();
  }
});

test("address and key come from ENGRAM_ADDRESS and ENGRAM_API_KEY", async () => {
  process.env.ENGRAM_ADDRESS = server.address;
  process.env.ENGRAM_API_KEY = server.tenants.B.key;
  const client = new EngramClient();
  try {
    assert.equal(client.address, server.address);
    await assert.rejects(client.get("memories/00000000-0000-0000-0000-000000000000"), NotFoundError);
  } finally {
    delete process.env.ENGRAM_ADDRESS;
    delete process.env.ENGRAM_API_KEY;
    client.close();
  }
});

test("the address forms are those every client takes", async () => {
  for (const address of [`http://${server.address}`, `HTTP://${server.address}/`]) {
    const client = new EngramClient({ address, apiKey: server.tenants.B.key });
    try {
      await assert.rejects(client.get("memories/00000000-0000-0000-0000-000000000000"), NotFoundError);
    } finally {
      client.close();
    }
  }
  assert.throws(() => new EngramClient({ address: `http://${server.address}/v1` }), (error: Error) =>
    error.message.includes(ADDRESS_FORMS),
  );
  // Another scheme, or gRPC's target syntax, is refused the same way instead of
  // failing on the first call with "getaddrinfo ENOTFOUND grpc".
  for (const address of ["grpc://127.0.0.1:50051", "dns:///127.0.0.1:50051", "unix:///run/engram.sock"]) {
    assert.throws(() => new EngramClient({ address }), (error: Error) =>
      error.message.startsWith(`address '${address}': `) && error.message.includes(ADDRESS_FORMS),
    );
  }
});

test("without a key a call is UNAUTHENTICATED", async () => {
  const client = new EngramClient({ address: server.address, apiKey: "" });
  try {
    await assert.rejects(client.get("memories/00000000-0000-0000-0000-000000000000"), UnauthenticatedError);
  } finally {
    client.close();
  }
});

test("bad input raises InvalidArgumentError naming the field, on the raw service clients too", async () => {
  const client = new EngramClient({ address: server.address, apiKey: server.tenants.A.key });
  try {
    const error = await client.recallService.recall({ query: "", spaces: ["s"] }).then(
      () => assert.fail("expected an error"),
      (e: unknown) => e,
    );
    assert.ok(error instanceof InvalidArgumentError);
    assert.equal(error.codeName, "INVALID_ARGUMENT");
    assert.ok(error.fields.includes("query"), JSON.stringify(error.fieldViolations));
  } finally {
    client.close();
  }
});

// Far over what the test server's transport accepts: four times its
// max_request_bytes (4 MiB by default, so 16 MiB), twice over.
const OVERSIZE_CONTENT = 32 * 1024 * 1024;

test("a request far over the size limit raises ResourceExhaustedError explaining max_request_bytes", async () => {
  const client = new EngramClient({ address: server.address, apiKey: server.tenants.A.key });
  try {
    const space = `clients/typescript-oversize-${Date.now()}`;
    const request = create(ProposeMemoryRequestSchema, {
      proposal: { space, content: "x".repeat(OVERSIZE_CONTENT), confidence: 1 },
      requestId: `ts-${randomUUID()}`,
    });
    const size = toBinary(ProposeMemoryRequestSchema, request).length;
    const error = await client.lifecycle.proposeMemory(request).then(
      () => assert.fail("expected an error"),
      (e: unknown) => e,
    );
    assert.ok(error instanceof ResourceExhaustedError, String(error));
    const grouped = String(size).replace(/\B(?=(\d{3})+$)/g, ",");
    assert.ok(error.rawMessage.startsWith(`the request is ${grouped} bytes, far over the server's size limit`), error.rawMessage);
    for (const words of ["max_request_bytes", "ENGRAM_MAX_REQUEST_BYTES", "split the batch"]) {
      assert.ok(error.rawMessage.includes(words), error.rawMessage);
    }
    assert.equal(error.quotaViolations.length, 1);
    assert.equal(error.quotaViolations[0].subject, "request");
    assert.ok(error.quotaViolations[0].description.startsWith("max_request_bytes: "));
    // Only that call failed: the same client writes on.
    const after = await client.propose({ space, content: "After the refusal.", confidence: 1 });
    assert.ok(after.memory?.name);
  } finally {
    client.close();
  }
});
