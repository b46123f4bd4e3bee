package engram

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// FieldViolation is one invalid field of a request (google.rpc.BadRequest).
type FieldViolation struct {
	Field       string // path of the field in the request, e.g. "proposal.content"
	Description string // what is wrong with it
}

// QuotaViolation is one limit a request went over (google.rpc.QuotaFailure).
type QuotaViolation struct {
	Subject     string // what is limited, e.g. "request"
	Description string // which limit, and what to do
}

// Error is every failure of a call through Client: the gRPC code, its name, the
// message and the decoded google.rpc.Status details. Use errors.As to get it, or
// the Is* helpers.
type Error struct {
	Code            codes.Code
	CodeName        string // canonical name, e.g. "INVALID_ARGUMENT"
	Message         string
	FieldViolations []FieldViolation
	QuotaViolations []QuotaViolation // decoded from errdetails.QuotaFailure (RESOURCE_EXHAUSTED)
	status          *status.Status
}

func (e *Error) Error() string { return e.CodeName + ": " + e.Message }

// GRPCStatus lets status.FromError and status.Code see through an *Error.
func (e *Error) GRPCStatus() *status.Status { return e.status }

// Details are the decoded google.rpc.Status details (errdetails messages).
func (e *Error) Details() []any { return e.status.Details() }

// Fields are the names of the invalid fields.
func (e *Error) Fields() []string {
	fields := make([]string, 0, len(e.FieldViolations))
	for _, v := range e.FieldViolations {
		fields = append(fields, v.Field)
	}
	return fields
}

// CodeName is the canonical name of a gRPC code ("NOT_FOUND").
func CodeName(code codes.Code) string {
	if code == codes.Canceled {
		return "CANCELLED"
	}
	var b strings.Builder
	for i, r := range code.String() {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}

// fromStatus turns a gRPC status error into an *Error (other errors unchanged).
func fromStatus(err error) error {
	var already *Error
	if errors.As(err, &already) {
		return err
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	if explained := explainTransportOversize(st); explained != nil {
		st = explained
	}
	e := &Error{Code: st.Code(), CodeName: CodeName(st.Code()), Message: st.Message(), status: st}
	for _, detail := range st.Details() {
		switch d := detail.(type) {
		case *errdetails.BadRequest:
			for _, v := range d.GetFieldViolations() {
				e.FieldViolations = append(e.FieldViolations, FieldViolation{Field: v.GetField(), Description: v.GetDescription()})
			}
		case *errdetails.QuotaFailure:
			for _, v := range d.GetViolations() {
				e.QuotaViolations = append(e.QuotaViolations, QuotaViolation{Subject: v.GetSubject(), Description: v.GetDescription()})
			}
		}
	}
	return e
}

// transportOversize is the server's gRPC transport refusing a request far over the
// server's size limit (more than four times max_request_bytes): gRPC core answers
// before Engram sees the request, with only this text and no google.rpc.Status.
var transportOversize = regexp.MustCompile(`^SERVER: Received message larger than max \((\d+) vs\. (\d+)\)`)

// explainTransportOversize returns the status Engram itself would have answered
// for gRPC core's refusal of an oversize request: the same explanation and
// QuotaFailure as a request up to four times the limit gets. Nil for any other
// status. (grpc-go keeps no trace of the grpc-status-details-bin trailer except
// the details it carried, so "no details" stands for "no google.rpc.Status".)
func explainTransportOversize(st *status.Status) *status.Status {
	if st.Code() != codes.ResourceExhausted || len(st.Proto().GetDetails()) > 0 {
		return nil
	}
	match := transportOversize.FindStringSubmatch(st.Message())
	if match == nil {
		return nil
	}
	size, err := strconv.ParseUint(match[1], 10, 64)
	if err != nil {
		return nil
	}
	limit, err := strconv.ParseUint(match[2], 10, 64)
	if err != nil {
		return nil
	}
	text := fmt.Sprintf("the request is %s bytes, far over the server's size limit: its transport"+
		" refuses anything over %s bytes, four times the server's limit per request"+
		" (setting max_request_bytes, environment ENGRAM_MAX_REQUEST_BYTES): send less per"+
		" call, e.g. split the batch, or have the operator raise it", groupThousands(size), groupThousands(limit))
	explained, err := status.New(codes.ResourceExhausted, text).WithDetails(&errdetails.QuotaFailure{
		Violations: []*errdetails.QuotaFailure_Violation{{Subject: "request", Description: "max_request_bytes: " + text}},
	})
	if err != nil {
		return nil
	}
	return explained
}

// groupThousands writes n with a comma between groups of three digits (16,777,216).
func groupThousands(n uint64) string {
	digits := strconv.FormatUint(n, 10)
	var b strings.Builder
	for i, r := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// CodeOf is the gRPC code of err (codes.OK for nil, codes.Unknown for non-gRPC errors).
func CodeOf(err error) codes.Code { return status.Code(err) }

// IsNotFound reports whether err is NOT_FOUND (missing, or in another tenant).
func IsNotFound(err error) bool { return CodeOf(err) == codes.NotFound }

// IsInvalidArgument reports whether err is INVALID_ARGUMENT.
func IsInvalidArgument(err error) bool { return CodeOf(err) == codes.InvalidArgument }

// IsUnavailable reports whether err is UNAVAILABLE (after the retries).
func IsUnavailable(err error) bool { return CodeOf(err) == codes.Unavailable }

// AsError returns err as an *Error, or nil.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}
