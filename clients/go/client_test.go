package engram_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	engram "github.com/engram-grpc/engram/clients/go"
	engramv1 "github.com/engram-grpc/engram/clients/go/gen/engram/v1"
)

func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

func TestUnavailableIsRetriedWithTheSameRequestID(t *testing.T) {
	var seen []string
	record := func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		seen = append(seen, req.(*engramv1.ProposeMemoryRequest).GetRequestId())
		return invoker(ctx, method, req, reply, cc, opts...)
	}
	c, err := engram.New(
		engram.WithAddress(closedPort(t)),
		engram.WithAPIKey("unused"),
		engram.WithRetry(engram.RetryPolicy{MaxAttempts: 3, InitialBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond, Multiplier: 2}),
		engram.WithUnaryInterceptor(record),
	)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	request := &engramv1.MemoryProposal{Space: "s", Content: "c", Confidence: 1}
	_, err = c.Propose(context.Background(), request)
	if !engram.IsUnavailable(err) {
		t.Fatalf("want UNAVAILABLE, got %v", err)
	}
	if len(seen) != 3 || seen[0] != seen[1] || seen[1] != seen[2] {
		t.Fatalf("want 3 attempts with one request id, got %q", seen)
	}
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(seen[0]) {
		t.Fatalf("not a UUID: %q", seen[0])
	}
}

func TestAddressAndKeyFromTheEnvironment(t *testing.T) {
	t.Setenv("ENGRAM_ADDRESS", server.Address)
	t.Setenv("ENGRAM_API_KEY", server.Tenants["B"].Key)
	c, err := engram.New()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Address != server.Address {
		t.Fatalf("address %q", c.Address)
	}
	_, err = c.Get(context.Background(), "00000000-0000-0000-0000-000000000000")
	if !engram.IsNotFound(err) {
		t.Fatalf("want NOT_FOUND, got %v", err)
	}
}

func TestWithoutAKeyACallIsUnauthenticated(t *testing.T) {
	c, err := engram.New(engram.WithAddress(server.Address), engram.WithAPIKey(""))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Get(context.Background(), "00000000-0000-0000-0000-000000000000")
	if engram.CodeOf(err) != codes.Unauthenticated {
		t.Fatalf("want UNAUTHENTICATED, got %v", err)
	}
}

func TestBadInputNamesTheFieldOnTheGeneratedClientsToo(t *testing.T) {
	c, err := engram.New(engram.WithAddress(server.Address), engram.WithAPIKey(server.Tenants["A"].Key))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Recall.Recall(context.Background(), &engramv1.RecallRequest{Spaces: []string{"s"}})
	var e *engram.Error
	if !errors.As(err, &e) || e.CodeName != "INVALID_ARGUMENT" {
		t.Fatalf("want *engram.Error INVALID_ARGUMENT, got %v", err)
	}
	found := false
	for _, v := range e.FieldViolations {
		found = found || v.Field == "query"
	}
	if !found {
		t.Fatalf("no violation of query in %+v", e.FieldViolations)
	}
}

func TestARepeatedRequestIDReturnsTheFirstOutcome(t *testing.T) {
	c, err := engram.New(engram.WithAddress(server.Address), engram.WithAPIKey(server.Tenants["A"].Key))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	id := "go-" + engram.NewRequestID()
	p := &engramv1.MemoryProposal{Space: "clients/go-ids-" + id[3:11], Content: "Idempotent write.", Confidence: 1}
	first, err := c.Propose(ctx, p, id)
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.Propose(ctx, p, id)
	if err != nil {
		t.Fatal(err)
	}
	if again.GetOutcome() != engramv1.ProposalOutcome_PROPOSAL_OUTCOME_ACCEPTED || again.GetMemory().GetName() != first.GetMemory().GetName() {
		t.Fatalf("first %v, again %v", first, again)
	}
}

// oversizeContent is far over what the test server's transport accepts: four
// times its max_request_bytes (4 MiB by default, so 16 MiB), twice over.
const oversizeContent = 32 << 20

func TestARequestFarOverTheSizeLimitIsExplained(t *testing.T) {
	c, err := engram.New(engram.WithAddress(server.Address), engram.WithAPIKey(server.Tenants["A"].Key))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	id := "go-" + engram.NewRequestID()
	space := "clients/go-oversize-" + id[3:11]
	request := &engramv1.ProposeMemoryRequest{
		Proposal:  &engramv1.MemoryProposal{Space: space, Content: strings.Repeat("x", oversizeContent), Confidence: 1},
		RequestId: id,
	}
	_, err = c.Lifecycle.ProposeMemory(ctx, request)
	e := engram.AsError(err)
	if e == nil || e.Code != codes.ResourceExhausted {
		t.Fatalf("want *engram.Error RESOURCE_EXHAUSTED, got %v", err)
	}
	size := fmt.Sprintf("the request is %s bytes, far over the server's size limit", thousands(proto.Size(request)))
	for _, want := range []string{size, "max_request_bytes", "ENGRAM_MAX_REQUEST_BYTES", "split the batch"} {
		if !strings.Contains(e.Message, want) {
			t.Fatalf("%q does not say %q", e.Message, want)
		}
	}
	if len(e.QuotaViolations) != 1 || e.QuotaViolations[0].Subject != "request" ||
		!strings.HasPrefix(e.QuotaViolations[0].Description, "max_request_bytes: ") {
		t.Fatalf("quota violations %+v", e.QuotaViolations)
	}
	if _, ok := e.Details()[0].(*errdetails.QuotaFailure); !ok {
		t.Fatalf("details %v", e.Details())
	}
	// Only that call failed: the same client writes on.
	written, err := c.Propose(ctx, &engramv1.MemoryProposal{Space: space, Content: "After the refusal.", Confidence: 1})
	if err != nil || written.GetMemory().GetName() == "" {
		t.Fatalf("after the refusal: %v, %v", written, err)
	}
}

// thousands writes n as the server and the clients do: 33,554,475.
func thousands(n int) string {
	digits := fmt.Sprint(n)
	var b strings.Builder
	for i, r := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
