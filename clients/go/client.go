// Package engram is the Go client of Engram, the long-term memory service for AI
// agents. It wraps the generated gRPC stubs (package engramv1 under gen/) with
// the conventions every Engram client shares:
//
//   - the API key sent as per-RPC credentials (`authorization: Bearer <key>`);
//   - a request id generated for every write that has a `request_id` field and is
//     sent without one, kept across retries so the server applies it once;
//   - UNAVAILABLE retried (unary calls) with exponential backoff and jitter;
//   - failures returned as *Error, with google.rpc.BadRequest field violations
//     and QuotaFailure violations decoded, and gRPC core's bare refusal of a
//     request far over the server's size limit explained;
//   - server streams as iterators (iter.Seq2).
package engram

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	mathrand "math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	engramv1 "github.com/engram-grpc/engram/clients/go/gen/engram/v1"
)

// AddressForms are the addresses every Engram client takes.
const AddressForms = "host:port, http://host:port (plaintext) or https://host:port (TLS)"

// grpcTargetSchemes are gRPC's own target syntax (`dns:///host:port`,
// `unix:///path`, ...), which passes through unchanged.
var grpcTargetSchemes = []string{"dns", "unix", "unix-abstract", "ipv4", "ipv6", "xds"}

// SplitAddress returns the gRPC target of an address and whether its scheme asks
// for TLS: `host:port` and `http://host:port` are plaintext, `https://host:port`
// is TLS (with the system's roots). gRPC's own target syntax (`dns:///host:port`,
// `unix:/path`, ...) passes through unchanged. Any other scheme
// (`grpc://host:port`) is refused with the forms to use: gRPC would read it as a
// host name and fail to resolve it.
func SplitAddress(address string) (target string, useTLS bool, err error) {
	scheme, rest, found := strings.Cut(address, "://")
	lower := strings.ToLower(scheme)
	if !found || slices.Contains(grpcTargetSchemes, lower) {
		return address, false, nil
	}
	if lower != "http" && lower != "https" {
		return "", false, fmt.Errorf("address %q: unknown scheme %q; expected %s", address, scheme, AddressForms)
	}
	rest = strings.TrimSuffix(rest, "/")
	if rest == "" || strings.Contains(rest, "/") {
		return "", false, fmt.Errorf("address %q: expected %s, with no path", address, AddressForms)
	}
	useTLS = lower == "https"
	if !urlPort.MatchString(rest) {
		// A URL's default port, as the TypeScript client has it; gRPC alone would
		// take 443 for http:// too.
		if useTLS {
			rest += ":443"
		} else {
			rest += ":80"
		}
	}
	return rest, useTLS, nil
}

var urlPort = regexp.MustCompile(`:\d+$`)

// DefaultAddress is where `engram serve` listens by default.
const DefaultAddress = "127.0.0.1:50051"

// RetryPolicy says how UNAVAILABLE is retried.
type RetryPolicy struct {
	MaxAttempts    int           // attempts in all, the first included (1 disables retries)
	InitialBackoff time.Duration // ceiling of the first wait
	MaxBackoff     time.Duration // largest wait
	Multiplier     float64       // growth of the ceiling per attempt
}

// DefaultRetryPolicy: 3 attempts, waits up to 100ms, 200ms.
var DefaultRetryPolicy = RetryPolicy{MaxAttempts: 3, InitialBackoff: 100 * time.Millisecond, MaxBackoff: 2 * time.Second, Multiplier: 2}

type options struct {
	address     string
	apiKey      *string
	retry       RetryPolicy
	creds       credentials.TransportCredentials
	unary       []grpc.UnaryClientInterceptor
	dialOptions []grpc.DialOption
}

// Option configures New.
type Option func(*options)

// WithAddress sets the address: `host:port`, `http://host:port` or
// `https://host:port` (TLS) (default ENGRAM_ADDRESS, else DefaultAddress).
func WithAddress(address string) Option { return func(o *options) { o.address = address } }

// WithAPIKey sets the API key (default ENGRAM_API_KEY). An empty key sends none.
func WithAPIKey(key string) Option { return func(o *options) { o.apiKey = &key } }

// WithRetry replaces DefaultRetryPolicy.
func WithRetry(policy RetryPolicy) Option { return func(o *options) { o.retry = policy } }

// WithTransportCredentials sets TLS (default: plaintext).
func WithTransportCredentials(creds credentials.TransportCredentials) Option {
	return func(o *options) { o.creds = creds }
}

// WithUnaryInterceptor adds an interceptor that runs on every attempt, after the
// client's own (request ids, retries).
func WithUnaryInterceptor(i grpc.UnaryClientInterceptor) Option {
	return func(o *options) { o.unary = append(o.unary, i) }
}

// WithDialOptions adds grpc.DialOptions.
func WithDialOptions(opts ...grpc.DialOption) Option {
	return func(o *options) { o.dialOptions = append(o.dialOptions, opts...) }
}

// Client is a connection to an Engram server. Its fields are the generated
// clients of every service, so every RPC is at hand with the conventions above;
// the methods are shortcuts for the common calls.
type Client struct {
	Address   string
	Lifecycle engramv1.LifecycleServiceClient
	Recall    engramv1.RecallServiceClient
	Admin     engramv1.AdminServiceClient
	Pool      engramv1.PoolServiceClient
	Evidence  engramv1.EvidenceServiceClient
	Decisions engramv1.DecisionsServiceClient
	conn      *grpc.ClientConn
}

