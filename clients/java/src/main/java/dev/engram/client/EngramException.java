package dev.engram.client;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.BadRequest;
import com.google.rpc.QuotaFailure;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every failure of a call through {@link EngramClient}: the gRPC code, its name, the
 * message and the decoded {@code google.rpc.Status} details. A subclass per code
 * the API uses ({@link NotFound}, {@link InvalidArgument}...), so callers catch
 * what they handle.
 */
public class EngramException extends RuntimeException {
  /** One invalid field of a request ({@code google.rpc.BadRequest.FieldViolation}). */
  public record FieldViolation(String field, String description) {}

  /** One limit a request went over ({@code google.rpc.QuotaFailure.Violation}). */
  public record QuotaViolation(String subject, String description) {}

  /**
   * The server's gRPC transport refusing a request far over the server's size limit
   * (more than four times max_request_bytes): gRPC core answers before Engram sees
   * the request, with only this text and no google.rpc.Status.
   */
  private static final Pattern TRANSPORT_OVERSIZE =
      Pattern.compile("^SERVER: Received message larger than max \\((\\d+) vs\\. (\\d+)\\)");

  /** The trailer that carries the google.rpc.Status of a failed call. */
  private static final Metadata.Key<byte[]> STATUS_DETAILS_KEY =
      Metadata.Key.of("grpc-status-details-bin", Metadata.BINARY_BYTE_MARSHALLER);

  private final Status.Code code;
  private final String statusMessage;
  private final List<Any> details;
  private final List<FieldViolation> fieldViolations;
  private final List<QuotaViolation> quotaViolations;

  EngramException(Status.Code code, String message, List<Any> details, Throwable cause) {
    super(codeName(code) + ": " + message, cause);
    this.code = code;
    this.statusMessage = message;
    this.details = List.copyOf(details);
    List<FieldViolation> violations = new ArrayList<>();
    List<QuotaViolation> quotas = new ArrayList<>();
    for (Any detail : details) {
      try {
        if (detail.is(BadRequest.class)) {
          for (BadRequest.FieldViolation v : detail.unpack(BadRequest.class).getFieldViolationsList()) {
            violations.add(new FieldViolation(v.getField(), v.getDescription()));
          }
        } else if (detail.is(QuotaFailure.class)) {
          for (QuotaFailure.Violation v : detail.unpack(QuotaFailure.class).getViolationsList()) {
            quotas.add(new QuotaViolation(v.getSubject(), v.getDescription()));
          }
        }
      } catch (InvalidProtocolBufferException e) {
        // an undecodable detail stays in details()
      }
    }
    this.fieldViolations = List.copyOf(violations);
    this.quotaViolations = List.copyOf(quotas);
  }

  /** The gRPC status code. */
  public Status.Code code() {
    return code;
  }

  /** The code's canonical name, e.g. {@code INVALID_ARGUMENT}. */
  public String codeName() {
    return codeName(code);
  }

  /** The status message, without the code. */
  public String statusMessage() {
    return statusMessage;
  }

  /** Every detail of the google.rpc.Status, packed. */
  public List<Any> details() {
    return details;
  }

  /** The field violations of a google.rpc.BadRequest detail (empty when none). */
  public List<FieldViolation> fieldViolations() {
    return fieldViolations;
  }

  /** The violations of a google.rpc.QuotaFailure detail (empty when none). */
  public List<QuotaViolation> quotaViolations() {
    return quotaViolations;
  }

  /** The names of the invalid fields. */
  public List<String> fields() {
    return fieldViolations.stream().map(FieldViolation::field).toList();
  }

  static String codeName(Status.Code code) {
    return code == Status.Code.CANCELLED ? "CANCELLED" : code.name();
  }

  /**
   * The EngramException for anything a gRPC call threw (a StatusRuntimeException or
   * StatusException); other throwables are wrapped as UNKNOWN. Use it around calls
   * of the generated stubs ({@link EngramClient#lifecycle()}...).
   */
  public static EngramException from(Throwable error) {
    if (error instanceof EngramException e) {
      return e;
    }
    Status status = Status.fromThrowable(error);
    com.google.rpc.Status rich = StatusProto.fromThrowable(error);
    List<Any> details = rich == null ? List.of() : rich.getDetailsList();
    String message = status.getDescription() == null ? "" : status.getDescription();
    // (StatusProto.fromThrowable makes up a google.rpc.Status when the call had
    // none, so the trailer itself tells whether the server sent one.)
    Metadata trailers = Status.trailersFromThrowable(error);
    boolean richStatusSent = trailers != null && trailers.containsKey(STATUS_DETAILS_KEY);
    if (!richStatusSent && status.getCode() == Status.Code.RESOURCE_EXHAUSTED) {
      ResourceExhausted oversize = transportOversize(message, error);
      if (oversize != null) {
        return oversize;
      }
    }
    return switch (status.getCode()) {
      case INVALID_ARGUMENT -> new InvalidArgument(message, details, error);
      case NOT_FOUND -> new NotFound(message, details, error);
      case ALREADY_EXISTS -> new AlreadyExists(message, details, error);
      case PERMISSION_DENIED -> new PermissionDenied(message, details, error);
      case UNAUTHENTICATED -> new Unauthenticated(message, details, error);
      case FAILED_PRECONDITION -> new FailedPrecondition(message, details, error);
      case ABORTED -> new Aborted(message, details, error);
      case RESOURCE_EXHAUSTED -> new ResourceExhausted(message, details, error);
      case UNAVAILABLE -> new Unavailable(message, details, error);
      case DEADLINE_EXCEEDED -> new DeadlineExceeded(message, details, error);
      default -> new EngramException(status.getCode(), message, details, error);
    };
  }

