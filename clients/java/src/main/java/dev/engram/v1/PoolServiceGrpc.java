package dev.engram.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * PoolService owns sharing inside a tenant. Agents and teams keep their memories
 * in their own spaces; a pool is a named, governed place where selected memories
 * are shared with the pool's members.
 * - Pools and their members, each with a role: READER (reads), WRITER (also
 *   publishes) or OWNER (also manages members, reviews publications, changes and
 *   deletes the pool).
 * - Publishing: a memory enters a pool only through the pool's publish gate,
 *   which publishes it, holds it for an owner's review, or refuses it with
 *   reasons. Publishing shares a memory; it never copies or changes it, so a
 *   retraction or supersession in the home space reaches every pool at once.
 * - Automatic trust: each publisher's trust in a pool is derived from what
 *   happens to what it published (recalled and confirmed by others, or retracted
 *   and superseded soon after), never set by hand. Pool recall weights hits by it
 *   and the gate can hold low-trust publishers for review.
 * - Slot-delta sync: a member pulls only the slots that changed since its
 *   cursor instead of the whole pool.
 * - Topic channels: publications carry a topic, and members list topics and
 *   follow one as a stream.
 * Membership is checked on every read, not only when a stream or page starts:
 * each RPC, each page and each streamed message is authorised against the
 * caller's current membership, so removing a member takes effect at once (its
 * open streams end with PERMISSION_DENIED). Recall over a pool
 * (RecallService.Recall with `pools`) applies the same check. Callers that are
 * not members get NOT_FOUND for the pool (never a hint that it exists) and
 * members whose role is too low PERMISSION_DENIED, with one exception: a
 * publication with TENANT visibility is readable by anyone in the tenant with
 * the `read` scope, through GetPublication and pool recall (never through sync,
 * topics or listings). Tenant administrators (scope `admin`) may manage any pool
 * of their tenant (get, list, update, delete, members, trust) but read its
 * memories only as members.
 * Scopes: reads need `read`; publishing, reviewing and managing pools and
 * members need `write`, on top of the pool role each RPC names.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class PoolServiceGrpc {

  private PoolServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "engram.v1.PoolService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.CreatePoolRequest,
      dev.engram.v1.Pool> getCreatePoolMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreatePool",
      requestType = dev.engram.v1.CreatePoolRequest.class,
      responseType = dev.engram.v1.Pool.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.CreatePoolRequest,
      dev.engram.v1.Pool> getCreatePoolMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.CreatePoolRequest, dev.engram.v1.Pool> getCreatePoolMethod;
    if ((getCreatePoolMethod = PoolServiceGrpc.getCreatePoolMethod) == null) {
      synchronized (PoolServiceGrpc.class) {
        if ((getCreatePoolMethod = PoolServiceGrpc.getCreatePoolMethod) == null) {
          PoolServiceGrpc.getCreatePoolMethod = getCreatePoolMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.CreatePoolRequest, dev.engram.v1.Pool>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreatePool"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.CreatePoolRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Pool.getDefaultInstance()))
              .setSchemaDescriptor(new PoolServiceMethodDescriptorSupplier("CreatePool"))
              .build();
        }
      }
    }
    return getCreatePoolMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.GetPoolRequest,
      dev.engram.v1.Pool> getGetPoolMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetPool",
      requestType = dev.engram.v1.GetPoolRequest.class,
      responseType = dev.engram.v1.Pool.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.GetPoolRequest,
      dev.engram.v1.Pool> getGetPoolMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.GetPoolRequest, dev.engram.v1.Pool> getGetPoolMethod;
    if ((getGetPoolMethod = PoolServiceGrpc.getGetPoolMethod) == null) {
      synchronized (PoolServiceGrpc.class) {
        if ((getGetPoolMethod = PoolServiceGrpc.getGetPoolMethod) == null) {
          PoolServiceGrpc.getGetPoolMethod = getGetPoolMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.GetPoolRequest, dev.engram.v1.Pool>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetPool"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.GetPoolRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Pool.getDefaultInstance()))
              .setSchemaDescriptor(new PoolServiceMethodDescriptorSupplier("GetPool"))
              .build();
        }
      }
    }
    return getGetPoolMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.ListPoolsRequest,
      dev.engram.v1.ListPoolsResponse> getListPoolsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListPools",
      requestType = dev.engram.v1.ListPoolsRequest.class,
      responseType = dev.engram.v1.ListPoolsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.ListPoolsRequest,
      dev.engram.v1.ListPoolsResponse> getListPoolsMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.ListPoolsRequest, dev.engram.v1.ListPoolsResponse> getListPoolsMethod;
    if ((getListPoolsMethod = PoolServiceGrpc.getListPoolsMethod) == null) {
      synchronized (PoolServiceGrpc.class) {
        if ((getListPoolsMethod = PoolServiceGrpc.getListPoolsMethod) == null) {
          PoolServiceGrpc.getListPoolsMethod = getListPoolsMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.ListPoolsRequest, dev.engram.v1.ListPoolsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListPools"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListPoolsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListPoolsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new PoolServiceMethodDescriptorSupplier("ListPools"))
              .build();
        }
      }
    }
    return getListPoolsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.UpdatePoolRequest,
      dev.engram.v1.Pool> getUpdatePoolMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "UpdatePool",
      requestType = dev.engram.v1.UpdatePoolRequest.class,
      responseType = dev.engram.v1.Pool.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.UpdatePoolRequest,
      dev.engram.v1.Pool> getUpdatePoolMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.UpdatePoolRequest, dev.engram.v1.Pool> getUpdatePoolMethod;
    if ((getUpdatePoolMethod = PoolServiceGrpc.getUpdatePoolMethod) == null) {
      synchronized (PoolServiceGrpc.class) {
        if ((getUpdatePoolMethod = PoolServiceGrpc.getUpdatePoolMethod) == null) {
          PoolServiceGrpc.getUpdatePoolMethod = getUpdatePoolMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.UpdatePoolRequest, dev.engram.v1.Pool>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "UpdatePool"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.UpdatePoolRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Pool.getDefaultInstance()))
              .setSchemaDescriptor(new PoolServiceMethodDescriptorSupplier("UpdatePool"))
              .build();
        }
      }
    }
    return getUpdatePoolMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.DeletePoolRequest,
      com.google.protobuf.Empty> getDeletePoolMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DeletePool",
      requestType = dev.engram.v1.DeletePoolRequest.class,
      responseType = com.google.protobuf.Empty.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.DeletePoolRequest,
      com.google.protobuf.Empty> getDeletePoolMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.DeletePoolRequest, com.google.protobuf.Empty> getDeletePoolMethod;
    if ((getDeletePoolMethod = PoolServiceGrpc.getDeletePoolMethod) == null) {
      synchronized (PoolServiceGrpc.class) {
        if ((getDeletePoolMethod = PoolServiceGrpc.getDeletePoolMethod) == null) {
          PoolServiceGrpc.getDeletePoolMethod = getDeletePoolMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.DeletePoolRequest, com.google.protobuf.Empty>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DeletePool"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.DeletePoolRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  com.google.protobuf.Empty.getDefaultInstance()))
              .setSchemaDescriptor(new PoolServiceMethodDescriptorSupplier("DeletePool"))
              .build();
        }
      }
    }
    return getDeletePoolMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.AddPoolMemberRequest,
      dev.engram.v1.PoolMember> getAddPoolMemberMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "AddPoolMember",
      requestType = dev.engram.v1.AddPoolMemberRequest.class,
      responseType = dev.engram.v1.PoolMember.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.AddPoolMemberRequest,
      dev.engram.v1.PoolMember> getAddPoolMemberMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.AddPoolMemberRequest, dev.engram.v1.PoolMember> getAddPoolMemberMethod;
    if ((getAddPoolMemberMethod = PoolServiceGrpc.getAddPoolMemberMethod) == null) {
      synchronized (PoolServiceGrpc.class) {
        if ((getAddPoolMemberMethod = PoolServiceGrpc.getAddPoolMemberMethod) == null) {
          PoolServiceGrpc.getAddPoolMemberMethod = getAddPoolMemberMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.AddPoolMemberRequest, dev.engram.v1.PoolMember>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "AddPoolMember"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.AddPoolMemberRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.PoolMember.getDefaultInstance()))
              .setSchemaDescriptor(new PoolServiceMethodDescriptorSupplier("AddPoolMember"))
              .build();
        }
      }
    }
    return getAddPoolMemberMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.RemovePoolMemberRequest,
      com.google.protobuf.Empty> getRemovePoolMemberMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RemovePoolMember",
      requestType = dev.engram.v1.RemovePoolMemberRequest.class,
      responseType = com.google.protobuf.Empty.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.RemovePoolMemberRequest,
      com.google.protobuf.Empty> getRemovePoolMemberMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.RemovePoolMemberRequest, com.google.protobuf.Empty> getRemovePoolMemberMethod;
    if ((getRemovePoolMemberMethod = PoolServiceGrpc.getRemovePoolMemberMethod) == null) {
      synchronized (PoolServiceGrpc.class) {
        if ((getRemovePoolMemberMethod = PoolServiceGrpc.getRemovePoolMemberMethod) == null) {
          PoolServiceGrpc.getRemovePoolMemberMethod = getRemovePoolMemberMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.RemovePoolMemberRequest, com.google.protobuf.Empty>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RemovePoolMember"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.RemovePoolMemberRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  com.google.protobuf.Empty.getDefaultInstance()))
              .setSchemaDescriptor(new PoolServiceMethodDescriptorSupplier("RemovePoolMember"))
              .build();
        }
      }
    }
    return getRemovePoolMemberMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.ListPoolMembersRequest,
      dev.engram.v1.ListPoolMembersResponse> getListPoolMembersMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListPoolMembers",
      requestType = dev.engram.v1.ListPoolMembersRequest.class,
      responseType = dev.engram.v1.ListPoolMembersResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.ListPoolMembersRequest,
      dev.engram.v1.ListPoolMembersResponse> getListPoolMembersMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.ListPoolMembersRequest, dev.engram.v1.ListPoolMembersResponse> getListPoolMembersMethod;
    if ((getListPoolMembersMethod = PoolServiceGrpc.getListPoolMembersMethod) == null) {
      synchronized (PoolServiceGrpc.class) {
        if ((getListPoolMembersMethod = PoolServiceGrpc.getListPoolMembersMethod) == null) {
          PoolServiceGrpc.getListPoolMembersMethod = getListPoolMembersMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.ListPoolMembersRequest, dev.engram.v1.ListPoolMembersResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListPoolMembers"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListPoolMembersRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListPoolMembersResponse.getDefaultInstance()))
              .setSchemaDescriptor(new PoolServiceMethodDescriptorSupplier("ListPoolMembers"))
              .build();
        }
      }
    }
    return getListPoolMembersMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.PublishMemoryRequest,
      dev.engram.v1.PublishMemoryResponse> getPublishMemoryMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "PublishMemory",
      requestType = dev.engram.v1.PublishMemoryRequest.class,
      responseType = dev.engram.v1.PublishMemoryResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.PublishMemoryRequest,
      dev.engram.v1.PublishMemoryResponse> getPublishMemoryMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.PublishMemoryRequest, dev.engram.v1.PublishMemoryResponse> getPublishMemoryMethod;
    if ((getPublishMemoryMethod = PoolServiceGrpc.getPublishMemoryMethod) == null) {
      synchronized (PoolServiceGrpc.class) {
        if ((getPublishMemoryMethod = PoolServiceGrpc.getPublishMemoryMethod) == null) {
          PoolServiceGrpc.getPublishMemoryMethod = getPublishMemoryMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.PublishMemoryRequest, dev.engram.v1.PublishMemoryResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "PublishMemory"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.PublishMemoryRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.PublishMemoryResponse.getDefaultInstance()))
              .setSchemaDescriptor(new PoolServiceMethodDescriptorSupplier("PublishMemory"))
              .build();
        }
      }
    }
    return getPublishMemoryMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.UnpublishMemoryRequest,
      dev.engram.v1.Publication> getUnpublishMemoryMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "UnpublishMemory",
      requestType = dev.engram.v1.UnpublishMemoryRequest.class,
      responseType = dev.engram.v1.Publication.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.UnpublishMemoryRequest,
      dev.engram.v1.Publication> getUnpublishMemoryMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.UnpublishMemoryRequest, dev.engram.v1.Publication> getUnpublishMemoryMethod;
    if ((getUnpublishMemoryMethod = PoolServiceGrpc.getUnpublishMemoryMethod) == null) {
      synchronized (PoolServiceGrpc.class) {
        if ((getUnpublishMemoryMethod = PoolServiceGrpc.getUnpublishMemoryMethod) == null) {
          PoolServiceGrpc.getUnpublishMemoryMethod = getUnpublishMemoryMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.UnpublishMemoryRequest, dev.engram.v1.Publication>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "UnpublishMemory"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.UnpublishMemoryRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Publication.getDefaultInstance()))
              .setSchemaDescriptor(new PoolServiceMethodDescriptorSupplier("UnpublishMemory"))
              .build();
        }
      }
    }
    return getUnpublishMemoryMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.ReviewPublicationRequest,
      dev.engram.v1.Publication> getReviewPublicationMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ReviewPublication",
      requestType = dev.engram.v1.ReviewPublicationRequest.class,
      responseType = dev.engram.v1.Publication.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.ReviewPublicationRequest,
      dev.engram.v1.Publication> getReviewPublicationMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.ReviewPublicationRequest, dev.engram.v1.Publication> getReviewPublicationMethod;
    if ((getReviewPublicationMethod = PoolServiceGrpc.getReviewPublicationMethod) == null) {
      synchronized (PoolServiceGrpc.class) {
        if ((getReviewPublicationMethod = PoolServiceGrpc.getReviewPublicationMethod) == null) {
          PoolServiceGrpc.getReviewPublicationMethod = getReviewPublicationMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.ReviewPublicationRequest, dev.engram.v1.Publication>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ReviewPublication"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ReviewPublicationRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Publication.getDefaultInstance()))
              .setSchemaDescriptor(new PoolServiceMethodDescriptorSupplier("ReviewPublication"))
              .build();
        }
      }
    }
    return getReviewPublicationMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.GetPublicationRequest,
      dev.engram.v1.Publication> getGetPublicationMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetPublication",
      requestType = dev.engram.v1.GetPublicationRequest.class,
      responseType = dev.engram.v1.Publication.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.GetPublicationRequest,
      dev.engram.v1.Publication> getGetPublicationMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.GetPublicationRequest, dev.engram.v1.Publication> getGetPublicationMethod;
    if ((getGetPublicationMethod = PoolServiceGrpc.getGetPublicationMethod) == null) {
      synchronized (PoolServiceGrpc.class) {
        if ((getGetPublicationMethod = PoolServiceGrpc.getGetPublicationMethod) == null) {
          PoolServiceGrpc.getGetPublicationMethod = getGetPublicationMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.GetPublicationRequest, dev.engram.v1.Publication>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetPublication"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.GetPublicationRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Publication.getDefaultInstance()))
              .setSchemaDescriptor(new PoolServiceMethodDescriptorSupplier("GetPublication"))
              .build();
        }
      }
    }
    return getGetPublicationMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.ListPublicationsRequest,
      dev.engram.v1.ListPublicationsResponse> getListPublicationsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListPublications",
      requestType = dev.engram.v1.ListPublicationsRequest.class,
      responseType = dev.engram.v1.ListPublicationsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.ListPublicationsRequest,
      dev.engram.v1.ListPublicationsResponse> getListPublicationsMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.ListPublicationsRequest, dev.engram.v1.ListPublicationsResponse> getListPublicationsMethod;
    if ((getListPublicationsMethod = PoolServiceGrpc.getListPublicationsMethod) == null) {
      synchronized (PoolServiceGrpc.class) {
        if ((getListPublicationsMethod = PoolServiceGrpc.getListPublicationsMethod) == null) {
          PoolServiceGrpc.getListPublicationsMethod = getListPublicationsMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.ListPublicationsRequest, dev.engram.v1.ListPublicationsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListPublications"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListPublicationsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListPublicationsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new PoolServiceMethodDescriptorSupplier("ListPublications"))
              .build();
        }
      }
    }
    return getListPublicationsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.GetAgentTrustRequest,
      dev.engram.v1.AgentTrust> getGetAgentTrustMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetAgentTrust",
      requestType = dev.engram.v1.GetAgentTrustRequest.class,
      responseType = dev.engram.v1.AgentTrust.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.GetAgentTrustRequest,
      dev.engram.v1.AgentTrust> getGetAgentTrustMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.GetAgentTrustRequest, dev.engram.v1.AgentTrust> getGetAgentTrustMethod;
    if ((getGetAgentTrustMethod = PoolServiceGrpc.getGetAgentTrustMethod) == null) {
      synchronized (PoolServiceGrpc.class) {
        if ((getGetAgentTrustMethod = PoolServiceGrpc.getGetAgentTrustMethod) == null) {
          PoolServiceGrpc.getGetAgentTrustMethod = getGetAgentTrustMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.GetAgentTrustRequest, dev.engram.v1.AgentTrust>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetAgentTrust"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.GetAgentTrustRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.AgentTrust.getDefaultInstance()))
              .setSchemaDescriptor(new PoolServiceMethodDescriptorSupplier("GetAgentTrust"))
              .build();
        }
      }
    }
    return getGetAgentTrustMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.ListAgentTrustsRequest,
      dev.engram.v1.ListAgentTrustsResponse> getListAgentTrustsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListAgentTrusts",
      requestType = dev.engram.v1.ListAgentTrustsRequest.class,
      responseType = dev.engram.v1.ListAgentTrustsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.ListAgentTrustsRequest,
      dev.engram.v1.ListAgentTrustsResponse> getListAgentTrustsMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.ListAgentTrustsRequest, dev.engram.v1.ListAgentTrustsResponse> getListAgentTrustsMethod;
    if ((getListAgentTrustsMethod = PoolServiceGrpc.getListAgentTrustsMethod) == null) {
      synchronized (PoolServiceGrpc.class) {
        if ((getListAgentTrustsMethod = PoolServiceGrpc.getListAgentTrustsMethod) == null) {
          PoolServiceGrpc.getListAgentTrustsMethod = getListAgentTrustsMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.ListAgentTrustsRequest, dev.engram.v1.ListAgentTrustsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListAgentTrusts"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListAgentTrustsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListAgentTrustsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new PoolServiceMethodDescriptorSupplier("ListAgentTrusts"))
              .build();
        }
      }
    }
    return getListAgentTrustsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.SyncPoolRequest,
      dev.engram.v1.SyncPoolResponse> getSyncPoolMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SyncPool",
      requestType = dev.engram.v1.SyncPoolRequest.class,
      responseType = dev.engram.v1.SyncPoolResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
  public static io.grpc.MethodDescriptor<dev.engram.v1.SyncPoolRequest,
      dev.engram.v1.SyncPoolResponse> getSyncPoolMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.SyncPoolRequest, dev.engram.v1.SyncPoolResponse> getSyncPoolMethod;
    if ((getSyncPoolMethod = PoolServiceGrpc.getSyncPoolMethod) == null) {
      synchronized (PoolServiceGrpc.class) {
        if ((getSyncPoolMethod = PoolServiceGrpc.getSyncPoolMethod) == null) {
          PoolServiceGrpc.getSyncPoolMethod = getSyncPoolMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.SyncPoolRequest, dev.engram.v1.SyncPoolResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SyncPool"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.SyncPoolRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.SyncPoolResponse.getDefaultInstance()))
              .setSchemaDescriptor(new PoolServiceMethodDescriptorSupplier("SyncPool"))
              .build();
        }
      }
    }
    return getSyncPoolMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.ListTopicsRequest,
      dev.engram.v1.ListTopicsResponse> getListTopicsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListTopics",
      requestType = dev.engram.v1.ListTopicsRequest.class,
      responseType = dev.engram.v1.ListTopicsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.ListTopicsRequest,
      dev.engram.v1.ListTopicsResponse> getListTopicsMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.ListTopicsRequest, dev.engram.v1.ListTopicsResponse> getListTopicsMethod;
    if ((getListTopicsMethod = PoolServiceGrpc.getListTopicsMethod) == null) {
      synchronized (PoolServiceGrpc.class) {
        if ((getListTopicsMethod = PoolServiceGrpc.getListTopicsMethod) == null) {
          PoolServiceGrpc.getListTopicsMethod = getListTopicsMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.ListTopicsRequest, dev.engram.v1.ListTopicsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListTopics"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListTopicsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListTopicsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new PoolServiceMethodDescriptorSupplier("ListTopics"))
              .build();
        }
      }
    }
    return getListTopicsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.SubscribeTopicRequest,
      dev.engram.v1.SubscribeTopicResponse> getSubscribeTopicMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SubscribeTopic",
      requestType = dev.engram.v1.SubscribeTopicRequest.class,
      responseType = dev.engram.v1.SubscribeTopicResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
  public static io.grpc.MethodDescriptor<dev.engram.v1.SubscribeTopicRequest,
      dev.engram.v1.SubscribeTopicResponse> getSubscribeTopicMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.SubscribeTopicRequest, dev.engram.v1.SubscribeTopicResponse> getSubscribeTopicMethod;
    if ((getSubscribeTopicMethod = PoolServiceGrpc.getSubscribeTopicMethod) == null) {
      synchronized (PoolServiceGrpc.class) {
        if ((getSubscribeTopicMethod = PoolServiceGrpc.getSubscribeTopicMethod) == null) {
          PoolServiceGrpc.getSubscribeTopicMethod = getSubscribeTopicMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.SubscribeTopicRequest, dev.engram.v1.SubscribeTopicResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SubscribeTopic"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.SubscribeTopicRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.SubscribeTopicResponse.getDefaultInstance()))
              .setSchemaDescriptor(new PoolServiceMethodDescriptorSupplier("SubscribeTopic"))
              .build();
        }
      }
    }
    return getSubscribeTopicMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static PoolServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<PoolServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<PoolServiceStub>() {
        @java.lang.Override
        public PoolServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new PoolServiceStub(channel, callOptions);
        }
      };
    return PoolServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static PoolServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<PoolServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<PoolServiceBlockingV2Stub>() {
        @java.lang.Override
        public PoolServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new PoolServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return PoolServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static PoolServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<PoolServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<PoolServiceBlockingStub>() {
        @java.lang.Override
        public PoolServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new PoolServiceBlockingStub(channel, callOptions);
        }
      };
    return PoolServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static PoolServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<PoolServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<PoolServiceFutureStub>() {
        @java.lang.Override
        public PoolServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new PoolServiceFutureStub(channel, callOptions);
        }
      };
    return PoolServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * PoolService owns sharing inside a tenant. Agents and teams keep their memories
   * in their own spaces; a pool is a named, governed place where selected memories
   * are shared with the pool's members.
   * - Pools and their members, each with a role: READER (reads), WRITER (also
   *   publishes) or OWNER (also manages members, reviews publications, changes and
   *   deletes the pool).
   * - Publishing: a memory enters a pool only through the pool's publish gate,
   *   which publishes it, holds it for an owner's review, or refuses it with
   *   reasons. Publishing shares a memory; it never copies or changes it, so a
   *   retraction or supersession in the home space reaches every pool at once.
   * - Automatic trust: each publisher's trust in a pool is derived from what
   *   happens to what it published (recalled and confirmed by others, or retracted
   *   and superseded soon after), never set by hand. Pool recall weights hits by it
   *   and the gate can hold low-trust publishers for review.
   * - Slot-delta sync: a member pulls only the slots that changed since its
   *   cursor instead of the whole pool.
   * - Topic channels: publications carry a topic, and members list topics and
   *   follow one as a stream.
   * Membership is checked on every read, not only when a stream or page starts:
   * each RPC, each page and each streamed message is authorised against the
   * caller's current membership, so removing a member takes effect at once (its
   * open streams end with PERMISSION_DENIED). Recall over a pool
   * (RecallService.Recall with `pools`) applies the same check. Callers that are
   * not members get NOT_FOUND for the pool (never a hint that it exists) and
   * members whose role is too low PERMISSION_DENIED, with one exception: a
   * publication with TENANT visibility is readable by anyone in the tenant with
   * the `read` scope, through GetPublication and pool recall (never through sync,
   * topics or listings). Tenant administrators (scope `admin`) may manage any pool
   * of their tenant (get, list, update, delete, members, trust) but read its
   * memories only as members.
   * Scopes: reads need `read`; publishing, reviewing and managing pools and
   * members need `write`, on top of the pool role each RPC names.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * Creates a pool; the caller becomes its first OWNER.
     * </pre>
     */
    default void createPool(dev.engram.v1.CreatePoolRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Pool> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreatePoolMethod(), responseObserver);
    }

    /**
     * <pre>
     * Gets a pool. Members only.
     * </pre>
     */
    default void getPool(dev.engram.v1.GetPoolRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Pool> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetPoolMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists the pools the caller is a member of (every pool, for a tenant
     * administrator).
     * </pre>
     */
    default void listPools(dev.engram.v1.ListPoolsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListPoolsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListPoolsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Changes a pool's description, gate or default visibility. Owners only.
     * </pre>
     */
    default void updatePool(dev.engram.v1.UpdatePoolRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Pool> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getUpdatePoolMethod(), responseObserver);
    }

    /**
     * <pre>
     * Deletes a pool with its memberships and publications. The published memories
     * themselves are not touched. Owners only.
     * </pre>
     */
    default void deletePool(dev.engram.v1.DeletePoolRequest request,
        io.grpc.stub.StreamObserver<com.google.protobuf.Empty> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDeletePoolMethod(), responseObserver);
    }

    /**
     * <pre>
     * Adds a member, or changes the role of an existing one. Owners only.
     * </pre>
     */
    default void addPoolMember(dev.engram.v1.AddPoolMemberRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.PoolMember> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getAddPoolMemberMethod(), responseObserver);
    }

    /**
     * <pre>
     * Removes a member; its reads stop at once. Its publications stay. Owners
     * only; a pool always keeps at least one owner.
     * </pre>
     */
    default void removePoolMember(dev.engram.v1.RemovePoolMemberRequest request,
        io.grpc.stub.StreamObserver<com.google.protobuf.Empty> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRemovePoolMemberMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists a pool's members. Members only.
     * </pre>
     */
    default void listPoolMembers(dev.engram.v1.ListPoolMembersRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListPoolMembersResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListPoolMembersMethod(), responseObserver);
    }

    /**
     * <pre>
     * Offers a memory to a pool through its publish gate. Writers and owners, and
     * only memories they could read themselves.
     * </pre>
     */
    default void publishMemory(dev.engram.v1.PublishMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.PublishMemoryResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getPublishMemoryMethod(), responseObserver);
    }

    /**
     * <pre>
     * Withdraws a publication. Its publisher or an owner.
     * </pre>
     */
    default void unpublishMemory(dev.engram.v1.UnpublishMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Publication> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getUnpublishMemoryMethod(), responseObserver);
    }

    /**
     * <pre>
     * Approves or rejects a publication held for review. Owners only.
     * </pre>
     */
    default void reviewPublication(dev.engram.v1.ReviewPublicationRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Publication> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getReviewPublicationMethod(), responseObserver);
    }

    /**
     * <pre>
     * Gets one publication. Members only, within its visibility (anyone in the
     * tenant for TENANT visibility).
     * </pre>
     */
    default void getPublication(dev.engram.v1.GetPublicationRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Publication> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetPublicationMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists publications, e.g. those waiting for review. Members only, within
     * each publication's visibility.
     * </pre>
     */
    default void listPublications(dev.engram.v1.ListPublicationsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListPublicationsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListPublicationsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Gets one publisher's trust in a pool. Members only.
     * </pre>
     */
    default void getAgentTrust(dev.engram.v1.GetAgentTrustRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.AgentTrust> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetAgentTrustMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists the trust of every publisher of a pool, most trusted first. Members
     * only.
     * </pre>
     */
    default void listAgentTrusts(dev.engram.v1.ListAgentTrustsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListAgentTrustsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListAgentTrustsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Streams slot deltas of a pool from a cursor: first one delta per slot that
     * changed since the cursor, then, with `follow`, live deltas as they commit.
     * Members only, checked on every message.
     * </pre>
     */
    default void syncPool(dev.engram.v1.SyncPoolRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.SyncPoolResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSyncPoolMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists a pool's topic channels. Members only.
     * </pre>
     */
    default void listTopics(dev.engram.v1.ListTopicsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListTopicsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListTopicsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Streams the publication events of one topic channel, resumable from a
     * cursor. Members only, checked on every message.
     * </pre>
     */
    default void subscribeTopic(dev.engram.v1.SubscribeTopicRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.SubscribeTopicResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSubscribeTopicMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service PoolService.
   * <pre>
   * PoolService owns sharing inside a tenant. Agents and teams keep their memories
   * in their own spaces; a pool is a named, governed place where selected memories
   * are shared with the pool's members.
   * - Pools and their members, each with a role: READER (reads), WRITER (also
   *   publishes) or OWNER (also manages members, reviews publications, changes and
   *   deletes the pool).
   * - Publishing: a memory enters a pool only through the pool's publish gate,
   *   which publishes it, holds it for an owner's review, or refuses it with
   *   reasons. Publishing shares a memory; it never copies or changes it, so a
   *   retraction or supersession in the home space reaches every pool at once.
   * - Automatic trust: each publisher's trust in a pool is derived from what
   *   happens to what it published (recalled and confirmed by others, or retracted
   *   and superseded soon after), never set by hand. Pool recall weights hits by it
   *   and the gate can hold low-trust publishers for review.
   * - Slot-delta sync: a member pulls only the slots that changed since its
   *   cursor instead of the whole pool.
   * - Topic channels: publications carry a topic, and members list topics and
   *   follow one as a stream.
   * Membership is checked on every read, not only when a stream or page starts:
   * each RPC, each page and each streamed message is authorised against the
   * caller's current membership, so removing a member takes effect at once (its
   * open streams end with PERMISSION_DENIED). Recall over a pool
   * (RecallService.Recall with `pools`) applies the same check. Callers that are
   * not members get NOT_FOUND for the pool (never a hint that it exists) and
   * members whose role is too low PERMISSION_DENIED, with one exception: a
   * publication with TENANT visibility is readable by anyone in the tenant with
   * the `read` scope, through GetPublication and pool recall (never through sync,
   * topics or listings). Tenant administrators (scope `admin`) may manage any pool
   * of their tenant (get, list, update, delete, members, trust) but read its
   * memories only as members.
   * Scopes: reads need `read`; publishing, reviewing and managing pools and
   * members need `write`, on top of the pool role each RPC names.
   * </pre>
   */
  public static abstract class PoolServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return PoolServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service PoolService.
   * <pre>
   * PoolService owns sharing inside a tenant. Agents and teams keep their memories
   * in their own spaces; a pool is a named, governed place where selected memories
   * are shared with the pool's members.
   * - Pools and their members, each with a role: READER (reads), WRITER (also
   *   publishes) or OWNER (also manages members, reviews publications, changes and
   *   deletes the pool).
   * - Publishing: a memory enters a pool only through the pool's publish gate,
   *   which publishes it, holds it for an owner's review, or refuses it with
   *   reasons. Publishing shares a memory; it never copies or changes it, so a
   *   retraction or supersession in the home space reaches every pool at once.
   * - Automatic trust: each publisher's trust in a pool is derived from what
   *   happens to what it published (recalled and confirmed by others, or retracted
   *   and superseded soon after), never set by hand. Pool recall weights hits by it
   *   and the gate can hold low-trust publishers for review.
   * - Slot-delta sync: a member pulls only the slots that changed since its
   *   cursor instead of the whole pool.
   * - Topic channels: publications carry a topic, and members list topics and
   *   follow one as a stream.
   * Membership is checked on every read, not only when a stream or page starts:
   * each RPC, each page and each streamed message is authorised against the
   * caller's current membership, so removing a member takes effect at once (its
   * open streams end with PERMISSION_DENIED). Recall over a pool
   * (RecallService.Recall with `pools`) applies the same check. Callers that are
   * not members get NOT_FOUND for the pool (never a hint that it exists) and
   * members whose role is too low PERMISSION_DENIED, with one exception: a
   * publication with TENANT visibility is readable by anyone in the tenant with
   * the `read` scope, through GetPublication and pool recall (never through sync,
   * topics or listings). Tenant administrators (scope `admin`) may manage any pool
   * of their tenant (get, list, update, delete, members, trust) but read its
   * memories only as members.
   * Scopes: reads need `read`; publishing, reviewing and managing pools and
   * members need `write`, on top of the pool role each RPC names.
   * </pre>
   */
  public static final class PoolServiceStub
      extends io.grpc.stub.AbstractAsyncStub<PoolServiceStub> {
    private PoolServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected PoolServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new PoolServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Creates a pool; the caller becomes its first OWNER.
     * </pre>
     */
    public void createPool(dev.engram.v1.CreatePoolRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Pool> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreatePoolMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Gets a pool. Members only.
     * </pre>
     */
    public void getPool(dev.engram.v1.GetPoolRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Pool> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetPoolMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists the pools the caller is a member of (every pool, for a tenant
     * administrator).
     * </pre>
     */
    public void listPools(dev.engram.v1.ListPoolsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListPoolsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListPoolsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Changes a pool's description, gate or default visibility. Owners only.
     * </pre>
     */
    public void updatePool(dev.engram.v1.UpdatePoolRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Pool> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getUpdatePoolMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Deletes a pool with its memberships and publications. The published memories
     * themselves are not touched. Owners only.
     * </pre>
     */
    public void deletePool(dev.engram.v1.DeletePoolRequest request,
        io.grpc.stub.StreamObserver<com.google.protobuf.Empty> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDeletePoolMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Adds a member, or changes the role of an existing one. Owners only.
     * </pre>
     */
    public void addPoolMember(dev.engram.v1.AddPoolMemberRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.PoolMember> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getAddPoolMemberMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Removes a member; its reads stop at once. Its publications stay. Owners
     * only; a pool always keeps at least one owner.
     * </pre>
     */
    public void removePoolMember(dev.engram.v1.RemovePoolMemberRequest request,
        io.grpc.stub.StreamObserver<com.google.protobuf.Empty> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRemovePoolMemberMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists a pool's members. Members only.
     * </pre>
     */
    public void listPoolMembers(dev.engram.v1.ListPoolMembersRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListPoolMembersResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListPoolMembersMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Offers a memory to a pool through its publish gate. Writers and owners, and
     * only memories they could read themselves.
     * </pre>
     */
    public void publishMemory(dev.engram.v1.PublishMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.PublishMemoryResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getPublishMemoryMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Withdraws a publication. Its publisher or an owner.
     * </pre>
     */
    public void unpublishMemory(dev.engram.v1.UnpublishMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Publication> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getUnpublishMemoryMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Approves or rejects a publication held for review. Owners only.
     * </pre>
     */
    public void reviewPublication(dev.engram.v1.ReviewPublicationRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Publication> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getReviewPublicationMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Gets one publication. Members only, within its visibility (anyone in the
     * tenant for TENANT visibility).
     * </pre>
     */
    public void getPublication(dev.engram.v1.GetPublicationRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Publication> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetPublicationMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists publications, e.g. those waiting for review. Members only, within
     * each publication's visibility.
     * </pre>
     */
    public void listPublications(dev.engram.v1.ListPublicationsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListPublicationsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListPublicationsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Gets one publisher's trust in a pool. Members only.
     * </pre>
     */
    public void getAgentTrust(dev.engram.v1.GetAgentTrustRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.AgentTrust> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetAgentTrustMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists the trust of every publisher of a pool, most trusted first. Members
     * only.
     * </pre>
     */
    public void listAgentTrusts(dev.engram.v1.ListAgentTrustsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListAgentTrustsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListAgentTrustsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Streams slot deltas of a pool from a cursor: first one delta per slot that
     * changed since the cursor, then, with `follow`, live deltas as they commit.
     * Members only, checked on every message.
     * </pre>
     */
    public void syncPool(dev.engram.v1.SyncPoolRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.SyncPoolResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncServerStreamingCall(
          getChannel().newCall(getSyncPoolMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists a pool's topic channels. Members only.
     * </pre>
     */
    public void listTopics(dev.engram.v1.ListTopicsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListTopicsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListTopicsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Streams the publication events of one topic channel, resumable from a
     * cursor. Members only, checked on every message.
     * </pre>
     */
    public void subscribeTopic(dev.engram.v1.SubscribeTopicRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.SubscribeTopicResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncServerStreamingCall(
          getChannel().newCall(getSubscribeTopicMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service PoolService.
   * <pre>
   * PoolService owns sharing inside a tenant. Agents and teams keep their memories
   * in their own spaces; a pool is a named, governed place where selected memories
   * are shared with the pool's members.
   * - Pools and their members, each with a role: READER (reads), WRITER (also
   *   publishes) or OWNER (also manages members, reviews publications, changes and
   *   deletes the pool).
   * - Publishing: a memory enters a pool only through the pool's publish gate,
   *   which publishes it, holds it for an owner's review, or refuses it with
   *   reasons. Publishing shares a memory; it never copies or changes it, so a
   *   retraction or supersession in the home space reaches every pool at once.
   * - Automatic trust: each publisher's trust in a pool is derived from what
   *   happens to what it published (recalled and confirmed by others, or retracted
   *   and superseded soon after), never set by hand. Pool recall weights hits by it
   *   and the gate can hold low-trust publishers for review.
   * - Slot-delta sync: a member pulls only the slots that changed since its
   *   cursor instead of the whole pool.
   * - Topic channels: publications carry a topic, and members list topics and
   *   follow one as a stream.
   * Membership is checked on every read, not only when a stream or page starts:
   * each RPC, each page and each streamed message is authorised against the
   * caller's current membership, so removing a member takes effect at once (its
   * open streams end with PERMISSION_DENIED). Recall over a pool
   * (RecallService.Recall with `pools`) applies the same check. Callers that are
   * not members get NOT_FOUND for the pool (never a hint that it exists) and
   * members whose role is too low PERMISSION_DENIED, with one exception: a
   * publication with TENANT visibility is readable by anyone in the tenant with
   * the `read` scope, through GetPublication and pool recall (never through sync,
   * topics or listings). Tenant administrators (scope `admin`) may manage any pool
   * of their tenant (get, list, update, delete, members, trust) but read its
   * memories only as members.
   * Scopes: reads need `read`; publishing, reviewing and managing pools and
   * members need `write`, on top of the pool role each RPC names.
   * </pre>
   */
  public static final class PoolServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<PoolServiceBlockingV2Stub> {
    private PoolServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected PoolServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new PoolServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * Creates a pool; the caller becomes its first OWNER.
     * </pre>
     */
    public dev.engram.v1.Pool createPool(dev.engram.v1.CreatePoolRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCreatePoolMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Gets a pool. Members only.
     * </pre>
     */
    public dev.engram.v1.Pool getPool(dev.engram.v1.GetPoolRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetPoolMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists the pools the caller is a member of (every pool, for a tenant
     * administrator).
     * </pre>
     */
    public dev.engram.v1.ListPoolsResponse listPools(dev.engram.v1.ListPoolsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListPoolsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Changes a pool's description, gate or default visibility. Owners only.
     * </pre>
     */
    public dev.engram.v1.Pool updatePool(dev.engram.v1.UpdatePoolRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getUpdatePoolMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Deletes a pool with its memberships and publications. The published memories
     * themselves are not touched. Owners only.
     * </pre>
     */
    public com.google.protobuf.Empty deletePool(dev.engram.v1.DeletePoolRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getDeletePoolMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Adds a member, or changes the role of an existing one. Owners only.
     * </pre>
     */
    public dev.engram.v1.PoolMember addPoolMember(dev.engram.v1.AddPoolMemberRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getAddPoolMemberMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Removes a member; its reads stop at once. Its publications stay. Owners
     * only; a pool always keeps at least one owner.
     * </pre>
     */
    public com.google.protobuf.Empty removePoolMember(dev.engram.v1.RemovePoolMemberRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRemovePoolMemberMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists a pool's members. Members only.
     * </pre>
     */
    public dev.engram.v1.ListPoolMembersResponse listPoolMembers(dev.engram.v1.ListPoolMembersRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListPoolMembersMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Offers a memory to a pool through its publish gate. Writers and owners, and
     * only memories they could read themselves.
     * </pre>
     */
    public dev.engram.v1.PublishMemoryResponse publishMemory(dev.engram.v1.PublishMemoryRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getPublishMemoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Withdraws a publication. Its publisher or an owner.
     * </pre>
     */
    public dev.engram.v1.Publication unpublishMemory(dev.engram.v1.UnpublishMemoryRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getUnpublishMemoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Approves or rejects a publication held for review. Owners only.
     * </pre>
     */
    public dev.engram.v1.Publication reviewPublication(dev.engram.v1.ReviewPublicationRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getReviewPublicationMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Gets one publication. Members only, within its visibility (anyone in the
     * tenant for TENANT visibility).
     * </pre>
     */
    public dev.engram.v1.Publication getPublication(dev.engram.v1.GetPublicationRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetPublicationMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists publications, e.g. those waiting for review. Members only, within
     * each publication's visibility.
     * </pre>
     */
    public dev.engram.v1.ListPublicationsResponse listPublications(dev.engram.v1.ListPublicationsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListPublicationsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Gets one publisher's trust in a pool. Members only.
     * </pre>
     */
    public dev.engram.v1.AgentTrust getAgentTrust(dev.engram.v1.GetAgentTrustRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetAgentTrustMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists the trust of every publisher of a pool, most trusted first. Members
     * only.
     * </pre>
     */
    public dev.engram.v1.ListAgentTrustsResponse listAgentTrusts(dev.engram.v1.ListAgentTrustsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListAgentTrustsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Streams slot deltas of a pool from a cursor: first one delta per slot that
     * changed since the cursor, then, with `follow`, live deltas as they commit.
     * Members only, checked on every message.
     * </pre>
     */
    @io.grpc.ExperimentalApi("https://github.com/grpc/grpc-java/issues/10918")
    public io.grpc.stub.BlockingClientCall<?, dev.engram.v1.SyncPoolResponse>
        syncPool(dev.engram.v1.SyncPoolRequest request) {
      return io.grpc.stub.ClientCalls.blockingV2ServerStreamingCall(
          getChannel(), getSyncPoolMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists a pool's topic channels. Members only.
     * </pre>
     */
    public dev.engram.v1.ListTopicsResponse listTopics(dev.engram.v1.ListTopicsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListTopicsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Streams the publication events of one topic channel, resumable from a
     * cursor. Members only, checked on every message.
     * </pre>
     */
    @io.grpc.ExperimentalApi("https://github.com/grpc/grpc-java/issues/10918")
    public io.grpc.stub.BlockingClientCall<?, dev.engram.v1.SubscribeTopicResponse>
        subscribeTopic(dev.engram.v1.SubscribeTopicRequest request) {
      return io.grpc.stub.ClientCalls.blockingV2ServerStreamingCall(
          getChannel(), getSubscribeTopicMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service PoolService.
   * <pre>
   * PoolService owns sharing inside a tenant. Agents and teams keep their memories
   * in their own spaces; a pool is a named, governed place where selected memories
   * are shared with the pool's members.
   * - Pools and their members, each with a role: READER (reads), WRITER (also
   *   publishes) or OWNER (also manages members, reviews publications, changes and
   *   deletes the pool).
   * - Publishing: a memory enters a pool only through the pool's publish gate,
   *   which publishes it, holds it for an owner's review, or refuses it with
   *   reasons. Publishing shares a memory; it never copies or changes it, so a
   *   retraction or supersession in the home space reaches every pool at once.
   * - Automatic trust: each publisher's trust in a pool is derived from what
   *   happens to what it published (recalled and confirmed by others, or retracted
   *   and superseded soon after), never set by hand. Pool recall weights hits by it
   *   and the gate can hold low-trust publishers for review.
   * - Slot-delta sync: a member pulls only the slots that changed since its
   *   cursor instead of the whole pool.
   * - Topic channels: publications carry a topic, and members list topics and
   *   follow one as a stream.
   * Membership is checked on every read, not only when a stream or page starts:
   * each RPC, each page and each streamed message is authorised against the
   * caller's current membership, so removing a member takes effect at once (its
   * open streams end with PERMISSION_DENIED). Recall over a pool
   * (RecallService.Recall with `pools`) applies the same check. Callers that are
   * not members get NOT_FOUND for the pool (never a hint that it exists) and
   * members whose role is too low PERMISSION_DENIED, with one exception: a
   * publication with TENANT visibility is readable by anyone in the tenant with
   * the `read` scope, through GetPublication and pool recall (never through sync,
   * topics or listings). Tenant administrators (scope `admin`) may manage any pool
   * of their tenant (get, list, update, delete, members, trust) but read its
   * memories only as members.
   * Scopes: reads need `read`; publishing, reviewing and managing pools and
   * members need `write`, on top of the pool role each RPC names.
   * </pre>
   */
  public static final class PoolServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<PoolServiceBlockingStub> {
    private PoolServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected PoolServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new PoolServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Creates a pool; the caller becomes its first OWNER.
     * </pre>
     */
    public dev.engram.v1.Pool createPool(dev.engram.v1.CreatePoolRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreatePoolMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Gets a pool. Members only.
     * </pre>
     */
    public dev.engram.v1.Pool getPool(dev.engram.v1.GetPoolRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetPoolMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists the pools the caller is a member of (every pool, for a tenant
     * administrator).
     * </pre>
     */
    public dev.engram.v1.ListPoolsResponse listPools(dev.engram.v1.ListPoolsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListPoolsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Changes a pool's description, gate or default visibility. Owners only.
     * </pre>
     */
    public dev.engram.v1.Pool updatePool(dev.engram.v1.UpdatePoolRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getUpdatePoolMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Deletes a pool with its memberships and publications. The published memories
     * themselves are not touched. Owners only.
     * </pre>
     */
    public com.google.protobuf.Empty deletePool(dev.engram.v1.DeletePoolRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDeletePoolMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Adds a member, or changes the role of an existing one. Owners only.
     * </pre>
     */
    public dev.engram.v1.PoolMember addPoolMember(dev.engram.v1.AddPoolMemberRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getAddPoolMemberMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Removes a member; its reads stop at once. Its publications stay. Owners
     * only; a pool always keeps at least one owner.
     * </pre>
     */
    public com.google.protobuf.Empty removePoolMember(dev.engram.v1.RemovePoolMemberRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRemovePoolMemberMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists a pool's members. Members only.
     * </pre>
     */
    public dev.engram.v1.ListPoolMembersResponse listPoolMembers(dev.engram.v1.ListPoolMembersRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListPoolMembersMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Offers a memory to a pool through its publish gate. Writers and owners, and
     * only memories they could read themselves.
     * </pre>
     */
    public dev.engram.v1.PublishMemoryResponse publishMemory(dev.engram.v1.PublishMemoryRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getPublishMemoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Withdraws a publication. Its publisher or an owner.
     * </pre>
     */
    public dev.engram.v1.Publication unpublishMemory(dev.engram.v1.UnpublishMemoryRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getUnpublishMemoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Approves or rejects a publication held for review. Owners only.
     * </pre>
     */
    public dev.engram.v1.Publication reviewPublication(dev.engram.v1.ReviewPublicationRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getReviewPublicationMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Gets one publication. Members only, within its visibility (anyone in the
     * tenant for TENANT visibility).
     * </pre>
     */
    public dev.engram.v1.Publication getPublication(dev.engram.v1.GetPublicationRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetPublicationMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists publications, e.g. those waiting for review. Members only, within
     * each publication's visibility.
     * </pre>
     */
    public dev.engram.v1.ListPublicationsResponse listPublications(dev.engram.v1.ListPublicationsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListPublicationsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Gets one publisher's trust in a pool. Members only.
     * </pre>
     */
    public dev.engram.v1.AgentTrust getAgentTrust(dev.engram.v1.GetAgentTrustRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetAgentTrustMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists the trust of every publisher of a pool, most trusted first. Members
     * only.
     * </pre>
     */
    public dev.engram.v1.ListAgentTrustsResponse listAgentTrusts(dev.engram.v1.ListAgentTrustsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListAgentTrustsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Streams slot deltas of a pool from a cursor: first one delta per slot that
     * changed since the cursor, then, with `follow`, live deltas as they commit.
     * Members only, checked on every message.
     * </pre>
     */
    public java.util.Iterator<dev.engram.v1.SyncPoolResponse> syncPool(
        dev.engram.v1.SyncPoolRequest request) {
      return io.grpc.stub.ClientCalls.blockingServerStreamingCall(
          getChannel(), getSyncPoolMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists a pool's topic channels. Members only.
     * </pre>
     */
    public dev.engram.v1.ListTopicsResponse listTopics(dev.engram.v1.ListTopicsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListTopicsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Streams the publication events of one topic channel, resumable from a
     * cursor. Members only, checked on every message.
     * </pre>
     */
    public java.util.Iterator<dev.engram.v1.SubscribeTopicResponse> subscribeTopic(
        dev.engram.v1.SubscribeTopicRequest request) {
      return io.grpc.stub.ClientCalls.blockingServerStreamingCall(
          getChannel(), getSubscribeTopicMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service PoolService.
   * <pre>
   * PoolService owns sharing inside a tenant. Agents and teams keep their memories
   * in their own spaces; a pool is a named, governed place where selected memories
   * are shared with the pool's members.
   * - Pools and their members, each with a role: READER (reads), WRITER (also
   *   publishes) or OWNER (also manages members, reviews publications, changes and
   *   deletes the pool).
   * - Publishing: a memory enters a pool only through the pool's publish gate,
   *   which publishes it, holds it for an owner's review, or refuses it with
   *   reasons. Publishing shares a memory; it never copies or changes it, so a
   *   retraction or supersession in the home space reaches every pool at once.
   * - Automatic trust: each publisher's trust in a pool is derived from what
   *   happens to what it published (recalled and confirmed by others, or retracted
   *   and superseded soon after), never set by hand. Pool recall weights hits by it
   *   and the gate can hold low-trust publishers for review.
   * - Slot-delta sync: a member pulls only the slots that changed since its
   *   cursor instead of the whole pool.
   * - Topic channels: publications carry a topic, and members list topics and
   *   follow one as a stream.
   * Membership is checked on every read, not only when a stream or page starts:
   * each RPC, each page and each streamed message is authorised against the
   * caller's current membership, so removing a member takes effect at once (its
   * open streams end with PERMISSION_DENIED). Recall over a pool
   * (RecallService.Recall with `pools`) applies the same check. Callers that are
   * not members get NOT_FOUND for the pool (never a hint that it exists) and
   * members whose role is too low PERMISSION_DENIED, with one exception: a
   * publication with TENANT visibility is readable by anyone in the tenant with
   * the `read` scope, through GetPublication and pool recall (never through sync,
   * topics or listings). Tenant administrators (scope `admin`) may manage any pool
   * of their tenant (get, list, update, delete, members, trust) but read its
   * memories only as members.
   * Scopes: reads need `read`; publishing, reviewing and managing pools and
   * members need `write`, on top of the pool role each RPC names.
   * </pre>
   */
  public static final class PoolServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<PoolServiceFutureStub> {
    private PoolServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected PoolServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new PoolServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Creates a pool; the caller becomes its first OWNER.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Pool> createPool(
        dev.engram.v1.CreatePoolRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreatePoolMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Gets a pool. Members only.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Pool> getPool(
        dev.engram.v1.GetPoolRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetPoolMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists the pools the caller is a member of (every pool, for a tenant
     * administrator).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.ListPoolsResponse> listPools(
        dev.engram.v1.ListPoolsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListPoolsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Changes a pool's description, gate or default visibility. Owners only.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Pool> updatePool(
        dev.engram.v1.UpdatePoolRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getUpdatePoolMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Deletes a pool with its memberships and publications. The published memories
     * themselves are not touched. Owners only.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<com.google.protobuf.Empty> deletePool(
        dev.engram.v1.DeletePoolRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDeletePoolMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Adds a member, or changes the role of an existing one. Owners only.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.PoolMember> addPoolMember(
        dev.engram.v1.AddPoolMemberRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getAddPoolMemberMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Removes a member; its reads stop at once. Its publications stay. Owners
     * only; a pool always keeps at least one owner.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<com.google.protobuf.Empty> removePoolMember(
        dev.engram.v1.RemovePoolMemberRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRemovePoolMemberMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists a pool's members. Members only.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.ListPoolMembersResponse> listPoolMembers(
        dev.engram.v1.ListPoolMembersRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListPoolMembersMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Offers a memory to a pool through its publish gate. Writers and owners, and
     * only memories they could read themselves.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.PublishMemoryResponse> publishMemory(
        dev.engram.v1.PublishMemoryRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getPublishMemoryMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Withdraws a publication. Its publisher or an owner.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Publication> unpublishMemory(
        dev.engram.v1.UnpublishMemoryRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getUnpublishMemoryMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Approves or rejects a publication held for review. Owners only.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Publication> reviewPublication(
        dev.engram.v1.ReviewPublicationRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getReviewPublicationMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Gets one publication. Members only, within its visibility (anyone in the
     * tenant for TENANT visibility).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Publication> getPublication(
        dev.engram.v1.GetPublicationRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetPublicationMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists publications, e.g. those waiting for review. Members only, within
     * each publication's visibility.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.ListPublicationsResponse> listPublications(
        dev.engram.v1.ListPublicationsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListPublicationsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Gets one publisher's trust in a pool. Members only.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.AgentTrust> getAgentTrust(
        dev.engram.v1.GetAgentTrustRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetAgentTrustMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists the trust of every publisher of a pool, most trusted first. Members
     * only.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.ListAgentTrustsResponse> listAgentTrusts(
        dev.engram.v1.ListAgentTrustsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListAgentTrustsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists a pool's topic channels. Members only.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.ListTopicsResponse> listTopics(
        dev.engram.v1.ListTopicsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListTopicsMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_CREATE_POOL = 0;
  private static final int METHODID_GET_POOL = 1;
  private static final int METHODID_LIST_POOLS = 2;
  private static final int METHODID_UPDATE_POOL = 3;
  private static final int METHODID_DELETE_POOL = 4;
  private static final int METHODID_ADD_POOL_MEMBER = 5;
  private static final int METHODID_REMOVE_POOL_MEMBER = 6;
  private static final int METHODID_LIST_POOL_MEMBERS = 7;
  private static final int METHODID_PUBLISH_MEMORY = 8;
  private static final int METHODID_UNPUBLISH_MEMORY = 9;
  private static final int METHODID_REVIEW_PUBLICATION = 10;
  private static final int METHODID_GET_PUBLICATION = 11;
  private static final int METHODID_LIST_PUBLICATIONS = 12;
  private static final int METHODID_GET_AGENT_TRUST = 13;
  private static final int METHODID_LIST_AGENT_TRUSTS = 14;
  private static final int METHODID_SYNC_POOL = 15;
  private static final int METHODID_LIST_TOPICS = 16;
  private static final int METHODID_SUBSCRIBE_TOPIC = 17;

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
        case METHODID_CREATE_POOL:
          serviceImpl.createPool((dev.engram.v1.CreatePoolRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Pool>) responseObserver);
          break;
        case METHODID_GET_POOL:
          serviceImpl.getPool((dev.engram.v1.GetPoolRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Pool>) responseObserver);
          break;
        case METHODID_LIST_POOLS:
          serviceImpl.listPools((dev.engram.v1.ListPoolsRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.ListPoolsResponse>) responseObserver);
          break;
        case METHODID_UPDATE_POOL:
          serviceImpl.updatePool((dev.engram.v1.UpdatePoolRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Pool>) responseObserver);
          break;
        case METHODID_DELETE_POOL:
          serviceImpl.deletePool((dev.engram.v1.DeletePoolRequest) request,
              (io.grpc.stub.StreamObserver<com.google.protobuf.Empty>) responseObserver);
          break;
        case METHODID_ADD_POOL_MEMBER:
          serviceImpl.addPoolMember((dev.engram.v1.AddPoolMemberRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.PoolMember>) responseObserver);
          break;
        case METHODID_REMOVE_POOL_MEMBER:
          serviceImpl.removePoolMember((dev.engram.v1.RemovePoolMemberRequest) request,
              (io.grpc.stub.StreamObserver<com.google.protobuf.Empty>) responseObserver);
          break;
        case METHODID_LIST_POOL_MEMBERS:
          serviceImpl.listPoolMembers((dev.engram.v1.ListPoolMembersRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.ListPoolMembersResponse>) responseObserver);
          break;
        case METHODID_PUBLISH_MEMORY:
          serviceImpl.publishMemory((dev.engram.v1.PublishMemoryRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.PublishMemoryResponse>) responseObserver);
          break;
        case METHODID_UNPUBLISH_MEMORY:
          serviceImpl.unpublishMemory((dev.engram.v1.UnpublishMemoryRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Publication>) responseObserver);
          break;
        case METHODID_REVIEW_PUBLICATION:
          serviceImpl.reviewPublication((dev.engram.v1.ReviewPublicationRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Publication>) responseObserver);
          break;
        case METHODID_GET_PUBLICATION:
          serviceImpl.getPublication((dev.engram.v1.GetPublicationRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Publication>) responseObserver);
          break;
        case METHODID_LIST_PUBLICATIONS:
          serviceImpl.listPublications((dev.engram.v1.ListPublicationsRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.ListPublicationsResponse>) responseObserver);
          break;
        case METHODID_GET_AGENT_TRUST:
          serviceImpl.getAgentTrust((dev.engram.v1.GetAgentTrustRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.AgentTrust>) responseObserver);
          break;
        case METHODID_LIST_AGENT_TRUSTS:
          serviceImpl.listAgentTrusts((dev.engram.v1.ListAgentTrustsRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.ListAgentTrustsResponse>) responseObserver);
          break;
        case METHODID_SYNC_POOL:
          serviceImpl.syncPool((dev.engram.v1.SyncPoolRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.SyncPoolResponse>) responseObserver);
          break;
        case METHODID_LIST_TOPICS:
          serviceImpl.listTopics((dev.engram.v1.ListTopicsRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.ListTopicsResponse>) responseObserver);
          break;
        case METHODID_SUBSCRIBE_TOPIC:
          serviceImpl.subscribeTopic((dev.engram.v1.SubscribeTopicRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.SubscribeTopicResponse>) responseObserver);
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
          getCreatePoolMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.CreatePoolRequest,
              dev.engram.v1.Pool>(
                service, METHODID_CREATE_POOL)))
        .addMethod(
          getGetPoolMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.GetPoolRequest,
              dev.engram.v1.Pool>(
                service, METHODID_GET_POOL)))
        .addMethod(
          getListPoolsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.ListPoolsRequest,
              dev.engram.v1.ListPoolsResponse>(
                service, METHODID_LIST_POOLS)))
        .addMethod(
          getUpdatePoolMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.UpdatePoolRequest,
              dev.engram.v1.Pool>(
                service, METHODID_UPDATE_POOL)))
        .addMethod(
          getDeletePoolMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.DeletePoolRequest,
              com.google.protobuf.Empty>(
                service, METHODID_DELETE_POOL)))
        .addMethod(
          getAddPoolMemberMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.AddPoolMemberRequest,
              dev.engram.v1.PoolMember>(
                service, METHODID_ADD_POOL_MEMBER)))
        .addMethod(
          getRemovePoolMemberMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.RemovePoolMemberRequest,
              com.google.protobuf.Empty>(
                service, METHODID_REMOVE_POOL_MEMBER)))
        .addMethod(
          getListPoolMembersMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.ListPoolMembersRequest,
              dev.engram.v1.ListPoolMembersResponse>(
                service, METHODID_LIST_POOL_MEMBERS)))
        .addMethod(
          getPublishMemoryMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.PublishMemoryRequest,
              dev.engram.v1.PublishMemoryResponse>(
                service, METHODID_PUBLISH_MEMORY)))
        .addMethod(
          getUnpublishMemoryMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.UnpublishMemoryRequest,
              dev.engram.v1.Publication>(
                service, METHODID_UNPUBLISH_MEMORY)))
        .addMethod(
          getReviewPublicationMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.ReviewPublicationRequest,
              dev.engram.v1.Publication>(
                service, METHODID_REVIEW_PUBLICATION)))
        .addMethod(
          getGetPublicationMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.GetPublicationRequest,
              dev.engram.v1.Publication>(
                service, METHODID_GET_PUBLICATION)))
        .addMethod(
          getListPublicationsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.ListPublicationsRequest,
              dev.engram.v1.ListPublicationsResponse>(
                service, METHODID_LIST_PUBLICATIONS)))
        .addMethod(
          getGetAgentTrustMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.GetAgentTrustRequest,
              dev.engram.v1.AgentTrust>(
                service, METHODID_GET_AGENT_TRUST)))
        .addMethod(
          getListAgentTrustsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.ListAgentTrustsRequest,
              dev.engram.v1.ListAgentTrustsResponse>(
                service, METHODID_LIST_AGENT_TRUSTS)))
        .addMethod(
          getSyncPoolMethod(),
          io.grpc.stub.ServerCalls.asyncServerStreamingCall(
            new MethodHandlers<
              dev.engram.v1.SyncPoolRequest,
              dev.engram.v1.SyncPoolResponse>(
                service, METHODID_SYNC_POOL)))
        .addMethod(
          getListTopicsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.ListTopicsRequest,
              dev.engram.v1.ListTopicsResponse>(
                service, METHODID_LIST_TOPICS)))
        .addMethod(
          getSubscribeTopicMethod(),
          io.grpc.stub.ServerCalls.asyncServerStreamingCall(
            new MethodHandlers<
              dev.engram.v1.SubscribeTopicRequest,
              dev.engram.v1.SubscribeTopicResponse>(
                service, METHODID_SUBSCRIBE_TOPIC)))
        .build();
  }

  private static abstract class PoolServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    PoolServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.engram.v1.PoolProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("PoolService");
    }
  }

  private static final class PoolServiceFileDescriptorSupplier
      extends PoolServiceBaseDescriptorSupplier {
    PoolServiceFileDescriptorSupplier() {}
  }

  private static final class PoolServiceMethodDescriptorSupplier
      extends PoolServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    PoolServiceMethodDescriptorSupplier(java.lang.String methodName) {
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
      synchronized (PoolServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new PoolServiceFileDescriptorSupplier())
              .addMethod(getCreatePoolMethod())
              .addMethod(getGetPoolMethod())
              .addMethod(getListPoolsMethod())
              .addMethod(getUpdatePoolMethod())
              .addMethod(getDeletePoolMethod())
              .addMethod(getAddPoolMemberMethod())
              .addMethod(getRemovePoolMemberMethod())
              .addMethod(getListPoolMembersMethod())
              .addMethod(getPublishMemoryMethod())
              .addMethod(getUnpublishMemoryMethod())
              .addMethod(getReviewPublicationMethod())
              .addMethod(getGetPublicationMethod())
              .addMethod(getListPublicationsMethod())
              .addMethod(getGetAgentTrustMethod())
              .addMethod(getListAgentTrustsMethod())
              .addMethod(getSyncPoolMethod())
              .addMethod(getListTopicsMethod())
              .addMethod(getSubscribeTopicMethod())
              .build();
        }
      }
    }
    return result;
  }
}
