// Typed errors: every failed call rejects with an EngramError subclass chosen by
// its gRPC code, carrying the decoded google.rpc.Status details.
import { Code, ConnectError } from "@connectrpc/connect";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";

/** One invalid field of a request (google.rpc.BadRequest.FieldViolation). */
export interface FieldViolation {
  /** Path of the field in the request, e.g. `proposal.content`. */
  readonly field: string;
  /** What is wrong with it. */
  readonly description: string;
}

/** One google.protobuf.Any of the status details, undecoded. */
export interface StatusDetail {
  /** Fully qualified message name, e.g. `google.rpc.BadRequest`. */
  readonly type: string;
  /** The serialized message. */
  readonly value: Uint8Array;
}

const CODE_NAMES: Record<number, string> = {
  [Code.Canceled]: "CANCELLED",
  [Code.Unknown]: "UNKNOWN",
  [Code.InvalidArgument]: "INVALID_ARGUMENT",
  [Code.DeadlineExceeded]: "DEADLINE_EXCEEDED",
  [Code.NotFound]: "NOT_FOUND",
  [Code.AlreadyExists]: "ALREADY_EXISTS",
  [Code.PermissionDenied]: "PERMISSION_DENIED",
  [Code.ResourceExhausted]: "RESOURCE_EXHAUSTED",
  [Code.FailedPrecondition]: "FAILED_PRECONDITION",
  [Code.Aborted]: "ABORTED",
  [Code.OutOfRange]: "OUT_OF_RANGE",
  [Code.Unimplemented]: "UNIMPLEMENTED",
  [Code.Internal]: "INTERNAL",
  [Code.Unavailable]: "UNAVAILABLE",
  [Code.DataLoss]: "DATA_LOSS",
  [Code.Unauthenticated]: "UNAUTHENTICATED",
};

/**
 * Base class of every error a call of EngramClient raises: the gRPC code, its
 * name, and the decoded google.rpc.Status details. The underlying ConnectError is
 * its `cause`.
 */
export class EngramError extends Error {
  /** The gRPC status code. */
  readonly code: Code;
  /** The gRPC code's canonical name, e.g. `INVALID_ARGUMENT`. */
  readonly codeName: string;
  /** The status message, without the code prefix. */
  readonly rawMessage: string;
  /** Response headers and trailers of the failed call. */
  readonly metadata: Headers;
  /** Every detail of the google.rpc.Status, undecoded. */
  readonly details: readonly StatusDetail[];
  /** The field violations of a google.rpc.BadRequest detail (empty when none). */
  readonly fieldViolations: readonly FieldViolation[];

  constructor(
    code: Code,
    message: string,
    details: readonly StatusDetail[] = [],
    metadata?: ConstructorParameters<typeof Headers>[0],
    cause?: unknown,
  ) {
    const codeName = CODE_NAMES[code] ?? `CODE_${code}`;
    super(`${codeName}: ${message}`, { cause });
    this.name = new.target.name;
    this.code = code;
    this.codeName = codeName;
    this.rawMessage = message;
    this.metadata = new Headers(metadata);
    this.details = details;
    this.fieldViolations = details
      .filter((d) => d.type === "google.rpc.BadRequest")
      .flatMap((d) => decodeBadRequest(d.value));
  }

  /** The names of the invalid fields. */
  get fields(): string[] {
    return this.fieldViolations.map((v) => v.field);
  }
}

export class CancelledError extends EngramError {}
export class UnknownError extends EngramError {}
export class InvalidArgumentError extends EngramError {}
export class DeadlineExceededError extends EngramError {}
export class NotFoundError extends EngramError {}
export class AlreadyExistsError extends EngramError {}
export class PermissionDeniedError extends EngramError {}
export class ResourceExhaustedError extends EngramError {}
export class FailedPreconditionError extends EngramError {}
export class AbortedError extends EngramError {}
export class OutOfRangeError extends EngramError {}
export class UnimplementedError extends EngramError {}
export class InternalError extends EngramError {}
export class UnavailableError extends EngramError {}
export class DataLossError extends EngramError {}
export class UnauthenticatedError extends EngramError {}

const CLASSES: Record<number, typeof EngramError> = {
  [Code.Canceled]: CancelledError,
  [Code.Unknown]: UnknownError,
  [Code.InvalidArgument]: InvalidArgumentError,
  [Code.DeadlineExceeded]: DeadlineExceededError,
  [Code.NotFound]: NotFoundError,
  [Code.AlreadyExists]: AlreadyExistsError,
  [Code.PermissionDenied]: PermissionDeniedError,
  [Code.ResourceExhausted]: ResourceExhaustedError,
  [Code.FailedPrecondition]: FailedPreconditionError,
  [Code.Aborted]: AbortedError,
  [Code.OutOfRange]: OutOfRangeError,
  [Code.Unimplemented]: UnimplementedError,
  [Code.Internal]: InternalError,
  [Code.Unavailable]: UnavailableError,
  [Code.DataLoss]: DataLossError,
  [Code.Unauthenticated]: UnauthenticatedError,
};

/** The EngramError for anything a call threw (ConnectError or not). */
export function toEngramError(error: unknown): EngramError {
  if (error instanceof EngramError) {
    return error;
  }
  const connect = ConnectError.from(error);
  const details: StatusDetail[] = connect.details
    .filter((d): d is { type: string; value: Uint8Array } => "value" in d && d.value instanceof Uint8Array)
    .map((d) => ({ type: d.type, value: d.value }));
  const Class = CLASSES[connect.code] ?? EngramError;
  return new Class(connect.code, connect.rawMessage, details, connect.metadata, error);
}

function decodeBadRequest(bytes: Uint8Array): FieldViolation[] {
  // google.rpc.BadRequest { repeated FieldViolation field_violations = 1; }
  // FieldViolation { string field = 1; string description = 2; }
  const violations: FieldViolation[] = [];
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [no, wireType] = reader.tag();
    if (no === 1 && wireType === WireType.LengthDelimited) {
      const inner = new BinaryReader(reader.bytes());
      let field = "";
      let description = "";
      while (inner.pos < inner.len) {
        const [n, w] = inner.tag();
        if (n === 1 && w === WireType.LengthDelimited) field = inner.string();
        else if (n === 2 && w === WireType.LengthDelimited) description = inner.string();
        else inner.skip(w);
      }
      violations.push({ field, description });
    } else {
      reader.skip(wireType);
    }
  }
  return violations;
}
