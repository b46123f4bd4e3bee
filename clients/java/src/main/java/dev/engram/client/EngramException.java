package dev.engram.client;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.BadRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.util.ArrayList;
import java.util.List;

/**
 * Every failure of a call through {@link EngramClient}: the gRPC code, its name, the
 * message and the decoded {@code google.rpc.Status} details. A subclass per code
 * the API uses ({@link NotFound}, {@link InvalidArgument}...), so callers catch
 * what they handle.
 */
public class EngramException extends RuntimeException {
  /** One invalid field of a request ({@code google.rpc.BadRequest.FieldViolation}). */
  public record FieldViolation(String field, String description) {}

  private final Status.Code code;
  private final String statusMessage;
  private final List<Any> details;
  private final List<FieldViolation> fieldViolations;

  EngramException(Status.Code code, String message, List<Any> details, Throwable cause) {
    super(codeName(code) + ": " + message, cause);
    this.code = code;
    this.statusMessage = message;
    this.details = List.copyOf(details);
    List<FieldViolation> violations = new ArrayList<>();
    for (Any detail : details) {
      if (detail.is(BadRequest.class)) {
        try {
          for (BadRequest.FieldViolation v : detail.unpack(BadRequest.class).getFieldViolationsList()) {
            violations.add(new FieldViolation(v.getField(), v.getDescription()));
          }
        } catch (InvalidProtocolBufferException e) {
          // an undecodable detail stays in details()
        }
      }
    }
    this.fieldViolations = List.copyOf(violations);
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

  /** RESOURCE_EXHAUSTED: a quota or rate limit. */
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
