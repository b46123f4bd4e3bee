// EngramClient: the generated Connect clients of every Engram service over gRPC,
// with the conventions every Engram client shares:
//   - the API key as `authorization: Bearer <key>` on every call;
//   - a request id generated for every write that has a `request_id` field and is
//     sent without one, kept across retries so the server applies the write once;
//   - UNAVAILABLE retried (unary calls) with exponential backoff and jitter;
//   - every failure raised as a typed EngramError with the decoded status details;
//   - server streams as async iterables.
import { randomUUID } from "node:crypto";
import { Code, ConnectError, createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { clone, create, type MessageInitShape } from "@bufbuild/protobuf";
import { AdminService } from "./gen/engram/v1/admin_pb.js";
import { DecisionsService } from "./gen/engram/v1/decisions_pb.js";
import { EvidenceService } from "./gen/engram/v1/evidence_pb.js";
import {
  LifecycleService,
  type AppendMessageResponse,
  type MemoryProposalSchema,
  type Policy,
  PolicySchema,
  type ProposalResult,
  type WatchTransitionsRequestSchema,
  type WatchTransitionsResponse,
} from "./gen/engram/v1/lifecycle_pb.js";
import { PoolService } from "./gen/engram/v1/pool_pb.js";
import {
  ReadConsistency,
  RecallService,
  type BuildContextRequestSchema,
  type BuildContextResponse,
  type RecallRequestSchema,
  type RecallResponse,
} from "./gen/engram/v1/recall_pb.js";
import type { Memory } from "./gen/engram/v1/types_pb.js";
import { EngramError, toEngramError } from "./errors.js";

/** The address `engram serve` listens on by default. */
export const DEFAULT_ADDRESS = "127.0.0.1:50051";

/** How UNAVAILABLE is retried. */
export interface RetryOptions {
  /** Attempts in all, first included (default 3; 1 disables retries). */
  maxAttempts?: number;
  /** Ceiling of the first wait in milliseconds (default 100). */
  initialBackoffMs?: number;
  /** Largest wait in milliseconds (default 2000). */
  maxBackoffMs?: number;
  /** Growth of the ceiling per attempt (default 2). */
  multiplier?: number;
}

export interface EngramClientOptions {
  /** `host:port` or an `http://` / `https://` URL; default `ENGRAM_ADDRESS`, else 127.0.0.1:50051. */
  address?: string;
  /** The API key; default `ENGRAM_API_KEY`. Without one, calls go out unauthenticated. */
  apiKey?: string;
  /** Retries of UNAVAILABLE. */
  retry?: RetryOptions;
  /** Server-side deadline of each unary attempt in milliseconds (default none). */
  timeoutMs?: number;
  /** Extra interceptors, run on every attempt after the client's own. */
  interceptors?: Interceptor[];
}

// Node's http2 refuses a response's headers while the session holds more than
// `maxSessionMemory` megabytes (default 10), and the data it has yet to send counts:
// a server answering before it has read a large request (gRPC core refuses a
// request far over Engram's max_request_bytes from its first 5 bytes) would leave
// the call hanging. That queued data is the caller's own request, already in
// memory, so the budget is raised to cover any gRPC message (4 GiB) plus the default.
const MAX_SESSION_MEMORY_MB = Math.ceil(2 ** 32 / 1_000_000) + 10;

/** Per-call options of the write helpers. */
export interface WriteOptions {
  /** Idempotency key; a fresh UUID when omitted. */
  requestId?: string;
  signal?: AbortSignal;
}

/** `memories/{id}` for a bare id or a full name. */
export function memoryName(nameOrId: string): string {
  return nameOrId.startsWith("memories/") ? nameOrId : `memories/${nameOrId}`;
}

/** The addresses every Engram client takes. */
export const ADDRESS_FORMS = "host:port, http://host:port (plaintext) or https://host:port (TLS)";

// gRPC's own target syntax (`dns:///host:port`, `unix:///path`), which the clients
// built on gRPC's resolvers take; this one speaks HTTP/2 to a URL and cannot.
const GRPC_TARGET = /^(dns|unix|unix-abstract|ipv4|ipv6|xds):/i;

function baseUrl(address: string): string {
  const other = /^([a-z][a-z0-9+.-]*):\/\//i.exec(address);
  if (other && !/^https?$/i.test(other[1])) {
    throw new Error(`address '${address}': unknown scheme '${other[1]}'; expected ${ADDRESS_FORMS}`);
  }
  if (GRPC_TARGET.test(address)) {
    throw new Error(
      `address '${address}': gRPC target syntax is not supported by the TypeScript client; expected ${ADDRESS_FORMS}`,
    );
  }
  const scheme = /^(https?):\/\/(.*)$/i.exec(address);
  if (!scheme) return `http://${address}`;
  const target = scheme[2].replace(/\/$/, "");
  // A path would be sent as a prefix of every method's path: refuse it, as the
  // other clients do, naming the forms to use.
  if (target === "" || target.includes("/")) {
    throw new Error(`address '${address}': expected ${ADDRESS_FORMS}, with no path`);
  }
  return `${scheme[1].toLowerCase()}://${target}`;
}

function hasRequestId(message: unknown): message is { requestId: string } {
  return typeof message === "object" && message !== null && typeof (message as { requestId?: unknown }).requestId === "string";
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });

