package example;

import dev.engram.client.EngramClient;
import dev.engram.client.ServerStream;
import dev.engram.v1.AuditEntry;
import dev.engram.v1.CreatePoolRequest;
import dev.engram.v1.Memory;
import dev.engram.v1.MemoryProposal;
import dev.engram.v1.MemoryStatus;
import dev.engram.v1.Pool;
import dev.engram.v1.ProposalResult;
import dev.engram.v1.PublishMemoryRequest;
import dev.engram.v1.PublishMemoryResponse;
import dev.engram.v1.ReadConsistency;
import dev.engram.v1.RecallHit;
import dev.engram.v1.RecallRequest;
import dev.engram.v1.WatchTransitionsRequest;
import dev.engram.v1.WatchTransitionsResponse;
import java.util.UUID;

/**
 * Engram from Java, start to end: propose a memory, recall it, share it through a
 * pool, and watch the space's transitions. Run it against a server (scripts/dev
 * prints the address and a dev key), after installing the client once:
 *
 * <pre>
 *   mvn -f ../../clients/java install -DskipTests
 *   export ENGRAM_ADDRESS=127.0.0.1:50051 ENGRAM_API_KEY=$(cat ../../.engram/dev-key)
 *   mvn -q compile exec:java
 * </pre>
 *
 * <p>The key needs the read and write scopes (the dev key has them). Every run works in a
 * space and a pool of its own, so it can run again and again.
 */
public final class Main {
  public static void main(String[] args) {
    String run = UUID.randomUUID().toString().substring(0, 8);
    String space = "examples/java-" + run;
    String query = "When does staging restart?";
    try (EngramClient client = EngramClient.fromEnvironment()) { // ENGRAM_ADDRESS, ENGRAM_API_KEY
      // 1. Propose: the policy decides; a confident proposal is ACCEPTED.
      ProposalResult result =
          client.propose(
              MemoryProposal.newBuilder()
                  .setSpace(space)
                  .setContent("The staging cluster restarts every night at 02:00.")
                  .setConfidence(0.9)
                  .addTags("ops")
                  .build());
      Memory memory = result.getMemory();
      // Java prints an enum by its full proto name: PROPOSAL_OUTCOME_ACCEPTED.
      System.out.println("proposed: " + result.getOutcome() + " " + memory.getName());

      // 2. Recall: read-your-writes, so the memory just written is found at once.
      for (RecallHit hit : client.recall(query, space).getHitsList()) {
        System.out.printf("recalled: %.2f %s%n", hit.getScore(), hit.getMemory().getContent());
      }

      // 3. Share: a pool of this run; its creator is its owner and may publish.
      Pool pool =
          EngramClient.call(
              () ->
                  client
                      .pool()
                      .createPool(
                          CreatePoolRequest.newBuilder()
                              .setPoolId("examples-java-" + run)
                              .setPool(
                                  Pool.newBuilder().setDisplayName("Ops knowledge (Java example)"))
                              .build()));
      PublishMemoryResponse published =
          EngramClient.call(
              () ->
                  client
                      .pool()
                      .publishMemory(
                          PublishMemoryRequest.newBuilder()
                              .setPool(pool.getName())
                              .setMemory(memory.getName())
                              .build()));
      System.out.println("published: " + published.getOutcome() + " to " + pool.getName());
      RecallRequest throughPool =
          RecallRequest.newBuilder()
              .setQuery(query)
              .addPools(pool.getName())
              .setConsistency(ReadConsistency.READ_CONSISTENCY_READ_YOUR_WRITES)
              .build();
      for (RecallHit hit : EngramClient.call(() -> client.recall().recall(throughPool)).getHitsList()) {
        System.out.println("through " + hit.getPool() + ": " + hit.getMemory().getContent());
      }

      // 4. Watch: replay the space's transitions from the start (cursor "0"), and stop
      // at the one that made the memory ACTIVE; without the break it waits for more.
      WatchTransitionsRequest replay =
          WatchTransitionsRequest.newBuilder().setSpace(space).setCursor("0").build();
      try (ServerStream<WatchTransitionsResponse> events = client.watch(replay)) {
        for (WatchTransitionsResponse event : events) {
          AuditEntry entry = event.getEntry();
          System.out.println("watched: " + entry.getToStatus() + " " + entry.getMemory());
          if (entry.getMemory().equals(memory.getName())
              && entry.getToStatus() == MemoryStatus.MEMORY_STATUS_ACTIVE) {
            break;
          }
        }
      }
    }
  }
}
