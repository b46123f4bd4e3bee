package engram

import (
	"context"
	"iter"

	"google.golang.org/protobuf/proto"

	engramv1 "github.com/engram-grpc/engram/clients/go/gen/engram/v1"
)

// Propose proposes one memory. A request id is generated unless requestID is given.
func (c *Client) Propose(ctx context.Context, proposal *engramv1.MemoryProposal, requestID ...string) (*engramv1.ProposalResult, error) {
	resp, err := c.Lifecycle.ProposeMemory(ctx, &engramv1.ProposeMemoryRequest{Proposal: proposal, RequestId: first(requestID)})
	if err != nil {
		return nil, err
	}
	return resp.GetResult(), nil
}

// Confirm moves a PENDING_CONFIRMATION memory to ACTIVE.
func (c *Client) Confirm(ctx context.Context, name, reason string) (*engramv1.Memory, error) {
	return c.Lifecycle.ConfirmMemory(ctx, &engramv1.ConfirmMemoryRequest{Name: MemoryName(name), Reason: reason})
}

// Retract retracts a memory with a reason.
func (c *Client) Retract(ctx context.Context, name, reason string) (*engramv1.Memory, error) {
	resp, err := c.Lifecycle.RetractMemory(ctx, &engramv1.RetractMemoryRequest{Name: MemoryName(name), Reason: reason})
	if err != nil {
		return nil, err
	}
	return resp.GetMemory(), nil
}

// Get reads one memory; NOT_FOUND when it does not exist in the caller's tenant.
func (c *Client) Get(ctx context.Context, name string) (*engramv1.Memory, error) {
	return c.Lifecycle.GetMemory(ctx, &engramv1.GetMemoryRequest{Name: MemoryName(name)})
}

// RecallQuery searches spaces with read-your-writes consistency.
func (c *Client) RecallQuery(ctx context.Context, query string, spaces ...string) (*engramv1.RecallResponse, error) {
	return c.Recall.Recall(ctx, &engramv1.RecallRequest{
		Query:       query,
		Spaces:      spaces,
		Consistency: engramv1.ReadConsistency_READ_CONSISTENCY_READ_YOUR_WRITES,
	})
}

// Watch streams committed transitions until ctx ends (or replays from req.Cursor).
func (c *Client) Watch(ctx context.Context, req *engramv1.WatchTransitionsRequest) iter.Seq2[*engramv1.WatchTransitionsResponse, error] {
	return Iterate(c.Lifecycle.WatchTransitions(ctx, req))
}

// AppendMessage appends one message to a session's working-memory buffer.
func (c *Client) AppendMessage(ctx context.Context, space, session, role, content string) (*engramv1.AppendMessageResponse, error) {
	return c.Lifecycle.AppendMessage(ctx, &engramv1.AppendMessageRequest{
		Space: space, Session: session, Message: &engramv1.SessionMessage{Role: role, Content: content},
	})
}

// SetPolicy sets the policy of a space ("" for the tenant's default policy).
func (c *Client) SetPolicy(ctx context.Context, space string, policy *engramv1.Policy) (*engramv1.Policy, error) {
	name := "policy"
	if space != "" {
		name = "spaces/" + space + "/policy"
	}
	p := proto.Clone(policy).(*engramv1.Policy) // the caller's message is not changed
	p.Name = name
	return c.Lifecycle.SetPolicy(ctx, &engramv1.SetPolicyRequest{Policy: p})
}

func first(values []string) string {
	if len(values) > 0 {
		return values[0]
	}
	return ""
}