async function* mapStreamErrors<T>(stream: AsyncIterable<T>): AsyncIterable<T> {
  try {
    yield* stream;
  } catch (error) {
    throw toEngramError(error);
  }
}

/**
 * The generated client with every failure turned into an EngramError: promises
 * (unary calls) reject with one, async iterables (server streams) throw one.
 * (Connect re-wraps whatever an interceptor throws into a ConnectError, so the
 * mapping happens here, outside the transport.)
 */
function typedErrors<T extends object>(client: T): T {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const result: unknown = value.apply(target, args);
        if (result instanceof Promise) {
          return result.catch((error: unknown) => {
            throw toEngramError(error);
          });
        }
        if (result !== null && typeof result === "object" && Symbol.asyncIterator in result) {
          return mapStreamErrors(result as AsyncIterable<unknown>);
        }
        return result;
      };
    },
  });
}

/** Request ids and retries of UNAVAILABLE (the outermost interceptor). */
function conventions(retry: Required<RetryOptions>, timeoutMs: number | undefined): Interceptor {
  return (next) => async (req) => {
    if (!req.stream && hasRequestId(req.message) && req.message.requestId === "") {
      // On a copy: the caller's message is not changed.
      const message = clone(req.method.input, req.message);
      (message as unknown as { requestId: string }).requestId = randomUUID();
      req = { ...req, message };
    }
    if (timeoutMs !== undefined && !req.stream && !req.header.has("grpc-timeout")) {
      // The server's deadline for each attempt (Connect sets it from a call's own
      // `timeoutMs` option, which takes precedence).
      req.header.set("grpc-timeout", `${Math.max(1, Math.ceil(timeoutMs))}m`);
    }
    for (let attempt = 0; ; attempt++) {
      try {
        return await next(req);
      } catch (caught) {
        const code = ConnectError.from(caught).code;
        if (req.stream || code !== Code.Unavailable || attempt + 1 >= retry.maxAttempts || req.signal.aborted) {
          throw caught;
        }
        const ceiling = Math.min(retry.maxBackoffMs, retry.initialBackoffMs * retry.multiplier ** attempt);
        // Half fixed, half random: spreads the retries of many clients.
        await sleep(ceiling / 2 + Math.random() * (ceiling / 2), req.signal);
      }
    }
  };
}

function authorization(apiKey: string | undefined): Interceptor {
  return (next) => (req) => {
    if (apiKey) {
      req.header.set("authorization", `Bearer ${apiKey}`);
    }
    return next(req);
  };
}

/**
 * A connection to an Engram server.
 *
 * The generated clients of every service are its properties (`lifecycle`,
 * `recall`, `admin`, `pool`, `evidence`, `decisions`): every RPC is there, with
 * the client's conventions. The methods below are shortcuts for the common calls.
 */
export class EngramClient {
  readonly address: string;
  readonly lifecycle: Client<typeof LifecycleService>;
  readonly recallService: Client<typeof RecallService>;
  readonly admin: Client<typeof AdminService>;
  readonly pool: Client<typeof PoolService>;
  readonly evidence: Client<typeof EvidenceService>;
  readonly decisions: Client<typeof DecisionsService>;
  private readonly sessions: Http2SessionManager;

