package engram_test

// The tour of docs/clients-go.md, executed (tests/test_client_docs.py checks that
// the document shows exactly the region between the markers).

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	engram "github.com/engram-grpc/engram/clients/go"
	engramv1 "github.com/engram-grpc/engram/clients/go/gen/engram/v1"
)

func TestTour(t *testing.T) {
	t.Setenv("ENGRAM_ADDRESS", server.Address)
	t.Setenv("ENGRAM_API_KEY", server.Tenants["A"].Key)
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	space := "agents/support-bot-" + hex.EncodeToString(suffix)
	var out strings.Builder
	printf := func(format string, args ...any) { fmt.Fprintf(&out, format, args...) }
	err := func() error {
		// tour:start
		client, err := engram.New() // ENGRAM_ADDRESS and ENGRAM_API_KEY
		if err != nil {
			return err
		}
		defer client.Close()
		ctx := context.Background()

		// Write: Go prints the outcome by its proto name: PROPOSAL_OUTCOME_ACCEPTED
		// (or _PENDING_CONFIRMATION, _REJECTED, _DUPLICATE).
		result, err := client.Propose(ctx, &engramv1.MemoryProposal{
			Space:      space,
			Content:    "Customer Ada prefers email over phone calls.",
			Confidence: 0.9,
			Tags:       []string{"preferences"},
		})
		if err != nil {
			return err
		}
		printf("%s %s\n", result.GetOutcome(), result.GetMemory().GetName())

		// Read: hits, best first, with the score's breakdown.
		found, err := client.RecallQuery(ctx, "How should I contact Ada?", space)
		if err != nil {
			return err
		}
		for _, hit := range found.GetHits() {
			printf("%.3f %s\n", hit.GetScore(), hit.GetMemory().GetContent())
		}

		// Working memory: the conversation buffer of a session.
		appended, err := client.AppendMessage(ctx, space, "chat-42", "user", "Please send the invoice by email.")
		if err != nil {
			return err
		}
		printf("%d message(s) buffered\n", appended.GetBufferedMessages())

		// Errors are *engram.Error and name the bad field.
		_, err = client.Propose(ctx, &engramv1.MemoryProposal{Space: space, Content: " ", Confidence: 0.9})
		var bad *engram.Error
		if errors.As(err, &bad) && bad.CodeName == "INVALID_ARGUMENT" {
			printf("invalid: %v\n", bad.Fields()) // [proposal.content]
		}
		if _, err := client.Get(ctx, "memories/00000000-0000-0000-0000-000000000000"); !engram.IsNotFound(err) {
			return fmt.Errorf("want NOT_FOUND, got %v", err)
		}

		// Streams are iterators: replay the space's changes from the start.
		watchCtx, stop := context.WithCancel(ctx)
		defer stop()
		for event, err := range client.Watch(watchCtx, &engramv1.WatchTransitionsRequest{Space: space, Cursor: "0"}) {
			if err != nil {
				return err
			}
			printf("%s %s\n", event.GetEntry().GetToStatus(), event.GetEntry().GetMemory()) // MEMORY_STATUS_PROPOSED memories/… (its first event)
			if event.GetEntry().GetMemory() == result.GetMemory().GetName() {
				break // ends the stream
			}
		}
		// tour:end
		return nil
	}()
	if err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"PROPOSAL_OUTCOME_ACCEPTED memories/", "Ada prefers email", "1 message(s) buffered", "invalid: [proposal.content]", "MEMORY_STATUS_PROPOSED memories/"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q not in the tour's output:\n%s", want, got)
		}
	}
}
