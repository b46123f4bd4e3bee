package dev.engram.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.engram.v1.LifecycleServiceGrpc;
import dev.engram.v1.MemoryProposal;
import dev.engram.v1.ProposalOutcome;
import dev.engram.v1.ProposalResult;
import dev.engram.v1.ProposeMemoryRequest;
import dev.engram.v1.ProposeMemoryResponse;
import dev.engram.v1.RecallRequest;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class EngramClientTest {
  /** A LifecycleService that answers UNAVAILABLE twice, then accepts. */
  static final class Flaky extends LifecycleServiceGrpc.LifecycleServiceImplBase {
    final List<String> requestIds = new CopyOnWriteArrayList<>();
    final List<String> keys = new CopyOnWriteArrayList<>();

    @Override
    public void proposeMemory(ProposeMemoryRequest request, StreamObserver<ProposeMemoryResponse> response) {
      requestIds.add(request.getRequestId());
      if (requestIds.size() < 3) {
        response.onError(Status.UNAVAILABLE.withDescription("shedding").asRuntimeException());
        return;
      }
      response.onNext(ProposeMemoryResponse.newBuilder()
          .setResult(ProposalResult.newBuilder().setOutcome(ProposalOutcome.PROPOSAL_OUTCOME_ACCEPTED))
          .build());
      response.onCompleted();
    }
  }

  @Test
  void unavailableIsRetriedWithTheSameGeneratedRequestId() throws Exception {
    Flaky flaky = new Flaky();
    Server server = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
        .addService(flaky)
        .build()
        .start();
    try (EngramClient client = EngramClient.builder()
        .address("127.0.0.1:" + server.getPort())
        .apiKey("k")
        .retry(3, Duration.ofMillis(1), Duration.ofMillis(2), 2)
        .build()) {
      ProposalResult result = client.propose(
          MemoryProposal.newBuilder().setSpace("s").setContent("c").setConfidence(1).build());
      assertEquals(ProposalOutcome.PROPOSAL_OUTCOME_ACCEPTED, result.getOutcome());
    } finally {
      server.shutdownNow();
    }
    assertEquals(3, flaky.requestIds.size());
    assertEquals(1, flaky.requestIds.stream().distinct().count());
    UUID.fromString(flaky.requestIds.get(0));
  }

  @Test
  void theAddressFormsAreThoseEveryClientTakes() {
    assertEquals(Map.entry("127.0.0.1:50051", false), EngramClient.splitAddress("127.0.0.1:50051"));
    assertEquals(
        Map.entry("127.0.0.1:50051", false), EngramClient.splitAddress("http://127.0.0.1:50051/"));
    assertEquals(
        Map.entry("engram.example:443", true), EngramClient.splitAddress("https://engram.example:443"));
    assertEquals(
        Map.entry("dns:///engram.example:50051", false),
        EngramClient.splitAddress("dns:///engram.example:50051"));
    IllegalArgumentException bad =
        assertThrows(IllegalArgumentException.class, () -> EngramClient.splitAddress("http://h:1/v1"));
    assertTrue(bad.getMessage().contains(EngramClient.ADDRESS_FORMS), bad.getMessage());
    for (String address : List.of("grpc://127.0.0.1:50051", "tcp://127.0.0.1:50051")) {
      IllegalArgumentException unknown =
          assertThrows(IllegalArgumentException.class, () -> EngramClient.splitAddress(address));
      assertTrue(unknown.getMessage().contains("unknown scheme"), unknown.getMessage());
      assertTrue(unknown.getMessage().contains(EngramClient.ADDRESS_FORMS), unknown.getMessage());
    }
    assertEquals(
        Map.entry("unix:///run/engram.sock", false), EngramClient.splitAddress("unix:///run/engram.sock"));
    // A URL without a port takes its scheme's, in every client.
    assertEquals(Map.entry("engram.internal:80", false), EngramClient.splitAddress("http://engram.internal"));
    assertEquals(Map.entry("engram.example:443", true), EngramClient.splitAddress("https://engram.example/"));
    assertEquals(Map.entry("[::1]:80", false), EngramClient.splitAddress("http://[::1]"));
    // An http:// address reaches the live server like host:port.
    try (EngramClient client =
        EngramClient.builder().address("http://" + TestServer.address()).apiKey(TestServer.key("A")).build()) {
      assertEquals(TestServer.address(), client.address());
      client.recall("anything", "address-forms");
    }
  }

  @Test
  void aRepeatedRequestIdReturnsTheFirstOutcome() {
    try (EngramClient client = EngramClient.builder().address(TestServer.address()).apiKey(TestServer.key("A")).build()) {
      String id = "java-" + UUID.randomUUID();
      MemoryProposal p = MemoryProposal.newBuilder()
          .setSpace("clients/java-ids-" + id.substring(5, 13)).setContent("Idempotent write.").setConfidence(1).build();
      ProposalResult first = client.propose(p, id);
      ProposalResult again = client.propose(p, id);
      assertEquals(ProposalOutcome.PROPOSAL_OUTCOME_ACCEPTED, again.getOutcome());
      assertEquals(first.getMemory().getName(), again.getMemory().getName());
    }
  }

  @Test
  void withoutAKeyACallIsUnauthenticated() {
    try (EngramClient client = EngramClient.builder().address(TestServer.address()).apiKey("").build()) {
      assertThrows(EngramException.Unauthenticated.class, () -> client.get("00000000-0000-0000-0000-000000000000"));
    }
  }

  @Test
  void anotherTenantsMemoryIsNotFound() {
    try (EngramClient client = EngramClient.builder().address(TestServer.address()).apiKey(TestServer.key("B")).build()) {
      assertThrows(EngramException.NotFound.class, () -> client.get("00000000-0000-0000-0000-000000000000"));
    }
  }

  @Test
  void badInputOnAGeneratedStubNamesTheField() {
    try (EngramClient client = EngramClient.builder().address(TestServer.address()).apiKey(TestServer.key("A")).build()) {
      EngramException.InvalidArgument e = assertThrows(EngramException.InvalidArgument.class,
          () -> EngramClient.call(() -> client.recall().recall(RecallRequest.newBuilder().addSpaces("s").build())));
      assertEquals("INVALID_ARGUMENT", e.codeName());
      assertTrue(e.fields().contains("query"), e.fieldViolations().toString());
    }
  }

  /**
   * Far over what the test server's transport accepts: four times its
   * max_request_bytes (4 MiB by default, so 16 MiB), twice over.
   */
  static final int OVERSIZE_CONTENT = 32 * 1024 * 1024;

  @Test
  void aRequestFarOverTheSizeLimitIsExplained() {
    try (EngramClient client = EngramClient.builder().address(TestServer.address()).apiKey(TestServer.key("A")).build()) {
      String id = "java-" + UUID.randomUUID();
      String space = "clients/java-oversize-" + id.substring(5, 13);
      ProposeMemoryRequest request = ProposeMemoryRequest.newBuilder()
          .setProposal(MemoryProposal.newBuilder().setSpace(space).setContent("x".repeat(OVERSIZE_CONTENT)).setConfidence(1))
          .setRequestId(id)
          .build();
      EngramException.ResourceExhausted e = assertThrows(EngramException.ResourceExhausted.class,
          () -> EngramClient.call(() -> client.lifecycle().proposeMemory(request)));
      String size = String.format(Locale.ROOT, "%,d", request.getSerializedSize());
      assertTrue(e.statusMessage().startsWith("the request is " + size + " bytes, far over the server's size limit"),
          e.statusMessage());
      for (String words : List.of("max_request_bytes", "ENGRAM_MAX_REQUEST_BYTES", "split the batch")) {
        assertTrue(e.statusMessage().contains(words), e.statusMessage());
      }
      assertEquals(1, e.quotaViolations().size());
      assertEquals("request", e.quotaViolations().get(0).subject());
      assertTrue(e.quotaViolations().get(0).description().startsWith("max_request_bytes: "));
      // Only that call failed: the same client writes on.
      ProposalResult after = client.propose(
          MemoryProposal.newBuilder().setSpace(space).setContent("After the refusal.").setConfidence(1).build());
      assertFalse(after.getMemory().getName().isEmpty());
    }
  }
}
