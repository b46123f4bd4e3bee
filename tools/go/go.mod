// Pinned code generators for scripts/gen-protos (installed into tools/bin).
module engram.dev/engram/tools/go

go 1.24.0

tool (
	google.golang.org/grpc/cmd/protoc-gen-go-grpc
	google.golang.org/protobuf/cmd/protoc-gen-go
)

require (
	google.golang.org/grpc/cmd/protoc-gen-go-grpc v1.6.1 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
