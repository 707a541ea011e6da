package resources

import (
	"context"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
)

// Fact resource URIs.
const (
	PoliciesCore  = "memory://policies/core"
	FactsSnapshot = "memory://facts/snapshot"
)

func registerFacts(s *server.MCPServer, svc Services) {
	facts := svc.Facts
	s.AddResource(mcp.NewResource(PoliciesCore, "Core policies",
		mcp.WithResourceDescription("The core policies in force, as markdown ready to place in a system prompt."),
		mcp.WithMIMEType("text/markdown"),
	), handler(svc.Log, func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		text, err := memory.CorePoliciesMarkdown(ctx, facts)
		return markdownContents(PoliciesCore, text), err
	}))

	s.AddResource(mcp.NewResource(FactsSnapshot, "Fact snapshot",
		mcp.WithResourceDescription("Every organisational fact in force now, as JSON."),
		mcp.WithMIMEType("application/json"),
	), handler(svc.Log, func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		fs, err := facts.SnapshotAt(ctx, time.Time{})
		if err != nil {
			return nil, err
		}
		return jsonContents(FactsSnapshot, map[string]any{"facts": fs})
	}))

	s.AddResourceTemplate(mcp.NewResourceTemplate("memory://facts/snapshot/{+as_of}", "Fact snapshot at a time",
		mcp.WithTemplateDescription("Every organisational fact that was in force at as_of (RFC 3339, e.g. 2026-03-01T00:00:00Z), as JSON."),
		mcp.WithTemplateMIMEType("application/json"),
	), handler(svc.Log, func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		raw := arg(req, "as_of")
		t, err := memory.ParseTime("as_of", raw)
		if err != nil {
			return nil, err
		}
		if t.IsZero() {
			return nil, memory.Errorf(memory.EINVALID, "as_of is missing: read memory://facts/snapshot/2026-03-01T00:00:00Z")
		}
		fs, err := facts.SnapshotAt(ctx, t)
		if err != nil {
			return nil, err
		}
		return jsonContents(req.Params.URI, map[string]any{"as_of": t, "facts": fs})
	}))

	s.AddResourceTemplate(mcp.NewResourceTemplate("memory://facts/{+fact_id}/history", "Fact history",
		mcp.WithTemplateDescription("The audit trail of one fact: every publish and retract with author, time and content, as JSON."),
		mcp.WithTemplateMIMEType("application/json"),
	), handler(svc.Log, func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		id := arg(req, "fact_id")
		ops, err := facts.History(ctx, id)
		if err != nil {
			return nil, err
		}
		return jsonContents(req.Params.URI, map[string]any{"fact_id": id, "history": ops})
	}))
}
