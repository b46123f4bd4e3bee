package dev.engram.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * LifecycleService is the governed write path: every change to a memory's content
 * or status goes through it, is validated against the space policy, commits its
 * audit row in the same transaction, and is streamed to WatchTransitions.
 * It also owns the other ways memories are *written*: the working-memory session
 * buffer (whose contents become memories), learning facts from conversations,
 * consolidation, reflection and the Dream State curation pass. They belong here
 * because each one ends in proposals and transitions that must pass the same
 * validators, dedup, privacy boundary and audit as a direct ProposeMemory.
 * Every mutating request carries an optional `request_id`: a retry with the same
 * id returns the first outcome and writes nothing new.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class LifecycleServiceGrpc {

  private LifecycleServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "engram.v1.LifecycleService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.ProposeMemoryRequest,
      dev.engram.v1.ProposeMemoryResponse> getProposeMemoryMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ProposeMemory",
      requestType = dev.engram.v1.ProposeMemoryRequest.class,
      responseType = dev.engram.v1.ProposeMemoryResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.ProposeMemoryRequest,
      dev.engram.v1.ProposeMemoryResponse> getProposeMemoryMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.ProposeMemoryRequest, dev.engram.v1.ProposeMemoryResponse> getProposeMemoryMethod;
    if ((getProposeMemoryMethod = LifecycleServiceGrpc.getProposeMemoryMethod) == null) {
      synchronized (LifecycleServiceGrpc.class) {
        if ((getProposeMemoryMethod = LifecycleServiceGrpc.getProposeMemoryMethod) == null) {
          LifecycleServiceGrpc.getProposeMemoryMethod = getProposeMemoryMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.ProposeMemoryRequest, dev.engram.v1.ProposeMemoryResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ProposeMemory"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ProposeMemoryRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ProposeMemoryResponse.getDefaultInstance()))
              .setSchemaDescriptor(new LifecycleServiceMethodDescriptorSupplier("ProposeMemory"))
              .build();
        }
      }
    }
    return getProposeMemoryMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.BatchProposeMemoriesRequest,
      dev.engram.v1.BatchProposeMemoriesResponse> getBatchProposeMemoriesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "BatchProposeMemories",
      requestType = dev.engram.v1.BatchProposeMemoriesRequest.class,
      responseType = dev.engram.v1.BatchProposeMemoriesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.BatchProposeMemoriesRequest,
      dev.engram.v1.BatchProposeMemoriesResponse> getBatchProposeMemoriesMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.BatchProposeMemoriesRequest, dev.engram.v1.BatchProposeMemoriesResponse> getBatchProposeMemoriesMethod;
    if ((getBatchProposeMemoriesMethod = LifecycleServiceGrpc.getBatchProposeMemoriesMethod) == null) {
      synchronized (LifecycleServiceGrpc.class) {
        if ((getBatchProposeMemoriesMethod = LifecycleServiceGrpc.getBatchProposeMemoriesMethod) == null) {
          LifecycleServiceGrpc.getBatchProposeMemoriesMethod = getBatchProposeMemoriesMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.BatchProposeMemoriesRequest, dev.engram.v1.BatchProposeMemoriesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "BatchProposeMemories"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.BatchProposeMemoriesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.BatchProposeMemoriesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new LifecycleServiceMethodDescriptorSupplier("BatchProposeMemories"))
              .build();
        }
      }
    }
    return getBatchProposeMemoriesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.ConfirmMemoryRequest,
      dev.engram.v1.Memory> getConfirmMemoryMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ConfirmMemory",
      requestType = dev.engram.v1.ConfirmMemoryRequest.class,
      responseType = dev.engram.v1.Memory.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.ConfirmMemoryRequest,
      dev.engram.v1.Memory> getConfirmMemoryMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.ConfirmMemoryRequest, dev.engram.v1.Memory> getConfirmMemoryMethod;
    if ((getConfirmMemoryMethod = LifecycleServiceGrpc.getConfirmMemoryMethod) == null) {
      synchronized (LifecycleServiceGrpc.class) {
        if ((getConfirmMemoryMethod = LifecycleServiceGrpc.getConfirmMemoryMethod) == null) {
          LifecycleServiceGrpc.getConfirmMemoryMethod = getConfirmMemoryMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.ConfirmMemoryRequest, dev.engram.v1.Memory>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ConfirmMemory"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ConfirmMemoryRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Memory.getDefaultInstance()))
              .setSchemaDescriptor(new LifecycleServiceMethodDescriptorSupplier("ConfirmMemory"))
              .build();
        }
      }
    }
    return getConfirmMemoryMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.RejectMemoryRequest,
      dev.engram.v1.Memory> getRejectMemoryMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RejectMemory",
      requestType = dev.engram.v1.RejectMemoryRequest.class,
      responseType = dev.engram.v1.Memory.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.RejectMemoryRequest,
      dev.engram.v1.Memory> getRejectMemoryMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.RejectMemoryRequest, dev.engram.v1.Memory> getRejectMemoryMethod;
    if ((getRejectMemoryMethod = LifecycleServiceGrpc.getRejectMemoryMethod) == null) {
      synchronized (LifecycleServiceGrpc.class) {
        if ((getRejectMemoryMethod = LifecycleServiceGrpc.getRejectMemoryMethod) == null) {
          LifecycleServiceGrpc.getRejectMemoryMethod = getRejectMemoryMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.RejectMemoryRequest, dev.engram.v1.Memory>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RejectMemory"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.RejectMemoryRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Memory.getDefaultInstance()))
              .setSchemaDescriptor(new LifecycleServiceMethodDescriptorSupplier("RejectMemory"))
              .build();
        }
      }
    }
    return getRejectMemoryMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.RetractMemoryRequest,
      dev.engram.v1.RetractMemoryResponse> getRetractMemoryMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RetractMemory",
      requestType = dev.engram.v1.RetractMemoryRequest.class,
      responseType = dev.engram.v1.RetractMemoryResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.RetractMemoryRequest,
      dev.engram.v1.RetractMemoryResponse> getRetractMemoryMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.RetractMemoryRequest, dev.engram.v1.RetractMemoryResponse> getRetractMemoryMethod;
    if ((getRetractMemoryMethod = LifecycleServiceGrpc.getRetractMemoryMethod) == null) {
      synchronized (LifecycleServiceGrpc.class) {
        if ((getRetractMemoryMethod = LifecycleServiceGrpc.getRetractMemoryMethod) == null) {
          LifecycleServiceGrpc.getRetractMemoryMethod = getRetractMemoryMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.RetractMemoryRequest, dev.engram.v1.RetractMemoryResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RetractMemory"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.RetractMemoryRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.RetractMemoryResponse.getDefaultInstance()))
              .setSchemaDescriptor(new LifecycleServiceMethodDescriptorSupplier("RetractMemory"))
              .build();
        }
      }
    }
    return getRetractMemoryMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.ReviseMemoryRequest,
      dev.engram.v1.Memory> getReviseMemoryMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ReviseMemory",
      requestType = dev.engram.v1.ReviseMemoryRequest.class,
      responseType = dev.engram.v1.Memory.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.ReviseMemoryRequest,
      dev.engram.v1.Memory> getReviseMemoryMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.ReviseMemoryRequest, dev.engram.v1.Memory> getReviseMemoryMethod;
    if ((getReviseMemoryMethod = LifecycleServiceGrpc.getReviseMemoryMethod) == null) {
      synchronized (LifecycleServiceGrpc.class) {
        if ((getReviseMemoryMethod = LifecycleServiceGrpc.getReviseMemoryMethod) == null) {
          LifecycleServiceGrpc.getReviseMemoryMethod = getReviseMemoryMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.ReviseMemoryRequest, dev.engram.v1.Memory>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ReviseMemory"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ReviseMemoryRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Memory.getDefaultInstance()))
              .setSchemaDescriptor(new LifecycleServiceMethodDescriptorSupplier("ReviseMemory"))
              .build();
        }
      }
    }
    return getReviseMemoryMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.UpdateMemoryConfidenceRequest,
      dev.engram.v1.Memory> getUpdateMemoryConfidenceMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "UpdateMemoryConfidence",
      requestType = dev.engram.v1.UpdateMemoryConfidenceRequest.class,
      responseType = dev.engram.v1.Memory.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.UpdateMemoryConfidenceRequest,
      dev.engram.v1.Memory> getUpdateMemoryConfidenceMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.UpdateMemoryConfidenceRequest, dev.engram.v1.Memory> getUpdateMemoryConfidenceMethod;
    if ((getUpdateMemoryConfidenceMethod = LifecycleServiceGrpc.getUpdateMemoryConfidenceMethod) == null) {
      synchronized (LifecycleServiceGrpc.class) {
        if ((getUpdateMemoryConfidenceMethod = LifecycleServiceGrpc.getUpdateMemoryConfidenceMethod) == null) {
          LifecycleServiceGrpc.getUpdateMemoryConfidenceMethod = getUpdateMemoryConfidenceMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.UpdateMemoryConfidenceRequest, dev.engram.v1.Memory>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "UpdateMemoryConfidence"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.UpdateMemoryConfidenceRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Memory.getDefaultInstance()))
              .setSchemaDescriptor(new LifecycleServiceMethodDescriptorSupplier("UpdateMemoryConfidence"))
              .build();
        }
      }
    }
    return getUpdateMemoryConfidenceMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.ExpireDueMemoriesRequest,
      dev.engram.v1.ExpireDueMemoriesResponse> getExpireDueMemoriesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ExpireDueMemories",
      requestType = dev.engram.v1.ExpireDueMemoriesRequest.class,
      responseType = dev.engram.v1.ExpireDueMemoriesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.ExpireDueMemoriesRequest,
      dev.engram.v1.ExpireDueMemoriesResponse> getExpireDueMemoriesMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.ExpireDueMemoriesRequest, dev.engram.v1.ExpireDueMemoriesResponse> getExpireDueMemoriesMethod;
    if ((getExpireDueMemoriesMethod = LifecycleServiceGrpc.getExpireDueMemoriesMethod) == null) {
      synchronized (LifecycleServiceGrpc.class) {
        if ((getExpireDueMemoriesMethod = LifecycleServiceGrpc.getExpireDueMemoriesMethod) == null) {
          LifecycleServiceGrpc.getExpireDueMemoriesMethod = getExpireDueMemoriesMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.ExpireDueMemoriesRequest, dev.engram.v1.ExpireDueMemoriesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ExpireDueMemories"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ExpireDueMemoriesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ExpireDueMemoriesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new LifecycleServiceMethodDescriptorSupplier("ExpireDueMemories"))
              .build();
        }
      }
    }
    return getExpireDueMemoriesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.GetMemoryRequest,
      dev.engram.v1.Memory> getGetMemoryMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetMemory",
      requestType = dev.engram.v1.GetMemoryRequest.class,
      responseType = dev.engram.v1.Memory.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.GetMemoryRequest,
      dev.engram.v1.Memory> getGetMemoryMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.GetMemoryRequest, dev.engram.v1.Memory> getGetMemoryMethod;
    if ((getGetMemoryMethod = LifecycleServiceGrpc.getGetMemoryMethod) == null) {
      synchronized (LifecycleServiceGrpc.class) {
        if ((getGetMemoryMethod = LifecycleServiceGrpc.getGetMemoryMethod) == null) {
          LifecycleServiceGrpc.getGetMemoryMethod = getGetMemoryMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.GetMemoryRequest, dev.engram.v1.Memory>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetMemory"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.GetMemoryRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Memory.getDefaultInstance()))
              .setSchemaDescriptor(new LifecycleServiceMethodDescriptorSupplier("GetMemory"))
              .build();
        }
      }
    }
    return getGetMemoryMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.ListMemoriesRequest,
      dev.engram.v1.ListMemoriesResponse> getListMemoriesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListMemories",
      requestType = dev.engram.v1.ListMemoriesRequest.class,
      responseType = dev.engram.v1.ListMemoriesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.ListMemoriesRequest,
      dev.engram.v1.ListMemoriesResponse> getListMemoriesMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.ListMemoriesRequest, dev.engram.v1.ListMemoriesResponse> getListMemoriesMethod;
    if ((getListMemoriesMethod = LifecycleServiceGrpc.getListMemoriesMethod) == null) {
      synchronized (LifecycleServiceGrpc.class) {
        if ((getListMemoriesMethod = LifecycleServiceGrpc.getListMemoriesMethod) == null) {
          LifecycleServiceGrpc.getListMemoriesMethod = getListMemoriesMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.ListMemoriesRequest, dev.engram.v1.ListMemoriesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListMemories"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListMemoriesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListMemoriesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new LifecycleServiceMethodDescriptorSupplier("ListMemories"))
              .build();
        }
      }
    }
    return getListMemoriesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.ListMemoryRevisionsRequest,
      dev.engram.v1.ListMemoryRevisionsResponse> getListMemoryRevisionsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListMemoryRevisions",
      requestType = dev.engram.v1.ListMemoryRevisionsRequest.class,
      responseType = dev.engram.v1.ListMemoryRevisionsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.ListMemoryRevisionsRequest,
      dev.engram.v1.ListMemoryRevisionsResponse> getListMemoryRevisionsMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.ListMemoryRevisionsRequest, dev.engram.v1.ListMemoryRevisionsResponse> getListMemoryRevisionsMethod;
    if ((getListMemoryRevisionsMethod = LifecycleServiceGrpc.getListMemoryRevisionsMethod) == null) {
      synchronized (LifecycleServiceGrpc.class) {
        if ((getListMemoryRevisionsMethod = LifecycleServiceGrpc.getListMemoryRevisionsMethod) == null) {
          LifecycleServiceGrpc.getListMemoryRevisionsMethod = getListMemoryRevisionsMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.ListMemoryRevisionsRequest, dev.engram.v1.ListMemoryRevisionsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListMemoryRevisions"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListMemoryRevisionsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListMemoryRevisionsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new LifecycleServiceMethodDescriptorSupplier("ListMemoryRevisions"))
              .build();
        }
      }
    }
    return getListMemoryRevisionsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.ListAuditEntriesRequest,
      dev.engram.v1.ListAuditEntriesResponse> getListAuditEntriesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListAuditEntries",
      requestType = dev.engram.v1.ListAuditEntriesRequest.class,
      responseType = dev.engram.v1.ListAuditEntriesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.ListAuditEntriesRequest,
      dev.engram.v1.ListAuditEntriesResponse> getListAuditEntriesMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.ListAuditEntriesRequest, dev.engram.v1.ListAuditEntriesResponse> getListAuditEntriesMethod;
    if ((getListAuditEntriesMethod = LifecycleServiceGrpc.getListAuditEntriesMethod) == null) {
      synchronized (LifecycleServiceGrpc.class) {
        if ((getListAuditEntriesMethod = LifecycleServiceGrpc.getListAuditEntriesMethod) == null) {
          LifecycleServiceGrpc.getListAuditEntriesMethod = getListAuditEntriesMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.ListAuditEntriesRequest, dev.engram.v1.ListAuditEntriesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListAuditEntries"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListAuditEntriesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListAuditEntriesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new LifecycleServiceMethodDescriptorSupplier("ListAuditEntries"))
              .build();
        }
      }
    }
    return getListAuditEntriesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.PurgeMemoriesRequest,
      dev.engram.v1.PurgeMemoriesResponse> getPurgeMemoriesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "PurgeMemories",
      requestType = dev.engram.v1.PurgeMemoriesRequest.class,
      responseType = dev.engram.v1.PurgeMemoriesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.PurgeMemoriesRequest,
      dev.engram.v1.PurgeMemoriesResponse> getPurgeMemoriesMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.PurgeMemoriesRequest, dev.engram.v1.PurgeMemoriesResponse> getPurgeMemoriesMethod;
    if ((getPurgeMemoriesMethod = LifecycleServiceGrpc.getPurgeMemoriesMethod) == null) {
      synchronized (LifecycleServiceGrpc.class) {
        if ((getPurgeMemoriesMethod = LifecycleServiceGrpc.getPurgeMemoriesMethod) == null) {
          LifecycleServiceGrpc.getPurgeMemoriesMethod = getPurgeMemoriesMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.PurgeMemoriesRequest, dev.engram.v1.PurgeMemoriesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "PurgeMemories"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.PurgeMemoriesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.PurgeMemoriesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new LifecycleServiceMethodDescriptorSupplier("PurgeMemories"))
              .build();
        }
      }
    }
    return getPurgeMemoriesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.WatchTransitionsRequest,
      dev.engram.v1.WatchTransitionsResponse> getWatchTransitionsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "WatchTransitions",
      requestType = dev.engram.v1.WatchTransitionsRequest.class,
      responseType = dev.engram.v1.WatchTransitionsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
  public static io.grpc.MethodDescriptor<dev.engram.v1.WatchTransitionsRequest,
      dev.engram.v1.WatchTransitionsResponse> getWatchTransitionsMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.WatchTransitionsRequest, dev.engram.v1.WatchTransitionsResponse> getWatchTransitionsMethod;
    if ((getWatchTransitionsMethod = LifecycleServiceGrpc.getWatchTransitionsMethod) == null) {
      synchronized (LifecycleServiceGrpc.class) {
        if ((getWatchTransitionsMethod = LifecycleServiceGrpc.getWatchTransitionsMethod) == null) {
          LifecycleServiceGrpc.getWatchTransitionsMethod = getWatchTransitionsMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.WatchTransitionsRequest, dev.engram.v1.WatchTransitionsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "WatchTransitions"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.WatchTransitionsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.WatchTransitionsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new LifecycleServiceMethodDescriptorSupplier("WatchTransitions"))
              .build();
        }
      }
    }
    return getWatchTransitionsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.GetPolicyRequest,
      dev.engram.v1.Policy> getGetPolicyMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetPolicy",
      requestType = dev.engram.v1.GetPolicyRequest.class,
      responseType = dev.engram.v1.Policy.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.GetPolicyRequest,
      dev.engram.v1.Policy> getGetPolicyMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.GetPolicyRequest, dev.engram.v1.Policy> getGetPolicyMethod;
    if ((getGetPolicyMethod = LifecycleServiceGrpc.getGetPolicyMethod) == null) {
      synchronized (LifecycleServiceGrpc.class) {
        if ((getGetPolicyMethod = LifecycleServiceGrpc.getGetPolicyMethod) == null) {
          LifecycleServiceGrpc.getGetPolicyMethod = getGetPolicyMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.GetPolicyRequest, dev.engram.v1.Policy>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetPolicy"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.GetPolicyRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Policy.getDefaultInstance()))
              .setSchemaDescriptor(new LifecycleServiceMethodDescriptorSupplier("GetPolicy"))
              .build();
        }
      }
    }
    return getGetPolicyMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.SetPolicyRequest,
      dev.engram.v1.Policy> getSetPolicyMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SetPolicy",
      requestType = dev.engram.v1.SetPolicyRequest.class,
      responseType = dev.engram.v1.Policy.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.SetPolicyRequest,
      dev.engram.v1.Policy> getSetPolicyMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.SetPolicyRequest, dev.engram.v1.Policy> getSetPolicyMethod;
    if ((getSetPolicyMethod = LifecycleServiceGrpc.getSetPolicyMethod) == null) {
      synchronized (LifecycleServiceGrpc.class) {
        if ((getSetPolicyMethod = LifecycleServiceGrpc.getSetPolicyMethod) == null) {
          LifecycleServiceGrpc.getSetPolicyMethod = getSetPolicyMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.SetPolicyRequest, dev.engram.v1.Policy>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SetPolicy"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.SetPolicyRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Policy.getDefaultInstance()))
              .setSchemaDescriptor(new LifecycleServiceMethodDescriptorSupplier("SetPolicy"))
              .build();
        }
      }
    }
    return getSetPolicyMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.AppendMessageRequest,
      dev.engram.v1.AppendMessageResponse> getAppendMessageMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "AppendMessage",
      requestType = dev.engram.v1.AppendMessageRequest.class,
      responseType = dev.engram.v1.AppendMessageResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.AppendMessageRequest,
      dev.engram.v1.AppendMessageResponse> getAppendMessageMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.AppendMessageRequest, dev.engram.v1.AppendMessageResponse> getAppendMessageMethod;
    if ((getAppendMessageMethod = LifecycleServiceGrpc.getAppendMessageMethod) == null) {
      synchronized (LifecycleServiceGrpc.class) {
        if ((getAppendMessageMethod = LifecycleServiceGrpc.getAppendMessageMethod) == null) {
          LifecycleServiceGrpc.getAppendMessageMethod = getAppendMessageMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.AppendMessageRequest, dev.engram.v1.AppendMessageResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "AppendMessage"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.AppendMessageRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.AppendMessageResponse.getDefaultInstance()))
              .setSchemaDescriptor(new LifecycleServiceMethodDescriptorSupplier("AppendMessage"))
              .build();
        }
      }
    }
    return getAppendMessageMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.AppendMessagesRequest,
      dev.engram.v1.AppendMessagesResponse> getAppendMessagesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "AppendMessages",
      requestType = dev.engram.v1.AppendMessagesRequest.class,
      responseType = dev.engram.v1.AppendMessagesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.BIDI_STREAMING)
  public static io.grpc.MethodDescriptor<dev.engram.v1.AppendMessagesRequest,
      dev.engram.v1.AppendMessagesResponse> getAppendMessagesMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.AppendMessagesRequest, dev.engram.v1.AppendMessagesResponse> getAppendMessagesMethod;
    if ((getAppendMessagesMethod = LifecycleServiceGrpc.getAppendMessagesMethod) == null) {
      synchronized (LifecycleServiceGrpc.class) {
        if ((getAppendMessagesMethod = LifecycleServiceGrpc.getAppendMessagesMethod) == null) {
          LifecycleServiceGrpc.getAppendMessagesMethod = getAppendMessagesMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.AppendMessagesRequest, dev.engram.v1.AppendMessagesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.BIDI_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "AppendMessages"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.AppendMessagesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.AppendMessagesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new LifecycleServiceMethodDescriptorSupplier("AppendMessages"))
              .build();
        }
      }
    }
    return getAppendMessagesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.GetSessionWindowRequest,
      dev.engram.v1.GetSessionWindowResponse> getGetSessionWindowMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetSessionWindow",
      requestType = dev.engram.v1.GetSessionWindowRequest.class,
      responseType = dev.engram.v1.GetSessionWindowResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.GetSessionWindowRequest,
      dev.engram.v1.GetSessionWindowResponse> getGetSessionWindowMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.GetSessionWindowRequest, dev.engram.v1.GetSessionWindowResponse> getGetSessionWindowMethod;
    if ((getGetSessionWindowMethod = LifecycleServiceGrpc.getGetSessionWindowMethod) == null) {
      synchronized (LifecycleServiceGrpc.class) {
        if ((getGetSessionWindowMethod = LifecycleServiceGrpc.getGetSessionWindowMethod) == null) {
          LifecycleServiceGrpc.getGetSessionWindowMethod = getGetSessionWindowMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.GetSessionWindowRequest, dev.engram.v1.GetSessionWindowResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetSessionWindow"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.GetSessionWindowRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.GetSessionWindowResponse.getDefaultInstance()))
              .setSchemaDescriptor(new LifecycleServiceMethodDescriptorSupplier("GetSessionWindow"))
              .build();
        }
      }
    }
    return getGetSessionWindowMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.ListSessionsRequest,
      dev.engram.v1.ListSessionsResponse> getListSessionsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListSessions",
      requestType = dev.engram.v1.ListSessionsRequest.class,
      responseType = dev.engram.v1.ListSessionsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.ListSessionsRequest,
      dev.engram.v1.ListSessionsResponse> getListSessionsMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.ListSessionsRequest, dev.engram.v1.ListSessionsResponse> getListSessionsMethod;
    if ((getListSessionsMethod = LifecycleServiceGrpc.getListSessionsMethod) == null) {
      synchronized (LifecycleServiceGrpc.class) {
        if ((getListSessionsMethod = LifecycleServiceGrpc.getListSessionsMethod) == null) {
          LifecycleServiceGrpc.getListSessionsMethod = getListSessionsMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.ListSessionsRequest, dev.engram.v1.ListSessionsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListSessions"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListSessionsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListSessionsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new LifecycleServiceMethodDescriptorSupplier("ListSessions"))
              .build();
        }
      }
    }
    return getListSessionsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.ClearSessionRequest,
      dev.engram.v1.ClearSessionResponse> getClearSessionMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ClearSession",
      requestType = dev.engram.v1.ClearSessionRequest.class,
      responseType = dev.engram.v1.ClearSessionResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.ClearSessionRequest,
      dev.engram.v1.ClearSessionResponse> getClearSessionMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.ClearSessionRequest, dev.engram.v1.ClearSessionResponse> getClearSessionMethod;
    if ((getClearSessionMethod = LifecycleServiceGrpc.getClearSessionMethod) == null) {
      synchronized (LifecycleServiceGrpc.class) {
        if ((getClearSessionMethod = LifecycleServiceGrpc.getClearSessionMethod) == null) {
          LifecycleServiceGrpc.getClearSessionMethod = getClearSessionMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.ClearSessionRequest, dev.engram.v1.ClearSessionResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ClearSession"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ClearSessionRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ClearSessionResponse.getDefaultInstance()))
              .setSchemaDescriptor(new LifecycleServiceMethodDescriptorSupplier("ClearSession"))
              .build();
        }
      }
    }
    return getClearSessionMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.ReflectRequest,
      dev.engram.v1.ReflectResponse> getReflectMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Reflect",
      requestType = dev.engram.v1.ReflectRequest.class,
      responseType = dev.engram.v1.ReflectResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.ReflectRequest,
      dev.engram.v1.ReflectResponse> getReflectMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.ReflectRequest, dev.engram.v1.ReflectResponse> getReflectMethod;
    if ((getReflectMethod = LifecycleServiceGrpc.getReflectMethod) == null) {
      synchronized (LifecycleServiceGrpc.class) {
        if ((getReflectMethod = LifecycleServiceGrpc.getReflectMethod) == null) {
          LifecycleServiceGrpc.getReflectMethod = getReflectMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.ReflectRequest, dev.engram.v1.ReflectResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Reflect"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ReflectRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ReflectResponse.getDefaultInstance()))
              .setSchemaDescriptor(new LifecycleServiceMethodDescriptorSupplier("Reflect"))
              .build();
        }
      }
    }
    return getReflectMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.LearnRequest,
      dev.engram.v1.LearnResponse> getLearnMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Learn",
      requestType = dev.engram.v1.LearnRequest.class,
      responseType = dev.engram.v1.LearnResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.LearnRequest,
      dev.engram.v1.LearnResponse> getLearnMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.LearnRequest, dev.engram.v1.LearnResponse> getLearnMethod;
    if ((getLearnMethod = LifecycleServiceGrpc.getLearnMethod) == null) {
      synchronized (LifecycleServiceGrpc.class) {
        if ((getLearnMethod = LifecycleServiceGrpc.getLearnMethod) == null) {
          LifecycleServiceGrpc.getLearnMethod = getLearnMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.LearnRequest, dev.engram.v1.LearnResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Learn"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.LearnRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.LearnResponse.getDefaultInstance()))
              .setSchemaDescriptor(new LifecycleServiceMethodDescriptorSupplier("Learn"))
              .build();
        }
      }
    }
    return getLearnMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.ConsolidateRequest,
      dev.engram.v1.ConsolidateResponse> getConsolidateMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Consolidate",
      requestType = dev.engram.v1.ConsolidateRequest.class,
      responseType = dev.engram.v1.ConsolidateResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.ConsolidateRequest,
      dev.engram.v1.ConsolidateResponse> getConsolidateMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.ConsolidateRequest, dev.engram.v1.ConsolidateResponse> getConsolidateMethod;
    if ((getConsolidateMethod = LifecycleServiceGrpc.getConsolidateMethod) == null) {
      synchronized (LifecycleServiceGrpc.class) {
        if ((getConsolidateMethod = LifecycleServiceGrpc.getConsolidateMethod) == null) {
          LifecycleServiceGrpc.getConsolidateMethod = getConsolidateMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.ConsolidateRequest, dev.engram.v1.ConsolidateResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Consolidate"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ConsolidateRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ConsolidateResponse.getDefaultInstance()))
              .setSchemaDescriptor(new LifecycleServiceMethodDescriptorSupplier("Consolidate"))
              .build();
        }
      }
    }
    return getConsolidateMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.DreamRequest,
      dev.engram.v1.DreamResponse> getDreamMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Dream",
      requestType = dev.engram.v1.DreamRequest.class,
      responseType = dev.engram.v1.DreamResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.DreamRequest,
      dev.engram.v1.DreamResponse> getDreamMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.DreamRequest, dev.engram.v1.DreamResponse> getDreamMethod;
    if ((getDreamMethod = LifecycleServiceGrpc.getDreamMethod) == null) {
      synchronized (LifecycleServiceGrpc.class) {
        if ((getDreamMethod = LifecycleServiceGrpc.getDreamMethod) == null) {
          LifecycleServiceGrpc.getDreamMethod = getDreamMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.DreamRequest, dev.engram.v1.DreamResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Dream"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.DreamRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.DreamResponse.getDefaultInstance()))
              .setSchemaDescriptor(new LifecycleServiceMethodDescriptorSupplier("Dream"))
              .build();
        }
      }
    }
    return getDreamMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static LifecycleServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<LifecycleServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<LifecycleServiceStub>() {
        @java.lang.Override
        public LifecycleServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new LifecycleServiceStub(channel, callOptions);
        }
      };
    return LifecycleServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static LifecycleServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<LifecycleServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<LifecycleServiceBlockingV2Stub>() {
        @java.lang.Override
        public LifecycleServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new LifecycleServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return LifecycleServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static LifecycleServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<LifecycleServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<LifecycleServiceBlockingStub>() {
        @java.lang.Override
        public LifecycleServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new LifecycleServiceBlockingStub(channel, callOptions);
        }
      };
    return LifecycleServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static LifecycleServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<LifecycleServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<LifecycleServiceFutureStub>() {
        @java.lang.Override
        public LifecycleServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new LifecycleServiceFutureStub(channel, callOptions);
        }
      };
    return LifecycleServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * LifecycleService is the governed write path: every change to a memory's content
   * or status goes through it, is validated against the space policy, commits its
   * audit row in the same transaction, and is streamed to WatchTransitions.
   * It also owns the other ways memories are *written*: the working-memory session
   * buffer (whose contents become memories), learning facts from conversations,
   * consolidation, reflection and the Dream State curation pass. They belong here
   * because each one ends in proposals and transitions that must pass the same
   * validators, dedup, privacy boundary and audit as a direct ProposeMemory.
   * Every mutating request carries an optional `request_id`: a retry with the same
   * id returns the first outcome and writes nothing new.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * Proposes one memory. The outcome says whether it became ACTIVE, waits for
     * confirmation, was rejected (with reasons), or duplicates an existing memory.
     * </pre>
     */
    default void proposeMemory(dev.engram.v1.ProposeMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ProposeMemoryResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getProposeMemoryMethod(), responseObserver);
    }

    /**
     * <pre>
     * Proposes many memories in one transaction: all are written or none is.
     * Identical content inside the batch collapses to one memory.
     * </pre>
     */
    default void batchProposeMemories(dev.engram.v1.BatchProposeMemoriesRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.BatchProposeMemoriesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getBatchProposeMemoriesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Moves a PENDING_CONFIRMATION memory to ACTIVE.
     * </pre>
     */
    default void confirmMemory(dev.engram.v1.ConfirmMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Memory> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getConfirmMemoryMethod(), responseObserver);
    }

    /**
     * <pre>
     * A reviewer turns down a memory awaiting confirmation. The state machine has
     * no PENDING_CONFIRMATION -&gt; REJECTED edge, so a pending memory moves to
     * RETRACTED with the reason recorded as a rejection; a PROPOSED memory moves to
     * REJECTED. Any other status is FAILED_PRECONDITION.
     * </pre>
     */
    default void rejectMemory(dev.engram.v1.RejectMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Memory> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRejectMemoryMethod(), responseObserver);
    }

    /**
     * <pre>
     * Retracts an ACTIVE or PENDING_CONFIRMATION memory, optionally cascading to
     * the memories that depend on it.
     * </pre>
     */
    default void retractMemory(dev.engram.v1.RetractMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.RetractMemoryResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRetractMemoryMethod(), responseObserver);
    }

    /**
     * <pre>
     * Revises a memory's content or metadata. Requires the current etag; the old
     * revision is kept and listable.
     * </pre>
     */
    default void reviseMemory(dev.engram.v1.ReviseMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Memory> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getReviseMemoryMethod(), responseObserver);
    }

    /**
     * <pre>
     * Raises a memory's confidence. Lowering it is FAILED_PRECONDITION.
     * </pre>
     */
    default void updateMemoryConfidence(dev.engram.v1.UpdateMemoryConfidenceRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Memory> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getUpdateMemoryConfidenceMethod(), responseObserver);
    }

    /**
     * <pre>
     * Expires every ACTIVE memory whose expire_time has passed. A background
     * sweeper calls the same logic on every replica.
     * </pre>
     */
    default void expireDueMemories(dev.engram.v1.ExpireDueMemoriesRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ExpireDueMemoriesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getExpireDueMemoriesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Gets one memory.
     * </pre>
     */
    default void getMemory(dev.engram.v1.GetMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Memory> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetMemoryMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists memories with filters and paging.
     * </pre>
     */
    default void listMemories(dev.engram.v1.ListMemoriesRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListMemoriesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListMemoriesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists every kept revision of a memory, newest first.
     * </pre>
     */
    default void listMemoryRevisions(dev.engram.v1.ListMemoryRevisionsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListMemoryRevisionsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListMemoryRevisionsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists audit entries, oldest first.
     * </pre>
     */
    default void listAuditEntries(dev.engram.v1.ListAuditEntriesRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListAuditEntriesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListAuditEntriesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Hard-deletes every memory of a space or session (erasure requests). Leaves a
     * tombstone in the audit log that records the scope and the count.
     * </pre>
     */
    default void purgeMemories(dev.engram.v1.PurgeMemoriesRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.PurgeMemoriesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getPurgeMemoriesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Streams committed transitions, resumable from a cursor: every transition is
     * delivered once, in commit order. These are Engram's hooks.
     * </pre>
     */
    default void watchTransitions(dev.engram.v1.WatchTransitionsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.WatchTransitionsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getWatchTransitionsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Gets the validation policy of the tenant or of one space.
     * </pre>
     */
    default void getPolicy(dev.engram.v1.GetPolicyRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Policy> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetPolicyMethod(), responseObserver);
    }

    /**
     * <pre>
     * Replaces the validation policy of the tenant or of one space.
     * </pre>
     */
    default void setPolicy(dev.engram.v1.SetPolicyRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Policy> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSetPolicyMethod(), responseObserver);
    }

    /**
     * <pre>
     * Appends a message to a session's working-memory buffer.
     * </pre>
     */
    default void appendMessage(dev.engram.v1.AppendMessageRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.AppendMessageResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getAppendMessageMethod(), responseObserver);
    }

    /**
     * <pre>
     * Appends a stream of messages, answering each request in order (one response
     * may acknowledge several): AppendMessage for agents that stream a conversation
     * (or import one) without a round trip per message. Each message is validated,
     * screened and buffered on its own exactly as AppendMessage does it, and counts
     * as one request against the tenant's rate quota; a message that fails gets its
     * error in its result and the stream goes on. The stream itself ends with an
     * error only when nothing more can succeed (authentication, Redis unreachable,
     * deadline): results received before that are stored; resend the rest with
     * their request ids.
     * </pre>
     */
    default io.grpc.stub.StreamObserver<dev.engram.v1.AppendMessagesRequest> appendMessages(
        io.grpc.stub.StreamObserver<dev.engram.v1.AppendMessagesResponse> responseObserver) {
      return io.grpc.stub.ServerCalls.asyncUnimplementedStreamingCall(getAppendMessagesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Reads a window of a session's buffer.
     * </pre>
     */
    default void getSessionWindow(dev.engram.v1.GetSessionWindowRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.GetSessionWindowResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetSessionWindowMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists sessions with a working-memory buffer.
     * </pre>
     */
    default void listSessions(dev.engram.v1.ListSessionsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListSessionsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListSessionsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Clears a session's buffer.
     * </pre>
     */
    default void clearSession(dev.engram.v1.ClearSessionRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ClearSessionResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getClearSessionMethod(), responseObserver);
    }

    /**
     * <pre>
     * Buffers an agent's reply and stores its explicit captures as proposals.
     * </pre>
     */
    default void reflect(dev.engram.v1.ReflectRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ReflectResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getReflectMethod(), responseObserver);
    }

    /**
     * <pre>
     * Extracts facts from conversation turns and proposes them.
     * </pre>
     */
    default void learn(dev.engram.v1.LearnRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.LearnResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getLearnMethod(), responseObserver);
    }

    /**
     * <pre>
     * Turns a session buffer into a summary memory plus typed records.
     * </pre>
     */
    default void consolidate(dev.engram.v1.ConsolidateRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ConsolidateResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getConsolidateMethod(), responseObserver);
    }

    /**
     * <pre>
     * Runs the Dream State curation pass over a space (dry run or apply).
     * </pre>
     */
    default void dream(dev.engram.v1.DreamRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.DreamResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDreamMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service LifecycleService.
   * <pre>
   * LifecycleService is the governed write path: every change to a memory's content
   * or status goes through it, is validated against the space policy, commits its
   * audit row in the same transaction, and is streamed to WatchTransitions.
   * It also owns the other ways memories are *written*: the working-memory session
   * buffer (whose contents become memories), learning facts from conversations,
   * consolidation, reflection and the Dream State curation pass. They belong here
   * because each one ends in proposals and transitions that must pass the same
   * validators, dedup, privacy boundary and audit as a direct ProposeMemory.
   * Every mutating request carries an optional `request_id`: a retry with the same
   * id returns the first outcome and writes nothing new.
   * </pre>
   */
  public static abstract class LifecycleServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return LifecycleServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service LifecycleService.
   * <pre>
   * LifecycleService is the governed write path: every change to a memory's content
   * or status goes through it, is validated against the space policy, commits its
   * audit row in the same transaction, and is streamed to WatchTransitions.
   * It also owns the other ways memories are *written*: the working-memory session
   * buffer (whose contents become memories), learning facts from conversations,
   * consolidation, reflection and the Dream State curation pass. They belong here
   * because each one ends in proposals and transitions that must pass the same
   * validators, dedup, privacy boundary and audit as a direct ProposeMemory.
   * Every mutating request carries an optional `request_id`: a retry with the same
   * id returns the first outcome and writes nothing new.
   * </pre>
   */
  public static final class LifecycleServiceStub
      extends io.grpc.stub.AbstractAsyncStub<LifecycleServiceStub> {
    private LifecycleServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected LifecycleServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new LifecycleServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Proposes one memory. The outcome says whether it became ACTIVE, waits for
     * confirmation, was rejected (with reasons), or duplicates an existing memory.
     * </pre>
     */
    public void proposeMemory(dev.engram.v1.ProposeMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ProposeMemoryResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getProposeMemoryMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Proposes many memories in one transaction: all are written or none is.
     * Identical content inside the batch collapses to one memory.
     * </pre>
     */
    public void batchProposeMemories(dev.engram.v1.BatchProposeMemoriesRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.BatchProposeMemoriesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getBatchProposeMemoriesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Moves a PENDING_CONFIRMATION memory to ACTIVE.
     * </pre>
     */
    public void confirmMemory(dev.engram.v1.ConfirmMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Memory> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getConfirmMemoryMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * A reviewer turns down a memory awaiting confirmation. The state machine has
     * no PENDING_CONFIRMATION -&gt; REJECTED edge, so a pending memory moves to
     * RETRACTED with the reason recorded as a rejection; a PROPOSED memory moves to
     * REJECTED. Any other status is FAILED_PRECONDITION.
     * </pre>
     */
    public void rejectMemory(dev.engram.v1.RejectMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Memory> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRejectMemoryMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Retracts an ACTIVE or PENDING_CONFIRMATION memory, optionally cascading to
     * the memories that depend on it.
     * </pre>
     */
    public void retractMemory(dev.engram.v1.RetractMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.RetractMemoryResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRetractMemoryMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Revises a memory's content or metadata. Requires the current etag; the old
     * revision is kept and listable.
     * </pre>
     */
    public void reviseMemory(dev.engram.v1.ReviseMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Memory> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getReviseMemoryMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Raises a memory's confidence. Lowering it is FAILED_PRECONDITION.
     * </pre>
     */
    public void updateMemoryConfidence(dev.engram.v1.UpdateMemoryConfidenceRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Memory> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getUpdateMemoryConfidenceMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Expires every ACTIVE memory whose expire_time has passed. A background
     * sweeper calls the same logic on every replica.
     * </pre>
     */
    public void expireDueMemories(dev.engram.v1.ExpireDueMemoriesRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ExpireDueMemoriesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getExpireDueMemoriesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Gets one memory.
     * </pre>
     */
    public void getMemory(dev.engram.v1.GetMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Memory> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetMemoryMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists memories with filters and paging.
     * </pre>
     */
    public void listMemories(dev.engram.v1.ListMemoriesRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListMemoriesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListMemoriesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists every kept revision of a memory, newest first.
     * </pre>
     */
    public void listMemoryRevisions(dev.engram.v1.ListMemoryRevisionsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListMemoryRevisionsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListMemoryRevisionsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists audit entries, oldest first.
     * </pre>
     */
    public void listAuditEntries(dev.engram.v1.ListAuditEntriesRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListAuditEntriesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListAuditEntriesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Hard-deletes every memory of a space or session (erasure requests). Leaves a
     * tombstone in the audit log that records the scope and the count.
     * </pre>
     */
    public void purgeMemories(dev.engram.v1.PurgeMemoriesRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.PurgeMemoriesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getPurgeMemoriesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Streams committed transitions, resumable from a cursor: every transition is
     * delivered once, in commit order. These are Engram's hooks.
     * </pre>
     */
    public void watchTransitions(dev.engram.v1.WatchTransitionsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.WatchTransitionsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncServerStreamingCall(
          getChannel().newCall(getWatchTransitionsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Gets the validation policy of the tenant or of one space.
     * </pre>
     */
    public void getPolicy(dev.engram.v1.GetPolicyRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Policy> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetPolicyMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Replaces the validation policy of the tenant or of one space.
     * </pre>
     */
    public void setPolicy(dev.engram.v1.SetPolicyRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Policy> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSetPolicyMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Appends a message to a session's working-memory buffer.
     * </pre>
     */
    public void appendMessage(dev.engram.v1.AppendMessageRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.AppendMessageResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getAppendMessageMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Appends a stream of messages, answering each request in order (one response
     * may acknowledge several): AppendMessage for agents that stream a conversation
     * (or import one) without a round trip per message. Each message is validated,
     * screened and buffered on its own exactly as AppendMessage does it, and counts
     * as one request against the tenant's rate quota; a message that fails gets its
     * error in its result and the stream goes on. The stream itself ends with an
     * error only when nothing more can succeed (authentication, Redis unreachable,
     * deadline): results received before that are stored; resend the rest with
     * their request ids.
     * </pre>
     */
    public io.grpc.stub.StreamObserver<dev.engram.v1.AppendMessagesRequest> appendMessages(
        io.grpc.stub.StreamObserver<dev.engram.v1.AppendMessagesResponse> responseObserver) {
      return io.grpc.stub.ClientCalls.asyncBidiStreamingCall(
          getChannel().newCall(getAppendMessagesMethod(), getCallOptions()), responseObserver);
    }

    /**
     * <pre>
     * Reads a window of a session's buffer.
     * </pre>
     */
    public void getSessionWindow(dev.engram.v1.GetSessionWindowRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.GetSessionWindowResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetSessionWindowMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists sessions with a working-memory buffer.
     * </pre>
     */
    public void listSessions(dev.engram.v1.ListSessionsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListSessionsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListSessionsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Clears a session's buffer.
     * </pre>
     */
    public void clearSession(dev.engram.v1.ClearSessionRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ClearSessionResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getClearSessionMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Buffers an agent's reply and stores its explicit captures as proposals.
     * </pre>
     */
    public void reflect(dev.engram.v1.ReflectRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ReflectResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getReflectMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Extracts facts from conversation turns and proposes them.
     * </pre>
     */
    public void learn(dev.engram.v1.LearnRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.LearnResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getLearnMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Turns a session buffer into a summary memory plus typed records.
     * </pre>
     */
    public void consolidate(dev.engram.v1.ConsolidateRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ConsolidateResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getConsolidateMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Runs the Dream State curation pass over a space (dry run or apply).
     * </pre>
     */
    public void dream(dev.engram.v1.DreamRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.DreamResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDreamMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service LifecycleService.
   * <pre>
   * LifecycleService is the governed write path: every change to a memory's content
   * or status goes through it, is validated against the space policy, commits its
   * audit row in the same transaction, and is streamed to WatchTransitions.
   * It also owns the other ways memories are *written*: the working-memory session
   * buffer (whose contents become memories), learning facts from conversations,
   * consolidation, reflection and the Dream State curation pass. They belong here
   * because each one ends in proposals and transitions that must pass the same
   * validators, dedup, privacy boundary and audit as a direct ProposeMemory.
   * Every mutating request carries an optional `request_id`: a retry with the same
   * id returns the first outcome and writes nothing new.
   * </pre>
   */
  public static final class LifecycleServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<LifecycleServiceBlockingV2Stub> {
    private LifecycleServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected LifecycleServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new LifecycleServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * Proposes one memory. The outcome says whether it became ACTIVE, waits for
     * confirmation, was rejected (with reasons), or duplicates an existing memory.
     * </pre>
     */
    public dev.engram.v1.ProposeMemoryResponse proposeMemory(dev.engram.v1.ProposeMemoryRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getProposeMemoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Proposes many memories in one transaction: all are written or none is.
     * Identical content inside the batch collapses to one memory.
     * </pre>
     */
    public dev.engram.v1.BatchProposeMemoriesResponse batchProposeMemories(dev.engram.v1.BatchProposeMemoriesRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getBatchProposeMemoriesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Moves a PENDING_CONFIRMATION memory to ACTIVE.
     * </pre>
     */
    public dev.engram.v1.Memory confirmMemory(dev.engram.v1.ConfirmMemoryRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getConfirmMemoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * A reviewer turns down a memory awaiting confirmation. The state machine has
     * no PENDING_CONFIRMATION -&gt; REJECTED edge, so a pending memory moves to
     * RETRACTED with the reason recorded as a rejection; a PROPOSED memory moves to
     * REJECTED. Any other status is FAILED_PRECONDITION.
     * </pre>
     */
    public dev.engram.v1.Memory rejectMemory(dev.engram.v1.RejectMemoryRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRejectMemoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Retracts an ACTIVE or PENDING_CONFIRMATION memory, optionally cascading to
     * the memories that depend on it.
     * </pre>
     */
    public dev.engram.v1.RetractMemoryResponse retractMemory(dev.engram.v1.RetractMemoryRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRetractMemoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Revises a memory's content or metadata. Requires the current etag; the old
     * revision is kept and listable.
     * </pre>
     */
    public dev.engram.v1.Memory reviseMemory(dev.engram.v1.ReviseMemoryRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getReviseMemoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Raises a memory's confidence. Lowering it is FAILED_PRECONDITION.
     * </pre>
     */
    public dev.engram.v1.Memory updateMemoryConfidence(dev.engram.v1.UpdateMemoryConfidenceRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getUpdateMemoryConfidenceMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Expires every ACTIVE memory whose expire_time has passed. A background
     * sweeper calls the same logic on every replica.
     * </pre>
     */
    public dev.engram.v1.ExpireDueMemoriesResponse expireDueMemories(dev.engram.v1.ExpireDueMemoriesRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getExpireDueMemoriesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Gets one memory.
     * </pre>
     */
    public dev.engram.v1.Memory getMemory(dev.engram.v1.GetMemoryRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetMemoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists memories with filters and paging.
     * </pre>
     */
    public dev.engram.v1.ListMemoriesResponse listMemories(dev.engram.v1.ListMemoriesRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListMemoriesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists every kept revision of a memory, newest first.
     * </pre>
     */
    public dev.engram.v1.ListMemoryRevisionsResponse listMemoryRevisions(dev.engram.v1.ListMemoryRevisionsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListMemoryRevisionsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists audit entries, oldest first.
     * </pre>
     */
    public dev.engram.v1.ListAuditEntriesResponse listAuditEntries(dev.engram.v1.ListAuditEntriesRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListAuditEntriesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Hard-deletes every memory of a space or session (erasure requests). Leaves a
     * tombstone in the audit log that records the scope and the count.
     * </pre>
     */
    public dev.engram.v1.PurgeMemoriesResponse purgeMemories(dev.engram.v1.PurgeMemoriesRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getPurgeMemoriesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Streams committed transitions, resumable from a cursor: every transition is
     * delivered once, in commit order. These are Engram's hooks.
     * </pre>
     */
    @io.grpc.ExperimentalApi("https://github.com/grpc/grpc-java/issues/10918")
    public io.grpc.stub.BlockingClientCall<?, dev.engram.v1.WatchTransitionsResponse>
        watchTransitions(dev.engram.v1.WatchTransitionsRequest request) {
      return io.grpc.stub.ClientCalls.blockingV2ServerStreamingCall(
          getChannel(), getWatchTransitionsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Gets the validation policy of the tenant or of one space.
     * </pre>
     */
    public dev.engram.v1.Policy getPolicy(dev.engram.v1.GetPolicyRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetPolicyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Replaces the validation policy of the tenant or of one space.
     * </pre>
     */
    public dev.engram.v1.Policy setPolicy(dev.engram.v1.SetPolicyRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getSetPolicyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Appends a message to a session's working-memory buffer.
     * </pre>
     */
    public dev.engram.v1.AppendMessageResponse appendMessage(dev.engram.v1.AppendMessageRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getAppendMessageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Appends a stream of messages, answering each request in order (one response
     * may acknowledge several): AppendMessage for agents that stream a conversation
     * (or import one) without a round trip per message. Each message is validated,
     * screened and buffered on its own exactly as AppendMessage does it, and counts
     * as one request against the tenant's rate quota; a message that fails gets its
     * error in its result and the stream goes on. The stream itself ends with an
     * error only when nothing more can succeed (authentication, Redis unreachable,
     * deadline): results received before that are stored; resend the rest with
     * their request ids.
     * </pre>
     */
    @io.grpc.ExperimentalApi("https://github.com/grpc/grpc-java/issues/10918")
    public io.grpc.stub.BlockingClientCall<dev.engram.v1.AppendMessagesRequest, dev.engram.v1.AppendMessagesResponse>
        appendMessages() {
      return io.grpc.stub.ClientCalls.blockingBidiStreamingCall(
          getChannel(), getAppendMessagesMethod(), getCallOptions());
    }

    /**
     * <pre>
     * Reads a window of a session's buffer.
     * </pre>
     */
    public dev.engram.v1.GetSessionWindowResponse getSessionWindow(dev.engram.v1.GetSessionWindowRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetSessionWindowMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists sessions with a working-memory buffer.
     * </pre>
     */
    public dev.engram.v1.ListSessionsResponse listSessions(dev.engram.v1.ListSessionsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListSessionsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Clears a session's buffer.
     * </pre>
     */
    public dev.engram.v1.ClearSessionResponse clearSession(dev.engram.v1.ClearSessionRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getClearSessionMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Buffers an agent's reply and stores its explicit captures as proposals.
     * </pre>
     */
    public dev.engram.v1.ReflectResponse reflect(dev.engram.v1.ReflectRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getReflectMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Extracts facts from conversation turns and proposes them.
     * </pre>
     */
    public dev.engram.v1.LearnResponse learn(dev.engram.v1.LearnRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getLearnMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Turns a session buffer into a summary memory plus typed records.
     * </pre>
     */
    public dev.engram.v1.ConsolidateResponse consolidate(dev.engram.v1.ConsolidateRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getConsolidateMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Runs the Dream State curation pass over a space (dry run or apply).
     * </pre>
     */
    public dev.engram.v1.DreamResponse dream(dev.engram.v1.DreamRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getDreamMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service LifecycleService.
   * <pre>
   * LifecycleService is the governed write path: every change to a memory's content
   * or status goes through it, is validated against the space policy, commits its
   * audit row in the same transaction, and is streamed to WatchTransitions.
   * It also owns the other ways memories are *written*: the working-memory session
   * buffer (whose contents become memories), learning facts from conversations,
   * consolidation, reflection and the Dream State curation pass. They belong here
   * because each one ends in proposals and transitions that must pass the same
   * validators, dedup, privacy boundary and audit as a direct ProposeMemory.
   * Every mutating request carries an optional `request_id`: a retry with the same
   * id returns the first outcome and writes nothing new.
   * </pre>
   */
  public static final class LifecycleServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<LifecycleServiceBlockingStub> {
    private LifecycleServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected LifecycleServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new LifecycleServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Proposes one memory. The outcome says whether it became ACTIVE, waits for
     * confirmation, was rejected (with reasons), or duplicates an existing memory.
     * </pre>
     */
    public dev.engram.v1.ProposeMemoryResponse proposeMemory(dev.engram.v1.ProposeMemoryRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getProposeMemoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Proposes many memories in one transaction: all are written or none is.
     * Identical content inside the batch collapses to one memory.
     * </pre>
     */
    public dev.engram.v1.BatchProposeMemoriesResponse batchProposeMemories(dev.engram.v1.BatchProposeMemoriesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getBatchProposeMemoriesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Moves a PENDING_CONFIRMATION memory to ACTIVE.
     * </pre>
     */
    public dev.engram.v1.Memory confirmMemory(dev.engram.v1.ConfirmMemoryRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getConfirmMemoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * A reviewer turns down a memory awaiting confirmation. The state machine has
     * no PENDING_CONFIRMATION -&gt; REJECTED edge, so a pending memory moves to
     * RETRACTED with the reason recorded as a rejection; a PROPOSED memory moves to
     * REJECTED. Any other status is FAILED_PRECONDITION.
     * </pre>
     */
    public dev.engram.v1.Memory rejectMemory(dev.engram.v1.RejectMemoryRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRejectMemoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Retracts an ACTIVE or PENDING_CONFIRMATION memory, optionally cascading to
     * the memories that depend on it.
     * </pre>
     */
    public dev.engram.v1.RetractMemoryResponse retractMemory(dev.engram.v1.RetractMemoryRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRetractMemoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Revises a memory's content or metadata. Requires the current etag; the old
     * revision is kept and listable.
     * </pre>
     */
    public dev.engram.v1.Memory reviseMemory(dev.engram.v1.ReviseMemoryRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getReviseMemoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Raises a memory's confidence. Lowering it is FAILED_PRECONDITION.
     * </pre>
     */
    public dev.engram.v1.Memory updateMemoryConfidence(dev.engram.v1.UpdateMemoryConfidenceRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getUpdateMemoryConfidenceMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Expires every ACTIVE memory whose expire_time has passed. A background
     * sweeper calls the same logic on every replica.
     * </pre>
     */
    public dev.engram.v1.ExpireDueMemoriesResponse expireDueMemories(dev.engram.v1.ExpireDueMemoriesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getExpireDueMemoriesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Gets one memory.
     * </pre>
     */
    public dev.engram.v1.Memory getMemory(dev.engram.v1.GetMemoryRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetMemoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists memories with filters and paging.
     * </pre>
     */
    public dev.engram.v1.ListMemoriesResponse listMemories(dev.engram.v1.ListMemoriesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListMemoriesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists every kept revision of a memory, newest first.
     * </pre>
     */
    public dev.engram.v1.ListMemoryRevisionsResponse listMemoryRevisions(dev.engram.v1.ListMemoryRevisionsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListMemoryRevisionsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists audit entries, oldest first.
     * </pre>
     */
    public dev.engram.v1.ListAuditEntriesResponse listAuditEntries(dev.engram.v1.ListAuditEntriesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListAuditEntriesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Hard-deletes every memory of a space or session (erasure requests). Leaves a
     * tombstone in the audit log that records the scope and the count.
     * </pre>
     */
    public dev.engram.v1.PurgeMemoriesResponse purgeMemories(dev.engram.v1.PurgeMemoriesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getPurgeMemoriesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Streams committed transitions, resumable from a cursor: every transition is
     * delivered once, in commit order. These are Engram's hooks.
     * </pre>
     */
    public java.util.Iterator<dev.engram.v1.WatchTransitionsResponse> watchTransitions(
        dev.engram.v1.WatchTransitionsRequest request) {
      return io.grpc.stub.ClientCalls.blockingServerStreamingCall(
          getChannel(), getWatchTransitionsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Gets the validation policy of the tenant or of one space.
     * </pre>
     */
    public dev.engram.v1.Policy getPolicy(dev.engram.v1.GetPolicyRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetPolicyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Replaces the validation policy of the tenant or of one space.
     * </pre>
     */
    public dev.engram.v1.Policy setPolicy(dev.engram.v1.SetPolicyRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSetPolicyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Appends a message to a session's working-memory buffer.
     * </pre>
     */
    public dev.engram.v1.AppendMessageResponse appendMessage(dev.engram.v1.AppendMessageRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getAppendMessageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Reads a window of a session's buffer.
     * </pre>
     */
    public dev.engram.v1.GetSessionWindowResponse getSessionWindow(dev.engram.v1.GetSessionWindowRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetSessionWindowMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists sessions with a working-memory buffer.
     * </pre>
     */
    public dev.engram.v1.ListSessionsResponse listSessions(dev.engram.v1.ListSessionsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListSessionsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Clears a session's buffer.
     * </pre>
     */
    public dev.engram.v1.ClearSessionResponse clearSession(dev.engram.v1.ClearSessionRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getClearSessionMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Buffers an agent's reply and stores its explicit captures as proposals.
     * </pre>
     */
    public dev.engram.v1.ReflectResponse reflect(dev.engram.v1.ReflectRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getReflectMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Extracts facts from conversation turns and proposes them.
     * </pre>
     */
    public dev.engram.v1.LearnResponse learn(dev.engram.v1.LearnRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getLearnMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Turns a session buffer into a summary memory plus typed records.
     * </pre>
     */
    public dev.engram.v1.ConsolidateResponse consolidate(dev.engram.v1.ConsolidateRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getConsolidateMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Runs the Dream State curation pass over a space (dry run or apply).
     * </pre>
     */
    public dev.engram.v1.DreamResponse dream(dev.engram.v1.DreamRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDreamMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service LifecycleService.
   * <pre>
   * LifecycleService is the governed write path: every change to a memory's content
   * or status goes through it, is validated against the space policy, commits its
   * audit row in the same transaction, and is streamed to WatchTransitions.
   * It also owns the other ways memories are *written*: the working-memory session
   * buffer (whose contents become memories), learning facts from conversations,
   * consolidation, reflection and the Dream State curation pass. They belong here
   * because each one ends in proposals and transitions that must pass the same
   * validators, dedup, privacy boundary and audit as a direct ProposeMemory.
   * Every mutating request carries an optional `request_id`: a retry with the same
   * id returns the first outcome and writes nothing new.
   * </pre>
   */
  public static final class LifecycleServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<LifecycleServiceFutureStub> {
    private LifecycleServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected LifecycleServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new LifecycleServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Proposes one memory. The outcome says whether it became ACTIVE, waits for
     * confirmation, was rejected (with reasons), or duplicates an existing memory.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.ProposeMemoryResponse> proposeMemory(
        dev.engram.v1.ProposeMemoryRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getProposeMemoryMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Proposes many memories in one transaction: all are written or none is.
     * Identical content inside the batch collapses to one memory.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.BatchProposeMemoriesResponse> batchProposeMemories(
        dev.engram.v1.BatchProposeMemoriesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getBatchProposeMemoriesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Moves a PENDING_CONFIRMATION memory to ACTIVE.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Memory> confirmMemory(
        dev.engram.v1.ConfirmMemoryRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getConfirmMemoryMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * A reviewer turns down a memory awaiting confirmation. The state machine has
     * no PENDING_CONFIRMATION -&gt; REJECTED edge, so a pending memory moves to
     * RETRACTED with the reason recorded as a rejection; a PROPOSED memory moves to
     * REJECTED. Any other status is FAILED_PRECONDITION.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Memory> rejectMemory(
        dev.engram.v1.RejectMemoryRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRejectMemoryMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Retracts an ACTIVE or PENDING_CONFIRMATION memory, optionally cascading to
     * the memories that depend on it.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.RetractMemoryResponse> retractMemory(
        dev.engram.v1.RetractMemoryRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRetractMemoryMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Revises a memory's content or metadata. Requires the current etag; the old
     * revision is kept and listable.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Memory> reviseMemory(
        dev.engram.v1.ReviseMemoryRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getReviseMemoryMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Raises a memory's confidence. Lowering it is FAILED_PRECONDITION.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Memory> updateMemoryConfidence(
        dev.engram.v1.UpdateMemoryConfidenceRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getUpdateMemoryConfidenceMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Expires every ACTIVE memory whose expire_time has passed. A background
     * sweeper calls the same logic on every replica.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.ExpireDueMemoriesResponse> expireDueMemories(
        dev.engram.v1.ExpireDueMemoriesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getExpireDueMemoriesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Gets one memory.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Memory> getMemory(
        dev.engram.v1.GetMemoryRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetMemoryMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists memories with filters and paging.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.ListMemoriesResponse> listMemories(
        dev.engram.v1.ListMemoriesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListMemoriesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists every kept revision of a memory, newest first.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.ListMemoryRevisionsResponse> listMemoryRevisions(
        dev.engram.v1.ListMemoryRevisionsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListMemoryRevisionsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists audit entries, oldest first.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.ListAuditEntriesResponse> listAuditEntries(
        dev.engram.v1.ListAuditEntriesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListAuditEntriesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Hard-deletes every memory of a space or session (erasure requests). Leaves a
     * tombstone in the audit log that records the scope and the count.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.PurgeMemoriesResponse> purgeMemories(
        dev.engram.v1.PurgeMemoriesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getPurgeMemoriesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Gets the validation policy of the tenant or of one space.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Policy> getPolicy(
        dev.engram.v1.GetPolicyRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetPolicyMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Replaces the validation policy of the tenant or of one space.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Policy> setPolicy(
        dev.engram.v1.SetPolicyRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSetPolicyMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Appends a message to a session's working-memory buffer.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.AppendMessageResponse> appendMessage(
        dev.engram.v1.AppendMessageRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getAppendMessageMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Reads a window of a session's buffer.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.GetSessionWindowResponse> getSessionWindow(
        dev.engram.v1.GetSessionWindowRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetSessionWindowMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists sessions with a working-memory buffer.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.ListSessionsResponse> listSessions(
        dev.engram.v1.ListSessionsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListSessionsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Clears a session's buffer.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.ClearSessionResponse> clearSession(
        dev.engram.v1.ClearSessionRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getClearSessionMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Buffers an agent's reply and stores its explicit captures as proposals.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.ReflectResponse> reflect(
        dev.engram.v1.ReflectRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getReflectMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Extracts facts from conversation turns and proposes them.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.LearnResponse> learn(
        dev.engram.v1.LearnRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getLearnMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Turns a session buffer into a summary memory plus typed records.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.ConsolidateResponse> consolidate(
        dev.engram.v1.ConsolidateRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getConsolidateMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Runs the Dream State curation pass over a space (dry run or apply).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.DreamResponse> dream(
        dev.engram.v1.DreamRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDreamMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_PROPOSE_MEMORY = 0;
  private static final int METHODID_BATCH_PROPOSE_MEMORIES = 1;
  private static final int METHODID_CONFIRM_MEMORY = 2;
  private static final int METHODID_REJECT_MEMORY = 3;
  private static final int METHODID_RETRACT_MEMORY = 4;
  private static final int METHODID_REVISE_MEMORY = 5;
  private static final int METHODID_UPDATE_MEMORY_CONFIDENCE = 6;
  private static final int METHODID_EXPIRE_DUE_MEMORIES = 7;
  private static final int METHODID_GET_MEMORY = 8;
  private static final int METHODID_LIST_MEMORIES = 9;
  private static final int METHODID_LIST_MEMORY_REVISIONS = 10;
  private static final int METHODID_LIST_AUDIT_ENTRIES = 11;
  private static final int METHODID_PURGE_MEMORIES = 12;
  private static final int METHODID_WATCH_TRANSITIONS = 13;
  private static final int METHODID_GET_POLICY = 14;
  private static final int METHODID_SET_POLICY = 15;
  private static final int METHODID_APPEND_MESSAGE = 16;
  private static final int METHODID_GET_SESSION_WINDOW = 17;
  private static final int METHODID_LIST_SESSIONS = 18;
  private static final int METHODID_CLEAR_SESSION = 19;
  private static final int METHODID_REFLECT = 20;
  private static final int METHODID_LEARN = 21;
  private static final int METHODID_CONSOLIDATE = 22;
  private static final int METHODID_DREAM = 23;
  private static final int METHODID_APPEND_MESSAGES = 24;

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
        case METHODID_PROPOSE_MEMORY:
          serviceImpl.proposeMemory((dev.engram.v1.ProposeMemoryRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.ProposeMemoryResponse>) responseObserver);
          break;
        case METHODID_BATCH_PROPOSE_MEMORIES:
          serviceImpl.batchProposeMemories((dev.engram.v1.BatchProposeMemoriesRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.BatchProposeMemoriesResponse>) responseObserver);
          break;
        case METHODID_CONFIRM_MEMORY:
          serviceImpl.confirmMemory((dev.engram.v1.ConfirmMemoryRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Memory>) responseObserver);
          break;
        case METHODID_REJECT_MEMORY:
          serviceImpl.rejectMemory((dev.engram.v1.RejectMemoryRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Memory>) responseObserver);
          break;
        case METHODID_RETRACT_MEMORY:
          serviceImpl.retractMemory((dev.engram.v1.RetractMemoryRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.RetractMemoryResponse>) responseObserver);
          break;
        case METHODID_REVISE_MEMORY:
          serviceImpl.reviseMemory((dev.engram.v1.ReviseMemoryRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Memory>) responseObserver);
          break;
        case METHODID_UPDATE_MEMORY_CONFIDENCE:
          serviceImpl.updateMemoryConfidence((dev.engram.v1.UpdateMemoryConfidenceRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Memory>) responseObserver);
          break;
        case METHODID_EXPIRE_DUE_MEMORIES:
          serviceImpl.expireDueMemories((dev.engram.v1.ExpireDueMemoriesRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.ExpireDueMemoriesResponse>) responseObserver);
          break;
        case METHODID_GET_MEMORY:
          serviceImpl.getMemory((dev.engram.v1.GetMemoryRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Memory>) responseObserver);
          break;
        case METHODID_LIST_MEMORIES:
          serviceImpl.listMemories((dev.engram.v1.ListMemoriesRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.ListMemoriesResponse>) responseObserver);
          break;
        case METHODID_LIST_MEMORY_REVISIONS:
          serviceImpl.listMemoryRevisions((dev.engram.v1.ListMemoryRevisionsRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.ListMemoryRevisionsResponse>) responseObserver);
          break;
        case METHODID_LIST_AUDIT_ENTRIES:
          serviceImpl.listAuditEntries((dev.engram.v1.ListAuditEntriesRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.ListAuditEntriesResponse>) responseObserver);
          break;
        case METHODID_PURGE_MEMORIES:
          serviceImpl.purgeMemories((dev.engram.v1.PurgeMemoriesRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.PurgeMemoriesResponse>) responseObserver);
          break;
        case METHODID_WATCH_TRANSITIONS:
          serviceImpl.watchTransitions((dev.engram.v1.WatchTransitionsRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.WatchTransitionsResponse>) responseObserver);
          break;
        case METHODID_GET_POLICY:
          serviceImpl.getPolicy((dev.engram.v1.GetPolicyRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Policy>) responseObserver);
          break;
        case METHODID_SET_POLICY:
          serviceImpl.setPolicy((dev.engram.v1.SetPolicyRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Policy>) responseObserver);
          break;
        case METHODID_APPEND_MESSAGE:
          serviceImpl.appendMessage((dev.engram.v1.AppendMessageRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.AppendMessageResponse>) responseObserver);
          break;
        case METHODID_GET_SESSION_WINDOW:
          serviceImpl.getSessionWindow((dev.engram.v1.GetSessionWindowRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.GetSessionWindowResponse>) responseObserver);
          break;
        case METHODID_LIST_SESSIONS:
          serviceImpl.listSessions((dev.engram.v1.ListSessionsRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.ListSessionsResponse>) responseObserver);
          break;
        case METHODID_CLEAR_SESSION:
          serviceImpl.clearSession((dev.engram.v1.ClearSessionRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.ClearSessionResponse>) responseObserver);
          break;
        case METHODID_REFLECT:
          serviceImpl.reflect((dev.engram.v1.ReflectRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.ReflectResponse>) responseObserver);
          break;
        case METHODID_LEARN:
          serviceImpl.learn((dev.engram.v1.LearnRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.LearnResponse>) responseObserver);
          break;
        case METHODID_CONSOLIDATE:
          serviceImpl.consolidate((dev.engram.v1.ConsolidateRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.ConsolidateResponse>) responseObserver);
          break;
        case METHODID_DREAM:
          serviceImpl.dream((dev.engram.v1.DreamRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.DreamResponse>) responseObserver);
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
        case METHODID_APPEND_MESSAGES:
          return (io.grpc.stub.StreamObserver<Req>) serviceImpl.appendMessages(
              (io.grpc.stub.StreamObserver<dev.engram.v1.AppendMessagesResponse>) responseObserver);
        default:
          throw new AssertionError();
      }
    }
  }

  public static final io.grpc.ServerServiceDefinition bindService(AsyncService service) {
    return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
        .addMethod(
          getProposeMemoryMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.ProposeMemoryRequest,
              dev.engram.v1.ProposeMemoryResponse>(
                service, METHODID_PROPOSE_MEMORY)))
        .addMethod(
          getBatchProposeMemoriesMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.BatchProposeMemoriesRequest,
              dev.engram.v1.BatchProposeMemoriesResponse>(
                service, METHODID_BATCH_PROPOSE_MEMORIES)))
        .addMethod(
          getConfirmMemoryMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.ConfirmMemoryRequest,
              dev.engram.v1.Memory>(
                service, METHODID_CONFIRM_MEMORY)))
        .addMethod(
          getRejectMemoryMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.RejectMemoryRequest,
              dev.engram.v1.Memory>(
                service, METHODID_REJECT_MEMORY)))
        .addMethod(
          getRetractMemoryMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.RetractMemoryRequest,
              dev.engram.v1.RetractMemoryResponse>(
                service, METHODID_RETRACT_MEMORY)))
        .addMethod(
          getReviseMemoryMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.ReviseMemoryRequest,
              dev.engram.v1.Memory>(
                service, METHODID_REVISE_MEMORY)))
        .addMethod(
          getUpdateMemoryConfidenceMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.UpdateMemoryConfidenceRequest,
              dev.engram.v1.Memory>(
                service, METHODID_UPDATE_MEMORY_CONFIDENCE)))
        .addMethod(
          getExpireDueMemoriesMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.ExpireDueMemoriesRequest,
              dev.engram.v1.ExpireDueMemoriesResponse>(
                service, METHODID_EXPIRE_DUE_MEMORIES)))
        .addMethod(
          getGetMemoryMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.GetMemoryRequest,
              dev.engram.v1.Memory>(
                service, METHODID_GET_MEMORY)))
        .addMethod(
          getListMemoriesMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.ListMemoriesRequest,
              dev.engram.v1.ListMemoriesResponse>(
                service, METHODID_LIST_MEMORIES)))
        .addMethod(
          getListMemoryRevisionsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.ListMemoryRevisionsRequest,
              dev.engram.v1.ListMemoryRevisionsResponse>(
                service, METHODID_LIST_MEMORY_REVISIONS)))
        .addMethod(
          getListAuditEntriesMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.ListAuditEntriesRequest,
              dev.engram.v1.ListAuditEntriesResponse>(
                service, METHODID_LIST_AUDIT_ENTRIES)))
        .addMethod(
          getPurgeMemoriesMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.PurgeMemoriesRequest,
              dev.engram.v1.PurgeMemoriesResponse>(
                service, METHODID_PURGE_MEMORIES)))
        .addMethod(
          getWatchTransitionsMethod(),
          io.grpc.stub.ServerCalls.asyncServerStreamingCall(
            new MethodHandlers<
              dev.engram.v1.WatchTransitionsRequest,
              dev.engram.v1.WatchTransitionsResponse>(
                service, METHODID_WATCH_TRANSITIONS)))
        .addMethod(
          getGetPolicyMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.GetPolicyRequest,
              dev.engram.v1.Policy>(
                service, METHODID_GET_POLICY)))
        .addMethod(
          getSetPolicyMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.SetPolicyRequest,
              dev.engram.v1.Policy>(
                service, METHODID_SET_POLICY)))
        .addMethod(
          getAppendMessageMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.AppendMessageRequest,
              dev.engram.v1.AppendMessageResponse>(
                service, METHODID_APPEND_MESSAGE)))
        .addMethod(
          getAppendMessagesMethod(),
          io.grpc.stub.ServerCalls.asyncBidiStreamingCall(
            new MethodHandlers<
              dev.engram.v1.AppendMessagesRequest,
              dev.engram.v1.AppendMessagesResponse>(
                service, METHODID_APPEND_MESSAGES)))
        .addMethod(
          getGetSessionWindowMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.GetSessionWindowRequest,
              dev.engram.v1.GetSessionWindowResponse>(
                service, METHODID_GET_SESSION_WINDOW)))
        .addMethod(
          getListSessionsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.ListSessionsRequest,
              dev.engram.v1.ListSessionsResponse>(
                service, METHODID_LIST_SESSIONS)))
        .addMethod(
          getClearSessionMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.ClearSessionRequest,
              dev.engram.v1.ClearSessionResponse>(
                service, METHODID_CLEAR_SESSION)))
        .addMethod(
          getReflectMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.ReflectRequest,
              dev.engram.v1.ReflectResponse>(
                service, METHODID_REFLECT)))
        .addMethod(
          getLearnMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.LearnRequest,
              dev.engram.v1.LearnResponse>(
                service, METHODID_LEARN)))
        .addMethod(
          getConsolidateMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.ConsolidateRequest,
              dev.engram.v1.ConsolidateResponse>(
                service, METHODID_CONSOLIDATE)))
        .addMethod(
          getDreamMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.DreamRequest,
              dev.engram.v1.DreamResponse>(
                service, METHODID_DREAM)))
        .build();
  }

  private static abstract class LifecycleServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    LifecycleServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.engram.v1.LifecycleProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("LifecycleService");
    }
  }

  private static final class LifecycleServiceFileDescriptorSupplier
      extends LifecycleServiceBaseDescriptorSupplier {
    LifecycleServiceFileDescriptorSupplier() {}
  }

  private static final class LifecycleServiceMethodDescriptorSupplier
      extends LifecycleServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    LifecycleServiceMethodDescriptorSupplier(java.lang.String methodName) {
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
      synchronized (LifecycleServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new LifecycleServiceFileDescriptorSupplier())
              .addMethod(getProposeMemoryMethod())
              .addMethod(getBatchProposeMemoriesMethod())
              .addMethod(getConfirmMemoryMethod())
              .addMethod(getRejectMemoryMethod())
              .addMethod(getRetractMemoryMethod())
              .addMethod(getReviseMemoryMethod())
              .addMethod(getUpdateMemoryConfidenceMethod())
              .addMethod(getExpireDueMemoriesMethod())
              .addMethod(getGetMemoryMethod())
              .addMethod(getListMemoriesMethod())
              .addMethod(getListMemoryRevisionsMethod())
              .addMethod(getListAuditEntriesMethod())
              .addMethod(getPurgeMemoriesMethod())
              .addMethod(getWatchTransitionsMethod())
              .addMethod(getGetPolicyMethod())
              .addMethod(getSetPolicyMethod())
              .addMethod(getAppendMessageMethod())
              .addMethod(getAppendMessagesMethod())
              .addMethod(getGetSessionWindowMethod())
              .addMethod(getListSessionsMethod())
              .addMethod(getClearSessionMethod())
              .addMethod(getReflectMethod())
              .addMethod(getLearnMethod())
              .addMethod(getConsolidateMethod())
              .addMethod(getDreamMethod())
              .build();
        }
      }
    }
    return result;
  }
}
