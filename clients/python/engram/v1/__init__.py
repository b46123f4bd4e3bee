"""Generated protobuf and gRPC stubs for the engram.v1 API (scripts/gen-protos)."""