  /**
   * gRPC core's refusal of an oversize request, explained as Engram explains a
   * request up to four times its limit: the sizes, the setting, what to do, and a
   * QuotaFailure for subject {@code request}. Null when the text is another one.
   */
  private static ResourceExhausted transportOversize(String message, Throwable cause) {
    Matcher match = TRANSPORT_OVERSIZE.matcher(message);
    if (!match.lookingAt()) {
      return null;
    }
    long size;
    long limit;
    try {
      size = Long.parseLong(match.group(1));
      limit = Long.parseLong(match.group(2));
    } catch (NumberFormatException e) {
      return null;
    }
    String text = String.format(Locale.ROOT,
        "the request is %,d bytes, far over the server's size limit: its transport"
            + " refuses anything over %,d bytes, four times the server's limit per request"
            + " (setting max_request_bytes, environment ENGRAM_MAX_REQUEST_BYTES): send less per"
            + " call, e.g. split the batch, or have the operator raise it",
        size, limit);
    QuotaFailure quota = QuotaFailure.newBuilder()
        .addViolations(QuotaFailure.Violation.newBuilder()
            .setSubject("request")
            .setDescription("max_request_bytes: " + text))
        .build();
    return new ResourceExhausted(text, List.of(Any.pack(quota)), cause);
  }

  /** INVALID_ARGUMENT: the request is malformed; see {@link #fieldViolations()}. */
  public static final class InvalidArgument extends EngramException {
    InvalidArgument(String m, List<Any> d, Throwable c) {
      super(Status.Code.INVALID_ARGUMENT, m, d, c);
    }
  }

  /** NOT_FOUND: missing, or owned by another tenant. */
  public static final class NotFound extends EngramException {
    NotFound(String m, List<Any> d, Throwable c) {
      super(Status.Code.NOT_FOUND, m, d, c);
    }
  }

  /** ALREADY_EXISTS. */
  public static final class AlreadyExists extends EngramException {
    AlreadyExists(String m, List<Any> d, Throwable c) {
      super(Status.Code.ALREADY_EXISTS, m, d, c);
    }
  }

  /** PERMISSION_DENIED: the key lacks a scope. */
  public static final class PermissionDenied extends EngramException {
    PermissionDenied(String m, List<Any> d, Throwable c) {
      super(Status.Code.PERMISSION_DENIED, m, d, c);
    }
  }

  /** UNAUTHENTICATED: no key, or an unknown, revoked or expired one. */
  public static final class Unauthenticated extends EngramException {
    Unauthenticated(String m, List<Any> d, Throwable c) {
      super(Status.Code.UNAUTHENTICATED, m, d, c);
    }
  }

  /** FAILED_PRECONDITION: the resource is in the wrong state. */
  public static final class FailedPrecondition extends EngramException {
    FailedPrecondition(String m, List<Any> d, Throwable c) {
      super(Status.Code.FAILED_PRECONDITION, m, d, c);
    }
  }

  /** ABORTED: a stale etag or a lost compare-and-set. */
  public static final class Aborted extends EngramException {
    Aborted(String m, List<Any> d, Throwable c) {
      super(Status.Code.ABORTED, m, d, c);
    }
  }

  /**
   * RESOURCE_EXHAUSTED: a quota or rate limit, or a request over the server's size
   * limit; see {@link #quotaViolations()}.
   */
  public static final class ResourceExhausted extends EngramException {
    ResourceExhausted(String m, List<Any> d, Throwable c) {
      super(Status.Code.RESOURCE_EXHAUSTED, m, d, c);
    }
  }

  /** UNAVAILABLE, after the retries. */
  public static final class Unavailable extends EngramException {
    Unavailable(String m, List<Any> d, Throwable c) {
      super(Status.Code.UNAVAILABLE, m, d, c);
    }
  }

  /** DEADLINE_EXCEEDED. */
  public static final class DeadlineExceeded extends EngramException {
    DeadlineExceeded(String m, List<Any> d, Throwable c) {
      super(Status.Code.DEADLINE_EXCEEDED, m, d, c);
    }
  }

  static RuntimeException wrap(RuntimeException error) {
    return error instanceof StatusRuntimeException ? from(error) : error;
  }
}
