package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
)

// StateArgs are the arguments of shared_state.
type StateArgs struct {
	Bucket string `json:"bucket,omitempty" jsonschema:"One of plan, constraints, issues, decisions, results, task_state, learnings. Omit for all."`
	Status string `json:"status,omitempty" jsonschema:"Only rows in this status: open or resolved (issues), active or invalidated (constraints), active or superseded (decisions), active (the others)."`
	Limit  *int   `json:"limit,omitempty" jsonschema:"Maximum rows per bucket, 1 to 500 (default 50), newest change first."`
}

// StateResult is the result of shared_state.
type StateResult struct {
	Rows []memory.StateRow `json:"rows"`
}

// ListPendingArgs are the arguments of list_pending.
type ListPendingArgs struct {
	All   bool `json:"all,omitempty" jsonschema:"Also list items that left the queue (committed or dropped), with who resolved them and how."`
	Limit *int `json:"limit,omitempty" jsonschema:"Maximum items, 1 to 500 (default 100), oldest first; the result says how many there are in all."`
}

// ResolvePendingArgs are the arguments of resolve_pending.
type ResolvePendingArgs struct {
	PendingID  int64  `json:"pending_id" jsonschema:"The pending item, as list_pending shows it."`
	TargetID   string `json:"target_id,omitempty" jsonschema:"Bind the item to this row (snake_case id) and commit it. Give this or drop_reason."`
	DropReason string `json:"drop_reason,omitempty" jsonschema:"Drop the item, for this reason (kept on record). Give this or target_id."`
}

func registerState(s *server.MCPServer, svc Services) {
	p := svc.Promotion
	add(s, svc, mcp.NewTool("shared_state",
		mcp.WithDescription("Read the team's shared state (plan, constraints, issues, decisions, results, task states, learnings) by bucket and status, before acting rather than trusting raw notes. Rows change only through promoted notes."),
		mcp.WithInputSchema[StateArgs](), mcp.WithOutputSchema[StateResult](),
	), func(ctx context.Context, a StateArgs) (StateResult, string, error) {
		limit, err := count("limit", a.Limit)
		if err != nil {
			return StateResult{}, "", err
		}
		rows, err := p.State(ctx, memory.StateQuery{Bucket: memory.Bucket(a.Bucket), Status: a.Status, Limit: limit})
		return StateResult{Rows: rows}, renderRows(rows), err
	})

	add(s, svc, mcp.NewTool("list_pending",
		mcp.WithDescription("List notes waiting in the pending queue because their target was ambiguous or unknown, with the reason, candidate rows and retries. A note's text is shown only to its author and humans."),
		mcp.WithInputSchema[ListPendingArgs](), mcp.WithOutputSchema[memory.PendingList](),
	), func(ctx context.Context, a ListPendingArgs) (memory.PendingList, string, error) {
		limit, err := count("limit", a.Limit)
		if err != nil {
			return memory.PendingList{}, "", err
		}
		l, err := p.ListPending(ctx, memory.PendingQuery{All: a.All, Limit: limit})
		return l, memory.RenderPending(l), err
	})

	add(s, svc, mcp.NewTool("resolve_pending",
		mcp.WithDescription("Curator action, for humans only: bind a pending item to a target row, which commits its "+
			"write through the ledger and teaches the row the note's phrasing, or drop it with a reason. Both are "+
			"recorded. Agents get EFORBIDDEN."),
		mcp.WithInputSchema[ResolvePendingArgs](), mcp.WithOutputSchema[memory.CuratorResult](),
	), func(ctx context.Context, a ResolvePendingArgs) (memory.CuratorResult, string, error) {
		res, err := p.ResolvePending(ctx, memory.PendingDecision{PendingID: a.PendingID, TargetID: a.TargetID, DropReason: a.DropReason})
		if err != nil {
			return res, "", err
		}
		text := fmt.Sprintf("pending item %d %s", res.Pending.ID, res.Pending.Status)
		if res.Outcome != nil {
			text += ": " + res.Outcome.Summary()
		}
		return res, text, nil
	})
}

// renderRows renders rows for a model to read: the data directive once, then
// each row's block (see RowBlock).
func renderRows(rows []memory.StateRow) string {
	if len(rows) == 0 {
		return "shared rows: none"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "shared rows (%d):\n\n%s\n", len(rows), memory.DataDirective)
	for _, r := range rows {
		b.WriteString("\n" + memory.RowBlock(r) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
