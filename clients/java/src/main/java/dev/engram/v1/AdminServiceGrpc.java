package dev.engram.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * AdminService manages tenants, API keys and usage.
 * Two kinds of administrator call it. A platform administrator (scope `platform`)
 * creates, lists and deletes tenants and manages any tenant's keys. A tenant
 * administrator (scope `admin`) manages only its own tenant's keys and reads its
 * own usage. Neither scope reads memories: that needs the `read` scope as well.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class AdminServiceGrpc {

  private AdminServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "engram.v1.AdminService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.CreateTenantRequest,
      dev.engram.v1.Tenant> getCreateTenantMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreateTenant",
      requestType = dev.engram.v1.CreateTenantRequest.class,
      responseType = dev.engram.v1.Tenant.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.CreateTenantRequest,
      dev.engram.v1.Tenant> getCreateTenantMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.CreateTenantRequest, dev.engram.v1.Tenant> getCreateTenantMethod;
    if ((getCreateTenantMethod = AdminServiceGrpc.getCreateTenantMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getCreateTenantMethod = AdminServiceGrpc.getCreateTenantMethod) == null) {
          AdminServiceGrpc.getCreateTenantMethod = getCreateTenantMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.CreateTenantRequest, dev.engram.v1.Tenant>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreateTenant"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.CreateTenantRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Tenant.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("CreateTenant"))
              .build();
        }
      }
    }
    return getCreateTenantMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.GetTenantRequest,
      dev.engram.v1.Tenant> getGetTenantMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetTenant",
      requestType = dev.engram.v1.GetTenantRequest.class,
      responseType = dev.engram.v1.Tenant.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.GetTenantRequest,
      dev.engram.v1.Tenant> getGetTenantMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.GetTenantRequest, dev.engram.v1.Tenant> getGetTenantMethod;
    if ((getGetTenantMethod = AdminServiceGrpc.getGetTenantMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getGetTenantMethod = AdminServiceGrpc.getGetTenantMethod) == null) {
          AdminServiceGrpc.getGetTenantMethod = getGetTenantMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.GetTenantRequest, dev.engram.v1.Tenant>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetTenant"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.GetTenantRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Tenant.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("GetTenant"))
              .build();
        }
      }
    }
    return getGetTenantMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.UpdateTenantRequest,
      dev.engram.v1.Tenant> getUpdateTenantMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "UpdateTenant",
      requestType = dev.engram.v1.UpdateTenantRequest.class,
      responseType = dev.engram.v1.Tenant.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.UpdateTenantRequest,
      dev.engram.v1.Tenant> getUpdateTenantMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.UpdateTenantRequest, dev.engram.v1.Tenant> getUpdateTenantMethod;
    if ((getUpdateTenantMethod = AdminServiceGrpc.getUpdateTenantMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getUpdateTenantMethod = AdminServiceGrpc.getUpdateTenantMethod) == null) {
          AdminServiceGrpc.getUpdateTenantMethod = getUpdateTenantMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.UpdateTenantRequest, dev.engram.v1.Tenant>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "UpdateTenant"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.UpdateTenantRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Tenant.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("UpdateTenant"))
              .build();
        }
      }
    }
    return getUpdateTenantMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.ListTenantsRequest,
      dev.engram.v1.ListTenantsResponse> getListTenantsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListTenants",
      requestType = dev.engram.v1.ListTenantsRequest.class,
      responseType = dev.engram.v1.ListTenantsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.ListTenantsRequest,
      dev.engram.v1.ListTenantsResponse> getListTenantsMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.ListTenantsRequest, dev.engram.v1.ListTenantsResponse> getListTenantsMethod;
    if ((getListTenantsMethod = AdminServiceGrpc.getListTenantsMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getListTenantsMethod = AdminServiceGrpc.getListTenantsMethod) == null) {
          AdminServiceGrpc.getListTenantsMethod = getListTenantsMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.ListTenantsRequest, dev.engram.v1.ListTenantsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListTenants"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListTenantsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListTenantsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("ListTenants"))
              .build();
        }
      }
    }
    return getListTenantsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.DeleteTenantRequest,
      dev.engram.v1.DeleteTenantResponse> getDeleteTenantMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DeleteTenant",
      requestType = dev.engram.v1.DeleteTenantRequest.class,
      responseType = dev.engram.v1.DeleteTenantResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.DeleteTenantRequest,
      dev.engram.v1.DeleteTenantResponse> getDeleteTenantMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.DeleteTenantRequest, dev.engram.v1.DeleteTenantResponse> getDeleteTenantMethod;
    if ((getDeleteTenantMethod = AdminServiceGrpc.getDeleteTenantMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getDeleteTenantMethod = AdminServiceGrpc.getDeleteTenantMethod) == null) {
          AdminServiceGrpc.getDeleteTenantMethod = getDeleteTenantMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.DeleteTenantRequest, dev.engram.v1.DeleteTenantResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DeleteTenant"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.DeleteTenantRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.DeleteTenantResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("DeleteTenant"))
              .build();
        }
      }
    }
    return getDeleteTenantMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.CreateApiKeyRequest,
      dev.engram.v1.CreateApiKeyResponse> getCreateApiKeyMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreateApiKey",
      requestType = dev.engram.v1.CreateApiKeyRequest.class,
      responseType = dev.engram.v1.CreateApiKeyResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.CreateApiKeyRequest,
      dev.engram.v1.CreateApiKeyResponse> getCreateApiKeyMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.CreateApiKeyRequest, dev.engram.v1.CreateApiKeyResponse> getCreateApiKeyMethod;
    if ((getCreateApiKeyMethod = AdminServiceGrpc.getCreateApiKeyMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getCreateApiKeyMethod = AdminServiceGrpc.getCreateApiKeyMethod) == null) {
          AdminServiceGrpc.getCreateApiKeyMethod = getCreateApiKeyMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.CreateApiKeyRequest, dev.engram.v1.CreateApiKeyResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreateApiKey"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.CreateApiKeyRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.CreateApiKeyResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("CreateApiKey"))
              .build();
        }
      }
    }
    return getCreateApiKeyMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.ListApiKeysRequest,
      dev.engram.v1.ListApiKeysResponse> getListApiKeysMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListApiKeys",
      requestType = dev.engram.v1.ListApiKeysRequest.class,
      responseType = dev.engram.v1.ListApiKeysResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.ListApiKeysRequest,
      dev.engram.v1.ListApiKeysResponse> getListApiKeysMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.ListApiKeysRequest, dev.engram.v1.ListApiKeysResponse> getListApiKeysMethod;
    if ((getListApiKeysMethod = AdminServiceGrpc.getListApiKeysMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getListApiKeysMethod = AdminServiceGrpc.getListApiKeysMethod) == null) {
          AdminServiceGrpc.getListApiKeysMethod = getListApiKeysMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.ListApiKeysRequest, dev.engram.v1.ListApiKeysResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListApiKeys"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListApiKeysRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListApiKeysResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("ListApiKeys"))
              .build();
        }
      }
    }
    return getListApiKeysMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.RevokeApiKeyRequest,
      dev.engram.v1.ApiKey> getRevokeApiKeyMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RevokeApiKey",
      requestType = dev.engram.v1.RevokeApiKeyRequest.class,
      responseType = dev.engram.v1.ApiKey.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.RevokeApiKeyRequest,
      dev.engram.v1.ApiKey> getRevokeApiKeyMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.RevokeApiKeyRequest, dev.engram.v1.ApiKey> getRevokeApiKeyMethod;
    if ((getRevokeApiKeyMethod = AdminServiceGrpc.getRevokeApiKeyMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getRevokeApiKeyMethod = AdminServiceGrpc.getRevokeApiKeyMethod) == null) {
          AdminServiceGrpc.getRevokeApiKeyMethod = getRevokeApiKeyMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.RevokeApiKeyRequest, dev.engram.v1.ApiKey>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RevokeApiKey"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.RevokeApiKeyRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ApiKey.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("RevokeApiKey"))
              .build();
        }
      }
    }
    return getRevokeApiKeyMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.GetUsageRequest,
      dev.engram.v1.Usage> getGetUsageMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetUsage",
      requestType = dev.engram.v1.GetUsageRequest.class,
      responseType = dev.engram.v1.Usage.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.GetUsageRequest,
      dev.engram.v1.Usage> getGetUsageMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.GetUsageRequest, dev.engram.v1.Usage> getGetUsageMethod;
    if ((getGetUsageMethod = AdminServiceGrpc.getGetUsageMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getGetUsageMethod = AdminServiceGrpc.getGetUsageMethod) == null) {
          AdminServiceGrpc.getGetUsageMethod = getGetUsageMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.GetUsageRequest, dev.engram.v1.Usage>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetUsage"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.GetUsageRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Usage.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("GetUsage"))
              .build();
        }
      }
    }
    return getGetUsageMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.DeleteApiKeyRequest,
      com.google.protobuf.Empty> getDeleteApiKeyMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DeleteApiKey",
      requestType = dev.engram.v1.DeleteApiKeyRequest.class,
      responseType = com.google.protobuf.Empty.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.DeleteApiKeyRequest,
      com.google.protobuf.Empty> getDeleteApiKeyMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.DeleteApiKeyRequest, com.google.protobuf.Empty> getDeleteApiKeyMethod;
    if ((getDeleteApiKeyMethod = AdminServiceGrpc.getDeleteApiKeyMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getDeleteApiKeyMethod = AdminServiceGrpc.getDeleteApiKeyMethod) == null) {
          AdminServiceGrpc.getDeleteApiKeyMethod = getDeleteApiKeyMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.DeleteApiKeyRequest, com.google.protobuf.Empty>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DeleteApiKey"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.DeleteApiKeyRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  com.google.protobuf.Empty.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("DeleteApiKey"))
              .build();
        }
      }
    }
    return getDeleteApiKeyMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.CreateGroupRequest,
      dev.engram.v1.Group> getCreateGroupMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreateGroup",
      requestType = dev.engram.v1.CreateGroupRequest.class,
      responseType = dev.engram.v1.Group.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.CreateGroupRequest,
      dev.engram.v1.Group> getCreateGroupMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.CreateGroupRequest, dev.engram.v1.Group> getCreateGroupMethod;
    if ((getCreateGroupMethod = AdminServiceGrpc.getCreateGroupMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getCreateGroupMethod = AdminServiceGrpc.getCreateGroupMethod) == null) {
          AdminServiceGrpc.getCreateGroupMethod = getCreateGroupMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.CreateGroupRequest, dev.engram.v1.Group>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreateGroup"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.CreateGroupRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Group.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("CreateGroup"))
              .build();
        }
      }
    }
    return getCreateGroupMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.GetGroupRequest,
      dev.engram.v1.Group> getGetGroupMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetGroup",
      requestType = dev.engram.v1.GetGroupRequest.class,
      responseType = dev.engram.v1.Group.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.GetGroupRequest,
      dev.engram.v1.Group> getGetGroupMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.GetGroupRequest, dev.engram.v1.Group> getGetGroupMethod;
    if ((getGetGroupMethod = AdminServiceGrpc.getGetGroupMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getGetGroupMethod = AdminServiceGrpc.getGetGroupMethod) == null) {
          AdminServiceGrpc.getGetGroupMethod = getGetGroupMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.GetGroupRequest, dev.engram.v1.Group>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetGroup"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.GetGroupRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Group.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("GetGroup"))
              .build();
        }
      }
    }
    return getGetGroupMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.ListGroupsRequest,
      dev.engram.v1.ListGroupsResponse> getListGroupsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListGroups",
      requestType = dev.engram.v1.ListGroupsRequest.class,
      responseType = dev.engram.v1.ListGroupsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.ListGroupsRequest,
      dev.engram.v1.ListGroupsResponse> getListGroupsMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.ListGroupsRequest, dev.engram.v1.ListGroupsResponse> getListGroupsMethod;
    if ((getListGroupsMethod = AdminServiceGrpc.getListGroupsMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getListGroupsMethod = AdminServiceGrpc.getListGroupsMethod) == null) {
          AdminServiceGrpc.getListGroupsMethod = getListGroupsMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.ListGroupsRequest, dev.engram.v1.ListGroupsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListGroups"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListGroupsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.ListGroupsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("ListGroups"))
              .build();
        }
      }
    }
    return getListGroupsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.AddGroupMemberRequest,
      dev.engram.v1.Group> getAddGroupMemberMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "AddGroupMember",
      requestType = dev.engram.v1.AddGroupMemberRequest.class,
      responseType = dev.engram.v1.Group.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.AddGroupMemberRequest,
      dev.engram.v1.Group> getAddGroupMemberMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.AddGroupMemberRequest, dev.engram.v1.Group> getAddGroupMemberMethod;
    if ((getAddGroupMemberMethod = AdminServiceGrpc.getAddGroupMemberMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getAddGroupMemberMethod = AdminServiceGrpc.getAddGroupMemberMethod) == null) {
          AdminServiceGrpc.getAddGroupMemberMethod = getAddGroupMemberMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.AddGroupMemberRequest, dev.engram.v1.Group>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "AddGroupMember"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.AddGroupMemberRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Group.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("AddGroupMember"))
              .build();
        }
      }
    }
    return getAddGroupMemberMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.RemoveGroupMemberRequest,
      dev.engram.v1.Group> getRemoveGroupMemberMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RemoveGroupMember",
      requestType = dev.engram.v1.RemoveGroupMemberRequest.class,
      responseType = dev.engram.v1.Group.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.RemoveGroupMemberRequest,
      dev.engram.v1.Group> getRemoveGroupMemberMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.RemoveGroupMemberRequest, dev.engram.v1.Group> getRemoveGroupMemberMethod;
    if ((getRemoveGroupMemberMethod = AdminServiceGrpc.getRemoveGroupMemberMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getRemoveGroupMemberMethod = AdminServiceGrpc.getRemoveGroupMemberMethod) == null) {
          AdminServiceGrpc.getRemoveGroupMemberMethod = getRemoveGroupMemberMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.RemoveGroupMemberRequest, dev.engram.v1.Group>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RemoveGroupMember"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.RemoveGroupMemberRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.Group.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("RemoveGroupMember"))
              .build();
        }
      }
    }
    return getRemoveGroupMemberMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.engram.v1.DeleteGroupRequest,
      com.google.protobuf.Empty> getDeleteGroupMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DeleteGroup",
      requestType = dev.engram.v1.DeleteGroupRequest.class,
      responseType = com.google.protobuf.Empty.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.engram.v1.DeleteGroupRequest,
      com.google.protobuf.Empty> getDeleteGroupMethod() {
    io.grpc.MethodDescriptor<dev.engram.v1.DeleteGroupRequest, com.google.protobuf.Empty> getDeleteGroupMethod;
    if ((getDeleteGroupMethod = AdminServiceGrpc.getDeleteGroupMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getDeleteGroupMethod = AdminServiceGrpc.getDeleteGroupMethod) == null) {
          AdminServiceGrpc.getDeleteGroupMethod = getDeleteGroupMethod =
              io.grpc.MethodDescriptor.<dev.engram.v1.DeleteGroupRequest, com.google.protobuf.Empty>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DeleteGroup"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.engram.v1.DeleteGroupRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  com.google.protobuf.Empty.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("DeleteGroup"))
              .build();
        }
      }
    }
    return getDeleteGroupMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static AdminServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AdminServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AdminServiceStub>() {
        @java.lang.Override
        public AdminServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AdminServiceStub(channel, callOptions);
        }
      };
    return AdminServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static AdminServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AdminServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AdminServiceBlockingV2Stub>() {
        @java.lang.Override
        public AdminServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AdminServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return AdminServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static AdminServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AdminServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AdminServiceBlockingStub>() {
        @java.lang.Override
        public AdminServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AdminServiceBlockingStub(channel, callOptions);
        }
      };
    return AdminServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static AdminServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AdminServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AdminServiceFutureStub>() {
        @java.lang.Override
        public AdminServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AdminServiceFutureStub(channel, callOptions);
        }
      };
    return AdminServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * AdminService manages tenants, API keys and usage.
   * Two kinds of administrator call it. A platform administrator (scope `platform`)
   * creates, lists and deletes tenants and manages any tenant's keys. A tenant
   * administrator (scope `admin`) manages only its own tenant's keys and reads its
   * own usage. Neither scope reads memories: that needs the `read` scope as well.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * Creates a tenant. Platform administrators only.
     * </pre>
     */
    default void createTenant(dev.engram.v1.CreateTenantRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Tenant> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreateTenantMethod(), responseObserver);
    }

    /**
     * <pre>
     * Gets a tenant. A tenant administrator may get only its own tenant.
     * </pre>
     */
    default void getTenant(dev.engram.v1.GetTenantRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Tenant> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetTenantMethod(), responseObserver);
    }

    /**
     * <pre>
     * Updates the fields of a tenant named in `update_mask` (AIP-134). A platform
     * administrator may update any tenant (`display_name`, `quota`, `llm`); a tenant
     * administrator may update only its own tenant's `llm` settings.
     * </pre>
     */
    default void updateTenant(dev.engram.v1.UpdateTenantRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Tenant> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getUpdateTenantMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists tenants. Platform administrators only.
     * </pre>
     */
    default void listTenants(dev.engram.v1.ListTenantsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListTenantsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListTenantsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Deletes a tenant and purges every row, key and cache entry it owns, including
     * its audit log. Platform administrators only.
     * </pre>
     */
    default void deleteTenant(dev.engram.v1.DeleteTenantRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.DeleteTenantResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDeleteTenantMethod(), responseObserver);
    }

    /**
     * <pre>
     * Mints an API key. The secret is returned once and stored only as a hash.
     * </pre>
     */
    default void createApiKey(dev.engram.v1.CreateApiKeyRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.CreateApiKeyResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreateApiKeyMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists a tenant's API keys (never their secrets).
     * </pre>
     */
    default void listApiKeys(dev.engram.v1.ListApiKeysRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListApiKeysResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListApiKeysMethod(), responseObserver);
    }

    /**
     * <pre>
     * Revokes an API key; it is refused from then on.
     * </pre>
     */
    default void revokeApiKey(dev.engram.v1.RevokeApiKeyRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ApiKey> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRevokeApiKeyMethod(), responseObserver);
    }

    /**
     * <pre>
     * Reports a tenant's usage: memories by status, keys, audit entries, tokens.
     * </pre>
     */
    default void getUsage(dev.engram.v1.GetUsageRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Usage> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetUsageMethod(), responseObserver);
    }

    /**
     * <pre>
     * Deletes an API key record entirely (after revocation it only clutters lists).
     * </pre>
     */
    default void deleteApiKey(dev.engram.v1.DeleteApiKeyRequest request,
        io.grpc.stub.StreamObserver<com.google.protobuf.Empty> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDeleteApiKeyMethod(), responseObserver);
    }

    /**
     * <pre>
     * Creates a group of agent identities in the caller's tenant: a team that joins
     * or leaves a pool in one call (PoolMember.principal `groups/{group}`). Tenant
     * administrators only.
     * </pre>
     */
    default void createGroup(dev.engram.v1.CreateGroupRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Group> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreateGroupMethod(), responseObserver);
    }

    /**
     * <pre>
     * Gets a group with its members. Tenant administrators only.
     * </pre>
     */
    default void getGroup(dev.engram.v1.GetGroupRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Group> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetGroupMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists the tenant's groups, by name. Tenant administrators only.
     * </pre>
     */
    default void listGroups(dev.engram.v1.ListGroupsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListGroupsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListGroupsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Adds a principal to a group; its pool roles through the group apply at once.
     * Adding a member twice is a no-op. Tenant administrators only.
     * </pre>
     */
    default void addGroupMember(dev.engram.v1.AddGroupMemberRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Group> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getAddGroupMemberMethod(), responseObserver);
    }

    /**
     * <pre>
     * Removes a principal from a group; its reads through the group's pool
     * memberships stop at once. Tenant administrators only.
     * </pre>
     */
    default void removeGroupMember(dev.engram.v1.RemoveGroupMemberRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Group> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRemoveGroupMemberMethod(), responseObserver);
    }

    /**
     * <pre>
     * Deletes a group and its pool memberships. Tenant administrators only.
     * </pre>
     */
    default void deleteGroup(dev.engram.v1.DeleteGroupRequest request,
        io.grpc.stub.StreamObserver<com.google.protobuf.Empty> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDeleteGroupMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service AdminService.
   * <pre>
   * AdminService manages tenants, API keys and usage.
   * Two kinds of administrator call it. A platform administrator (scope `platform`)
   * creates, lists and deletes tenants and manages any tenant's keys. A tenant
   * administrator (scope `admin`) manages only its own tenant's keys and reads its
   * own usage. Neither scope reads memories: that needs the `read` scope as well.
   * </pre>
   */
  public static abstract class AdminServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return AdminServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service AdminService.
   * <pre>
   * AdminService manages tenants, API keys and usage.
   * Two kinds of administrator call it. A platform administrator (scope `platform`)
   * creates, lists and deletes tenants and manages any tenant's keys. A tenant
   * administrator (scope `admin`) manages only its own tenant's keys and reads its
   * own usage. Neither scope reads memories: that needs the `read` scope as well.
   * </pre>
   */
  public static final class AdminServiceStub
      extends io.grpc.stub.AbstractAsyncStub<AdminServiceStub> {
    private AdminServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AdminServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AdminServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Creates a tenant. Platform administrators only.
     * </pre>
     */
    public void createTenant(dev.engram.v1.CreateTenantRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Tenant> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreateTenantMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Gets a tenant. A tenant administrator may get only its own tenant.
     * </pre>
     */
    public void getTenant(dev.engram.v1.GetTenantRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Tenant> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetTenantMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Updates the fields of a tenant named in `update_mask` (AIP-134). A platform
     * administrator may update any tenant (`display_name`, `quota`, `llm`); a tenant
     * administrator may update only its own tenant's `llm` settings.
     * </pre>
     */
    public void updateTenant(dev.engram.v1.UpdateTenantRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Tenant> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getUpdateTenantMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists tenants. Platform administrators only.
     * </pre>
     */
    public void listTenants(dev.engram.v1.ListTenantsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListTenantsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListTenantsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Deletes a tenant and purges every row, key and cache entry it owns, including
     * its audit log. Platform administrators only.
     * </pre>
     */
    public void deleteTenant(dev.engram.v1.DeleteTenantRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.DeleteTenantResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDeleteTenantMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Mints an API key. The secret is returned once and stored only as a hash.
     * </pre>
     */
    public void createApiKey(dev.engram.v1.CreateApiKeyRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.CreateApiKeyResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreateApiKeyMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists a tenant's API keys (never their secrets).
     * </pre>
     */
    public void listApiKeys(dev.engram.v1.ListApiKeysRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListApiKeysResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListApiKeysMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Revokes an API key; it is refused from then on.
     * </pre>
     */
    public void revokeApiKey(dev.engram.v1.RevokeApiKeyRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ApiKey> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRevokeApiKeyMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Reports a tenant's usage: memories by status, keys, audit entries, tokens.
     * </pre>
     */
    public void getUsage(dev.engram.v1.GetUsageRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Usage> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetUsageMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Deletes an API key record entirely (after revocation it only clutters lists).
     * </pre>
     */
    public void deleteApiKey(dev.engram.v1.DeleteApiKeyRequest request,
        io.grpc.stub.StreamObserver<com.google.protobuf.Empty> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDeleteApiKeyMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Creates a group of agent identities in the caller's tenant: a team that joins
     * or leaves a pool in one call (PoolMember.principal `groups/{group}`). Tenant
     * administrators only.
     * </pre>
     */
    public void createGroup(dev.engram.v1.CreateGroupRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Group> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreateGroupMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Gets a group with its members. Tenant administrators only.
     * </pre>
     */
    public void getGroup(dev.engram.v1.GetGroupRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Group> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetGroupMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists the tenant's groups, by name. Tenant administrators only.
     * </pre>
     */
    public void listGroups(dev.engram.v1.ListGroupsRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.ListGroupsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListGroupsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Adds a principal to a group; its pool roles through the group apply at once.
     * Adding a member twice is a no-op. Tenant administrators only.
     * </pre>
     */
    public void addGroupMember(dev.engram.v1.AddGroupMemberRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Group> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getAddGroupMemberMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Removes a principal from a group; its reads through the group's pool
     * memberships stop at once. Tenant administrators only.
     * </pre>
     */
    public void removeGroupMember(dev.engram.v1.RemoveGroupMemberRequest request,
        io.grpc.stub.StreamObserver<dev.engram.v1.Group> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRemoveGroupMemberMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Deletes a group and its pool memberships. Tenant administrators only.
     * </pre>
     */
    public void deleteGroup(dev.engram.v1.DeleteGroupRequest request,
        io.grpc.stub.StreamObserver<com.google.protobuf.Empty> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDeleteGroupMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service AdminService.
   * <pre>
   * AdminService manages tenants, API keys and usage.
   * Two kinds of administrator call it. A platform administrator (scope `platform`)
   * creates, lists and deletes tenants and manages any tenant's keys. A tenant
   * administrator (scope `admin`) manages only its own tenant's keys and reads its
   * own usage. Neither scope reads memories: that needs the `read` scope as well.
   * </pre>
   */
  public static final class AdminServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<AdminServiceBlockingV2Stub> {
    private AdminServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AdminServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AdminServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * Creates a tenant. Platform administrators only.
     * </pre>
     */
    public dev.engram.v1.Tenant createTenant(dev.engram.v1.CreateTenantRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCreateTenantMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Gets a tenant. A tenant administrator may get only its own tenant.
     * </pre>
     */
    public dev.engram.v1.Tenant getTenant(dev.engram.v1.GetTenantRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetTenantMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Updates the fields of a tenant named in `update_mask` (AIP-134). A platform
     * administrator may update any tenant (`display_name`, `quota`, `llm`); a tenant
     * administrator may update only its own tenant's `llm` settings.
     * </pre>
     */
    public dev.engram.v1.Tenant updateTenant(dev.engram.v1.UpdateTenantRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getUpdateTenantMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists tenants. Platform administrators only.
     * </pre>
     */
    public dev.engram.v1.ListTenantsResponse listTenants(dev.engram.v1.ListTenantsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListTenantsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Deletes a tenant and purges every row, key and cache entry it owns, including
     * its audit log. Platform administrators only.
     * </pre>
     */
    public dev.engram.v1.DeleteTenantResponse deleteTenant(dev.engram.v1.DeleteTenantRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getDeleteTenantMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Mints an API key. The secret is returned once and stored only as a hash.
     * </pre>
     */
    public dev.engram.v1.CreateApiKeyResponse createApiKey(dev.engram.v1.CreateApiKeyRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCreateApiKeyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists a tenant's API keys (never their secrets).
     * </pre>
     */
    public dev.engram.v1.ListApiKeysResponse listApiKeys(dev.engram.v1.ListApiKeysRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListApiKeysMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Revokes an API key; it is refused from then on.
     * </pre>
     */
    public dev.engram.v1.ApiKey revokeApiKey(dev.engram.v1.RevokeApiKeyRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRevokeApiKeyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Reports a tenant's usage: memories by status, keys, audit entries, tokens.
     * </pre>
     */
    public dev.engram.v1.Usage getUsage(dev.engram.v1.GetUsageRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetUsageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Deletes an API key record entirely (after revocation it only clutters lists).
     * </pre>
     */
    public com.google.protobuf.Empty deleteApiKey(dev.engram.v1.DeleteApiKeyRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getDeleteApiKeyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Creates a group of agent identities in the caller's tenant: a team that joins
     * or leaves a pool in one call (PoolMember.principal `groups/{group}`). Tenant
     * administrators only.
     * </pre>
     */
    public dev.engram.v1.Group createGroup(dev.engram.v1.CreateGroupRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCreateGroupMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Gets a group with its members. Tenant administrators only.
     * </pre>
     */
    public dev.engram.v1.Group getGroup(dev.engram.v1.GetGroupRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetGroupMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists the tenant's groups, by name. Tenant administrators only.
     * </pre>
     */
    public dev.engram.v1.ListGroupsResponse listGroups(dev.engram.v1.ListGroupsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListGroupsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Adds a principal to a group; its pool roles through the group apply at once.
     * Adding a member twice is a no-op. Tenant administrators only.
     * </pre>
     */
    public dev.engram.v1.Group addGroupMember(dev.engram.v1.AddGroupMemberRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getAddGroupMemberMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Removes a principal from a group; its reads through the group's pool
     * memberships stop at once. Tenant administrators only.
     * </pre>
     */
    public dev.engram.v1.Group removeGroupMember(dev.engram.v1.RemoveGroupMemberRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRemoveGroupMemberMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Deletes a group and its pool memberships. Tenant administrators only.
     * </pre>
     */
    public com.google.protobuf.Empty deleteGroup(dev.engram.v1.DeleteGroupRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getDeleteGroupMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service AdminService.
   * <pre>
   * AdminService manages tenants, API keys and usage.
   * Two kinds of administrator call it. A platform administrator (scope `platform`)
   * creates, lists and deletes tenants and manages any tenant's keys. A tenant
   * administrator (scope `admin`) manages only its own tenant's keys and reads its
   * own usage. Neither scope reads memories: that needs the `read` scope as well.
   * </pre>
   */
  public static final class AdminServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<AdminServiceBlockingStub> {
    private AdminServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AdminServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AdminServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Creates a tenant. Platform administrators only.
     * </pre>
     */
    public dev.engram.v1.Tenant createTenant(dev.engram.v1.CreateTenantRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreateTenantMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Gets a tenant. A tenant administrator may get only its own tenant.
     * </pre>
     */
    public dev.engram.v1.Tenant getTenant(dev.engram.v1.GetTenantRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetTenantMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Updates the fields of a tenant named in `update_mask` (AIP-134). A platform
     * administrator may update any tenant (`display_name`, `quota`, `llm`); a tenant
     * administrator may update only its own tenant's `llm` settings.
     * </pre>
     */
    public dev.engram.v1.Tenant updateTenant(dev.engram.v1.UpdateTenantRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getUpdateTenantMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists tenants. Platform administrators only.
     * </pre>
     */
    public dev.engram.v1.ListTenantsResponse listTenants(dev.engram.v1.ListTenantsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListTenantsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Deletes a tenant and purges every row, key and cache entry it owns, including
     * its audit log. Platform administrators only.
     * </pre>
     */
    public dev.engram.v1.DeleteTenantResponse deleteTenant(dev.engram.v1.DeleteTenantRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDeleteTenantMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Mints an API key. The secret is returned once and stored only as a hash.
     * </pre>
     */
    public dev.engram.v1.CreateApiKeyResponse createApiKey(dev.engram.v1.CreateApiKeyRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreateApiKeyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists a tenant's API keys (never their secrets).
     * </pre>
     */
    public dev.engram.v1.ListApiKeysResponse listApiKeys(dev.engram.v1.ListApiKeysRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListApiKeysMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Revokes an API key; it is refused from then on.
     * </pre>
     */
    public dev.engram.v1.ApiKey revokeApiKey(dev.engram.v1.RevokeApiKeyRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRevokeApiKeyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Reports a tenant's usage: memories by status, keys, audit entries, tokens.
     * </pre>
     */
    public dev.engram.v1.Usage getUsage(dev.engram.v1.GetUsageRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetUsageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Deletes an API key record entirely (after revocation it only clutters lists).
     * </pre>
     */
    public com.google.protobuf.Empty deleteApiKey(dev.engram.v1.DeleteApiKeyRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDeleteApiKeyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Creates a group of agent identities in the caller's tenant: a team that joins
     * or leaves a pool in one call (PoolMember.principal `groups/{group}`). Tenant
     * administrators only.
     * </pre>
     */
    public dev.engram.v1.Group createGroup(dev.engram.v1.CreateGroupRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreateGroupMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Gets a group with its members. Tenant administrators only.
     * </pre>
     */
    public dev.engram.v1.Group getGroup(dev.engram.v1.GetGroupRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetGroupMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists the tenant's groups, by name. Tenant administrators only.
     * </pre>
     */
    public dev.engram.v1.ListGroupsResponse listGroups(dev.engram.v1.ListGroupsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListGroupsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Adds a principal to a group; its pool roles through the group apply at once.
     * Adding a member twice is a no-op. Tenant administrators only.
     * </pre>
     */
    public dev.engram.v1.Group addGroupMember(dev.engram.v1.AddGroupMemberRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getAddGroupMemberMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Removes a principal from a group; its reads through the group's pool
     * memberships stop at once. Tenant administrators only.
     * </pre>
     */
    public dev.engram.v1.Group removeGroupMember(dev.engram.v1.RemoveGroupMemberRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRemoveGroupMemberMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Deletes a group and its pool memberships. Tenant administrators only.
     * </pre>
     */
    public com.google.protobuf.Empty deleteGroup(dev.engram.v1.DeleteGroupRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDeleteGroupMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service AdminService.
   * <pre>
   * AdminService manages tenants, API keys and usage.
   * Two kinds of administrator call it. A platform administrator (scope `platform`)
   * creates, lists and deletes tenants and manages any tenant's keys. A tenant
   * administrator (scope `admin`) manages only its own tenant's keys and reads its
   * own usage. Neither scope reads memories: that needs the `read` scope as well.
   * </pre>
   */
  public static final class AdminServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<AdminServiceFutureStub> {
    private AdminServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AdminServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AdminServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Creates a tenant. Platform administrators only.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Tenant> createTenant(
        dev.engram.v1.CreateTenantRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreateTenantMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Gets a tenant. A tenant administrator may get only its own tenant.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Tenant> getTenant(
        dev.engram.v1.GetTenantRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetTenantMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Updates the fields of a tenant named in `update_mask` (AIP-134). A platform
     * administrator may update any tenant (`display_name`, `quota`, `llm`); a tenant
     * administrator may update only its own tenant's `llm` settings.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Tenant> updateTenant(
        dev.engram.v1.UpdateTenantRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getUpdateTenantMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists tenants. Platform administrators only.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.ListTenantsResponse> listTenants(
        dev.engram.v1.ListTenantsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListTenantsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Deletes a tenant and purges every row, key and cache entry it owns, including
     * its audit log. Platform administrators only.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.DeleteTenantResponse> deleteTenant(
        dev.engram.v1.DeleteTenantRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDeleteTenantMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Mints an API key. The secret is returned once and stored only as a hash.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.CreateApiKeyResponse> createApiKey(
        dev.engram.v1.CreateApiKeyRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreateApiKeyMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists a tenant's API keys (never their secrets).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.ListApiKeysResponse> listApiKeys(
        dev.engram.v1.ListApiKeysRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListApiKeysMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Revokes an API key; it is refused from then on.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.ApiKey> revokeApiKey(
        dev.engram.v1.RevokeApiKeyRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRevokeApiKeyMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Reports a tenant's usage: memories by status, keys, audit entries, tokens.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Usage> getUsage(
        dev.engram.v1.GetUsageRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetUsageMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Deletes an API key record entirely (after revocation it only clutters lists).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<com.google.protobuf.Empty> deleteApiKey(
        dev.engram.v1.DeleteApiKeyRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDeleteApiKeyMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Creates a group of agent identities in the caller's tenant: a team that joins
     * or leaves a pool in one call (PoolMember.principal `groups/{group}`). Tenant
     * administrators only.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Group> createGroup(
        dev.engram.v1.CreateGroupRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreateGroupMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Gets a group with its members. Tenant administrators only.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Group> getGroup(
        dev.engram.v1.GetGroupRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetGroupMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists the tenant's groups, by name. Tenant administrators only.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.ListGroupsResponse> listGroups(
        dev.engram.v1.ListGroupsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListGroupsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Adds a principal to a group; its pool roles through the group apply at once.
     * Adding a member twice is a no-op. Tenant administrators only.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Group> addGroupMember(
        dev.engram.v1.AddGroupMemberRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getAddGroupMemberMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Removes a principal from a group; its reads through the group's pool
     * memberships stop at once. Tenant administrators only.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.engram.v1.Group> removeGroupMember(
        dev.engram.v1.RemoveGroupMemberRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRemoveGroupMemberMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Deletes a group and its pool memberships. Tenant administrators only.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<com.google.protobuf.Empty> deleteGroup(
        dev.engram.v1.DeleteGroupRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDeleteGroupMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_CREATE_TENANT = 0;
  private static final int METHODID_GET_TENANT = 1;
  private static final int METHODID_UPDATE_TENANT = 2;
  private static final int METHODID_LIST_TENANTS = 3;
  private static final int METHODID_DELETE_TENANT = 4;
  private static final int METHODID_CREATE_API_KEY = 5;
  private static final int METHODID_LIST_API_KEYS = 6;
  private static final int METHODID_REVOKE_API_KEY = 7;
  private static final int METHODID_GET_USAGE = 8;
  private static final int METHODID_DELETE_API_KEY = 9;
  private static final int METHODID_CREATE_GROUP = 10;
  private static final int METHODID_GET_GROUP = 11;
  private static final int METHODID_LIST_GROUPS = 12;
  private static final int METHODID_ADD_GROUP_MEMBER = 13;
  private static final int METHODID_REMOVE_GROUP_MEMBER = 14;
  private static final int METHODID_DELETE_GROUP = 15;

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
        case METHODID_CREATE_TENANT:
          serviceImpl.createTenant((dev.engram.v1.CreateTenantRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Tenant>) responseObserver);
          break;
        case METHODID_GET_TENANT:
          serviceImpl.getTenant((dev.engram.v1.GetTenantRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Tenant>) responseObserver);
          break;
        case METHODID_UPDATE_TENANT:
          serviceImpl.updateTenant((dev.engram.v1.UpdateTenantRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Tenant>) responseObserver);
          break;
        case METHODID_LIST_TENANTS:
          serviceImpl.listTenants((dev.engram.v1.ListTenantsRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.ListTenantsResponse>) responseObserver);
          break;
        case METHODID_DELETE_TENANT:
          serviceImpl.deleteTenant((dev.engram.v1.DeleteTenantRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.DeleteTenantResponse>) responseObserver);
          break;
        case METHODID_CREATE_API_KEY:
          serviceImpl.createApiKey((dev.engram.v1.CreateApiKeyRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.CreateApiKeyResponse>) responseObserver);
          break;
        case METHODID_LIST_API_KEYS:
          serviceImpl.listApiKeys((dev.engram.v1.ListApiKeysRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.ListApiKeysResponse>) responseObserver);
          break;
        case METHODID_REVOKE_API_KEY:
          serviceImpl.revokeApiKey((dev.engram.v1.RevokeApiKeyRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.ApiKey>) responseObserver);
          break;
        case METHODID_GET_USAGE:
          serviceImpl.getUsage((dev.engram.v1.GetUsageRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Usage>) responseObserver);
          break;
        case METHODID_DELETE_API_KEY:
          serviceImpl.deleteApiKey((dev.engram.v1.DeleteApiKeyRequest) request,
              (io.grpc.stub.StreamObserver<com.google.protobuf.Empty>) responseObserver);
          break;
        case METHODID_CREATE_GROUP:
          serviceImpl.createGroup((dev.engram.v1.CreateGroupRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Group>) responseObserver);
          break;
        case METHODID_GET_GROUP:
          serviceImpl.getGroup((dev.engram.v1.GetGroupRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Group>) responseObserver);
          break;
        case METHODID_LIST_GROUPS:
          serviceImpl.listGroups((dev.engram.v1.ListGroupsRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.ListGroupsResponse>) responseObserver);
          break;
        case METHODID_ADD_GROUP_MEMBER:
          serviceImpl.addGroupMember((dev.engram.v1.AddGroupMemberRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Group>) responseObserver);
          break;
        case METHODID_REMOVE_GROUP_MEMBER:
          serviceImpl.removeGroupMember((dev.engram.v1.RemoveGroupMemberRequest) request,
              (io.grpc.stub.StreamObserver<dev.engram.v1.Group>) responseObserver);
          break;
        case METHODID_DELETE_GROUP:
          serviceImpl.deleteGroup((dev.engram.v1.DeleteGroupRequest) request,
              (io.grpc.stub.StreamObserver<com.google.protobuf.Empty>) responseObserver);
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
          getCreateTenantMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.CreateTenantRequest,
              dev.engram.v1.Tenant>(
                service, METHODID_CREATE_TENANT)))
        .addMethod(
          getGetTenantMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.GetTenantRequest,
              dev.engram.v1.Tenant>(
                service, METHODID_GET_TENANT)))
        .addMethod(
          getUpdateTenantMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.UpdateTenantRequest,
              dev.engram.v1.Tenant>(
                service, METHODID_UPDATE_TENANT)))
        .addMethod(
          getListTenantsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.ListTenantsRequest,
              dev.engram.v1.ListTenantsResponse>(
                service, METHODID_LIST_TENANTS)))
        .addMethod(
          getDeleteTenantMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.DeleteTenantRequest,
              dev.engram.v1.DeleteTenantResponse>(
                service, METHODID_DELETE_TENANT)))
        .addMethod(
          getCreateApiKeyMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.CreateApiKeyRequest,
              dev.engram.v1.CreateApiKeyResponse>(
                service, METHODID_CREATE_API_KEY)))
        .addMethod(
          getListApiKeysMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.ListApiKeysRequest,
              dev.engram.v1.ListApiKeysResponse>(
                service, METHODID_LIST_API_KEYS)))
        .addMethod(
          getRevokeApiKeyMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.RevokeApiKeyRequest,
              dev.engram.v1.ApiKey>(
                service, METHODID_REVOKE_API_KEY)))
        .addMethod(
          getGetUsageMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.GetUsageRequest,
              dev.engram.v1.Usage>(
                service, METHODID_GET_USAGE)))
        .addMethod(
          getDeleteApiKeyMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.DeleteApiKeyRequest,
              com.google.protobuf.Empty>(
                service, METHODID_DELETE_API_KEY)))
        .addMethod(
          getCreateGroupMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.CreateGroupRequest,
              dev.engram.v1.Group>(
                service, METHODID_CREATE_GROUP)))
        .addMethod(
          getGetGroupMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.GetGroupRequest,
              dev.engram.v1.Group>(
                service, METHODID_GET_GROUP)))
        .addMethod(
          getListGroupsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.ListGroupsRequest,
              dev.engram.v1.ListGroupsResponse>(
                service, METHODID_LIST_GROUPS)))
        .addMethod(
          getAddGroupMemberMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.AddGroupMemberRequest,
              dev.engram.v1.Group>(
                service, METHODID_ADD_GROUP_MEMBER)))
        .addMethod(
          getRemoveGroupMemberMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.RemoveGroupMemberRequest,
              dev.engram.v1.Group>(
                service, METHODID_REMOVE_GROUP_MEMBER)))
        .addMethod(
          getDeleteGroupMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.engram.v1.DeleteGroupRequest,
              com.google.protobuf.Empty>(
                service, METHODID_DELETE_GROUP)))
        .build();
  }

  private static abstract class AdminServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    AdminServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.engram.v1.AdminProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("AdminService");
    }
  }

  private static final class AdminServiceFileDescriptorSupplier
      extends AdminServiceBaseDescriptorSupplier {
    AdminServiceFileDescriptorSupplier() {}
  }

  private static final class AdminServiceMethodDescriptorSupplier
      extends AdminServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    AdminServiceMethodDescriptorSupplier(java.lang.String methodName) {
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
      synchronized (AdminServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new AdminServiceFileDescriptorSupplier())
              .addMethod(getCreateTenantMethod())
              .addMethod(getGetTenantMethod())
              .addMethod(getUpdateTenantMethod())
              .addMethod(getListTenantsMethod())
              .addMethod(getDeleteTenantMethod())
              .addMethod(getCreateApiKeyMethod())
              .addMethod(getListApiKeysMethod())
              .addMethod(getRevokeApiKeyMethod())
              .addMethod(getGetUsageMethod())
              .addMethod(getDeleteApiKeyMethod())
              .addMethod(getCreateGroupMethod())
              .addMethod(getGetGroupMethod())
              .addMethod(getListGroupsMethod())
              .addMethod(getAddGroupMemberMethod())
              .addMethod(getRemoveGroupMemberMethod())
              .addMethod(getDeleteGroupMethod())
              .build();
        }
      }
    }
    return result;
  }
}
