package dev.engram.client;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.engram.v1.MemoryProposal;
import dev.engram.v1.ProposalResult;
import dev.engram.v1.RecallHit;
import dev.engram.v1.WatchTransitionsRequest;
import dev.engram.v1.WatchTransitionsResponse;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The tour of docs/clients-java.md, executed (tests/test_client_docs.py checks that
 * the document shows exactly the region between the markers).
 */
class TourTest {
  private final StringBuilder out = new StringBuilder();

  private void println(Object line) {
    out.append(line).append('\n');
  }

  @Test
  void theTour() {
    String space = "agents/support-bot-" + UUID.randomUUID().toString().substring(0, 8);
    EngramClient.Builder builder =
        EngramClient.builder().address(TestServer.address()).apiKey(TestServer.key("A"));
    // tour:start
    try (EngramClient client = builder.build()) { // or EngramClient.fromEnvironment()
      // Write: Java prints the outcome by its proto name: PROPOSAL_OUTCOME_ACCEPTED
      // (or _PENDING_CONFIRMATION, _REJECTED, _DUPLICATE).
      ProposalResult result = client.propose(MemoryProposal.newBuilder()
          .setSpace(space)
          .setContent("Customer Ada prefers email over phone calls.")
          .setConfidence(0.9)
          .addTags("preferences")
          .build());
      println(result.getOutcome() + " " + result.getMemory().getName());

      // Read: hits, best first, with the score's breakdown.
      for (RecallHit hit : client.recall("How should I contact Ada?", space).getHitsList()) {
        println(String.format("%.3f %s", hit.getScore(), hit.getMemory().getContent()));
      }

      // Working memory: the conversation buffer of a session.
      var appended = client.appendMessage(space, "chat-42", "user", "Please send the invoice by email.");
      println(appended.getBufferedMessages() + " message(s) buffered");

      // Errors are EngramException subclasses and name the bad field.
      try {
        client.propose(MemoryProposal.newBuilder().setSpace(space).setContent(" ").setConfidence(0.9).build());
      } catch (EngramException.InvalidArgument e) {
        println("invalid: " + e.fields()); // [proposal.content]
      }
      try {
        client.get("memories/00000000-0000-0000-0000-000000000000");
      } catch (EngramException.NotFound e) {
        println("not found");
      }

      // Streams are iterators; close() ends the call. Replay the space's changes.
      WatchTransitionsRequest since = WatchTransitionsRequest.newBuilder().setSpace(space).setCursor("0").build();
      try (ServerStream<WatchTransitionsResponse> events = client.watch(since)) {
        for (WatchTransitionsResponse event : events) {
          println(event.getEntry().getToStatus() + " " + event.getEntry().getMemory());
          if (event.getEntry().getMemory().equals(result.getMemory().getName())) {
            break;
          }
        }
      }
    }
    // tour:end
    String got = out.toString();
    for (String want : new String[] {
        "PROPOSAL_OUTCOME_ACCEPTED memories/", "Ada prefers email", "1 message(s) buffered",
        "invalid: [proposal.content]", "not found", "MEMORY_STATUS_"}) {
      assertTrue(got.contains(want), want + " not in the tour's output:\n" + got);
    }
  }
}
