// clients/scenario.json, run with the TypeScript client.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { EngramClient, EngramError, MemoryStatus, ProposalOutcome } from "../src/index.js";
import { repoRoot, startServer, type TestServer } from "./server.js";

interface Step {
  step: string;
  call: string;
  tenant: "A" | "B";
  args: Record<string, unknown>;
  expect: Record<string, unknown>;
  save?: string;
}

const scenario = JSON.parse(readFileSync(path.join(repoRoot, "clients/scenario.json"), "utf8")) as { steps: Step[] };

let server: TestServer;
const clients: Partial<Record<"A" | "B", EngramClient>> = {};

before(async () => {
  server = await startServer();
  for (const tenant of ["A", "B"] as const) {
    clients[tenant] = new EngramClient({ address: server.address, apiKey: server.tenants[tenant].key });
  }
});

after(() => {
  clients.A?.close();
  clients.B?.close();
  server?.stop();
});

function substitute(value: unknown, vars: Record<string, string>): unknown {
  if (typeof value === "string") {
    return value.replace(/\$\{(\w+)\}/g, (_, name: string) => {
      assert.ok(name in vars, `unknown variable ${name}`);
      return vars[name];
    });
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, vars));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, vars)]));
  }
  return value;
}

const status = (s: MemoryStatus | undefined) => MemoryStatus[s ?? MemoryStatus.UNSPECIFIED];

async function perform(client: EngramClient, call: string, a: Record<string, any>): Promise<Record<string, unknown>> {
  switch (call) {
    case "set_policy": {
      const policy = await client.setPolicy(a.space, { minConfidence: a.min_confidence });
      return { policy: policy.name };
    }
    case "propose": {
      const result = await client.propose({
        space: a.space,
        content: a.content,
        confidence: a.confidence,
        tags: a.tags ?? [],
      });
      return { outcome: ProposalOutcome[result.outcome], status: status(result.memory?.status), memory: result.memory?.name };
    }
    case "confirm": {
      const memory = await client.confirm(a.memory, a.reason);
      return { memory: memory.name, status: status(memory.status) };
    }
    case "recall": {
      const response = await client.recall({ query: a.query, spaces: a.spaces });
      return { top: response.hits[0]?.memory?.name };
    }
    case "watch": {
      const abort = new AbortController();
      try {
        const statuses = (a.statuses as string[]).map((s) => MemoryStatus[s as keyof typeof MemoryStatus]);
        for await (const event of client.watch({ space: a.space, cursor: a.cursor, statuses }, { signal: abort.signal })) {
          return { memory: event.entry?.memory, status: status(event.entry?.toStatus) };
        }
        return {};
      } finally {
        abort.abort();
      }
    }
    case "append_message": {
      const response = await client.appendMessage(a.space, a.session, { role: a.role, content: a.content });
      return { buffered_messages: response.bufferedMessages };
    }
    case "get": {
      const memory = await client.get(a.memory);
      return { memory: memory.name, status: status(memory.status) };
    }
    default:
      throw new Error(`unknown call ${call}`);
  }
}

test("the shared scenario", async (t) => {
  const vars: Record<string, string> = { space: `clients/typescript-${randomBytes(4).toString("hex")}` };
  for (const step of scenario.steps) {
    await t.test(step.step, async () => {
      const args = substitute(step.args, vars) as Record<string, unknown>;
      const expect = substitute(step.expect, vars) as Record<string, unknown>;
      let observed: Record<string, unknown>;
      try {
        observed = await perform(clients[step.tenant]!, step.call, args);
      } catch (error) {
        if (!(error instanceof EngramError) || !("error" in expect)) throw error;
        observed = { error: error.codeName, fields: error.fields };
      }
      for (const [key, want] of Object.entries(expect)) {
        if (key === "field") {
          assert.ok((observed.fields as string[]).includes(want as string), `${key}: ${JSON.stringify(observed)}`);
        } else {
          assert.equal(observed[key], want, `${key}: ${JSON.stringify(observed)}`);
        }
      }
      if (step.save) vars[step.save] = observed.memory as string;
    });
  }
});
