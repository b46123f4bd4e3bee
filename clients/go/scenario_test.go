package engram_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	engram "github.com/engram-grpc/engram/clients/go"
	engramv1 "github.com/engram-grpc/engram/clients/go/gen/engram/v1"
)

type step struct {
	Step   string         `json:"step"`
	Call   string         `json:"call"`
	Tenant string         `json:"tenant"`
	Args   map[string]any `json:"args"`
	Expect map[string]any `json:"expect"`
	Save   string         `json:"save"`
}

var variable = regexp.MustCompile(`\$\{(\w+)\}`)

func substitute(t *testing.T, value any, vars map[string]string) any {
	switch v := value.(type) {
	case string:
		return variable.ReplaceAllStringFunc(v, func(m string) string {
			name := variable.FindStringSubmatch(m)[1]
			got, ok := vars[name]
			if !ok {
				t.Fatalf("unknown variable %s", name)
			}
			return got
		})
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			out[i] = substitute(t, item, vars)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, item := range v {
			out[k] = substitute(t, item, vars)
		}
		return out
	}
	return value
}

func str(v any) string { s, _ := v.(string); return s }

func strs(v any) []string {
	var out []string
	for _, item := range v.([]any) {
		out = append(out, item.(string))
	}
	return out
}

func enumName(full, prefix string) string { return full[len(prefix):] }

func status(s engramv1.MemoryStatus) string { return enumName(s.String(), "MEMORY_STATUS_") }

func perform(ctx context.Context, c *engram.Client, call string, a map[string]any) (map[string]any, error) {
	switch call {
	case "set_policy":
		p, err := c.SetPolicy(ctx, str(a["space"]), &engramv1.Policy{MinConfidence: a["min_confidence"].(float64)})
		if err != nil {
			return nil, err
		}
		return map[string]any{"policy": p.GetName()}, nil
	case "propose":
		proposal := &engramv1.MemoryProposal{Space: str(a["space"]), Content: str(a["content"]), Confidence: a["confidence"].(float64)}
		if tags, ok := a["tags"]; ok {
			proposal.Tags = strs(tags)
		}
		r, err := c.Propose(ctx, proposal)
		if err != nil {
			return nil, err
		}
		return map[string]any{
			"outcome": enumName(r.GetOutcome().String(), "PROPOSAL_OUTCOME_"),
			"status":  status(r.GetMemory().GetStatus()),
			"memory":  r.GetMemory().GetName(),
		}, nil
	case "confirm":
		m, err := c.Confirm(ctx, str(a["memory"]), str(a["reason"]))
		if err != nil {
			return nil, err
		}
		return map[string]any{"memory": m.GetName(), "status": status(m.GetStatus())}, nil
	case "recall":
		r, err := c.RecallQuery(ctx, str(a["query"]), strs(a["spaces"])...)
		if err != nil {
			return nil, err
		}
		top := ""
		if len(r.GetHits()) > 0 {
			top = r.GetHits()[0].GetMemory().GetName()
		}
		return map[string]any{"top": top}, nil
	case "watch":
		watchCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		req := &engramv1.WatchTransitionsRequest{Space: str(a["space"]), Cursor: str(a["cursor"])}
		for _, s := range strs(a["statuses"]) {
			req.Statuses = append(req.Statuses, engramv1.MemoryStatus(engramv1.MemoryStatus_value["MEMORY_STATUS_"+s]))
		}
		for event, err := range c.Watch(watchCtx, req) {
			if err != nil {
				return nil, err
			}
			return map[string]any{"memory": event.GetEntry().GetMemory(), "status": status(event.GetEntry().GetToStatus())}, nil
		}
		return map[string]any{}, nil
	case "append_message":
		r, err := c.AppendMessage(ctx, str(a["space"]), str(a["session"]), str(a["role"]), str(a["content"]))
		if err != nil {
			return nil, err
		}
		return map[string]any{"buffered_messages": float64(r.GetBufferedMessages())}, nil
	case "get":
		m, err := c.Get(ctx, str(a["memory"]))
		if err != nil {
			return nil, err
		}
		return map[string]any{"memory": m.GetName(), "status": status(m.GetStatus())}, nil
	}
	return nil, fmt.Errorf("unknown call %q", call)
}

// TestScenario runs clients/scenario.json with the Go client.
func TestScenario(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot(), "clients", "scenario.json"))
	if err != nil {
		t.Fatal(err)
	}
	var scenario struct {
		Steps []step `json:"steps"`
	}
	if err := json.Unmarshal(raw, &scenario); err != nil {
		t.Fatal(err)
	}
	clients := map[string]*engram.Client{}
	for name, tenant := range server.Tenants {
		c, err := engram.New(engram.WithAddress(server.Address), engram.WithAPIKey(tenant.Key))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		clients[name] = c
	}
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	vars := map[string]string{"space": "clients/go-" + hex.EncodeToString(suffix)}
	ctx := context.Background()
	for _, s := range scenario.Steps {
		ok := t.Run(s.Step, func(t *testing.T) {
			args := substitute(t, s.Args, vars).(map[string]any)
			expect := substitute(t, s.Expect, vars).(map[string]any)
			observed, err := perform(ctx, clients[s.Tenant], s.Call, args)
			if err != nil {
				e := engram.AsError(err)
				if e == nil || expect["error"] == nil {
					t.Fatalf("unexpected error: %v", err)
				}
				observed = map[string]any{"error": e.CodeName, "fields": e.Fields()}
			}
			for key, want := range expect {
				if key == "field" {
					fields, _ := observed["fields"].([]string)
					if !slices.Contains(fields, want.(string)) {
						t.Errorf("field %v not among %v", want, observed)
					}
				} else if observed[key] != want {
					t.Errorf("%s: got %v, want %v (observed %v)", key, observed[key], want, observed)
				}
			}
			if s.Save != "" {
				vars[s.Save], _ = observed["memory"].(string)
			}
		})
		if !ok {
			break
		}
	}
}
