package tools

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
)

// FineTuneArgs are the arguments of finetune.
type FineTuneArgs struct {
	Source    string `json:"source,omitempty" jsonschema:"enum=all,enum=memories,enum=facts" jsonschema_description:"What to learn from: all (default), memories or facts."`
	AgentID   string `json:"agent_id,omitempty" jsonschema:"Learn only from this agent's memories (the adapter still serves every agent)."`
	Namespace string `json:"namespace,omitempty" jsonschema:"Learn only from memories in this namespace."`
	DryRun    bool   `json:"dry_run,omitempty" jsonschema:"true: train and measure, deploy nothing."`
	EvalOnly  bool   `json:"eval_only,omitempty" jsonschema:"true: measure the adapter in force against the base embedder on held-out pairs; train nothing."`
	Rollback  bool   `json:"rollback,omitempty" jsonschema:"true: return to the adapter in force before the current one (or the base embedder alone) and re-embed; nothing else."`
}

// FineTuneResult is the result of finetune and finetune_report.
type FineTuneResult struct {
	// Found is false when finetune_report finds no run yet.
	Found  bool                   `json:"found"`
	Report *memory.FineTuneReport `json:"report,omitempty"`
}

func registerFineTune(s *server.MCPServer, svc Services) {
	add(s, svc, mcp.NewTool("finetune",
		mcp.WithDescription("Humans only. Adapt retrieval to this memory's own text: train an adapter over the embedder "+
			"from the stored memories and facts (no labels needed), measure it against the embedder in force on held-out "+
			"pairs, and deploy it only when it ranks better, re-embedding every memory (seconds for thousands of memories). "+
			"dry_run and eval_only measure without deploying; rollback returns to the previous adapter. Returns the report."),
		mcp.WithInputSchema[FineTuneArgs](), mcp.WithOutputSchema[FineTuneResult](),
	), func(ctx context.Context, a FineTuneArgs) (FineTuneResult, string, error) {
		rep, err := svc.FineTune.FineTune(ctx, memory.FineTuneRequest{Source: memory.FineTuneSource(a.Source), AgentID: a.AgentID,
			Namespace: a.Namespace, DryRun: a.DryRun, EvalOnly: a.EvalOnly, Rollback: a.Rollback})
		if err != nil {
			return FineTuneResult{}, "", err
		}
		return FineTuneResult{Found: true, Report: &rep}, renderFineTune(rep), nil
	})

	add(s, svc, mcp.NewTool("finetune_report",
		mcp.WithDescription("Humans only. The report of the last fine-tuning run: what it learned from, the held-out "+
			"figures of the base, in-force and candidate embedders, the gate's decision and what is in force now."),
		mcp.WithInputSchema[struct{}](), mcp.WithOutputSchema[FineTuneResult](),
	), func(ctx context.Context, _ struct{}) (FineTuneResult, string, error) {
		rep, ok, err := svc.FineTune.LastFineTune(ctx)
		if err != nil || !ok {
			return FineTuneResult{}, "no fine-tuning run yet: finetune makes one", err
		}
		return FineTuneResult{Found: true, Report: &rep}, renderFineTune(rep), nil
	})
}

// renderFineTune says what a run did, with its figures side by side.
func renderFineTune(r memory.FineTuneReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "fine-tuning %s by %s at %s: embedder %s -> %s", r.Outcome, r.By, r.Finished.Format("2006-01-02 15:04:05Z07:00"), r.Before, r.After)
	if r.Gate != "" {
		fmt.Fprintf(&b, "\ngate: %s", r.Gate)
	}
	if len(r.Pairs) > 0 {
		srcs := make([]string, 0, len(r.Pairs))
		for k, n := range r.Pairs {
			srcs = append(srcs, fmt.Sprintf("%s %d", k, n))
		}
		sort.Strings(srcs)
		fmt.Fprintf(&b, "\n%d documents; pairs: %s", r.Documents, strings.Join(srcs, ", "))
	}
	if r.LLM != "" {
		fmt.Fprintf(&b, "\nmodel: %s", r.LLM)
	}
	for _, set := range []struct {
		name string
		fs   []memory.FineTuneFigures
	}{{"vectors alone", r.Vectors}, {"fused search", r.Fused}} {
		for _, f := range set.fs {
			fmt.Fprintf(&b, "\n%s, %s (%s): recall@10 %.3f, NDCG@10 %.3f over %d held-out pairs", set.name, f.Role, f.Embedder, f.R10, f.NDCG10, f.Pairs)
		}
	}
	if r.Reembedded > 0 {
		fmt.Fprintf(&b, "\nre-embedded %d memories", r.Reembedded)
	}
	return b.String()
}
