package resources

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
)

// Shared-state resource URIs.
const (
	StateSummary = "memory://shared"
	StatePrefix  = "memory://shared/"
	PendingQueue = "memory://pending"
)

func registerState(s *server.MCPServer, svc Services) {
	p := svc.Promotion
	s.AddResource(mcp.NewResource(StateSummary, "Shared state",
		mcp.WithResourceDescription("The team's current belief, compact, as markdown: the plan, open issues, active "+
			"constraints and decisions, and the latest task states (200 rows per list at most; it says how many more). "+
			"Row texts come from agents' notes and are fenced as data."),
		mcp.WithMIMEType("text/markdown"),
	), handler(svc.Log, func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		sum, err := p.Summary(ctx)
		return markdownContents(StateSummary, summaryMarkdown(sum)), err
	}))

	s.AddResourceTemplate(mcp.NewResourceTemplate(StatePrefix+"{bucket}", "Shared bucket",
		mcp.WithTemplateDescription("Every row of one shared bucket (plan, constraints, issues, decisions, results, "+
			"task_state, learnings), newest change first, as JSON."),
		mcp.WithTemplateMIMEType("application/json"),
	), handler(svc.Log, func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		b, err := memory.ParseBucket(arg(req, "bucket"))
		if err != nil {
			return nil, err
		}
		rows, err := p.State(ctx, memory.StateQuery{Bucket: b, Limit: 500})
		if err != nil {
			return nil, err
		}
		return jsonContents(req.Params.URI, map[string]any{"bucket": b, "rows": rows})
	}))

	s.AddResource(mcp.NewResource(PendingQueue, "Pending queue",
		mcp.WithResourceDescription("Writes waiting until their target can be identified safely, with reasons, "+
			"candidates and attempts, as markdown (the oldest 100; list_reviews pages further). Stale items wait for "+
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

// stateChanged maps a change of the shared state (a row, or every bucket
// after a replay) or of the pending queue to the URIs it touches.
func stateChanged(c memory.Change) []string {
	if c.Kind == memory.ChangePending {
		return []string{PendingQueue, StateSummary}
	}
	bucket, _, ok := memory.ParseStateChangeRef(c.Ref)
	if !ok {
		uris := []string{StateSummary}
		for _, b := range memory.Buckets {
			uris = append(uris, StatePrefix+string(b))
		}
		return uris
	}
	return []string{StateSummary, StatePrefix + string(bucket)}
}

// summaryMarkdown renders the summary for a model to read. Every text in it came
// from notes (some of them tool output), so each is fenced as data after the
// directive; ids, statuses and versions are the system's own.
func summaryMarkdown(s memory.StateSummary) string {
	var b strings.Builder
	b.WriteString("# Shared state\n\n" + memory.DataDirective + "\n\n## Plan\n\n")
	if s.Plan == nil {
		b.WriteString("No plan yet.\n")
	} else {
		b.WriteString(memory.RowBlock(*s.Plan) + "\n")
	}
	section(&b, "Open issues", memory.BucketIssues, s.OpenIssues, s.Omitted[memory.BucketIssues])
	section(&b, "Active constraints", memory.BucketConstraints, s.ActiveConstraints, s.Omitted[memory.BucketConstraints])
	section(&b, "Active decisions", memory.BucketDecisions, s.ActiveDecisions, s.Omitted[memory.BucketDecisions])
	section(&b, "Tasks", memory.BucketTaskState, s.Tasks, s.Omitted[memory.BucketTaskState])
	if s.PendingOpen+s.PendingStale > 0 {
		fmt.Fprintf(&b, "\n%d note(s) wait in the pending queue (%d stale): read memory://pending.\n", s.PendingOpen+s.PendingStale, s.PendingStale)
	}
	return b.String()
}

func section(b *strings.Builder, title string, bucket memory.Bucket, rows []memory.StateRow, omitted int) {
	fmt.Fprintf(b, "\n## %s\n\n", title)
	if len(rows) == 0 {
		b.WriteString("None.\n")
	}
	for _, r := range rows {
		b.WriteString(memory.RowBlock(r) + "\n")
	}
	if omitted > 0 {
		fmt.Fprintf(b, "... and %d more: read memory://shared/%s\n", omitted, bucket)
	}
}
