package dev.engram.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * EvidenceService owns belief revision: how much each memory is to be believed and
 * how memories relate to one another.
 * - Evidence grades: who may set them (OFFICIAL is operator-only and never
 *   inferred) and the corroboration assessor that suggests them from agreeing and
 *   contradicting memories with distinct sources.
 * - Conflicts: pairs or sets of memories that cannot all be true, opened by the
 *   assessor, by Dream State or by a CONTRADICTS edge, and closed by an explicit
 *   resolution.
 * - Edges: the typed graph between memories that graph-augmented recall follows
 *   and that records support, contradiction, supersession, aboutness and
 *   derivation.
 * - Space profiles: per-space statistics (churn, stability, evidence) that tell
 *   extraction and curation how to treat a space.
 * These live apart from LifecycleService because none of them changes what a
 * memory says: they change how much it is believed and what it is connected to.
 * Where a resolution does change a memory's status (retracting or superseding the
 * losing side), it goes through the lifecycle state machine, with its audit rows
 * and WatchTransitions events, in the same transaction.
 * Scopes: reads need `read`; writes need `write`, and setting or removing the
 * OFFICIAL grade needs `operator`.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class EvidenceServiceGrpc {

  private EvidenceServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "engram.v1.EvidenceService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.SetEvidenceLevelRequest,
      dev.engram.v1.Memory> getSetEvidenceLevelMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SetEvidenceLevel",
      requestType = dev.engram.v1.SetEvidenceLevelRequest.class,
      responseType = dev.engram.v1.Memory.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.SetEvidenceLevelRequest,
      dev.engram.v1.Memory> getSetEvidenceLevelMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.SetEvidenceLevelRequest, dev.engram.v1.Memory> getSetEvidenceLevelMethod;
    if ((getSetEvidenceLevelMethod = EvidenceServiceGrpc.getSetEvidenceLevelMethod) == null) {
      synchronized (EvidenceServiceGrpc.class) {
        if ((getSetEvidenceLevelMethod = EvidenceServiceGrpc.getSetEvidenceLevelMethod) == null) {
          EvidenceServiceGrpc.getSetEvidenceLevelMethod = getSetEvidenceLevelMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.SetEvidenceLevelRequest, dev.engram.v1.Memory>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SetEvidenceLevel"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.SetEvidenceLevelRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Memory.getDefaultInstance()))
              .setSchemaDescriptor(new EvidenceServiceMethodDescriptorSupplier("SetEvidenceLevel"))
              .build();
        }
      }
    }
    return getSetEvidenceLevelMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.AssessMemoryRequest,
      dev.engram.v1.AssessMemoryResponse> getAssessMemoryMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "AssessMemory",
      requestType = dev.engram.v1.AssessMemoryRequest.class,
      responseType = dev.engram.v1.AssessMemoryResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.AssessMemoryRequest,
      dev.engram.v1.AssessMemoryResponse> getAssessMemoryMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.AssessMemoryRequest, dev.engram.v1.AssessMemoryResponse> getAssessMemoryMethod;
    if ((getAssessMemoryMethod = EvidenceServiceGrpc.getAssessMemoryMethod) == null) {
      synchronized (EvidenceServiceGrpc.class) {
        if ((getAssessMemoryMethod = EvidenceServiceGrpc.getAssessMemoryMethod) == null) {
          EvidenceServiceGrpc.getAssessMemoryMethod = getAssessMemoryMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.AssessMemoryRequest, dev.engram.v1.AssessMemoryResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "AssessMemory"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.AssessMemoryRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.AssessMemoryResponse.getDefaultInstance()))
              .setSchemaDescriptor(new EvidenceServiceMethodDescriptorSupplier("AssessMemory"))
              .build();
        }
      }
    }
    return getAssessMemoryMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.GetConflictRequest,
      dev.engram.v1.Conflict> getGetConflictMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetConflict",
      requestType = dev.engram.v1.GetConflictRequest.class,
      responseType = dev.engram.v1.Conflict.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.GetConflictRequest,
      dev.engram.v1.Conflict> getGetConflictMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.GetConflictRequest, dev.engram.v1.Conflict> getGetConflictMethod;
    if ((getGetConflictMethod = EvidenceServiceGrpc.getGetConflictMethod) == null) {
      synchronized (EvidenceServiceGrpc.class) {
        if ((getGetConflictMethod = EvidenceServiceGrpc.getGetConflictMethod) == null) {
          EvidenceServiceGrpc.getGetConflictMethod = getGetConflictMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.GetConflictRequest, dev.engram.v1.Conflict>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetConflict"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.GetConflictRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Conflict.getDefaultInstance()))
              .setSchemaDescriptor(new EvidenceServiceMethodDescriptorSupplier("GetConflict"))
              .build();
        }
      }
    }
    return getGetConflictMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.ListConflictsRequest,
      dev.engram.v1.ListConflictsResponse> getListConflictsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListConflicts",
      requestType = dev.engram.v1.ListConflictsRequest.class,
      responseType = dev.engram.v1.ListConflictsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.ListConflictsRequest,
      dev.engram.v1.ListConflictsResponse> getListConflictsMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.ListConflictsRequest, dev.engram.v1.ListConflictsResponse> getListConflictsMethod;
    if ((getListConflictsMethod = EvidenceServiceGrpc.getListConflictsMethod) == null) {
      synchronized (EvidenceServiceGrpc.class) {
        if ((getListConflictsMethod = EvidenceServiceGrpc.getListConflictsMethod) == null) {
          EvidenceServiceGrpc.getListConflictsMethod = getListConflictsMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.ListConflictsRequest, dev.engram.v1.ListConflictsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListConflicts"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListConflictsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListConflictsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new EvidenceServiceMethodDescriptorSupplier("ListConflicts"))
              .build();
        }
      }
    }
    return getListConflictsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.ResolveConflictRequest,
      dev.engram.v1.ResolveConflictResponse> getResolveConflictMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ResolveConflict",
      requestType = dev.engram.v1.ResolveConflictRequest.class,
      responseType = dev.engram.v1.ResolveConflictResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.ResolveConflictRequest,
      dev.engram.v1.ResolveConflictResponse> getResolveConflictMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.ResolveConflictRequest, dev.engram.v1.ResolveConflictResponse> getResolveConflictMethod;
    if ((getResolveConflictMethod = EvidenceServiceGrpc.getResolveConflictMethod) == null) {
      synchronized (EvidenceServiceGrpc.class) {
        if ((getResolveConflictMethod = EvidenceServiceGrpc.getResolveConflictMethod) == null) {
          EvidenceServiceGrpc.getResolveConflictMethod = getResolveConflictMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.ResolveConflictRequest, dev.engram.v1.ResolveConflictResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ResolveConflict"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ResolveConflictRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ResolveConflictResponse.getDefaultInstance()))
              .setSchemaDescriptor(new EvidenceServiceMethodDescriptorSupplier("ResolveConflict"))
              .build();
        }
      }
    }
    return getResolveConflictMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.CreateEdgeRequest,
      dev.engram.v1.Edge> getCreateEdgeMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreateEdge",
      requestType = dev.engram.v1.CreateEdgeRequest.class,
      responseType = dev.engram.v1.Edge.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.CreateEdgeRequest,
      dev.engram.v1.Edge> getCreateEdgeMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.CreateEdgeRequest, dev.engram.v1.Edge> getCreateEdgeMethod;
    if ((getCreateEdgeMethod = EvidenceServiceGrpc.getCreateEdgeMethod) == null) {
      synchronized (EvidenceServiceGrpc.class) {
        if ((getCreateEdgeMethod = EvidenceServiceGrpc.getCreateEdgeMethod) == null) {
          EvidenceServiceGrpc.getCreateEdgeMethod = getCreateEdgeMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.CreateEdgeRequest, dev.engram.v1.Edge>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreateEdge"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.CreateEdgeRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Edge.getDefaultInstance()))
              .setSchemaDescriptor(new EvidenceServiceMethodDescriptorSupplier("CreateEdge"))
              .build();
        }
      }
    }
    return getCreateEdgeMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.GetEdgeRequest,
      dev.engram.v1.Edge> getGetEdgeMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetEdge",
      requestType = dev.engram.v1.GetEdgeRequest.class,
      responseType = dev.engram.v1.Edge.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.GetEdgeRequest,
      dev.engram.v1.Edge> getGetEdgeMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.GetEdgeRequest, dev.engram.v1.Edge> getGetEdgeMethod;
    if ((getGetEdgeMethod = EvidenceServiceGrpc.getGetEdgeMethod) == null) {
      synchronized (EvidenceServiceGrpc.class) {
        if ((getGetEdgeMethod = EvidenceServiceGrpc.getGetEdgeMethod) == null) {
          EvidenceServiceGrpc.getGetEdgeMethod = getGetEdgeMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.GetEdgeRequest, dev.engram.v1.Edge>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetEdge"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.GetEdgeRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Edge.getDefaultInstance()))
              .setSchemaDescriptor(new EvidenceServiceMethodDescriptorSupplier("GetEdge"))
              .build();
        }
      }
    }
    return getGetEdgeMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.ListEdgesRequest,
      dev.engram.v1.ListEdgesResponse> getListEdgesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListEdges",
      requestType = dev.engram.v1.ListEdgesRequest.class,
      responseType = dev.engram.v1.ListEdgesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.ListEdgesRequest,
      dev.engram.v1.ListEdgesResponse> getListEdgesMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.ListEdgesRequest, dev.engram.v1.ListEdgesResponse> getListEdgesMethod;
    if ((getListEdgesMethod = EvidenceServiceGrpc.getListEdgesMethod) == null) {
      synchronized (EvidenceServiceGrpc.class) {
        if ((getListEdgesMethod = EvidenceServiceGrpc.getListEdgesMethod) == null) {
          EvidenceServiceGrpc.getListEdgesMethod = getListEdgesMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.ListEdgesRequest, dev.engram.v1.ListEdgesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListEdges"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListEdgesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListEdgesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new EvidenceServiceMethodDescriptorSupplier("ListEdges"))
              .build();
        }
      }
    }
    return getListEdgesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.DeleteEdgeRequest,
      com.google.protobuf.Empty> getDeleteEdgeMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DeleteEdge",
      requestType = dev.engram.v1.DeleteEdgeRequest.class,
      responseType = com.google.protobuf.Empty.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.DeleteEdgeRequest,
      com.google.protobuf.Empty> getDeleteEdgeMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.DeleteEdgeRequest, com.google.protobuf.Empty> getDeleteEdgeMethod;
    if ((getDeleteEdgeMethod = EvidenceServiceGrpc.getDeleteEdgeMethod) == null) {
      synchronized (EvidenceServiceGrpc.class) {
        if ((getDeleteEdgeMethod = EvidenceServiceGrpc.getDeleteEdgeMethod) == null) {
          EvidenceServiceGrpc.getDeleteEdgeMethod = getDeleteEdgeMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.DeleteEdgeRequest, com.google.protobuf.Empty>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DeleteEdge"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.DeleteEdgeRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  com.google.protobuf.Empty.getDefaultInstance()))
              .setSchemaDescriptor(new EvidenceServiceMethodDescriptorSupplier("DeleteEdge"))
              .build();
        }
      }
    }
    return getDeleteEdgeMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.GetSpaceProfileRequest,
      dev.engram.v1.SpaceProfile> getGetSpaceProfileMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetSpaceProfile",
      requestType = dev.engram.v1.GetSpaceProfileRequest.class,
      responseType = dev.engram.v1.SpaceProfile.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.GetSpaceProfileRequest,
      dev.engram.v1.SpaceProfile> getGetSpaceProfileMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.GetSpaceProfileRequest, dev.engram.v1.SpaceProfile> getGetSpaceProfileMethod;
    if ((getGetSpaceProfileMethod = EvidenceServiceGrpc.getGetSpaceProfileMethod) == null) {
      synchronized (EvidenceServiceGrpc.class) {
        if ((getGetSpaceProfileMethod = EvidenceServiceGrpc.getGetSpaceProfileMethod) == null) {
          EvidenceServiceGrpc.getGetSpaceProfileMethod = getGetSpaceProfileMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.GetSpaceProfileRequest, dev.engram.v1.SpaceProfile>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetSpaceProfile"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.GetSpaceProfileRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.SpaceProfile.getDefaultInstance()))
              .setSchemaDescriptor(new EvidenceServiceMethodDescriptorSupplier("GetSpaceProfile"))
              .build();
        }
      }
    }
    return getGetSpaceProfileMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.ListSpaceProfilesRequest,
      dev.engram.v1.ListSpaceProfilesResponse> getListSpaceProfilesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListSpaceProfiles",
      requestType = dev.engram.v1.ListSpaceProfilesRequest.class,
      responseType = dev.engram.v1.ListSpaceProfilesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.ListSpaceProfilesRequest,
      dev.engram.v1.ListSpaceProfilesResponse> getListSpaceProfilesMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.ListSpaceProfilesRequest, dev.engram.v1.ListSpaceProfilesResponse> getListSpaceProfilesMethod;
    if ((getListSpaceProfilesMethod = EvidenceServiceGrpc.getListSpaceProfilesMethod) == null) {
      synchronized (EvidenceServiceGrpc.class) {
        if ((getListSpaceProfilesMethod = EvidenceServiceGrpc.getListSpaceProfilesMethod) == null) {
          EvidenceServiceGrpc.getListSpaceProfilesMethod = getListSpaceProfilesMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.ListSpaceProfilesRequest, dev.engram.v1.ListSpaceProfilesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListSpaceProfiles"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListSpaceProfilesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListSpaceProfilesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new EvidenceServiceMethodDescriptorSupplier("ListSpaceProfiles"))
              .build();
        }
      }
    }
    return getListSpaceProfilesMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static EvidenceServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<EvidenceServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<EvidenceServiceStub>() {
        @java.lang.Override
        public EvidenceServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new EvidenceServiceStub(channel, callOptions);
        }
      };
    return EvidenceServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static EvidenceServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<EvidenceServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<EvidenceServiceBlockingV2Stub>() {
        @java.lang.Override
        public EvidenceServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new EvidenceServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return EvidenceServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static EvidenceServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<EvidenceServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<EvidenceServiceBlockingStub>() {
        @java.lang.Override
        public EvidenceServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new EvidenceServiceBlockingStub(channel, callOptions);
        }
      };
    return EvidenceServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static EvidenceServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<EvidenceServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<EvidenceServiceFutureStub>() {
        @java.lang.Override
        public EvidenceServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new EvidenceServiceFutureStub(channel, callOptions);
        }
      };
    return EvidenceServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * EvidenceService owns belief revision: how much each memory is to be believed and
   * how memories relate to one another.
   * - Evidence grades: who may set them (OFFICIAL is operator-only and never
   *   inferred) and the corroboration assessor that suggests them from agreeing and
   *   contradicting memories with distinct sources.
   * - Conflicts: pairs or sets of memories that cannot all be true, opened by the
   *   assessor, by Dream State or by a CONTRADICTS edge, and closed by an explicit
   *   resolution.
   * - Edges: the typed graph between memories that graph-augmented recall follows
   *   and that records support, contradiction, supersession, aboutness and
   *   derivation.
   * - Space profiles: per-space statistics (churn, stability, evidence) that tell
   *   extraction and curation how to treat a space.
   * These live apart from LifecycleService because none of them changes what a
   * memory says: they change how much it is believed and what it is connected to.
   * Where a resolution does change a memory's status (retracting or superseding the
   * losing side), it goes through the lifecycle state machine, with its audit rows
   * and WatchTransitions events, in the same transaction.
   * Scopes: reads need `read`; writes need `write`, and setting or removing the
   * OFFICIAL grade needs `operator`.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * Sets a memory's evidence grade. OFFICIAL, and any change to a memory that is
     * OFFICIAL, needs the `operator` scope.
     * </pre>
     */
    default void setEvidenceLevel(dev.engram.v1.SetEvidenceLevelRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Memory> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSetEvidenceLevelMethod(), responseObserver);
    }

    /**
     * <pre>
     * Runs the corroboration assessor on a memory: suggests a grade from agreeing
     * and contradicting memories, and optionally applies it.
     * </pre>
     */
    default void assessMemory(dev.engram.v1.AssessMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.AssessMemoryResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getAssessMemoryMethod(), responseObserver);
    }

    /**
     * <pre>
     * Gets one conflict.
     * </pre>
     */
    default void getConflict(dev.engram.v1.GetConflictRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Conflict> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetConflictMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists conflicts, newest first.
     * </pre>
     */
    default void listConflicts(dev.engram.v1.ListConflictsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListConflictsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListConflictsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Resolves an open conflict, applying the resolution's lifecycle transitions.
     * </pre>
     */
    default void resolveConflict(dev.engram.v1.ResolveConflictRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ResolveConflictResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getResolveConflictMethod(), responseObserver);
    }

    /**
     * <pre>
     * Creates an edge between two memories. A CONTRADICTS edge also opens a
     * conflict.
     * </pre>
     */
    default void createEdge(dev.engram.v1.CreateEdgeRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Edge> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreateEdgeMethod(), responseObserver);
    }

    /**
     * <pre>
     * Gets one edge.
     * </pre>
     */
    default void getEdge(dev.engram.v1.GetEdgeRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Edge> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetEdgeMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists edges around a memory or in a space.
     * </pre>
     */
    default void listEdges(dev.engram.v1.ListEdgesRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListEdgesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListEdgesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Deletes an edge. SUPERSEDES edges cannot be deleted: they record a
     * transition.
     * </pre>
     */
    default void deleteEdge(dev.engram.v1.DeleteEdgeRequest request,
        io.grpc.stub.StreamObserver<com.google.protobuf.Empty> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDeleteEdgeMethod(), responseObserver);
    }

    /**
     * <pre>
     * Computes a space's profile: churn, stability, evidence distribution and
     * counts per kind and status, with its classification. Each run is kept
     * (unless `dry_run`), so drift can be listed.
     * </pre>
     */
    default void getSpaceProfile(dev.engram.v1.GetSpaceProfileRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.SpaceProfile> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetSpaceProfileMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists kept profile runs, newest first.
     * </pre>
     */
    default void listSpaceProfiles(dev.engram.v1.ListSpaceProfilesRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListSpaceProfilesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListSpaceProfilesMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service EvidenceService.
   * <pre>
   * EvidenceService owns belief revision: how much each memory is to be believed and
   * how memories relate to one another.
   * - Evidence grades: who may set them (OFFICIAL is operator-only and never
   *   inferred) and the corroboration assessor that suggests them from agreeing and
   *   contradicting memories with distinct sources.
   * - Conflicts: pairs or sets of memories that cannot all be true, opened by the
   *   assessor, by Dream State or by a CONTRADICTS edge, and closed by an explicit
   *   resolution.
   * - Edges: the typed graph between memories that graph-augmented recall follows
   *   and that records support, contradiction, supersession, aboutness and
   *   derivation.
   * - Space profiles: per-space statistics (churn, stability, evidence) that tell
   *   extraction and curation how to treat a space.
   * These live apart from LifecycleService because none of them changes what a
   * memory says: they change how much it is believed and what it is connected to.
   * Where a resolution does change a memory's status (retracting or superseding the
   * losing side), it goes through the lifecycle state machine, with its audit rows
   * and WatchTransitions events, in the same transaction.
   * Scopes: reads need `read`; writes need `write`, and setting or removing the
   * OFFICIAL grade needs `operator`.
   * </pre>
   */
  public static abstract class EvidenceServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return EvidenceServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service EvidenceService.
   * <pre>
   * EvidenceService owns belief revision: how much each memory is to be believed and
   * how memories relate to one another.
   * - Evidence grades: who may set them (OFFICIAL is operator-only and never
   *   inferred) and the corroboration assessor that suggests them from agreeing and
   *   contradicting memories with distinct sources.
   * - Conflicts: pairs or sets of memories that cannot all be true, opened by the
   *   assessor, by Dream State or by a CONTRADICTS edge, and closed by an explicit
   *   resolution.
   * - Edges: the typed graph between memories that graph-augmented recall follows
   *   and that records support, contradiction, supersession, aboutness and
   *   derivation.
   * - Space profiles: per-space statistics (churn, stability, evidence) that tell
   *   extraction and curation how to treat a space.
   * These live apart from LifecycleService because none of them changes what a
   * memory says: they change how much it is believed and what it is connected to.
   * Where a resolution does change a memory's status (retracting or superseding the
   * losing side), it goes through the lifecycle state machine, with its audit rows
   * and WatchTransitions events, in the same transaction.
   * Scopes: reads need `read`; writes need `write`, and setting or removing the
   * OFFICIAL grade needs `operator`.
   * </pre>
   */
  public static final class EvidenceServiceStub
      extends io.grpc.stub.AbstractAsyncStub<EvidenceServiceStub> {
    private EvidenceServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected EvidenceServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new EvidenceServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Sets a memory's evidence grade. OFFICIAL, and any change to a memory that is
     * OFFICIAL, needs the `operator` scope.
     * </pre>
     */
    public void setEvidenceLevel(dev.engram.v1.SetEvidenceLevelRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Memory> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSetEvidenceLevelMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Runs the corroboration assessor on a memory: suggests a grade from agreeing
     * and contradicting memories, and optionally applies it.
     * </pre>
     */
    public void assessMemory(dev.engram.v1.AssessMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.AssessMemoryResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getAssessMemoryMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Gets one conflict.
     * </pre>
     */
    public void getConflict(dev.engram.v1.GetConflictRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Conflict> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetConflictMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists conflicts, newest first.
     * </pre>
     */
    public void listConflicts(dev.engram.v1.ListConflictsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListConflictsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListConflictsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Resolves an open conflict, applying the resolution's lifecycle transitions.
     * </pre>
     */
    public void resolveConflict(dev.engram.v1.ResolveConflictRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ResolveConflictResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getResolveConflictMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Creates an edge between two memories. A CONTRADICTS edge also opens a
     * conflict.
     * </pre>
     */
    public void createEdge(dev.engram.v1.CreateEdgeRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Edge> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreateEdgeMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Gets one edge.
     * </pre>
     */
    public void getEdge(dev.engram.v1.GetEdgeRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Edge> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetEdgeMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists edges around a memory or in a space.
     * </pre>
     */
    public void listEdges(dev.engram.v1.ListEdgesRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListEdgesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListEdgesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Deletes an edge. SUPERSEDES edges cannot be deleted: they record a
     * transition.
     * </pre>
     */
    public void deleteEdge(dev.engram.v1.DeleteEdgeRequest request,
        io.grpc.stub.StreamObserver<com.google.protobuf.Empty> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDeleteEdgeMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Computes a space's profile: churn, stability, evidence distribution and
     * counts per kind and status, with its classification. Each run is kept
     * (unless `dry_run`), so drift can be listed.
     * </pre>
     */
    public void getSpaceProfile(dev.engram.v1.GetSpaceProfileRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.SpaceProfile> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetSpaceProfileMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists kept profile runs, newest first.
     * </pre>
     */
    public void listSpaceProfiles(dev.engram.v1.ListSpaceProfilesRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListSpaceProfilesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListSpaceProfilesMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service EvidenceService.
   * <pre>
   * EvidenceService owns belief revision: how much each memory is to be believed and
   * how memories relate to one another.
   * - Evidence grades: who may set them (OFFICIAL is operator-only and never
   *   inferred) and the corroboration assessor that suggests them from agreeing and
   *   contradicting memories with distinct sources.
   * - Conflicts: pairs or sets of memories that cannot all be true, opened by the
   *   assessor, by Dream State or by a CONTRADICTS edge, and closed by an explicit
   *   resolution.
   * - Edges: the typed graph between memories that graph-augmented recall follows
   *   and that records support, contradiction, supersession, aboutness and
   *   derivation.
   * - Space profiles: per-space statistics (churn, stability, evidence) that tell
   *   extraction and curation how to treat a space.
   * These live apart from LifecycleService because none of them changes what a
   * memory says: they change how much it is believed and what it is connected to.
   * Where a resolution does change a memory's status (retracting or superseding the
   * losing side), it goes through the lifecycle state machine, with its audit rows
   * and WatchTransitions events, in the same transaction.
   * Scopes: reads need `read`; writes need `write`, and setting or removing the
   * OFFICIAL grade needs `operator`.
   * </pre>
   */
  public static final class EvidenceServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<EvidenceServiceBlockingV2Stub> {
    private EvidenceServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected EvidenceServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new EvidenceServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * Sets a memory's evidence grade. OFFICIAL, and any change to a memory that is
     * OFFICIAL, needs the `operator` scope.
     * </pre>
     */
    public dev.engram.v1.Memory setEvidenceLevel(dev.engram.v1.SetEvidenceLevelRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getSetEvidenceLevelMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Runs the corroboration assessor on a memory: suggests a grade from agreeing
     * and contradicting memories, and optionally applies it.
     * </pre>
     */
    public dev.engram.v1.AssessMemoryResponse assessMemory(dev.engram.v1.AssessMemoryRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getAssessMemoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Gets one conflict.
     * </pre>
     */
    public dev.engram.v1.Conflict getConflict(dev.engram.v1.GetConflictRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetConflictMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists conflicts, newest first.
     * </pre>
     */
    public dev.engram.v1.ListConflictsResponse listConflicts(dev.engram.v1.ListConflictsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListConflictsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Resolves an open conflict, applying the resolution's lifecycle transitions.
     * </pre>
     */
    public dev.engram.v1.ResolveConflictResponse resolveConflict(dev.engram.v1.ResolveConflictRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getResolveConflictMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Creates an edge between two memories. A CONTRADICTS edge also opens a
     * conflict.
     * </pre>
     */
    public dev.engram.v1.Edge createEdge(dev.engram.v1.CreateEdgeRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCreateEdgeMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Gets one edge.
     * </pre>
     */
    public dev.engram.v1.Edge getEdge(dev.engram.v1.GetEdgeRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetEdgeMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists edges around a memory or in a space.
     * </pre>
     */
    public dev.engram.v1.ListEdgesResponse listEdges(dev.engram.v1.ListEdgesRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListEdgesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Deletes an edge. SUPERSEDES edges cannot be deleted: they record a
     * transition.
     * </pre>
     */
    public com.google.protobuf.Empty deleteEdge(dev.engram.v1.DeleteEdgeRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getDeleteEdgeMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Computes a space's profile: churn, stability, evidence distribution and
     * counts per kind and status, with its classification. Each run is kept
     * (unless `dry_run`), so drift can be listed.
     * </pre>
     */
    public dev.engram.v1.SpaceProfile getSpaceProfile(dev.engram.v1.GetSpaceProfileRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetSpaceProfileMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists kept profile runs, newest first.
     * </pre>
     */
    public dev.engram.v1.ListSpaceProfilesResponse listSpaceProfiles(dev.engram.v1.ListSpaceProfilesRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListSpaceProfilesMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service EvidenceService.
   * <pre>
   * EvidenceService owns belief revision: how much each memory is to be believed and
   * how memories relate to one another.
   * - Evidence grades: who may set them (OFFICIAL is operator-only and never
   *   inferred) and the corroboration assessor that suggests them from agreeing and
   *   contradicting memories with distinct sources.
   * - Conflicts: pairs or sets of memories that cannot all be true, opened by the
   *   assessor, by Dream State or by a CONTRADICTS edge, and closed by an explicit
   *   resolution.
   * - Edges: the typed graph between memories that graph-augmented recall follows
   *   and that records support, contradiction, supersession, aboutness and
   *   derivation.
   * - Space profiles: per-space statistics (churn, stability, evidence) that tell
   *   extraction and curation how to treat a space.
   * These live apart from LifecycleService because none of them changes what a
   * memory says: they change how much it is believed and what it is connected to.
   * Where a resolution does change a memory's status (retracting or superseding the
   * losing side), it goes through the lifecycle state machine, with its audit rows
   * and WatchTransitions events, in the same transaction.
   * Scopes: reads need `read`; writes need `write`, and setting or removing the
   * OFFICIAL grade needs `operator`.
   * </pre>
   */
  public static final class EvidenceServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<EvidenceServiceBlockingStub> {
    private EvidenceServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected EvidenceServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new EvidenceServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Sets a memory's evidence grade. OFFICIAL, and any change to a memory that is
     * OFFICIAL, needs the `operator` scope.
     * </pre>
     */
    public dev.engram.v1.Memory setEvidenceLevel(dev.engram.v1.SetEvidenceLevelRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSetEvidenceLevelMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Runs the corroboration assessor on a memory: suggests a grade from agreeing
     * and contradicting memories, and optionally applies it.
     * </pre>
     */
    public dev.engram.v1.AssessMemoryResponse assessMemory(dev.engram.v1.AssessMemoryRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getAssessMemoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Gets one conflict.
     * </pre>
     */
    public dev.engram.v1.Conflict getConflict(dev.engram.v1.GetConflictRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetConflictMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists conflicts, newest first.
     * </pre>
     */
    public dev.engram.v1.ListConflictsResponse listConflicts(dev.engram.v1.ListConflictsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListConflictsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Resolves an open conflict, applying the resolution's lifecycle transitions.
     * </pre>
     */
    public dev.engram.v1.ResolveConflictResponse resolveConflict(dev.engram.v1.ResolveConflictRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getResolveConflictMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Creates an edge between two memories. A CONTRADICTS edge also opens a
     * conflict.
     * </pre>
     */
    public dev.engram.v1.Edge createEdge(dev.engram.v1.CreateEdgeRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreateEdgeMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Gets one edge.
     * </pre>
     */
    public dev.engram.v1.Edge getEdge(dev.engram.v1.GetEdgeRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetEdgeMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists edges around a memory or in a space.
     * </pre>
     */
    public dev.engram.v1.ListEdgesResponse listEdges(dev.engram.v1.ListEdgesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListEdgesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Deletes an edge. SUPERSEDES edges cannot be deleted: they record a
     * transition.
     * </pre>
     */
    public com.google.protobuf.Empty deleteEdge(dev.engram.v1.DeleteEdgeRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDeleteEdgeMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Computes a space's profile: churn, stability, evidence distribution and
     * counts per kind and status, with its classification. Each run is kept
     * (unless `dry_run`), so drift can be listed.
     * </pre>
     */
    public dev.engram.v1.SpaceProfile getSpaceProfile(dev.engram.v1.GetSpaceProfileRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetSpaceProfileMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists kept profile runs, newest first.
     * </pre>
     */
    public dev.engram.v1.ListSpaceProfilesResponse listSpaceProfiles(dev.engram.v1.ListSpaceProfilesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListSpaceProfilesMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service EvidenceService.
   * <pre>
   * EvidenceService owns belief revision: how much each memory is to be believed and
   * how memories relate to one another.
   * - Evidence grades: who may set them (OFFICIAL is operator-only and never
   *   inferred) and the corroboration assessor that suggests them from agreeing and
   *   contradicting memories with distinct sources.
   * - Conflicts: pairs or sets of memories that cannot all be true, opened by the
   *   assessor, by Dream State or by a CONTRADICTS edge, and closed by an explicit
   *   resolution.
   * - Edges: the typed graph between memories that graph-augmented recall follows
   *   and that records support, contradiction, supersession, aboutness and
   *   derivation.
   * - Space profiles: per-space statistics (churn, stability, evidence) that tell
   *   extraction and curation how to treat a space.
   * These live apart from LifecycleService because none of them changes what a
   * memory says: they change how much it is believed and what it is connected to.
   * Where a resolution does change a memory's status (retracting or superseding the
   * losing side), it goes through the lifecycle state machine, with its audit rows
   * and WatchTransitions events, in the same transaction.
   * Scopes: reads need `read`; writes need `write`, and setting or removing the
   * OFFICIAL grade needs `operator`.
   * </pre>
   */
  public static final class EvidenceServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<EvidenceServiceFutureStub> {
    private EvidenceServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected EvidenceServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new EvidenceServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Sets a memory's evidence grade. OFFICIAL, and any change to a memory that is
     * OFFICIAL, needs the `operator` scope.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Memory> setEvidenceLevel(
        dev.engram.v1.SetEvidenceLevelRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSetEvidenceLevelMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Runs the corroboration assessor on a memory: suggests a grade from agreeing
     * and contradicting memories, and optionally applies it.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.AssessMemoryResponse> assessMemory(
        dev.engram.v1.AssessMemoryRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getAssessMemoryMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Gets one conflict.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Conflict> getConflict(
        dev.engram.v1.GetConflictRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetConflictMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists conflicts, newest first.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.ListConflictsResponse> listConflicts(
        dev.engram.v1.ListConflictsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListConflictsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Resolves an open conflict, applying the resolution's lifecycle transitions.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.ResolveConflictResponse> resolveConflict(
        dev.engram.v1.ResolveConflictRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getResolveConflictMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Creates an edge between two memories. A CONTRADICTS edge also opens a
     * conflict.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Edge> createEdge(
        dev.engram.v1.CreateEdgeRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreateEdgeMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Gets one edge.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Edge> getEdge(
        dev.engram.v1.GetEdgeRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetEdgeMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists edges around a memory or in a space.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.ListEdgesResponse> listEdges(
        dev.engram.v1.ListEdgesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListEdgesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Deletes an edge. SUPERSEDES edges cannot be deleted: they record a
     * transition.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<com.google.protobuf.Empty> deleteEdge(
        dev.engram.v1.DeleteEdgeRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDeleteEdgeMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Computes a space's profile: churn, stability, evidence distribution and
     * counts per kind and status, with its classification. Each run is kept
     * (unless `dry_run`), so drift can be listed.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.SpaceProfile> getSpaceProfile(
        dev.engram.v1.GetSpaceProfileRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetSpaceProfileMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists kept profile runs, newest first.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.ListSpaceProfilesResponse> listSpaceProfiles(
        dev.engram.v1.ListSpaceProfilesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListSpaceProfilesMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_SET_EVIDENCE_LEVEL = 0;
  private static final int METHODID_ASSESS_MEMORY = 1;
  private static final int METHODID_GET_CONFLICT = 2;
  private static final int METHODID_LIST_CONFLICTS = 3;
  private static final int METHODID_RESOLVE_CONFLICT = 4;
  private static final int METHODID_CREATE_EDGE = 5;
  private static final int METHODID_GET_EDGE = 6;
  private static final int METHODID_LIST_EDGES = 7;
  private static final int METHODID_DELETE_EDGE = 8;
  private static final int METHODID_GET_SPACE_PROFILE = 9;
  private static final int METHODID_LIST_SPACE_PROFILES = 10;

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
        case METHODID_SET_EVIDENCE_LEVEL:
          serviceImpl.setEvidenceLevel((dev.engram.v1.SetEvidenceLevelRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Memory>) responseObserver);
          break;
        case METHODID_ASSESS_MEMORY:
          serviceImpl.assessMemory((dev.engram.v1.AssessMemoryRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.AssessMemoryResponse>) responseObserver);
          break;
        case METHODID_GET_CONFLICT:
          serviceImpl.getConflict((dev.engram.v1.GetConflictRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Conflict>) responseObserver);
          break;
        case METHODID_LIST_CONFLICTS:
          serviceImpl.listConflicts((dev.engram.v1.ListConflictsRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.ListConflictsResponse>) responseObserver);
          break;
        case METHODID_RESOLVE_CONFLICT:
          serviceImpl.resolveConflict((dev.engram.v1.ResolveConflictRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.ResolveConflictResponse>) responseObserver);
          break;
        case METHODID_CREATE_EDGE:
          serviceImpl.createEdge((dev.engram.v1.CreateEdgeRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Edge>) responseObserver);
          break;
        case METHODID_GET_EDGE:
          serviceImpl.getEdge((dev.engram.v1.GetEdgeRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Edge>) responseObserver);
          break;
        case METHODID_LIST_EDGES:
          serviceImpl.listEdges((dev.engram.v1.ListEdgesRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.ListEdgesResponse>) responseObserver);
          break;
        case METHODID_DELETE_EDGE:
          serviceImpl.deleteEdge((dev.engram.v1.DeleteEdgeRequest) request,
              (io.grpc.stub.StreamObserver<com.google.protobuf.Empty>) responseObserver);
          break;
        case METHODID_GET_SPACE_PROFILE:
          serviceImpl.getSpaceProfile((dev.engram.v1.GetSpaceProfileRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.SpaceProfile>) responseObserver);
          break;
        case METHODID_LIST_SPACE_PROFILES:
          serviceImpl.listSpaceProfiles((dev.engram.v1.ListSpaceProfilesRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.ListSpaceProfilesResponse>) responseObserver);
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
          getSetEvidenceLevelMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.SetEvidenceLevelRequest,
              dev.engram.v1.Memory>(
                service, METHODID_SET_EVIDENCE_LEVEL)))
        .addMethod(
          getAssessMemoryMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.AssessMemoryRequest,
              dev.engram.v1.AssessMemoryResponse>(
                service, METHODID_ASSESS_MEMORY)))
        .addMethod(
          getGetConflictMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.GetConflictRequest,
              dev.engram.v1.Conflict>(
                service, METHODID_GET_CONFLICT)))
        .addMethod(
          getListConflictsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.ListConflictsRequest,
              dev.engram.v1.ListConflictsResponse>(
                service, METHODID_LIST_CONFLICTS)))
        .addMethod(
          getResolveConflictMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.ResolveConflictRequest,
              dev.engram.v1.ResolveConflictResponse>(
                service, METHODID_RESOLVE_CONFLICT)))
        .addMethod(
          getCreateEdgeMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.CreateEdgeRequest,
              dev.engram.v1.Edge>(
                service, METHODID_CREATE_EDGE)))
        .addMethod(
          getGetEdgeMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.GetEdgeRequest,
              dev.engram.v1.Edge>(
                service, METHODID_GET_EDGE)))
        .addMethod(
          getListEdgesMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.ListEdgesRequest,
              dev.engram.v1.ListEdgesResponse>(
                service, METHODID_LIST_EDGES)))
        .addMethod(
          getDeleteEdgeMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.DeleteEdgeRequest,
              com.google.protobuf.Empty>(
                service, METHODID_DELETE_EDGE)))
        .addMethod(
          getGetSpaceProfileMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.GetSpaceProfileRequest,
              dev.engram.v1.SpaceProfile>(
                service, METHODID_GET_SPACE_PROFILE)))
        .addMethod(
          getListSpaceProfilesMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.ListSpaceProfilesRequest,
              dev.engram.v1.ListSpaceProfilesResponse>(
                service, METHODID_LIST_SPACE_PROFILES)))
        .build();
  }

  private static abstract class EvidenceServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    EvidenceServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.engram.v1.EvidenceProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("EvidenceService");
    }
  }

  private static final class EvidenceServiceFileDescriptorSupplier
      extends EvidenceServiceBaseDescriptorSupplier {
    EvidenceServiceFileDescriptorSupplier() {}
  }

  private static final class EvidenceServiceMethodDescriptorSupplier
      extends EvidenceServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    EvidenceServiceMethodDescriptorSupplier(java.lang.String methodName) {
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
      synchronized (EvidenceServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new EvidenceServiceFileDescriptorSupplier())
              .addMethod(getSetEvidenceLevelMethod())
              .addMethod(getAssessMemoryMethod())
              .addMethod(getGetConflictMethod())
              .addMethod(getListConflictsMethod())
              .addMethod(getResolveConflictMethod())
              .addMethod(getCreateEdgeMethod())
              .addMethod(getGetEdgeMethod())
              .addMethod(getListEdgesMethod())
              .addMethod(getDeleteEdgeMethod())
              .addMethod(getGetSpaceProfileMethod())
              .addMethod(getListSpaceProfilesMethod())
              .build();
        }
      }
    }
    return result;
  }
}
