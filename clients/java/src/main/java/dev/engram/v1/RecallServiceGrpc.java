package dev.engram.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * RecallService is the read path: it finds the memories that answer a question and
 * turns them into prompt-ready context. Ranking fuses a dense (embedding) leg and a
 * lexical (BM25) leg, then applies the memory signals — slot match, importance,
 * power-law retention, recency — and the evidence adjustment, and explains every
 * score. Retracted, rejected and expired memories are never recalled; superseded
 * ones only when history is asked for.
 * It also owns:
 * - Engage, because its answer *is* recall: an agent sends the turn it just
 *   received and gets the relevant long-term context back in one round trip.
 *   Buffering the turn is a side effect that Engage delegates to the same
 *   working-memory code as LifecycleService.AppendMessage (nothing is proposed,
 *   so the governed write path has nothing to govern).
 * - Snapshots of a space, because a snapshot is a point-in-time copy of what
 *   recall can see in that space (its live memories), and listing and diffing
 *   snapshots are reads over that view. RestoreSnapshot is the one write here; it
 *   applies its changes as ordinary lifecycle transitions with audit rows in one
 *   transaction, so WatchTransitions and the audit log see every change a restore
 *   makes.
 * - The status of the derived search index (vectors and lexical terms), because
 *   that index exists only to serve recall.
 * Pool memories are recalled here too (RecallRequest.pools): membership is checked
 * on every such read, exactly as PoolService does.
 * Scopes: every RPC needs `read`, except Engage, CreateSnapshot, RestoreSnapshot
 * and DeleteSnapshot, which also need `write`.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class RecallServiceGrpc {

  private RecallServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "engram.v1.RecallService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.RecallRequest,
      dev.engram.v1.RecallResponse> getRecallMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Recall",
      requestType = dev.engram.v1.RecallRequest.class,
      responseType = dev.engram.v1.RecallResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.RecallRequest,
      dev.engram.v1.RecallResponse> getRecallMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.RecallRequest, dev.engram.v1.RecallResponse> getRecallMethod;
    if ((getRecallMethod = RecallServiceGrpc.getRecallMethod) == null) {
      synchronized (RecallServiceGrpc.class) {
        if ((getRecallMethod = RecallServiceGrpc.getRecallMethod) == null) {
          RecallServiceGrpc.getRecallMethod = getRecallMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.RecallRequest, dev.engram.v1.RecallResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Recall"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.RecallRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.RecallResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecallServiceMethodDescriptorSupplier("Recall"))
              .build();
        }
      }
    }
    return getRecallMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.BuildContextRequest,
      dev.engram.v1.BuildContextResponse> getBuildContextMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "BuildContext",
      requestType = dev.engram.v1.BuildContextRequest.class,
      responseType = dev.engram.v1.BuildContextResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.BuildContextRequest,
      dev.engram.v1.BuildContextResponse> getBuildContextMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.BuildContextRequest, dev.engram.v1.BuildContextResponse> getBuildContextMethod;
    if ((getBuildContextMethod = RecallServiceGrpc.getBuildContextMethod) == null) {
      synchronized (RecallServiceGrpc.class) {
        if ((getBuildContextMethod = RecallServiceGrpc.getBuildContextMethod) == null) {
          RecallServiceGrpc.getBuildContextMethod = getBuildContextMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.BuildContextRequest, dev.engram.v1.BuildContextResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "BuildContext"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.BuildContextRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.BuildContextResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecallServiceMethodDescriptorSupplier("BuildContext"))
              .build();
        }
      }
    }
    return getBuildContextMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.EngageRequest,
      dev.engram.v1.EngageResponse> getEngageMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Engage",
      requestType = dev.engram.v1.EngageRequest.class,
      responseType = dev.engram.v1.EngageResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.EngageRequest,
      dev.engram.v1.EngageResponse> getEngageMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.EngageRequest, dev.engram.v1.EngageResponse> getEngageMethod;
    if ((getEngageMethod = RecallServiceGrpc.getEngageMethod) == null) {
      synchronized (RecallServiceGrpc.class) {
        if ((getEngageMethod = RecallServiceGrpc.getEngageMethod) == null) {
          RecallServiceGrpc.getEngageMethod = getEngageMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.EngageRequest, dev.engram.v1.EngageResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Engage"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.EngageRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.EngageResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecallServiceMethodDescriptorSupplier("Engage"))
              .build();
        }
      }
    }
    return getEngageMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.CreateSnapshotRequest,
      dev.engram.v1.Snapshot> getCreateSnapshotMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreateSnapshot",
      requestType = dev.engram.v1.CreateSnapshotRequest.class,
      responseType = dev.engram.v1.Snapshot.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.CreateSnapshotRequest,
      dev.engram.v1.Snapshot> getCreateSnapshotMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.CreateSnapshotRequest, dev.engram.v1.Snapshot> getCreateSnapshotMethod;
    if ((getCreateSnapshotMethod = RecallServiceGrpc.getCreateSnapshotMethod) == null) {
      synchronized (RecallServiceGrpc.class) {
        if ((getCreateSnapshotMethod = RecallServiceGrpc.getCreateSnapshotMethod) == null) {
          RecallServiceGrpc.getCreateSnapshotMethod = getCreateSnapshotMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.CreateSnapshotRequest, dev.engram.v1.Snapshot>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreateSnapshot"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.CreateSnapshotRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Snapshot.getDefaultInstance()))
              .setSchemaDescriptor(new RecallServiceMethodDescriptorSupplier("CreateSnapshot"))
              .build();
        }
      }
    }
    return getCreateSnapshotMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.GetSnapshotRequest,
      dev.engram.v1.Snapshot> getGetSnapshotMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetSnapshot",
      requestType = dev.engram.v1.GetSnapshotRequest.class,
      responseType = dev.engram.v1.Snapshot.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.GetSnapshotRequest,
      dev.engram.v1.Snapshot> getGetSnapshotMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.GetSnapshotRequest, dev.engram.v1.Snapshot> getGetSnapshotMethod;
    if ((getGetSnapshotMethod = RecallServiceGrpc.getGetSnapshotMethod) == null) {
      synchronized (RecallServiceGrpc.class) {
        if ((getGetSnapshotMethod = RecallServiceGrpc.getGetSnapshotMethod) == null) {
          RecallServiceGrpc.getGetSnapshotMethod = getGetSnapshotMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.GetSnapshotRequest, dev.engram.v1.Snapshot>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetSnapshot"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.GetSnapshotRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Snapshot.getDefaultInstance()))
              .setSchemaDescriptor(new RecallServiceMethodDescriptorSupplier("GetSnapshot"))
              .build();
        }
      }
    }
    return getGetSnapshotMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.ListSnapshotsRequest,
      dev.engram.v1.ListSnapshotsResponse> getListSnapshotsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListSnapshots",
      requestType = dev.engram.v1.ListSnapshotsRequest.class,
      responseType = dev.engram.v1.ListSnapshotsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.ListSnapshotsRequest,
      dev.engram.v1.ListSnapshotsResponse> getListSnapshotsMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.ListSnapshotsRequest, dev.engram.v1.ListSnapshotsResponse> getListSnapshotsMethod;
    if ((getListSnapshotsMethod = RecallServiceGrpc.getListSnapshotsMethod) == null) {
      synchronized (RecallServiceGrpc.class) {
        if ((getListSnapshotsMethod = RecallServiceGrpc.getListSnapshotsMethod) == null) {
          RecallServiceGrpc.getListSnapshotsMethod = getListSnapshotsMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.ListSnapshotsRequest, dev.engram.v1.ListSnapshotsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListSnapshots"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListSnapshotsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListSnapshotsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecallServiceMethodDescriptorSupplier("ListSnapshots"))
              .build();
        }
      }
    }
    return getListSnapshotsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.RestoreSnapshotRequest,
      dev.engram.v1.RestoreSnapshotResponse> getRestoreSnapshotMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RestoreSnapshot",
      requestType = dev.engram.v1.RestoreSnapshotRequest.class,
      responseType = dev.engram.v1.RestoreSnapshotResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.RestoreSnapshotRequest,
      dev.engram.v1.RestoreSnapshotResponse> getRestoreSnapshotMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.RestoreSnapshotRequest, dev.engram.v1.RestoreSnapshotResponse> getRestoreSnapshotMethod;
    if ((getRestoreSnapshotMethod = RecallServiceGrpc.getRestoreSnapshotMethod) == null) {
      synchronized (RecallServiceGrpc.class) {
        if ((getRestoreSnapshotMethod = RecallServiceGrpc.getRestoreSnapshotMethod) == null) {
          RecallServiceGrpc.getRestoreSnapshotMethod = getRestoreSnapshotMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.RestoreSnapshotRequest, dev.engram.v1.RestoreSnapshotResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RestoreSnapshot"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.RestoreSnapshotRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.RestoreSnapshotResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecallServiceMethodDescriptorSupplier("RestoreSnapshot"))
              .build();
        }
      }
    }
    return getRestoreSnapshotMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.DeleteSnapshotRequest,
      com.google.protobuf.Empty> getDeleteSnapshotMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DeleteSnapshot",
      requestType = dev.engram.v1.DeleteSnapshotRequest.class,
      responseType = com.google.protobuf.Empty.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.DeleteSnapshotRequest,
      com.google.protobuf.Empty> getDeleteSnapshotMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.DeleteSnapshotRequest, com.google.protobuf.Empty> getDeleteSnapshotMethod;
    if ((getDeleteSnapshotMethod = RecallServiceGrpc.getDeleteSnapshotMethod) == null) {
      synchronized (RecallServiceGrpc.class) {
        if ((getDeleteSnapshotMethod = RecallServiceGrpc.getDeleteSnapshotMethod) == null) {
          RecallServiceGrpc.getDeleteSnapshotMethod = getDeleteSnapshotMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.DeleteSnapshotRequest, com.google.protobuf.Empty>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DeleteSnapshot"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.DeleteSnapshotRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  com.google.protobuf.Empty.getDefaultInstance()))
              .setSchemaDescriptor(new RecallServiceMethodDescriptorSupplier("DeleteSnapshot"))
              .build();
        }
      }
    }
    return getDeleteSnapshotMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.DiffSnapshotsRequest,
      dev.engram.v1.DiffSnapshotsResponse> getDiffSnapshotsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DiffSnapshots",
      requestType = dev.engram.v1.DiffSnapshotsRequest.class,
      responseType = dev.engram.v1.DiffSnapshotsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.DiffSnapshotsRequest,
      dev.engram.v1.DiffSnapshotsResponse> getDiffSnapshotsMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.DiffSnapshotsRequest, dev.engram.v1.DiffSnapshotsResponse> getDiffSnapshotsMethod;
    if ((getDiffSnapshotsMethod = RecallServiceGrpc.getDiffSnapshotsMethod) == null) {
      synchronized (RecallServiceGrpc.class) {
        if ((getDiffSnapshotsMethod = RecallServiceGrpc.getDiffSnapshotsMethod) == null) {
          RecallServiceGrpc.getDiffSnapshotsMethod = getDiffSnapshotsMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.DiffSnapshotsRequest, dev.engram.v1.DiffSnapshotsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DiffSnapshots"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.DiffSnapshotsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.DiffSnapshotsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecallServiceMethodDescriptorSupplier("DiffSnapshots"))
              .build();
        }
      }
    }
    return getDiffSnapshotsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.GetIndexStatusRequest,
      dev.engram.v1.IndexStatus> getGetIndexStatusMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetIndexStatus",
      requestType = dev.engram.v1.GetIndexStatusRequest.class,
      responseType = dev.engram.v1.IndexStatus.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.GetIndexStatusRequest,
      dev.engram.v1.IndexStatus> getGetIndexStatusMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.GetIndexStatusRequest, dev.engram.v1.IndexStatus> getGetIndexStatusMethod;
    if ((getGetIndexStatusMethod = RecallServiceGrpc.getGetIndexStatusMethod) == null) {
      synchronized (RecallServiceGrpc.class) {
        if ((getGetIndexStatusMethod = RecallServiceGrpc.getGetIndexStatusMethod) == null) {
          RecallServiceGrpc.getGetIndexStatusMethod = getGetIndexStatusMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.GetIndexStatusRequest, dev.engram.v1.IndexStatus>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetIndexStatus"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.GetIndexStatusRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.IndexStatus.getDefaultInstance()))
              .setSchemaDescriptor(new RecallServiceMethodDescriptorSupplier("GetIndexStatus"))
              .build();
        }
      }
    }
    return getGetIndexStatusMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static RecallServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<RecallServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<RecallServiceStub>() {
        @java.lang.Override
        public RecallServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new RecallServiceStub(channel, callOptions);
        }
      };
    return RecallServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static RecallServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<RecallServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<RecallServiceBlockingV2Stub>() {
        @java.lang.Override
        public RecallServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new RecallServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return RecallServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static RecallServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<RecallServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<RecallServiceBlockingStub>() {
        @java.lang.Override
        public RecallServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new RecallServiceBlockingStub(channel, callOptions);
        }
      };
    return RecallServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static RecallServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<RecallServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<RecallServiceFutureStub>() {
        @java.lang.Override
        public RecallServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new RecallServiceFutureStub(channel, callOptions);
        }
      };
    return RecallServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * RecallService is the read path: it finds the memories that answer a question and
   * turns them into prompt-ready context. Ranking fuses a dense (embedding) leg and a
   * lexical (BM25) leg, then applies the memory signals — slot match, importance,
   * power-law retention, recency — and the evidence adjustment, and explains every
   * score. Retracted, rejected and expired memories are never recalled; superseded
   * ones only when history is asked for.
   * It also owns:
   * - Engage, because its answer *is* recall: an agent sends the turn it just
   *   received and gets the relevant long-term context back in one round trip.
   *   Buffering the turn is a side effect that Engage delegates to the same
   *   working-memory code as LifecycleService.AppendMessage (nothing is proposed,
   *   so the governed write path has nothing to govern).
   * - Snapshots of a space, because a snapshot is a point-in-time copy of what
   *   recall can see in that space (its live memories), and listing and diffing
   *   snapshots are reads over that view. RestoreSnapshot is the one write here; it
   *   applies its changes as ordinary lifecycle transitions with audit rows in one
   *   transaction, so WatchTransitions and the audit log see every change a restore
   *   makes.
   * - The status of the derived search index (vectors and lexical terms), because
   *   that index exists only to serve recall.
   * Pool memories are recalled here too (RecallRequest.pools): membership is checked
   * on every such read, exactly as PoolService does.
   * Scopes: every RPC needs `read`, except Engage, CreateSnapshot, RestoreSnapshot
   * and DeleteSnapshot, which also need `write`.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * Finds the memories that best answer a query, each with its score breakdown.
     * </pre>
     */
    default void recall(dev.engram.v1.RecallRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.RecallResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRecallMethod(), responseObserver);
    }

    /**
     * <pre>
     * Builds a prompt-ready context block, from a query or from named memories,
     * under a token budget counted with a real tokenizer.
     * </pre>
     */
    default void buildContext(dev.engram.v1.BuildContextRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.BuildContextResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getBuildContextMethod(), responseObserver);
    }

    /**
     * <pre>
     * Buffers an incoming session message in working memory and returns the
     * long-term context it calls for, without re-sending memories already sent in
     * the same session.
     * </pre>
     */
    default void engage(dev.engram.v1.EngageRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.EngageResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getEngageMethod(), responseObserver);
    }

    /**
     * <pre>
     * Takes a snapshot of the live memories of a space.
     * </pre>
     */
    default void createSnapshot(dev.engram.v1.CreateSnapshotRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Snapshot> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreateSnapshotMethod(), responseObserver);
    }

    /**
     * <pre>
     * Gets one snapshot (metadata; the memories are read with DiffSnapshots).
     * </pre>
     */
    default void getSnapshot(dev.engram.v1.GetSnapshotRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Snapshot> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetSnapshotMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists snapshots, newest first.
     * </pre>
     */
    default void listSnapshots(dev.engram.v1.ListSnapshotsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListSnapshotsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListSnapshotsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Atomically makes the live memories of the snapshot's space equal to the
     * snapshot, through audited lifecycle transitions.
     * </pre>
     */
    default void restoreSnapshot(dev.engram.v1.RestoreSnapshotRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.RestoreSnapshotResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRestoreSnapshotMethod(), responseObserver);
    }

    /**
     * <pre>
     * Deletes a snapshot. The memories it recorded are not touched.
     * </pre>
     */
    default void deleteSnapshot(dev.engram.v1.DeleteSnapshotRequest request,
        io.grpc.stub.StreamObserver<com.google.protobuf.Empty> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDeleteSnapshotMethod(), responseObserver);
    }

    /**
     * <pre>
     * Compares two snapshots, or a snapshot and the space as it is now.
     * </pre>
     */
    default void diffSnapshots(dev.engram.v1.DiffSnapshotsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.DiffSnapshotsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDiffSnapshotsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Reports the calling tenant's search-index backlog and embedding model.
     * </pre>
     */
    default void getIndexStatus(dev.engram.v1.GetIndexStatusRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.IndexStatus> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetIndexStatusMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service RecallService.
   * <pre>
   * RecallService is the read path: it finds the memories that answer a question and
   * turns them into prompt-ready context. Ranking fuses a dense (embedding) leg and a
   * lexical (BM25) leg, then applies the memory signals — slot match, importance,
   * power-law retention, recency — and the evidence adjustment, and explains every
   * score. Retracted, rejected and expired memories are never recalled; superseded
   * ones only when history is asked for.
   * It also owns:
   * - Engage, because its answer *is* recall: an agent sends the turn it just
   *   received and gets the relevant long-term context back in one round trip.
   *   Buffering the turn is a side effect that Engage delegates to the same
   *   working-memory code as LifecycleService.AppendMessage (nothing is proposed,
   *   so the governed write path has nothing to govern).
   * - Snapshots of a space, because a snapshot is a point-in-time copy of what
   *   recall can see in that space (its live memories), and listing and diffing
   *   snapshots are reads over that view. RestoreSnapshot is the one write here; it
   *   applies its changes as ordinary lifecycle transitions with audit rows in one
   *   transaction, so WatchTransitions and the audit log see every change a restore
   *   makes.
   * - The status of the derived search index (vectors and lexical terms), because
   *   that index exists only to serve recall.
   * Pool memories are recalled here too (RecallRequest.pools): membership is checked
   * on every such read, exactly as PoolService does.
   * Scopes: every RPC needs `read`, except Engage, CreateSnapshot, RestoreSnapshot
   * and DeleteSnapshot, which also need `write`.
   * </pre>
   */
  public static abstract class RecallServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return RecallServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service RecallService.
   * <pre>
   * RecallService is the read path: it finds the memories that answer a question and
   * turns them into prompt-ready context. Ranking fuses a dense (embedding) leg and a
   * lexical (BM25) leg, then applies the memory signals — slot match, importance,
   * power-law retention, recency — and the evidence adjustment, and explains every
   * score. Retracted, rejected and expired memories are never recalled; superseded
   * ones only when history is asked for.
   * It also owns:
   * - Engage, because its answer *is* recall: an agent sends the turn it just
   *   received and gets the relevant long-term context back in one round trip.
   *   Buffering the turn is a side effect that Engage delegates to the same
   *   working-memory code as LifecycleService.AppendMessage (nothing is proposed,
   *   so the governed write path has nothing to govern).
   * - Snapshots of a space, because a snapshot is a point-in-time copy of what
   *   recall can see in that space (its live memories), and listing and diffing
   *   snapshots are reads over that view. RestoreSnapshot is the one write here; it
   *   applies its changes as ordinary lifecycle transitions with audit rows in one
   *   transaction, so WatchTransitions and the audit log see every change a restore
   *   makes.
   * - The status of the derived search index (vectors and lexical terms), because
   *   that index exists only to serve recall.
   * Pool memories are recalled here too (RecallRequest.pools): membership is checked
   * on every such read, exactly as PoolService does.
   * Scopes: every RPC needs `read`, except Engage, CreateSnapshot, RestoreSnapshot
   * and DeleteSnapshot, which also need `write`.
   * </pre>
   */
  public static final class RecallServiceStub
      extends io.grpc.stub.AbstractAsyncStub<RecallServiceStub> {
    private RecallServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected RecallServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new RecallServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Finds the memories that best answer a query, each with its score breakdown.
     * </pre>
     */
    public void recall(dev.engram.v1.RecallRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.RecallResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRecallMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Builds a prompt-ready context block, from a query or from named memories,
     * under a token budget counted with a real tokenizer.
     * </pre>
     */
    public void buildContext(dev.engram.v1.BuildContextRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.BuildContextResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getBuildContextMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Buffers an incoming session message in working memory and returns the
     * long-term context it calls for, without re-sending memories already sent in
     * the same session.
     * </pre>
     */
    public void engage(dev.engram.v1.EngageRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.EngageResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getEngageMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Takes a snapshot of the live memories of a space.
     * </pre>
     */
    public void createSnapshot(dev.engram.v1.CreateSnapshotRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Snapshot> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreateSnapshotMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Gets one snapshot (metadata; the memories are read with DiffSnapshots).
     * </pre>
     */
    public void getSnapshot(dev.engram.v1.GetSnapshotRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Snapshot> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetSnapshotMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists snapshots, newest first.
     * </pre>
     */
    public void listSnapshots(dev.engram.v1.ListSnapshotsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListSnapshotsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListSnapshotsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Atomically makes the live memories of the snapshot's space equal to the
     * snapshot, through audited lifecycle transitions.
     * </pre>
     */
    public void restoreSnapshot(dev.engram.v1.RestoreSnapshotRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.RestoreSnapshotResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRestoreSnapshotMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Deletes a snapshot. The memories it recorded are not touched.
     * </pre>
     */
    public void deleteSnapshot(dev.engram.v1.DeleteSnapshotRequest request,
        io.grpc.stub.StreamObserver<com.google.protobuf.Empty> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDeleteSnapshotMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Compares two snapshots, or a snapshot and the space as it is now.
     * </pre>
     */
    public void diffSnapshots(dev.engram.v1.DiffSnapshotsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.DiffSnapshotsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDiffSnapshotsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Reports the calling tenant's search-index backlog and embedding model.
     * </pre>
     */
    public void getIndexStatus(dev.engram.v1.GetIndexStatusRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.IndexStatus> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetIndexStatusMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service RecallService.
   * <pre>
   * RecallService is the read path: it finds the memories that answer a question and
   * turns them into prompt-ready context. Ranking fuses a dense (embedding) leg and a
   * lexical (BM25) leg, then applies the memory signals — slot match, importance,
   * power-law retention, recency — and the evidence adjustment, and explains every
   * score. Retracted, rejected and expired memories are never recalled; superseded
   * ones only when history is asked for.
   * It also owns:
   * - Engage, because its answer *is* recall: an agent sends the turn it just
   *   received and gets the relevant long-term context back in one round trip.
   *   Buffering the turn is a side effect that Engage delegates to the same
   *   working-memory code as LifecycleService.AppendMessage (nothing is proposed,
   *   so the governed write path has nothing to govern).
   * - Snapshots of a space, because a snapshot is a point-in-time copy of what
   *   recall can see in that space (its live memories), and listing and diffing
   *   snapshots are reads over that view. RestoreSnapshot is the one write here; it
   *   applies its changes as ordinary lifecycle transitions with audit rows in one
   *   transaction, so WatchTransitions and the audit log see every change a restore
   *   makes.
   * - The status of the derived search index (vectors and lexical terms), because
   *   that index exists only to serve recall.
   * Pool memories are recalled here too (RecallRequest.pools): membership is checked
   * on every such read, exactly as PoolService does.
   * Scopes: every RPC needs `read`, except Engage, CreateSnapshot, RestoreSnapshot
   * and DeleteSnapshot, which also need `write`.
   * </pre>
   */
  public static final class RecallServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<RecallServiceBlockingV2Stub> {
    private RecallServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected RecallServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new RecallServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * Finds the memories that best answer a query, each with its score breakdown.
     * </pre>
     */
    public dev.engram.v1.RecallResponse recall(dev.engram.v1.RecallRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRecallMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Builds a prompt-ready context block, from a query or from named memories,
     * under a token budget counted with a real tokenizer.
     * </pre>
     */
    public dev.engram.v1.BuildContextResponse buildContext(dev.engram.v1.BuildContextRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getBuildContextMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Buffers an incoming session message in working memory and returns the
     * long-term context it calls for, without re-sending memories already sent in
     * the same session.
     * </pre>
     */
    public dev.engram.v1.EngageResponse engage(dev.engram.v1.EngageRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getEngageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Takes a snapshot of the live memories of a space.
     * </pre>
     */
    public dev.engram.v1.Snapshot createSnapshot(dev.engram.v1.CreateSnapshotRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCreateSnapshotMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Gets one snapshot (metadata; the memories are read with DiffSnapshots).
     * </pre>
     */
    public dev.engram.v1.Snapshot getSnapshot(dev.engram.v1.GetSnapshotRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetSnapshotMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists snapshots, newest first.
     * </pre>
     */
    public dev.engram.v1.ListSnapshotsResponse listSnapshots(dev.engram.v1.ListSnapshotsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListSnapshotsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Atomically makes the live memories of the snapshot's space equal to the
     * snapshot, through audited lifecycle transitions.
     * </pre>
     */
    public dev.engram.v1.RestoreSnapshotResponse restoreSnapshot(dev.engram.v1.RestoreSnapshotRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRestoreSnapshotMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Deletes a snapshot. The memories it recorded are not touched.
     * </pre>
     */
    public com.google.protobuf.Empty deleteSnapshot(dev.engram.v1.DeleteSnapshotRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getDeleteSnapshotMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Compares two snapshots, or a snapshot and the space as it is now.
     * </pre>
     */
    public dev.engram.v1.DiffSnapshotsResponse diffSnapshots(dev.engram.v1.DiffSnapshotsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getDiffSnapshotsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Reports the calling tenant's search-index backlog and embedding model.
     * </pre>
     */
    public dev.engram.v1.IndexStatus getIndexStatus(dev.engram.v1.GetIndexStatusRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetIndexStatusMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service RecallService.
   * <pre>
   * RecallService is the read path: it finds the memories that answer a question and
   * turns them into prompt-ready context. Ranking fuses a dense (embedding) leg and a
   * lexical (BM25) leg, then applies the memory signals — slot match, importance,
   * power-law retention, recency — and the evidence adjustment, and explains every
   * score. Retracted, rejected and expired memories are never recalled; superseded
   * ones only when history is asked for.
   * It also owns:
   * - Engage, because its answer *is* recall: an agent sends the turn it just
   *   received and gets the relevant long-term context back in one round trip.
   *   Buffering the turn is a side effect that Engage delegates to the same
   *   working-memory code as LifecycleService.AppendMessage (nothing is proposed,
   *   so the governed write path has nothing to govern).
   * - Snapshots of a space, because a snapshot is a point-in-time copy of what
   *   recall can see in that space (its live memories), and listing and diffing
   *   snapshots are reads over that view. RestoreSnapshot is the one write here; it
   *   applies its changes as ordinary lifecycle transitions with audit rows in one
   *   transaction, so WatchTransitions and the audit log see every change a restore
   *   makes.
   * - The status of the derived search index (vectors and lexical terms), because
   *   that index exists only to serve recall.
   * Pool memories are recalled here too (RecallRequest.pools): membership is checked
   * on every such read, exactly as PoolService does.
   * Scopes: every RPC needs `read`, except Engage, CreateSnapshot, RestoreSnapshot
   * and DeleteSnapshot, which also need `write`.
   * </pre>
   */
  public static final class RecallServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<RecallServiceBlockingStub> {
    private RecallServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected RecallServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new RecallServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Finds the memories that best answer a query, each with its score breakdown.
     * </pre>
     */
    public dev.engram.v1.RecallResponse recall(dev.engram.v1.RecallRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRecallMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Builds a prompt-ready context block, from a query or from named memories,
     * under a token budget counted with a real tokenizer.
     * </pre>
     */
    public dev.engram.v1.BuildContextResponse buildContext(dev.engram.v1.BuildContextRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getBuildContextMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Buffers an incoming session message in working memory and returns the
     * long-term context it calls for, without re-sending memories already sent in
     * the same session.
     * </pre>
     */
    public dev.engram.v1.EngageResponse engage(dev.engram.v1.EngageRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getEngageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Takes a snapshot of the live memories of a space.
     * </pre>
     */
    public dev.engram.v1.Snapshot createSnapshot(dev.engram.v1.CreateSnapshotRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreateSnapshotMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Gets one snapshot (metadata; the memories are read with DiffSnapshots).
     * </pre>
     */
    public dev.engram.v1.Snapshot getSnapshot(dev.engram.v1.GetSnapshotRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetSnapshotMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists snapshots, newest first.
     * </pre>
     */
    public dev.engram.v1.ListSnapshotsResponse listSnapshots(dev.engram.v1.ListSnapshotsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListSnapshotsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Atomically makes the live memories of the snapshot's space equal to the
     * snapshot, through audited lifecycle transitions.
     * </pre>
     */
    public dev.engram.v1.RestoreSnapshotResponse restoreSnapshot(dev.engram.v1.RestoreSnapshotRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRestoreSnapshotMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Deletes a snapshot. The memories it recorded are not touched.
     * </pre>
     */
    public com.google.protobuf.Empty deleteSnapshot(dev.engram.v1.DeleteSnapshotRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDeleteSnapshotMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Compares two snapshots, or a snapshot and the space as it is now.
     * </pre>
     */
    public dev.engram.v1.DiffSnapshotsResponse diffSnapshots(dev.engram.v1.DiffSnapshotsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDiffSnapshotsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Reports the calling tenant's search-index backlog and embedding model.
     * </pre>
     */
    public dev.engram.v1.IndexStatus getIndexStatus(dev.engram.v1.GetIndexStatusRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetIndexStatusMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service RecallService.
   * <pre>
   * RecallService is the read path: it finds the memories that answer a question and
   * turns them into prompt-ready context. Ranking fuses a dense (embedding) leg and a
   * lexical (BM25) leg, then applies the memory signals — slot match, importance,
   * power-law retention, recency — and the evidence adjustment, and explains every
   * score. Retracted, rejected and expired memories are never recalled; superseded
   * ones only when history is asked for.
   * It also owns:
   * - Engage, because its answer *is* recall: an agent sends the turn it just
   *   received and gets the relevant long-term context back in one round trip.
   *   Buffering the turn is a side effect that Engage delegates to the same
   *   working-memory code as LifecycleService.AppendMessage (nothing is proposed,
   *   so the governed write path has nothing to govern).
   * - Snapshots of a space, because a snapshot is a point-in-time copy of what
   *   recall can see in that space (its live memories), and listing and diffing
   *   snapshots are reads over that view. RestoreSnapshot is the one write here; it
   *   applies its changes as ordinary lifecycle transitions with audit rows in one
   *   transaction, so WatchTransitions and the audit log see every change a restore
   *   makes.
   * - The status of the derived search index (vectors and lexical terms), because
   *   that index exists only to serve recall.
   * Pool memories are recalled here too (RecallRequest.pools): membership is checked
   * on every such read, exactly as PoolService does.
   * Scopes: every RPC needs `read`, except Engage, CreateSnapshot, RestoreSnapshot
   * and DeleteSnapshot, which also need `write`.
   * </pre>
   */
  public static final class RecallServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<RecallServiceFutureStub> {
    private RecallServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected RecallServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new RecallServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Finds the memories that best answer a query, each with its score breakdown.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.RecallResponse> recall(
        dev.engram.v1.RecallRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRecallMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Builds a prompt-ready context block, from a query or from named memories,
     * under a token budget counted with a real tokenizer.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.BuildContextResponse> buildContext(
        dev.engram.v1.BuildContextRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getBuildContextMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Buffers an incoming session message in working memory and returns the
     * long-term context it calls for, without re-sending memories already sent in
     * the same session.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.EngageResponse> engage(
        dev.engram.v1.EngageRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getEngageMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Takes a snapshot of the live memories of a space.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Snapshot> createSnapshot(
        dev.engram.v1.CreateSnapshotRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreateSnapshotMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Gets one snapshot (metadata; the memories are read with DiffSnapshots).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Snapshot> getSnapshot(
        dev.engram.v1.GetSnapshotRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetSnapshotMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists snapshots, newest first.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.ListSnapshotsResponse> listSnapshots(
        dev.engram.v1.ListSnapshotsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListSnapshotsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Atomically makes the live memories of the snapshot's space equal to the
     * snapshot, through audited lifecycle transitions.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.RestoreSnapshotResponse> restoreSnapshot(
        dev.engram.v1.RestoreSnapshotRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRestoreSnapshotMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Deletes a snapshot. The memories it recorded are not touched.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<com.google.protobuf.Empty> deleteSnapshot(
        dev.engram.v1.DeleteSnapshotRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDeleteSnapshotMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Compares two snapshots, or a snapshot and the space as it is now.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.DiffSnapshotsResponse> diffSnapshots(
        dev.engram.v1.DiffSnapshotsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDiffSnapshotsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Reports the calling tenant's search-index backlog and embedding model.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.IndexStatus> getIndexStatus(
        dev.engram.v1.GetIndexStatusRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetIndexStatusMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_RECALL = 0;
  private static final int METHODID_BUILD_CONTEXT = 1;
  private static final int METHODID_ENGAGE = 2;
  private static final int METHODID_CREATE_SNAPSHOT = 3;
  private static final int METHODID_GET_SNAPSHOT = 4;
  private static final int METHODID_LIST_SNAPSHOTS = 5;
  private static final int METHODID_RESTORE_SNAPSHOT = 6;
  private static final int METHODID_DELETE_SNAPSHOT = 7;
  private static final int METHODID_DIFF_SNAPSHOTS = 8;
  private static final int METHODID_GET_INDEX_STATUS = 9;

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
        case METHODID_RECALL:
          serviceImpl.recall((dev.engram.v1.RecallRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.RecallResponse>) responseObserver);
          break;
        case METHODID_BUILD_CONTEXT:
          serviceImpl.buildContext((dev.engram.v1.BuildContextRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.BuildContextResponse>) responseObserver);
          break;
        case METHODID_ENGAGE:
          serviceImpl.engage((dev.engram.v1.EngageRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.EngageResponse>) responseObserver);
          break;
        case METHODID_CREATE_SNAPSHOT:
          serviceImpl.createSnapshot((dev.engram.v1.CreateSnapshotRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Snapshot>) responseObserver);
          break;
        case METHODID_GET_SNAPSHOT:
          serviceImpl.getSnapshot((dev.engram.v1.GetSnapshotRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Snapshot>) responseObserver);
          break;
        case METHODID_LIST_SNAPSHOTS:
          serviceImpl.listSnapshots((dev.engram.v1.ListSnapshotsRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.ListSnapshotsResponse>) responseObserver);
          break;
        case METHODID_RESTORE_SNAPSHOT:
          serviceImpl.restoreSnapshot((dev.engram.v1.RestoreSnapshotRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.RestoreSnapshotResponse>) responseObserver);
          break;
        case METHODID_DELETE_SNAPSHOT:
          serviceImpl.deleteSnapshot((dev.engram.v1.DeleteSnapshotRequest) request,
              (io.grpc.stub.StreamObserver<com.google.protobuf.Empty>) responseObserver);
          break;
        case METHODID_DIFF_SNAPSHOTS:
          serviceImpl.diffSnapshots((dev.engram.v1.DiffSnapshotsRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.DiffSnapshotsResponse>) responseObserver);
          break;
        case METHODID_GET_INDEX_STATUS:
          serviceImpl.getIndexStatus((dev.engram.v1.GetIndexStatusRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.IndexStatus>) responseObserver);
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
          getRecallMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.RecallRequest,
              dev.engram.v1.RecallResponse>(
                service, METHODID_RECALL)))
        .addMethod(
          getBuildContextMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.BuildContextRequest,
              dev.engram.v1.BuildContextResponse>(
                service, METHODID_BUILD_CONTEXT)))
        .addMethod(
          getEngageMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.EngageRequest,
              dev.engram.v1.EngageResponse>(
                service, METHODID_ENGAGE)))
        .addMethod(
          getCreateSnapshotMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.CreateSnapshotRequest,
              dev.engram.v1.Snapshot>(
                service, METHODID_CREATE_SNAPSHOT)))
        .addMethod(
          getGetSnapshotMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.GetSnapshotRequest,
              dev.engram.v1.Snapshot>(
                service, METHODID_GET_SNAPSHOT)))
        .addMethod(
          getListSnapshotsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.ListSnapshotsRequest,
              dev.engram.v1.ListSnapshotsResponse>(
                service, METHODID_LIST_SNAPSHOTS)))
        .addMethod(
          getRestoreSnapshotMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.RestoreSnapshotRequest,
              dev.engram.v1.RestoreSnapshotResponse>(
                service, METHODID_RESTORE_SNAPSHOT)))
        .addMethod(
          getDeleteSnapshotMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.DeleteSnapshotRequest,
              com.google.protobuf.Empty>(
                service, METHODID_DELETE_SNAPSHOT)))
        .addMethod(
          getDiffSnapshotsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.DiffSnapshotsRequest,
              dev.engram.v1.DiffSnapshotsResponse>(
                service, METHODID_DIFF_SNAPSHOTS)))
        .addMethod(
          getGetIndexStatusMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.GetIndexStatusRequest,
              dev.engram.v1.IndexStatus>(
                service, METHODID_GET_INDEX_STATUS)))
        .build();
  }

  private static abstract class RecallServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    RecallServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.engram.v1.RecallProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("RecallService");
    }
  }

  private static final class RecallServiceFileDescriptorSupplier
      extends RecallServiceBaseDescriptorSupplier {
    RecallServiceFileDescriptorSupplier() {}
  }

  private static final class RecallServiceMethodDescriptorSupplier
      extends RecallServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    RecallServiceMethodDescriptorSupplier(java.lang.String methodName) {
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
      synchronized (RecallServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new RecallServiceFileDescriptorSupplier())
              .addMethod(getRecallMethod())
              .addMethod(getBuildContextMethod())
              .addMethod(getEngageMethod())
              .addMethod(getCreateSnapshotMethod())
              .addMethod(getGetSnapshotMethod())
              .addMethod(getListSnapshotsMethod())
              .addMethod(getRestoreSnapshotMethod())
              .addMethod(getDeleteSnapshotMethod())
              .addMethod(getDiffSnapshotsMethod())
              .addMethod(getGetIndexStatusMethod())
              .build();
        }
      }
    }
    return result;
  }
}