  constructor(options: EngramClientOptions = {}) {
    this.address = options.address ?? process.env.ENGRAM_ADDRESS ?? DEFAULT_ADDRESS;
    const apiKey = options.apiKey ?? process.env.ENGRAM_API_KEY;
    const retry: Required<RetryOptions> = {
      maxAttempts: 3,
      initialBackoffMs: 100,
      maxBackoffMs: 2000,
      multiplier: 2,
      ...options.retry,
    };
    const url = baseUrl(this.address);
    this.sessions = new Http2SessionManager(url, undefined, { maxSessionMemory: MAX_SESSION_MEMORY_MB });
    const transport = createGrpcTransport({
      baseUrl: url,
      sessionManager: this.sessions,
      interceptors: [conventions(retry, options.timeoutMs), authorization(apiKey), ...(options.interceptors ?? [])],
    });
    this.lifecycle = typedErrors(createClient(LifecycleService, transport));
    this.recallService = typedErrors(createClient(RecallService, transport));
    this.admin = typedErrors(createClient(AdminService, transport));
    this.pool = typedErrors(createClient(PoolService, transport));
    this.evidence = typedErrors(createClient(EvidenceService, transport));
    this.decisions = typedErrors(createClient(DecisionsService, transport));
  }

  /** Proposes one memory; the result says ACCEPTED, PENDING_CONFIRMATION, REJECTED, DUPLICATE or REINFORCED. */
  async propose(proposal: MessageInitShape<typeof MemoryProposalSchema>, options: WriteOptions = {}): Promise<ProposalResult> {
    const response = await this.lifecycle.proposeMemory(
      { proposal, requestId: options.requestId ?? "" },
      { signal: options.signal },
    );
    if (!response.result) throw new EngramError(Code.Internal, "ProposeMemory answered without a result");
    return response.result;
  }

  /** Moves a PENDING_CONFIRMATION memory to ACTIVE. */
  confirm(name: string, reason = "", options: WriteOptions = {}): Promise<Memory> {
    return this.lifecycle.confirmMemory(
      { name: memoryName(name), reason, requestId: options.requestId ?? "" },
      { signal: options.signal },
    );
  }

  /** Retracts a memory with a reason. */
  async retract(name: string, reason: string, options: WriteOptions = {}): Promise<Memory | undefined> {
    const response = await this.lifecycle.retractMemory(
      { name: memoryName(name), reason, requestId: options.requestId ?? "" },
      { signal: options.signal },
    );
    return response.memory;
  }

  /** One memory; NotFoundError when it does not exist in the caller's tenant. */
  get(name: string): Promise<Memory> {
    return this.lifecycle.getMemory({ name: memoryName(name) });
  }

  /** Searches spaces (and pools). Read-your-writes unless the request says otherwise. */
  recall(request: MessageInitShape<typeof RecallRequestSchema>): Promise<RecallResponse> {
    return this.recallService.recall({ consistency: ReadConsistency.READ_YOUR_WRITES, ...request });
  }

  /** Recall rendered as a context block for a prompt. */
  buildContext(request: MessageInitShape<typeof BuildContextRequestSchema>): Promise<BuildContextResponse> {
    return this.recallService.buildContext(request);
  }

  /** Committed transitions as they happen (or replayed from `cursor`), until `signal` aborts. */
  watch(
    request: MessageInitShape<typeof WatchTransitionsRequestSchema> = {},
    options: { signal?: AbortSignal } = {},
  ): AsyncIterable<WatchTransitionsResponse> {
    return this.lifecycle.watchTransitions(request, { signal: options.signal });
  }

  /** Appends one message to a session's working-memory buffer. */
  appendMessage(
    space: string,
    session: string,
    message: { role: string; content: string; metadata?: Record<string, string> },
    options: WriteOptions = {},
  ): Promise<AppendMessageResponse> {
    return this.lifecycle.appendMessage(
      { space, session, message, requestId: options.requestId ?? "" },
      { signal: options.signal },
    );
  }

  /** Sets the policy of one space (`space`) or of the tenant (no space). */
  setPolicy(space: string | undefined, policy: MessageInitShape<typeof PolicySchema>, options: WriteOptions = {}): Promise<Policy> {
    const message = create(PolicySchema, policy);
    message.name = space ? `spaces/${space}/policy` : "policy";
    return this.lifecycle.setPolicy({ policy: message, requestId: options.requestId ?? "" }, { signal: options.signal });
  }

  /** Closes the connection; calls in flight fail. */
  close(): void {
    this.sessions.abort();
  }
}
