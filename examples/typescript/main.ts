// Engram from TypeScript, start to end: propose a memory, recall it, share it
// through a pool, and watch the space's transitions. Run it against a server
// (scripts/dev prints the address and a dev key):
//
//   export ENGRAM_ADDRESS=127.0.0.1:50051 ENGRAM_API_KEY=$(cat ../../.engram/dev-key)
//   npm install && npm start
//
// The key needs the read and write scopes (the dev key has them). Every run works
// in a space and a pool of its own, so it can run again and again.
import { randomBytes } from "node:crypto";
import { EngramClient, MemoryStatus, ProposalOutcome, PublishOutcome } from "engram-grpc";

const run = randomBytes(4).toString("hex");
const space = `examples/typescript-${run}`;
const client = new EngramClient(); // ENGRAM_ADDRESS and ENGRAM_API_KEY

try {
  // 1. Propose: the policy decides; a confident proposal is ACCEPTED.
  const result = await client.propose({
    space,
    content: "The staging cluster restarts every night at 02:00.",
    confidence: 0.9,
    tags: ["ops"],
  });
  const memory = result.memory!;
  // Enums are numbers in TypeScript; the generated enum object names them.
  console.log(`proposed: ${ProposalOutcome[result.outcome]} ${memory.name}`);

  // 2. Recall: read-your-writes, so the memory just written is found at once.
  const found = await client.recall({ query: "When does staging restart?", spaces: [space] });
  for (const hit of found.hits) {
    console.log(`recalled: ${hit.score.toFixed(2)} ${hit.memory?.content}`);
  }

  // 3. Share: a pool of this run; its creator is its owner and may publish.
  const pool = await client.pool.createPool({
    poolId: `examples-typescript-${run}`,
    pool: { displayName: "Ops knowledge (TypeScript example)" },
  });
  const published = await client.pool.publishMemory({ pool: pool.name, memory: memory.name });
  console.log(`published: ${PublishOutcome[published.outcome]} to ${pool.name}`);
  const shared = await client.recall({ query: "When does staging restart?", pools: [pool.name] });
  for (const hit of shared.hits) {
    console.log(`through ${hit.pool}: ${hit.memory?.content}`);
  }

  // 4. Watch: replay the space's transitions from the start (cursor "0"), and stop
  // at the one that made the memory ACTIVE; without the break it waits for more.
  for await (const event of client.watch({ space, cursor: "0" })) {
    const entry = event.entry!;
    console.log(`watched: ${MemoryStatus[entry.toStatus]} ${entry.memory}`);
    if (entry.memory === memory.name && entry.toStatus === MemoryStatus.ACTIVE) break;
  }
} finally {
  client.close();
}
