// Engram from Go, start to end: propose a memory, recall it, share it through a
// pool, and watch the space's transitions. Run it against a server (scripts/dev
// prints the address and a dev key):
//
//	export ENGRAM_ADDRESS=127.0.0.1:50051 ENGRAM_API_KEY=$(cat ../../.engram/dev-key)
//	go run .
//
// go.mod requires the client module and replaces it with this checkout's
// clients/go. The key needs the read and write scopes (the dev key has them).
// Every run works in a space and a pool of its own, so it can run again and again.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log"

	engram "github.com/engram-grpc/engram/clients/go"
	engramv1 "github.com/engram-grpc/engram/clients/go/gen/engram/v1"
)

const query = "When does staging restart?"

func main() {
	if err := run(context.Background()); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context) error {
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	id := hex.EncodeToString(suffix)
	space := "examples/go-" + id

	client, err := engram.New() // ENGRAM_ADDRESS and ENGRAM_API_KEY
	if err != nil {
		return err
	}
	defer client.Close()

	// 1. Propose: the policy decides; a confident proposal is ACCEPTED.
	result, err := client.Propose(ctx, &engramv1.MemoryProposal{
		Space:      space,
		Content:    "The staging cluster restarts every night at 02:00.",
		Confidence: 0.9,
		Tags:       []string{"ops"},
	})
	if err != nil {
		return err
	}
	memory := result.GetMemory()
	// Go prints an enum by its full proto name: PROPOSAL_OUTCOME_ACCEPTED.
	fmt.Printf("proposed: %s %s\n", result.GetOutcome(), memory.GetName())

	// 2. Recall: read-your-writes, so the memory just written is found at once.
	found, err := client.RecallQuery(ctx, query, space)
	if err != nil {
		return err
	}
	for _, hit := range found.GetHits() {
		fmt.Printf("recalled: %.2f %s\n", hit.GetScore(), hit.GetMemory().GetContent())
	}

	// 3. Share: a pool of this run; its creator is its owner and may publish.
	pool, err := client.Pool.CreatePool(ctx, &engramv1.CreatePoolRequest{
		PoolId: "examples-go-" + id,
		Pool:   &engramv1.Pool{DisplayName: "Ops knowledge (Go example)"},
	})
	if err != nil {
		return err
	}
	published, err := client.Pool.PublishMemory(ctx, &engramv1.PublishMemoryRequest{
		Pool: pool.GetName(), Memory: memory.GetName(),
	})
	if err != nil {
		return err
	}
	fmt.Printf("published: %s to %s\n", published.GetOutcome(), pool.GetName())
	shared, err := client.Recall.Recall(ctx, &engramv1.RecallRequest{
		Query:       query,
		Pools:       []string{pool.GetName()},
		Consistency: engramv1.ReadConsistency_READ_CONSISTENCY_READ_YOUR_WRITES,
	})
	if err != nil {
		return err
	}
	for _, hit := range shared.GetHits() {
		fmt.Printf("through %s: %s\n", hit.GetPool(), hit.GetMemory().GetContent())
	}

	// 4. Watch: replay the space's transitions from the start (cursor "0"), and stop
	// at the one that made the memory ACTIVE; without the break it waits for more.
	watchCtx, stop := context.WithCancel(ctx)
	defer stop()
	for event, err := range client.Watch(watchCtx, &engramv1.WatchTransitionsRequest{Space: space, Cursor: "0"}) {
		if err != nil {
			return err
		}
		entry := event.GetEntry()
		fmt.Printf("watched: %s %s\n", entry.GetToStatus(), entry.GetMemory())
		if entry.GetMemory() == memory.GetName() && entry.GetToStatus() == engramv1.MemoryStatus_MEMORY_STATUS_ACTIVE {
			break
		}
	}
	return nil
}
