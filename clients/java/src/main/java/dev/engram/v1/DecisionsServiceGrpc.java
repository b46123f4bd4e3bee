package dev.engram.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * DecisionsService is the "why" memory of a codebase. git records what changed,
 * when and by whom; it cannot hold why. This service mines commits into decision
 * records — title, rationale, alternatives, verbatim evidence, and anchors into
 * the code — and answers "why is this code like this?".
 * The server never reads a repository: the client (the `engram` CLI, an editor
 * hook, CI) reads its own git history and sends the commits. So nothing needs
 * repository credentials, and private code never leaves the client except the
 * excerpts it chooses to send. Code itself is never stored: anchors are pointers
 * (path, line range, commit), and evidence is short verbatim quotes.
 * Each decision is backed by an ordinary memory of kind DECISION, written through
 * the lifecycle write path (validators, dedup, privacy boundary, audit) into a
 * space of its own, so conversation recall never returns code decisions unless
 * asked, and a reversed decision is SUPERSEDED like any other memory. Mining is
 * idempotent: a decision's identity does not depend on commit hashes, so
 * re-ingesting a range, a rebase or a squash converges on the same records.
 * Scopes: IngestCommits, CreateDecision, RecordDecisionOutcome and IngestSession
 * need `write`; the rest need `read`.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class DecisionsServiceGrpc {

  private DecisionsServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "engram.v1.DecisionsService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.IngestCommitsRequest,
      dev.engram.v1.IngestCommitsResponse> getIngestCommitsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "IngestCommits",
      requestType = dev.engram.v1.IngestCommitsRequest.class,
      responseType = dev.engram.v1.IngestCommitsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.IngestCommitsRequest,
      dev.engram.v1.IngestCommitsResponse> getIngestCommitsMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.IngestCommitsRequest, dev.engram.v1.IngestCommitsResponse> getIngestCommitsMethod;
    if ((getIngestCommitsMethod = DecisionsServiceGrpc.getIngestCommitsMethod) == null) {
      synchronized (DecisionsServiceGrpc.class) {
        if ((getIngestCommitsMethod = DecisionsServiceGrpc.getIngestCommitsMethod) == null) {
          DecisionsServiceGrpc.getIngestCommitsMethod = getIngestCommitsMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.IngestCommitsRequest, dev.engram.v1.IngestCommitsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "IngestCommits"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.IngestCommitsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.IngestCommitsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new DecisionsServiceMethodDescriptorSupplier("IngestCommits"))
              .build();
        }
      }
    }
    return getIngestCommitsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.CreateDecisionRequest,
      dev.engram.v1.Decision> getCreateDecisionMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreateDecision",
      requestType = dev.engram.v1.CreateDecisionRequest.class,
      responseType = dev.engram.v1.Decision.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.CreateDecisionRequest,
      dev.engram.v1.Decision> getCreateDecisionMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.CreateDecisionRequest, dev.engram.v1.Decision> getCreateDecisionMethod;
    if ((getCreateDecisionMethod = DecisionsServiceGrpc.getCreateDecisionMethod) == null) {
      synchronized (DecisionsServiceGrpc.class) {
        if ((getCreateDecisionMethod = DecisionsServiceGrpc.getCreateDecisionMethod) == null) {
          DecisionsServiceGrpc.getCreateDecisionMethod = getCreateDecisionMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.CreateDecisionRequest, dev.engram.v1.Decision>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreateDecision"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.CreateDecisionRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Decision.getDefaultInstance()))
              .setSchemaDescriptor(new DecisionsServiceMethodDescriptorSupplier("CreateDecision"))
              .build();
        }
      }
    }
    return getCreateDecisionMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.GetDecisionRequest,
      dev.engram.v1.Decision> getGetDecisionMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetDecision",
      requestType = dev.engram.v1.GetDecisionRequest.class,
      responseType = dev.engram.v1.Decision.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.GetDecisionRequest,
      dev.engram.v1.Decision> getGetDecisionMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.GetDecisionRequest, dev.engram.v1.Decision> getGetDecisionMethod;
    if ((getGetDecisionMethod = DecisionsServiceGrpc.getGetDecisionMethod) == null) {
      synchronized (DecisionsServiceGrpc.class) {
        if ((getGetDecisionMethod = DecisionsServiceGrpc.getGetDecisionMethod) == null) {
          DecisionsServiceGrpc.getGetDecisionMethod = getGetDecisionMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.GetDecisionRequest, dev.engram.v1.Decision>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetDecision"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.GetDecisionRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Decision.getDefaultInstance()))
              .setSchemaDescriptor(new DecisionsServiceMethodDescriptorSupplier("GetDecision"))
              .build();
        }
      }
    }
    return getGetDecisionMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.ListDecisionsRequest,
      dev.engram.v1.ListDecisionsResponse> getListDecisionsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListDecisions",
      requestType = dev.engram.v1.ListDecisionsRequest.class,
      responseType = dev.engram.v1.ListDecisionsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.ListDecisionsRequest,
      dev.engram.v1.ListDecisionsResponse> getListDecisionsMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.ListDecisionsRequest, dev.engram.v1.ListDecisionsResponse> getListDecisionsMethod;
    if ((getListDecisionsMethod = DecisionsServiceGrpc.getListDecisionsMethod) == null) {
      synchronized (DecisionsServiceGrpc.class) {
        if ((getListDecisionsMethod = DecisionsServiceGrpc.getListDecisionsMethod) == null) {
          DecisionsServiceGrpc.getListDecisionsMethod = getListDecisionsMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.ListDecisionsRequest, dev.engram.v1.ListDecisionsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListDecisions"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListDecisionsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListDecisionsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new DecisionsServiceMethodDescriptorSupplier("ListDecisions"))
              .build();
        }
      }
    }
    return getListDecisionsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.SearchDecisionsRequest,
      dev.engram.v1.SearchDecisionsResponse> getSearchDecisionsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SearchDecisions",
      requestType = dev.engram.v1.SearchDecisionsRequest.class,
      responseType = dev.engram.v1.SearchDecisionsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.SearchDecisionsRequest,
      dev.engram.v1.SearchDecisionsResponse> getSearchDecisionsMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.SearchDecisionsRequest, dev.engram.v1.SearchDecisionsResponse> getSearchDecisionsMethod;
    if ((getSearchDecisionsMethod = DecisionsServiceGrpc.getSearchDecisionsMethod) == null) {
      synchronized (DecisionsServiceGrpc.class) {
        if ((getSearchDecisionsMethod = DecisionsServiceGrpc.getSearchDecisionsMethod) == null) {
          DecisionsServiceGrpc.getSearchDecisionsMethod = getSearchDecisionsMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.SearchDecisionsRequest, dev.engram.v1.SearchDecisionsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SearchDecisions"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.SearchDecisionsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.SearchDecisionsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new DecisionsServiceMethodDescriptorSupplier("SearchDecisions"))
              .build();
        }
      }
    }
    return getSearchDecisionsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.ExplainCodeRequest,
      dev.engram.v1.ExplainCodeResponse> getExplainCodeMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ExplainCode",
      requestType = dev.engram.v1.ExplainCodeRequest.class,
      responseType = dev.engram.v1.ExplainCodeResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.ExplainCodeRequest,
      dev.engram.v1.ExplainCodeResponse> getExplainCodeMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.ExplainCodeRequest, dev.engram.v1.ExplainCodeResponse> getExplainCodeMethod;
    if ((getExplainCodeMethod = DecisionsServiceGrpc.getExplainCodeMethod) == null) {
      synchronized (DecisionsServiceGrpc.class) {
        if ((getExplainCodeMethod = DecisionsServiceGrpc.getExplainCodeMethod) == null) {
          DecisionsServiceGrpc.getExplainCodeMethod = getExplainCodeMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.ExplainCodeRequest, dev.engram.v1.ExplainCodeResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ExplainCode"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ExplainCodeRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ExplainCodeResponse.getDefaultInstance()))
              .setSchemaDescriptor(new DecisionsServiceMethodDescriptorSupplier("ExplainCode"))
              .build();
        }
      }
    }
    return getExplainCodeMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.RecordDecisionOutcomeRequest,
      dev.engram.v1.Decision> getRecordDecisionOutcomeMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RecordDecisionOutcome",
      requestType = dev.engram.v1.RecordDecisionOutcomeRequest.class,
      responseType = dev.engram.v1.Decision.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.RecordDecisionOutcomeRequest,
      dev.engram.v1.Decision> getRecordDecisionOutcomeMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.RecordDecisionOutcomeRequest, dev.engram.v1.Decision> getRecordDecisionOutcomeMethod;
    if ((getRecordDecisionOutcomeMethod = DecisionsServiceGrpc.getRecordDecisionOutcomeMethod) == null) {
      synchronized (DecisionsServiceGrpc.class) {
        if ((getRecordDecisionOutcomeMethod = DecisionsServiceGrpc.getRecordDecisionOutcomeMethod) == null) {
          DecisionsServiceGrpc.getRecordDecisionOutcomeMethod = getRecordDecisionOutcomeMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.RecordDecisionOutcomeRequest, dev.engram.v1.Decision>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RecordDecisionOutcome"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.RecordDecisionOutcomeRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Decision.getDefaultInstance()))
              .setSchemaDescriptor(new DecisionsServiceMethodDescriptorSupplier("RecordDecisionOutcome"))
              .build();
        }
      }
    }
    return getRecordDecisionOutcomeMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.IngestSessionRequest,
      dev.engram.v1.IngestSessionResponse> getIngestSessionMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "IngestSession",
      requestType = dev.engram.v1.IngestSessionRequest.class,
      responseType = dev.engram.v1.IngestSessionResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.IngestSessionRequest,
      dev.engram.v1.IngestSessionResponse> getIngestSessionMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.IngestSessionRequest, dev.engram.v1.IngestSessionResponse> getIngestSessionMethod;
    if ((getIngestSessionMethod = DecisionsServiceGrpc.getIngestSessionMethod) == null) {
      synchronized (DecisionsServiceGrpc.class) {
        if ((getIngestSessionMethod = DecisionsServiceGrpc.getIngestSessionMethod) == null) {
          DecisionsServiceGrpc.getIngestSessionMethod = getIngestSessionMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.IngestSessionRequest, dev.engram.v1.IngestSessionResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "IngestSession"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.IngestSessionRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.IngestSessionResponse.getDefaultInstance()))
              .setSchemaDescriptor(new DecisionsServiceMethodDescriptorSupplier("IngestSession"))
              .build();
        }
      }
    }
    return getIngestSessionMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static DecisionsServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<DecisionsServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<DecisionsServiceStub>() {
        @java.lang.Override
        public DecisionsServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new DecisionsServiceStub(channel, callOptions);
        }
      };
    return DecisionsServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static DecisionsServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<DecisionsServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<DecisionsServiceBlockingV2Stub>() {
        @java.lang.Override
        public DecisionsServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new DecisionsServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return DecisionsServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static DecisionsServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<DecisionsServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<DecisionsServiceBlockingStub>() {
        @java.lang.Override
        public DecisionsServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new DecisionsServiceBlockingStub(channel, callOptions);
        }
      };
    return DecisionsServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static DecisionsServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<DecisionsServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<DecisionsServiceFutureStub>() {
        @java.lang.Override
        public DecisionsServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new DecisionsServiceFutureStub(channel, callOptions);
        }
      };
    return DecisionsServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * DecisionsService is the "why" memory of a codebase. git records what changed,
   * when and by whom; it cannot hold why. This service mines commits into decision
   * records — title, rationale, alternatives, verbatim evidence, and anchors into
   * the code — and answers "why is this code like this?".
   * The server never reads a repository: the client (the `engram` CLI, an editor
   * hook, CI) reads its own git history and sends the commits. So nothing needs
   * repository credentials, and private code never leaves the client except the
   * excerpts it chooses to send. Code itself is never stored: anchors are pointers
   * (path, line range, commit), and evidence is short verbatim quotes.
   * Each decision is backed by an ordinary memory of kind DECISION, written through
   * the lifecycle write path (validators, dedup, privacy boundary, audit) into a
   * space of its own, so conversation recall never returns code decisions unless
   * asked, and a reversed decision is SUPERSEDED like any other memory. Mining is
   * idempotent: a decision's identity does not depend on commit hashes, so
   * re-ingesting a range, a rebase or a squash converges on the same records.
   * Scopes: IngestCommits, CreateDecision, RecordDecisionOutcome and IngestSession
   * need `write`; the rest need `read`.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * Mines a batch of commits into decision records. Re-sending commits already
     * ingested costs nothing and changes nothing.
     * </pre>
     */
    default void ingestCommits(dev.engram.v1.IngestCommitsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.IngestCommitsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getIngestCommitsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Records a decision stated explicitly (by an agent mid-session, or a person),
     * with its anchors and evidence.
     * </pre>
     */
    default void createDecision(dev.engram.v1.CreateDecisionRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Decision> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreateDecisionMethod(), responseObserver);
    }

    /**
     * <pre>
     * Gets one decision.
     * </pre>
     */
    default void getDecision(dev.engram.v1.GetDecisionRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Decision> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetDecisionMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists decisions by repository, path and time.
     * </pre>
     */
    default void listDecisions(dev.engram.v1.ListDecisionsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListDecisionsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListDecisionsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Finds decisions that answer a natural-language question.
     * </pre>
     */
    default void searchDecisions(dev.engram.v1.SearchDecisionsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.SearchDecisionsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSearchDecisionsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Answers "why is this code like this?" for a file, a line range or a symbol:
     * the decisions anchored there, with their rationale and evidence.
     * </pre>
     */
    default void explainCode(dev.engram.v1.ExplainCodeRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ExplainCodeResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getExplainCodeMethod(), responseObserver);
    }

    /**
     * <pre>
     * Records what actually happened after a decision: its expectations met,
     * partly met or missed, with evidence. The latest record is the decision's
     * `outcome`; every record is kept in `outcome_history`.
     * </pre>
     */
    default void recordDecisionOutcome(dev.engram.v1.RecordDecisionOutcomeRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Decision> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRecordDecisionOutcomeMethod(), responseObserver);
    }

    /**
     * <pre>
     * Mines the decisions stated in a session's buffered conversation (working
     * memory) with the same extraction as commits; each decision has origin
     * "session" and quotes only what the conversation says.
     * </pre>
     */
    default void ingestSession(dev.engram.v1.IngestSessionRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.IngestSessionResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getIngestSessionMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service DecisionsService.
   * <pre>
   * DecisionsService is the "why" memory of a codebase. git records what changed,
   * when and by whom; it cannot hold why. This service mines commits into decision
   * records — title, rationale, alternatives, verbatim evidence, and anchors into
   * the code — and answers "why is this code like this?".
   * The server never reads a repository: the client (the `engram` CLI, an editor
   * hook, CI) reads its own git history and sends the commits. So nothing needs
   * repository credentials, and private code never leaves the client except the
   * excerpts it chooses to send. Code itself is never stored: anchors are pointers
   * (path, line range, commit), and evidence is short verbatim quotes.
   * Each decision is backed by an ordinary memory of kind DECISION, written through
   * the lifecycle write path (validators, dedup, privacy boundary, audit) into a
   * space of its own, so conversation recall never returns code decisions unless
   * asked, and a reversed decision is SUPERSEDED like any other memory. Mining is
   * idempotent: a decision's identity does not depend on commit hashes, so
   * re-ingesting a range, a rebase or a squash converges on the same records.
   * Scopes: IngestCommits, CreateDecision, RecordDecisionOutcome and IngestSession
   * need `write`; the rest need `read`.
   * </pre>
   */
  public static abstract class DecisionsServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return DecisionsServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service DecisionsService.
   * <pre>
   * DecisionsService is the "why" memory of a codebase. git records what changed,
   * when and by whom; it cannot hold why. This service mines commits into decision
   * records — title, rationale, alternatives, verbatim evidence, and anchors into
   * the code — and answers "why is this code like this?".
   * The server never reads a repository: the client (the `engram` CLI, an editor
   * hook, CI) reads its own git history and sends the commits. So nothing needs
   * repository credentials, and private code never leaves the client except the
   * excerpts it chooses to send. Code itself is never stored: anchors are pointers
   * (path, line range, commit), and evidence is short verbatim quotes.
   * Each decision is backed by an ordinary memory of kind DECISION, written through
   * the lifecycle write path (validators, dedup, privacy boundary, audit) into a
   * space of its own, so conversation recall never returns code decisions unless
   * asked, and a reversed decision is SUPERSEDED like any other memory. Mining is
   * idempotent: a decision's identity does not depend on commit hashes, so
   * re-ingesting a range, a rebase or a squash converges on the same records.
   * Scopes: IngestCommits, CreateDecision, RecordDecisionOutcome and IngestSession
   * need `write`; the rest need `read`.
   * </pre>
   */
  public static final class DecisionsServiceStub
      extends io.grpc.stub.AbstractAsyncStub<DecisionsServiceStub> {
    private DecisionsServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected DecisionsServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new DecisionsServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Mines a batch of commits into decision records. Re-sending commits already
     * ingested costs nothing and changes nothing.
     * </pre>
     */
    public void ingestCommits(dev.engram.v1.IngestCommitsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.IngestCommitsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getIngestCommitsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Records a decision stated explicitly (by an agent mid-session, or a person),
     * with its anchors and evidence.
     * </pre>
     */
    public void createDecision(dev.engram.v1.CreateDecisionRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Decision> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreateDecisionMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Gets one decision.
     * </pre>
     */
    public void getDecision(dev.engram.v1.GetDecisionRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Decision> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetDecisionMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists decisions by repository, path and time.
     * </pre>
     */
    public void listDecisions(dev.engram.v1.ListDecisionsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListDecisionsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListDecisionsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Finds decisions that answer a natural-language question.
     * </pre>
     */
    public void searchDecisions(dev.engram.v1.SearchDecisionsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.SearchDecisionsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSearchDecisionsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Answers "why is this code like this?" for a file, a line range or a symbol:
     * the decisions anchored there, with their rationale and evidence.
     * </pre>
     */
    public void explainCode(dev.engram.v1.ExplainCodeRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ExplainCodeResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getExplainCodeMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Records what actually happened after a decision: its expectations met,
     * partly met or missed, with evidence. The latest record is the decision's
     * `outcome`; every record is kept in `outcome_history`.
     * </pre>
     */
    public void recordDecisionOutcome(dev.engram.v1.RecordDecisionOutcomeRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Decision> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRecordDecisionOutcomeMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Mines the decisions stated in a session's buffered conversation (working
     * memory) with the same extraction as commits; each decision has origin
     * "session" and quotes only what the conversation says.
     * </pre>
     */
    public void ingestSession(dev.engram.v1.IngestSessionRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.IngestSessionResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getIngestSessionMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service DecisionsService.
   * <pre>
   * DecisionsService is the "why" memory of a codebase. git records what changed,
   * when and by whom; it cannot hold why. This service mines commits into decision
   * records — title, rationale, alternatives, verbatim evidence, and anchors into
   * the code — and answers "why is this code like this?".
   * The server never reads a repository: the client (the `engram` CLI, an editor
   * hook, CI) reads its own git history and sends the commits. So nothing needs
   * repository credentials, and private code never leaves the client except the
   * excerpts it chooses to send. Code itself is never stored: anchors are pointers
   * (path, line range, commit), and evidence is short verbatim quotes.
   * Each decision is backed by an ordinary memory of kind DECISION, written through
   * the lifecycle write path (validators, dedup, privacy boundary, audit) into a
   * space of its own, so conversation recall never returns code decisions unless
   * asked, and a reversed decision is SUPERSEDED like any other memory. Mining is
   * idempotent: a decision's identity does not depend on commit hashes, so
   * re-ingesting a range, a rebase or a squash converges on the same records.
   * Scopes: IngestCommits, CreateDecision, RecordDecisionOutcome and IngestSession
   * need `write`; the rest need `read`.
   * </pre>
   */
  public static final class DecisionsServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<DecisionsServiceBlockingV2Stub> {
    private DecisionsServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected DecisionsServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new DecisionsServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * Mines a batch of commits into decision records. Re-sending commits already
     * ingested costs nothing and changes nothing.
     * </pre>
     */
    public dev.engram.v1.IngestCommitsResponse ingestCommits(dev.engram.v1.IngestCommitsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getIngestCommitsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Records a decision stated explicitly (by an agent mid-session, or a person),
     * with its anchors and evidence.
     * </pre>
     */
    public dev.engram.v1.Decision createDecision(dev.engram.v1.CreateDecisionRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCreateDecisionMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Gets one decision.
     * </pre>
     */
    public dev.engram.v1.Decision getDecision(dev.engram.v1.GetDecisionRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetDecisionMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists decisions by repository, path and time.
     * </pre>
     */
    public dev.engram.v1.ListDecisionsResponse listDecisions(dev.engram.v1.ListDecisionsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListDecisionsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Finds decisions that answer a natural-language question.
     * </pre>
     */
    public dev.engram.v1.SearchDecisionsResponse searchDecisions(dev.engram.v1.SearchDecisionsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getSearchDecisionsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Answers "why is this code like this?" for a file, a line range or a symbol:
     * the decisions anchored there, with their rationale and evidence.
     * </pre>
     */
    public dev.engram.v1.ExplainCodeResponse explainCode(dev.engram.v1.ExplainCodeRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getExplainCodeMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Records what actually happened after a decision: its expectations met,
     * partly met or missed, with evidence. The latest record is the decision's
     * `outcome`; every record is kept in `outcome_history`.
     * </pre>
     */
    public dev.engram.v1.Decision recordDecisionOutcome(dev.engram.v1.RecordDecisionOutcomeRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRecordDecisionOutcomeMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Mines the decisions stated in a session's buffered conversation (working
     * memory) with the same extraction as commits; each decision has origin
     * "session" and quotes only what the conversation says.
     * </pre>
     */
    public dev.engram.v1.IngestSessionResponse ingestSession(dev.engram.v1.IngestSessionRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getIngestSessionMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service DecisionsService.
   * <pre>
   * DecisionsService is the "why" memory of a codebase. git records what changed,
   * when and by whom; it cannot hold why. This service mines commits into decision
   * records — title, rationale, alternatives, verbatim evidence, and anchors into
   * the code — and answers "why is this code like this?".
   * The server never reads a repository: the client (the `engram` CLI, an editor
   * hook, CI) reads its own git history and sends the commits. So nothing needs
   * repository credentials, and private code never leaves the client except the
   * excerpts it chooses to send. Code itself is never stored: anchors are pointers
   * (path, line range, commit), and evidence is short verbatim quotes.
   * Each decision is backed by an ordinary memory of kind DECISION, written through
   * the lifecycle write path (validators, dedup, privacy boundary, audit) into a
   * space of its own, so conversation recall never returns code decisions unless
   * asked, and a reversed decision is SUPERSEDED like any other memory. Mining is
   * idempotent: a decision's identity does not depend on commit hashes, so
   * re-ingesting a range, a rebase or a squash converges on the same records.
   * Scopes: IngestCommits, CreateDecision, RecordDecisionOutcome and IngestSession
   * need `write`; the rest need `read`.
   * </pre>
   */
  public static final class DecisionsServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<DecisionsServiceBlockingStub> {
    private DecisionsServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected DecisionsServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new DecisionsServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Mines a batch of commits into decision records. Re-sending commits already
     * ingested costs nothing and changes nothing.
     * </pre>
     */
    public dev.engram.v1.IngestCommitsResponse ingestCommits(dev.engram.v1.IngestCommitsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getIngestCommitsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Records a decision stated explicitly (by an agent mid-session, or a person),
     * with its anchors and evidence.
     * </pre>
     */
    public dev.engram.v1.Decision createDecision(dev.engram.v1.CreateDecisionRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreateDecisionMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Gets one decision.
     * </pre>
     */
    public dev.engram.v1.Decision getDecision(dev.engram.v1.GetDecisionRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetDecisionMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists decisions by repository, path and time.
     * </pre>
     */
    public dev.engram.v1.ListDecisionsResponse listDecisions(dev.engram.v1.ListDecisionsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListDecisionsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Finds decisions that answer a natural-language question.
     * </pre>
     */
    public dev.engram.v1.SearchDecisionsResponse searchDecisions(dev.engram.v1.SearchDecisionsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSearchDecisionsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Answers "why is this code like this?" for a file, a line range or a symbol:
     * the decisions anchored there, with their rationale and evidence.
     * </pre>
     */
    public dev.engram.v1.ExplainCodeResponse explainCode(dev.engram.v1.ExplainCodeRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getExplainCodeMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Records what actually happened after a decision: its expectations met,
     * partly met or missed, with evidence. The latest record is the decision's
     * `outcome`; every record is kept in `outcome_history`.
     * </pre>
     */
    public dev.engram.v1.Decision recordDecisionOutcome(dev.engram.v1.RecordDecisionOutcomeRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRecordDecisionOutcomeMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Mines the decisions stated in a session's buffered conversation (working
     * memory) with the same extraction as commits; each decision has origin
     * "session" and quotes only what the conversation says.
     * </pre>
     */
    public dev.engram.v1.IngestSessionResponse ingestSession(dev.engram.v1.IngestSessionRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getIngestSessionMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service DecisionsService.
   * <pre>
   * DecisionsService is the "why" memory of a codebase. git records what changed,
   * when and by whom; it cannot hold why. This service mines commits into decision
   * records — title, rationale, alternatives, verbatim evidence, and anchors into
   * the code — and answers "why is this code like this?".
   * The server never reads a repository: the client (the `engram` CLI, an editor
   * hook, CI) reads its own git history and sends the commits. So nothing needs
   * repository credentials, and private code never leaves the client except the
   * excerpts it chooses to send. Code itself is never stored: anchors are pointers
   * (path, line range, commit), and evidence is short verbatim quotes.
   * Each decision is backed by an ordinary memory of kind DECISION, written through
   * the lifecycle write path (validators, dedup, privacy boundary, audit) into a
   * space of its own, so conversation recall never returns code decisions unless
   * asked, and a reversed decision is SUPERSEDED like any other memory. Mining is
   * idempotent: a decision's identity does not depend on commit hashes, so
   * re-ingesting a range, a rebase or a squash converges on the same records.
   * Scopes: IngestCommits, CreateDecision, RecordDecisionOutcome and IngestSession
   * need `write`; the rest need `read`.
   * </pre>
   */
  public static final class DecisionsServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<DecisionsServiceFutureStub> {
    private DecisionsServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected DecisionsServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new DecisionsServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Mines a batch of commits into decision records. Re-sending commits already
     * ingested costs nothing and changes nothing.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.IngestCommitsResponse> ingestCommits(
        dev.engram.v1.IngestCommitsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getIngestCommitsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Records a decision stated explicitly (by an agent mid-session, or a person),
     * with its anchors and evidence.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Decision> createDecision(
        dev.engram.v1.CreateDecisionRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreateDecisionMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Gets one decision.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Decision> getDecision(
        dev.engram.v1.GetDecisionRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetDecisionMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists decisions by repository, path and time.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.ListDecisionsResponse> listDecisions(
        dev.engram.v1.ListDecisionsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListDecisionsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Finds decisions that answer a natural-language question.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.SearchDecisionsResponse> searchDecisions(
        dev.engram.v1.SearchDecisionsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSearchDecisionsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Answers "why is this code like this?" for a file, a line range or a symbol:
     * the decisions anchored there, with their rationale and evidence.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.ExplainCodeResponse> explainCode(
        dev.engram.v1.ExplainCodeRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getExplainCodeMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Records what actually happened after a decision: its expectations met,
     * partly met or missed, with evidence. The latest record is the decision's
     * `outcome`; every record is kept in `outcome_history`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Decision> recordDecisionOutcome(
        dev.engram.v1.RecordDecisionOutcomeRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRecordDecisionOutcomeMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Mines the decisions stated in a session's buffered conversation (working
     * memory) with the same extraction as commits; each decision has origin
     * "session" and quotes only what the conversation says.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.IngestSessionResponse> ingestSession(
        dev.engram.v1.IngestSessionRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getIngestSessionMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_INGEST_COMMITS = 0;
  private static final int METHODID_CREATE_DECISION = 1;
  private static final int METHODID_GET_DECISION = 2;
  private static final int METHODID_LIST_DECISIONS = 3;
  private static final int METHODID_SEARCH_DECISIONS = 4;
  private static final int METHODID_EXPLAIN_CODE = 5;
  private static final int METHODID_RECORD_DECISION_OUTCOME = 6;
  private static final int METHODID_INGEST_SESSION = 7;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final AsyncService serviceImpl;
    private final int methodId;

    MethodHandlers(AsyncService serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_INGEST_COMMITS:
          serviceImpl.ingestCommits((dev.engram.v1.IngestCommitsRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.IngestCommitsResponse>) responseObserver);
          break;
        case METHODID_CREATE_DECISION:
          serviceImpl.createDecision((dev.engram.v1.CreateDecisionRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Decision>) responseObserver);
          break;
        case METHODID_GET_DECISION:
          serviceImpl.getDecision((dev.engram.v1.GetDecisionRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Decision>) responseObserver);
          break;
        case METHODID_LIST_DECISIONS:
          serviceImpl.listDecisions((dev.engram.v1.ListDecisionsRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.ListDecisionsResponse>) responseObserver);
          break;
        case METHODID_SEARCH_DECISIONS:
          serviceImpl.searchDecisions((dev.engram.v1.SearchDecisionsRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.SearchDecisionsResponse>) responseObserver);
          break;
        case METHODID_EXPLAIN_CODE:
          serviceImpl.explainCode((dev.engram.v1.ExplainCodeRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.ExplainCodeResponse>) responseObserver);
          break;
        case METHODID_RECORD_DECISION_OUTCOME:
          serviceImpl.recordDecisionOutcome((dev.engram.v1.RecordDecisionOutcomeRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Decision>) responseObserver);
          break;
        case METHODID_INGEST_SESSION:
          serviceImpl.ingestSession((dev.engram.v1.IngestSessionRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.IngestSessionResponse>) responseObserver);
          break;
        default:
          throw new AssertionError();
      }
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public io.grpc.stub.StreamObserver<Req> invoke(
        io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        default:
          throw new AssertionError();
      }
    }
  }

  public static final io.grpc.ServerServiceDefinition bindService(AsyncService service) {
    return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
        .addMethod(
          getIngestCommitsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.IngestCommitsRequest,
              dev.engram.v1.IngestCommitsResponse>(
                service, METHODID_INGEST_COMMITS)))
        .addMethod(
          getCreateDecisionMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.CreateDecisionRequest,
              dev.engram.v1.Decision>(
                service, METHODID_CREATE_DECISION)))
        .addMethod(
          getGetDecisionMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.GetDecisionRequest,
              dev.engram.v1.Decision>(
                service, METHODID_GET_DECISION)))
        .addMethod(
          getListDecisionsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.ListDecisionsRequest,
              dev.engram.v1.ListDecisionsResponse>(
                service, METHODID_LIST_DECISIONS)))
        .addMethod(
          getSearchDecisionsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.SearchDecisionsRequest,
              dev.engram.v1.SearchDecisionsResponse>(
                service, METHODID_SEARCH_DECISIONS)))
        .addMethod(
          getExplainCodeMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.ExplainCodeRequest,
              dev.engram.v1.ExplainCodeResponse>(
                service, METHODID_EXPLAIN_CODE)))
        .addMethod(
          getRecordDecisionOutcomeMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.RecordDecisionOutcomeRequest,
              dev.engram.v1.Decision>(
                service, METHODID_RECORD_DECISION_OUTCOME)))
        .addMethod(
          getIngestSessionMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.IngestSessionRequest,
              dev.engram.v1.IngestSessionResponse>(
                service, METHODID_INGEST_SESSION)))
        .build();
  }

  private static abstract class DecisionsServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    DecisionsServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.engram.v1.DecisionsProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("DecisionsService");
    }
  }

  private static final class DecisionsServiceFileDescriptorSupplier
      extends DecisionsServiceBaseDescriptorSupplier {
    DecisionsServiceFileDescriptorSupplier() {}
  }

  private static final class DecisionsServiceMethodDescriptorSupplier
      extends DecisionsServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    DecisionsServiceMethodDescriptorSupplier(java.lang.String methodName) {
      this.methodName = methodName;
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.MethodDescriptor getMethodDescriptor() {
      return getServiceDescriptor().findMethodByName(methodName);
    }
  }

  private static volatile io.grpc.ServiceDescriptor serviceDescriptor;

  public static io.grpc.ServiceDescriptor getServiceDescriptor() {
    io.grpc.ServiceDescriptor result = serviceDescriptor;
    if (result == null) {
      synchronized (DecisionsServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new DecisionsServiceFileDescriptorSupplier())
              .addMethod(getIngestCommitsMethod())
              .addMethod(getCreateDecisionMethod())
              .addMethod(getGetDecisionMethod())
              .addMethod(getListDecisionsMethod())
              .addMethod(getSearchDecisionsMethod())
              .addMethod(getExplainCodeMethod())
              .addMethod(getRecordDecisionOutcomeMethod())
              .addMethod(getIngestSessionMethod())
              .build();
        }
      }
    }
    return result;
  }
}
