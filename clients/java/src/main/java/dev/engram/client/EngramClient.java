package dev.engram.client;

import dev.engram.v1.AdminServiceGrpc;
import dev.engram.v1.AppendMessageRequest;
import dev.engram.v1.AppendMessageResponse;
import dev.engram.v1.ConfirmMemoryRequest;
import dev.engram.v1.DecisionsServiceGrpc;
import dev.engram.v1.EvidenceServiceGrpc;
import dev.engram.v1.GetMemoryRequest;
import dev.engram.v1.LifecycleServiceGrpc;
import dev.engram.v1.Memory;
import dev.engram.v1.MemoryProposal;
import dev.engram.v1.Policy;
import dev.engram.v1.PoolServiceGrpc;
import dev.engram.v1.ProposalResult;
import dev.engram.v1.ProposeMemoryRequest;
import dev.engram.v1.ReadConsistency;
import dev.engram.v1.RecallRequest;
import dev.engram.v1.RecallResponse;
import dev.engram.v1.RecallServiceGrpc;
import dev.engram.v1.RetractMemoryRequest;
import dev.engram.v1.SessionMessage;
import dev.engram.v1.SetPolicyRequest;
import dev.engram.v1.WatchTransitionsRequest;
import dev.engram.v1.WatchTransitionsResponse;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.grpc.CallCredentials;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ChannelCredentials;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Context;
import io.grpc.ForwardingClientCall;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A connection to an Engram server with the conventions every Engram client
 * shares:
 *
 * <ul>
 *   <li>the API key as call credentials ({@code authorization: Bearer <key>}) on
 *       every call;
 *   <li>a request id generated for every write that has a {@code request_id} field
 *       and is sent without one; UNAVAILABLE is retried by gRPC's own retry (the
 *       service config below), which resends the same message, so a retried write
 *       keeps its id and the server applies it once;
 *   <li>failures as {@link EngramException} subclasses with the BadRequest field
 *       and QuotaFailure violations decoded, and gRPC core's bare refusal of a
 *       request far over the server's size limit explained;
 *   <li>server streams as iterators ({@link ServerStream}).
 * </ul>
 *
 * <p>The blocking stubs of every service ({@link #lifecycle()}, {@link #recall()}...)
 * carry every RPC; {@link #channel()} builds async or future stubs with the same
 * conventions. The methods below are shortcuts for the common calls.
 */
public final class EngramClient implements AutoCloseable {
  /** Where {@code engram serve} listens by default. */
  public static final String DEFAULT_ADDRESS = "127.0.0.1:50051";

  private static final List<String> SERVICES =
      List.of(
          "engram.v1.LifecycleService",
          "engram.v1.RecallService",
          "engram.v1.AdminService",
          "engram.v1.PoolService",
          "engram.v1.EvidenceService",
          "engram.v1.DecisionsService");

  private final String address;
  private final ManagedChannel managed;
  private final Channel channel;
  private final LifecycleServiceGrpc.LifecycleServiceBlockingStub lifecycle;
  private final RecallServiceGrpc.RecallServiceBlockingStub recall;
  private final AdminServiceGrpc.AdminServiceBlockingStub admin;
  private final PoolServiceGrpc.PoolServiceBlockingStub pool;
  private final EvidenceServiceGrpc.EvidenceServiceBlockingStub evidence;
  private final DecisionsServiceGrpc.DecisionsServiceBlockingStub decisions;

  /** The addresses every Engram client takes. */
  public static final String ADDRESS_FORMS =
      "host:port, http://host:port (plaintext) or https://host:port (TLS)";

  /** gRPC's own target syntax ({@code dns:///host:port}, ...), passed through unchanged. */
  private static final List<String> GRPC_TARGET_SCHEMES =
      List.of("dns", "unix", "unix-abstract", "ipv4", "ipv6", "xds");

  /**
   * The gRPC target of an address, and whether its scheme asks for TLS: {@code host:port} and
   * {@code http://host:port} are plaintext, {@code https://host:port} is TLS. gRPC's own target
   * syntax ({@code dns:///host:port}, ...) passes through unchanged. Any other scheme ({@code
   * grpc://host:port}) is refused with the forms to use: gRPC finds no resolver for it.
   *
   * @throws IllegalArgumentException for an http(s) address with a path, or an unknown scheme
   */
  public static Map.Entry<String, Boolean> splitAddress(String address) {
    int sep = address.indexOf("://");
    String scheme = sep < 0 ? "" : address.substring(0, sep).toLowerCase(java.util.Locale.ROOT);
    if (sep < 0 || GRPC_TARGET_SCHEMES.contains(scheme)) {
      return Map.entry(address, false);
    }
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new IllegalArgumentException(
          "address '" + address + "': unknown scheme '" + address.substring(0, sep)
              + "'; expected " + ADDRESS_FORMS);
    }
    String rest = address.substring(sep + 3);
    if (rest.endsWith("/")) {
      rest = rest.substring(0, rest.length() - 1);
    }
    if (rest.isEmpty() || rest.contains("/")) {
      throw new IllegalArgumentException(
          "address '" + address + "': expected " + ADDRESS_FORMS + ", with no path");
    }
    boolean tls = scheme.equals("https");
    if (!rest.matches(".*:\\d+")) {
      // A URL's default port, as the TypeScript client has it; gRPC alone would take 443
      // for http:// too.
      rest += tls ? ":443" : ":80";
    }
    return Map.entry(rest, tls);
  }

  private EngramClient(Builder b) {
    Map.Entry<String, Boolean> target = splitAddress(b.address);
    this.address = target.getKey();
    ChannelCredentials credentials =
        b.tls || target.getValue()
            ? TlsChannelCredentials.create()
            : InsecureChannelCredentials.create();
    List<ClientInterceptor> interceptors = new ArrayList<>(b.interceptors);
    // Run first (added last): the key, then the request id.
    interceptors.add(new RequestIds());
    if (b.apiKey != null && !b.apiKey.isEmpty()) {
      interceptors.add(new WithCredentials(new Bearer(b.apiKey)));
    }
    this.managed =
        Grpc.newChannelBuilder(this.address, credentials)
            .defaultServiceConfig(retryConfig(b))
            .enableRetry()
            .build();
    this.channel = io.grpc.ClientInterceptors.intercept(managed, interceptors);
    this.lifecycle = LifecycleServiceGrpc.newBlockingStub(channel);
    this.recall = RecallServiceGrpc.newBlockingStub(channel);
    this.admin = AdminServiceGrpc.newBlockingStub(channel);
    this.pool = PoolServiceGrpc.newBlockingStub(channel);
    this.evidence = EvidenceServiceGrpc.newBlockingStub(channel);
    this.decisions = DecisionsServiceGrpc.newBlockingStub(channel);
  }

  /** A client from ENGRAM_ADDRESS and ENGRAM_API_KEY (or the defaults). */
  public static EngramClient fromEnvironment() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Options of an EngramClient. */
  public static final class Builder {
    private String address = envOr("ENGRAM_ADDRESS", DEFAULT_ADDRESS);
    private String apiKey = System.getenv("ENGRAM_API_KEY");
    private boolean tls;
    private int maxAttempts = 3;
    private Duration initialBackoff = Duration.ofMillis(100);
    private Duration maxBackoff = Duration.ofSeconds(2);
    private double multiplier = 2;
    private final List<ClientInterceptor> interceptors = new ArrayList<>();

    /**
     * {@code host:port}, {@code http://host:port} or {@code https://host:port} (TLS) (default
     * ENGRAM_ADDRESS, else 127.0.0.1:50051).
     */
    public Builder address(String address) {
      this.address = address;
      return this;
    }

    /** The API key (default ENGRAM_API_KEY); null or empty sends none. */
    public Builder apiKey(String apiKey) {
      this.apiKey = apiKey;
      return this;
    }

    /** TLS with the system's trust store (default: plaintext). */
    public Builder tls(boolean tls) {
      this.tls = tls;
      return this;
    }

    /** Retries of UNAVAILABLE: attempts in all (1 disables), backoff bounds, growth. */
    public Builder retry(int maxAttempts, Duration initialBackoff, Duration maxBackoff, double multiplier) {
      this.maxAttempts = maxAttempts;
      this.initialBackoff = initialBackoff;
      this.maxBackoff = maxBackoff;
      this.multiplier = multiplier;
      return this;
    }

    /** An extra interceptor, run after the client's own. */
    public Builder intercept(ClientInterceptor interceptor) {
      this.interceptors.add(0, interceptor);
      return this;
    }

    public EngramClient build() {
      return new EngramClient(this);
    }

    private static String envOr(String name, String fallback) {
      String value = System.getenv(name);
      return value == null || value.isEmpty() ? fallback : value;
    }
  }

  private static Map<String, ?> retryConfig(Builder b) {
    List<Map<String, ?>> names = new ArrayList<>();
    for (String service : SERVICES) {
      names.add(Map.of("service", service));
    }
    if (b.maxAttempts <= 1) {
      return Map.of("methodConfig", List.of(Map.of("name", names)));
    }
    Map<String, Object> retryPolicy =
        Map.of(
            "maxAttempts", (double) b.maxAttempts,
            "initialBackoff", seconds(b.initialBackoff),
            "maxBackoff", seconds(b.maxBackoff),
            "backoffMultiplier", b.multiplier,
            "retryableStatusCodes", List.of("UNAVAILABLE"));
    return Map.of("methodConfig", List.of(Map.of("name", names, "retryPolicy", retryPolicy)));
  }

  private static String seconds(Duration d) {
    return String.format(java.util.Locale.ROOT, "%.9fs", d.toNanos() / 1e9);
  }

  /** The address this client connects to. */
  public String address() {
    return address;
  }

  /** The channel with the client's conventions, for async or future stubs. */
  public Channel channel() {
    return channel;
  }

  public LifecycleServiceGrpc.LifecycleServiceBlockingStub lifecycle() {
    return lifecycle;
  }

  public RecallServiceGrpc.RecallServiceBlockingStub recall() {
    return recall;
  }

  public AdminServiceGrpc.AdminServiceBlockingStub admin() {
    return admin;
  }

  public PoolServiceGrpc.PoolServiceBlockingStub pool() {
    return pool;
  }

  public EvidenceServiceGrpc.EvidenceServiceBlockingStub evidence() {
    return evidence;
  }

  public DecisionsServiceGrpc.DecisionsServiceBlockingStub decisions() {
    return decisions;
  }

  /** Runs a call of a generated stub, turning its failure into an EngramException. */
  public static <T> T call(Supplier<T> call) {
    try {
      return call.get();
    } catch (StatusRuntimeException e) {
      throw EngramException.from(e);
    }
  }

  /** {@code memories/{id}} for a bare id or a full name. */
  public static String memoryName(String nameOrId) {
    return nameOrId.startsWith("memories/") ? nameOrId : "memories/" + nameOrId;
  }

  /** Proposes one memory (a request id is generated). */
  public ProposalResult propose(MemoryProposal proposal) {
    return propose(proposal, "");
  }

  /** Proposes one memory with the caller's idempotency key. */
  public ProposalResult propose(MemoryProposal proposal, String requestId) {
    return call(
            () ->
                lifecycle.proposeMemory(
                    ProposeMemoryRequest.newBuilder()
                        .setProposal(proposal)
                        .setRequestId(requestId)
                        .build()))
        .getResult();
  }

  /** Moves a PENDING_CONFIRMATION memory to ACTIVE. */
  public Memory confirm(String name, String reason) {
    return call(
        () ->
            lifecycle.confirmMemory(
                ConfirmMemoryRequest.newBuilder().setName(memoryName(name)).setReason(reason).build()));
  }

  /** Retracts a memory with a reason. */
  public Memory retract(String name, String reason) {
    return call(
            () ->
                lifecycle.retractMemory(
                    RetractMemoryRequest.newBuilder()
                        .setName(memoryName(name))
                        .setReason(reason)
                        .build()))
        .getMemory();
  }

  /** One memory; {@link EngramException.NotFound} when it is not in the caller's tenant. */
  public Memory get(String name) {
    return call(() -> lifecycle.getMemory(GetMemoryRequest.newBuilder().setName(memoryName(name)).build()));
  }

  /** Searches spaces with read-your-writes consistency. */
  public RecallResponse recall(String query, String... spaces) {
    return call(
        () ->
            recall.recall(
                RecallRequest.newBuilder()
                    .setQuery(query)
                    .addAllSpaces(Arrays.asList(spaces))
                    .setConsistency(ReadConsistency.READ_CONSISTENCY_READ_YOUR_WRITES)
                    .build()));
  }

  /** Committed transitions as they happen (or replayed from a cursor); close() ends it. */
  public ServerStream<WatchTransitionsResponse> watch(WatchTransitionsRequest request) {
    Context.CancellableContext context = Context.current().withCancellation();
    Context previous = context.attach();
    try {
      Iterator<WatchTransitionsResponse> messages = call(() -> lifecycle.watchTransitions(request));
      return new ServerStream<>(context, messages);
    } finally {
      context.detach(previous);
    }
  }

  /** Appends one message to a session's working-memory buffer. */
  public AppendMessageResponse appendMessage(String space, String session, String role, String content) {
    return call(
        () ->
            lifecycle.appendMessage(
                AppendMessageRequest.newBuilder()
                    .setSpace(space)
                    .setSession(session)
                    .setMessage(SessionMessage.newBuilder().setRole(role).setContent(content))
                    .build()));
  }

  /** Sets the policy of a space (null or empty: the tenant's default policy). */
  public Policy setPolicy(String space, Policy policy) {
    String name = space == null || space.isEmpty() ? "policy" : "spaces/" + space + "/policy";
    return call(
        () ->
            lifecycle.setPolicy(
                SetPolicyRequest.newBuilder().setPolicy(policy.toBuilder().setName(name)).build()));
  }

  /** Closes the channel, waiting up to 5 seconds for calls in flight. */
  @Override
  public void close() {
    managed.shutdown();
    try {
      if (!managed.awaitTermination(5, TimeUnit.SECONDS)) {
        managed.shutdownNow();
      }
    } catch (InterruptedException e) {
      managed.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  /** {@code authorization: Bearer <key>}. */
  private static final class Bearer extends CallCredentials {
    private static final Metadata.Key<String> AUTHORIZATION =
        Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
    private final String key;

    Bearer(String key) {
      this.key = key;
    }

    @Override
    public void applyRequestMetadata(RequestInfo info, Executor executor, MetadataApplier applier) {
      Metadata headers = new Metadata();
      headers.put(AUTHORIZATION, "Bearer " + key);
      applier.apply(headers);
    }
  }

  /** Attaches the call credentials to every call of the channel. */
  private static final class WithCredentials implements ClientInterceptor {
    private final CallCredentials credentials;

    WithCredentials(CallCredentials credentials) {
      this.credentials = credentials;
    }

    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
      return next.newCall(method, options.withCallCredentials(credentials));
    }
  }

  /** Sets a fresh UUID as the request_id of a message that has an empty one. */
  private static final class RequestIds implements ClientInterceptor {
    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
      return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
        @Override
        public void sendMessage(Q message) {
          super.sendMessage(withRequestId(message));
        }
      };
    }

    @SuppressWarnings("unchecked")
    private static <Q> Q withRequestId(Q message) {
      if (message instanceof Message m) {
        FieldDescriptor field = m.getDescriptorForType().findFieldByName("request_id");
        if (field != null
            && field.getJavaType() == FieldDescriptor.JavaType.STRING
            && !field.isRepeated()
            && ((String) m.getField(field)).isEmpty()) {
          return (Q) m.toBuilder().setField(field, UUID.randomUUID().toString()).build();
        }
      }
      return message;
    }
  }
}
