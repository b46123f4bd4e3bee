package engram

import (
	"errors"
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

// Error is every failure of a call through Client: the gRPC code, its name, the
// message and the decoded google.rpc.Status details. Use errors.As to get it, or
// the Is* helpers.
type Error struct {
	Code            codes.Code
	CodeName        string // canonical name, e.g. "INVALID_ARGUMENT"
	Message         string
	FieldViolations []FieldViolation
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
	e := &Error{Code: st.Code(), CodeName: CodeName(st.Code()), Message: st.Message(), status: st}
	for _, detail := range st.Details() {
		if bad, ok := detail.(*errdetails.BadRequest); ok {
			for _, v := range bad.GetFieldViolations() {
				e.FieldViolations = append(e.FieldViolations, FieldViolation{Field: v.GetField(), Description: v.GetDescription()})
			}
		}
	}
	return e
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