// New connects (lazily, as grpc.NewClient does) to an Engram server.
func New(opts ...Option) (*Client, error) {
	o := options{address: os.Getenv("ENGRAM_ADDRESS"), retry: DefaultRetryPolicy, creds: insecure.NewCredentials()}
	for _, opt := range opts {
		opt(&o)
	}
	if o.address == "" {
		o.address = DefaultAddress
	}
	target, useTLS, err := SplitAddress(o.address)
	if err != nil {
		return nil, err
	}
	o.address = target
	if useTLS && o.creds.Info().SecurityProtocol == "insecure" {
		o.creds = credentials.NewTLS(&tls.Config{MinVersion: tls.VersionTLS12})
	}
	key := os.Getenv("ENGRAM_API_KEY")
	if o.apiKey != nil {
		key = *o.apiKey
	}
	dial := []grpc.DialOption{
		grpc.WithTransportCredentials(o.creds),
		grpc.WithChainUnaryInterceptor(append([]grpc.UnaryClientInterceptor{unaryConventions(o.retry)}, o.unary...)...),
		grpc.WithChainStreamInterceptor(streamErrors),
	}
	if key != "" {
		dial = append(dial, grpc.WithPerRPCCredentials(bearer{key: key, secure: o.creds.Info().SecurityProtocol != "insecure"}))
	}
	conn, err := grpc.NewClient(o.address, append(dial, o.dialOptions...)...)
	if err != nil {
		return nil, err
	}
	return &Client{
		Address:   o.address,
		Lifecycle: engramv1.NewLifecycleServiceClient(conn),
		Recall:    engramv1.NewRecallServiceClient(conn),
		Admin:     engramv1.NewAdminServiceClient(conn),
		Pool:      engramv1.NewPoolServiceClient(conn),
		Evidence:  engramv1.NewEvidenceServiceClient(conn),
		Decisions: engramv1.NewDecisionsServiceClient(conn),
		conn:      conn,
	}, nil
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// Conn is the underlying connection.
func (c *Client) Conn() *grpc.ClientConn { return c.conn }

// bearer sends the API key on every call.
type bearer struct {
	key    string
	secure bool
}

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + b.key}, nil
}

func (b bearer) RequireTransportSecurity() bool { return b.secure }

// NewRequestID returns a random UUID (version 4).
func NewRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// withRequestID returns req, or a copy of it with a fresh request_id when it has
// an empty one (the caller's message is never changed).
func withRequestID(req any) any {
	m, ok := req.(proto.Message)
	if !ok {
		return req
	}
	field := m.ProtoReflect().Descriptor().Fields().ByName("request_id")
	if field == nil || field.Kind() != protoreflect.StringKind || m.ProtoReflect().Get(field).String() != "" {
		return req
	}
	clone := proto.Clone(m)
	clone.ProtoReflect().Set(field, protoreflect.ValueOfString(NewRequestID()))
	return clone
}

func unaryConventions(policy RetryPolicy) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		req = withRequestID(req)
		for attempt := 0; ; attempt++ {
			err := invoker(ctx, method, req, reply, cc, opts...)
			if err == nil {
				return nil
			}
			if status.Code(err) != codes.Unavailable || attempt+1 >= policy.MaxAttempts || ctx.Err() != nil {
				return fromStatus(err)
			}
			ceiling := math.Min(float64(policy.MaxBackoff), float64(policy.InitialBackoff)*math.Pow(policy.Multiplier, float64(attempt)))
			// Half fixed, half random: spreads the retries of many clients.
			wait := time.Duration(ceiling/2 + mathrand.Float64()*ceiling/2)
			select {
			case <-ctx.Done():
				return fromStatus(err)
			case <-time.After(wait):
			}
		}
	}
}

func streamErrors(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	stream, err := streamer(ctx, desc, cc, method, opts...)
	if err != nil {
		return nil, fromStatus(err)
	}
	return typedStream{stream}, nil
}

type typedStream struct{ grpc.ClientStream }

func (s typedStream) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	if err != nil && !errors.Is(err, io.EOF) {
		return fromStatus(err)
	}
	return err
}

func (s typedStream) SendMsg(m any) error {
	err := s.ClientStream.SendMsg(m)
	if err != nil && !errors.Is(err, io.EOF) {
		return fromStatus(err)
	}
	return err
}

// Receiver is a server stream of the generated code.
type Receiver[T any] interface {
	Recv() (T, error)
}

// Iterate turns a server stream into an iterator of (message, nil) pairs that
// ends at the end of the stream, or with one (zero, *Error) pair.
func Iterate[T any](stream Receiver[T], err error) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		if err != nil {
			yield(zero, err)
			return
		}
		for {
			msg, err := stream.Recv()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					yield(zero, err)
				}
				return
			}
			if !yield(msg, nil) {
				return
			}
		}
	}
}

// MemoryName returns `memories/{id}` for a bare id or a full name.
func MemoryName(nameOrID string) string {
	if strings.HasPrefix(nameOrID, "memories/") {
		return nameOrID
	}
	return "memories/" + nameOrID
}
