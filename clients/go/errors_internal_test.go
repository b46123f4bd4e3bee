package engram

import (
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

const coreOversize = "SERVER: Received message larger than max (67108864 vs. 16777216)"

func TestGRPCCoresRefusalOfAnOversizeRequestIsExplained(t *testing.T) {
	e := AsError(fromStatus(status.Error(codes.ResourceExhausted, coreOversize)))
	if e == nil || e.Code != codes.ResourceExhausted || e.CodeName != "RESOURCE_EXHAUSTED" {
		t.Fatalf("want *Error RESOURCE_EXHAUSTED, got %#v", e)
	}
	want := "the request is 67,108,864 bytes, far over the server's size limit: its transport" +
		" refuses anything over 16,777,216 bytes, four times the server's limit per request" +
		" (setting max_request_bytes, environment ENGRAM_MAX_REQUEST_BYTES): send less per" +
		" call, e.g. split the batch, or have the operator raise it"
	if e.Message != want {
		t.Fatalf("message %q", e.Message)
	}
	if e.Error() != "RESOURCE_EXHAUSTED: "+want {
		t.Fatalf("Error() %q", e.Error())
	}
	if len(e.QuotaViolations) != 1 || e.QuotaViolations[0].Subject != "request" ||
		e.QuotaViolations[0].Description != "max_request_bytes: "+want {
		t.Fatalf("quota violations %+v", e.QuotaViolations)
	}
	details := e.Details()
	quota, ok := details[0].(*errdetails.QuotaFailure)
	if len(details) != 1 || !ok || quota.GetViolations()[0].GetSubject() != "request" {
		t.Fatalf("details %v", details)
	}
	// status.FromError sees the explained status too.
	if st, _ := status.FromError(e); st.Message() != want || len(st.Details()) != 1 {
		t.Fatalf("GRPCStatus %v", st)
	}
}

func TestOnlyGRPCCoresBareOversizeRefusalIsRewritten(t *testing.T) {
	withDetails, err := status.New(codes.ResourceExhausted, coreOversize).WithDetails(&errdetails.ErrorInfo{Reason: "QUOTA"})
	if err != nil {
		t.Fatal(err)
	}
	for name, st := range map[string]*status.Status{
		"another code":          status.New(codes.Internal, coreOversize),
		"another text":          status.New(codes.ResourceExhausted, "tenant quota of memories used up"),
		"text not at the start": status.New(codes.ResourceExhausted, "proxy: "+coreOversize),
		"a rich status":         withDetails,
	} {
		e := AsError(fromStatus(st.Err()))
		if e == nil || e.Code != st.Code() || e.Message != st.Message() || len(e.QuotaViolations) != 0 {
			t.Errorf("%s: rewritten to %#v", name, e)
		}
		if strings.Contains(e.Message, "max_request_bytes") {
			t.Errorf("%s: %q", name, e.Message)
		}
	}
}

func TestGroupThousands(t *testing.T) {
	for n, want := range map[uint64]string{0: "0", 999: "999", 1000: "1,000", 16777216: "16,777,216", 123456789012: "123,456,789,012"} {
		if got := groupThousands(n); got != want {
			t.Errorf("groupThousands(%d) = %q, want %q", n, got, want)
		}
	}
}
