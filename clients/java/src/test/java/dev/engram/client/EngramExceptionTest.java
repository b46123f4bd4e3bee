package dev.engram.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Any;
import com.google.rpc.ErrorInfo;
import com.google.rpc.QuotaFailure;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The mapping of failed calls to typed exceptions, on constructed statuses (no server). */
class EngramExceptionTest {
  static final String CORE_OVERSIZE = "SERVER: Received message larger than max (67108864 vs. 16777216)";
  static final String EXPLAINED =
      "the request is 67,108,864 bytes, far over the server's size limit: its transport"
          + " refuses anything over 16,777,216 bytes, four times the server's limit per request"
          + " (setting max_request_bytes, environment ENGRAM_MAX_REQUEST_BYTES): send less per"
          + " call, e.g. split the batch, or have the operator raise it";

  @Test
  void grpcCoresBareRefusalOfAnOversizeRequestIsExplained() throws Exception {
    StatusRuntimeException core = Status.RESOURCE_EXHAUSTED.withDescription(CORE_OVERSIZE).asRuntimeException();
    EngramException e = EngramException.from(core);
    assertInstanceOf(EngramException.ResourceExhausted.class, e);
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, e.code());
    assertEquals(EXPLAINED, e.statusMessage());
    assertEquals("RESOURCE_EXHAUSTED: " + EXPLAINED, e.getMessage());
    assertEquals(
        List.of(new EngramException.QuotaViolation("request", "max_request_bytes: " + EXPLAINED)),
        e.quotaViolations());
    assertEquals(1, e.details().size());
    QuotaFailure quota = e.details().get(0).unpack(QuotaFailure.class);
    assertEquals("request", quota.getViolations(0).getSubject());
    assertEquals(core, e.getCause());
  }

  @Test
  void onlyGrpcCoresBareOversizeRefusalIsRewritten() {
    com.google.rpc.Status rich = com.google.rpc.Status.newBuilder()
        .setCode(Status.Code.RESOURCE_EXHAUSTED.value())
        .setMessage(CORE_OVERSIZE)
        .addDetails(Any.pack(ErrorInfo.newBuilder().setReason("QUOTA").build()))
        .build();
    Map<String, StatusRuntimeException> cases = Map.of(
        "another code", Status.INTERNAL.withDescription(CORE_OVERSIZE).asRuntimeException(),
        "another text", Status.RESOURCE_EXHAUSTED.withDescription("tenant quota of memories used up").asRuntimeException(),
        "the text not at the start",
            Status.RESOURCE_EXHAUSTED.withDescription("proxy: " + CORE_OVERSIZE).asRuntimeException(),
        // The server's own google.rpc.Status came with it: that is the answer.
        "a rich status", StatusProto.toStatusRuntimeException(rich));
    cases.forEach((name, error) -> {
      EngramException e = EngramException.from(error);
      assertEquals(error.getStatus().getCode(), e.code(), name);
      assertEquals(error.getStatus().getDescription(), e.statusMessage(), name);
      assertTrue(e.quotaViolations().isEmpty(), name);
    });
  }
}
