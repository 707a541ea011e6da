package resources

import (
	"context"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
)

// Shared-state resource URIs.
const (
	SharedSummary = "memory://shared"
	SharedPrefix  = "memory://shared/"
	PendingQueue  = "memory://pending"
)

func registerShared(s *server.MCPServer, svc Services) {
	p := svc.Promotion
	s.AddResource(mcp.NewResource(SharedSummary, "Shared state",
		mcp.WithResourceDescription("The team's current belief, compact, as markdown: the plan, open issues, active "+
			"constraints and decisions, and the latest task states (200 rows per list at most; it says how many more). "+
			"Row texts come from agents' notes and are fenced as data."),
		mcp.WithMIMEType("text/markdown"),
	), handler(svc.Log, func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		sum, err := p.Summary(ctx)
		return markdownContents(SharedSummary, sum.Markdown()), err
	}))

	s.AddResourceTemplate(mcp.NewResourceTemplate(SharedPrefix+"{bucket}", "Shared bucket",
		mcp.WithTemplateDescription("Every row of one shared bucket (plan, constraints, issues, decisions, results, "+
			"task_state, learnings), newest change first, as JSON."),
		mcp.WithTemplateMIMEType("application/json"),
	), handler(svc.Log, func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		b, err := memory.ParseBucket(arg(req, "bucket"))
		if err != nil {
			return nil, err
		}
		rows, err := p.SharedState(ctx, memory.SharedQuery{Bucket: b, Limit: 500})
		if err != nil {
			return nil, err
		}
		return jsonContents(req.Params.URI, map[string]any{"bucket": b, "rows": rows})
	}))

	s.AddResource(mcp.NewResource(PendingQueue, "Pending queue",
		mcp.WithResourceDescription("Writes waiting until their target can be identified safely, with reasons, "+
			"candidates and attempts, as markdown (the oldest 100; list_pending pages further). Stale items wait for "+
			"a human curator. A note's text is shown only to the agent that wrote it and to humans, fenced as data."),
		mcp.WithMIMEType("text/markdown"),
	), handler(svc.Log, func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		l, err := p.ListPending(ctx, memory.PendingQuery{})
		if err != nil {
			return nil, err
		}
		return markdownContents(PendingQueue, memory.RenderPending(l)), nil
	}))
}

// sharedChanged maps a change of shared state (ref "bucket/target", or
// "replay" for all of it) or of the pending queue to the URIs it touches.
func sharedChanged(kind, ref string) []string {
	if kind == "pending" {
		return []string{PendingQueue, SharedSummary}
	}
	bucket, _, ok := strings.Cut(ref, "/")
	if !ok {
		uris := []string{SharedSummary}
		for _, b := range memory.Buckets {
			uris = append(uris, SharedPrefix+string(b))
		}
		return uris
	}
	return []string{SharedSummary, SharedPrefix + bucket}
}
