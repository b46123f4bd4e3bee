// Typed errors: every failed call rejects with an EngramError subclass chosen by
// its gRPC code, carrying the decoded google.rpc.Status details.
import { Code, ConnectError } from "@connectrpc/connect";
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";

/** One invalid field of a request (google.rpc.BadRequest.FieldViolation). */
export interface FieldViolation {
  /** Path of the field in the request, e.g. `proposal.content`. */
  readonly field: string;
  /** What is wrong with it. */
  readonly description: string;
}

/** One limit a request went over (google.rpc.QuotaFailure.Violation). */
export interface QuotaViolation {
  /** What is limited, e.g. `request`. */
  readonly subject: string;
  /** Which limit, and what to do. */
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
  /** The violations of a google.rpc.QuotaFailure detail (empty when none). */
  readonly quotaViolations: readonly QuotaViolation[];

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
      .flatMap((d) => decodeViolations(d.value))
      .map(([field, description]) => ({ field, description }));
    this.quotaViolations = details
      .filter((d) => d.type === "google.rpc.QuotaFailure")
      .flatMap((d) => decodeViolations(d.value))
      .map(([subject, description]) => ({ subject, description }));
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
  if (connect.code === Code.ResourceExhausted && !connect.metadata.has(STATUS_DETAILS_KEY)) {
    const oversize = TRANSPORT_OVERSIZE.exec(connect.rawMessage);
    if (oversize) {
      return transportOversize(oversize[1], oversize[2], connect.metadata, error);
    }
  }
  const Class = CLASSES[connect.code] ?? EngramError;
  return new Class(connect.code, connect.rawMessage, details, connect.metadata, error);
}

/** The trailer that carries the google.rpc.Status of a failed call. */
const STATUS_DETAILS_KEY = "grpc-status-details-bin";

// The server's gRPC transport refusing a request far over the server's size limit
// (more than four times max_request_bytes): gRPC core answers before Engram sees
// the request, with only this text and no google.rpc.Status.
const TRANSPORT_OVERSIZE = /^SERVER: Received message larger than max \((\d+) vs\. (\d+)\)/;

/**
 * gRPC core's refusal of an oversize request, explained as Engram explains a
 * request up to four times its limit: the sizes, the setting, what to do, and a
 * google.rpc.QuotaFailure for subject `request`.
 */
function transportOversize(size: string, limit: string, metadata: Headers, cause: unknown): ResourceExhaustedError {
  const text =
    `the request is ${groupThousands(size)} bytes, far over the server's size limit: its transport` +
    ` refuses anything over ${groupThousands(limit)} bytes, four times the server's limit per request` +
    " (setting max_request_bytes, environment ENGRAM_MAX_REQUEST_BYTES): send less per" +
    " call, e.g. split the batch, or have the operator raise it";
  // google.rpc.QuotaFailure { repeated Violation violations = 1; }
  // Violation { string subject = 1; string description = 2; }
  const quota = new BinaryWriter()
    .tag(1, WireType.LengthDelimited)
    .fork()
    .tag(1, WireType.LengthDelimited)
    .string("request")
    .tag(2, WireType.LengthDelimited)
    .string(`max_request_bytes: ${text}`)
    .join()
    .finish();
  return new ResourceExhaustedError(
    Code.ResourceExhausted,
    text,
    [{ type: "google.rpc.QuotaFailure", value: quota }],
    metadata,
    cause,
  );
}

/** Decimal digits with a comma between groups of three (16,777,216). */
function groupThousands(digits: string): string {
  return digits.replace(/^0+(?=\d)/, "").replace(/\B(?=(\d{3})+$)/g, ",");
}

/**
 * The (string 1, string 2) pairs of a message whose field 1 repeats them:
 * google.rpc.BadRequest's field violations (field, description) and
 * google.rpc.QuotaFailure's violations (subject, description).
 */
function decodeViolations(bytes: Uint8Array): [string, string][] {
  const violations: [string, string][] = [];
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [no, wireType] = reader.tag();
    if (no === 1 && wireType === WireType.LengthDelimited) {
      const inner = new BinaryReader(reader.bytes());
      let first = "";
      let second = "";
      while (inner.pos < inner.len) {
        const [n, w] = inner.tag();
        if (n === 1 && w === WireType.LengthDelimited) first = inner.string();
        else if (n === 2 && w === WireType.LengthDelimited) second = inner.string();
        else inner.skip(w);
      }
      violations.push([first, second]);
    } else {
      reader.skip(wireType);
    }
  }
  return violations;
}
