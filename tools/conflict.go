package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
)

// ListConflictsArgs are the arguments of list_conflicts.
type ListConflictsArgs struct {
	Resolutions []string `json:"resolutions,omitempty" jsonschema:"Only conflicts standing so: open (both memories kept, undecided; the default), newer_wins (the older was superseded), older_wins, both_hold, or all."`
	Limit       *int     `json:"limit,omitempty" jsonschema:"Maximum conflicts, 1 to 100 (default 10), newest first."`
	AgentID     string   `json:"agent_id,omitempty" jsonschema:"Whose conflicts (humans only; default your own, or for a human every agent's)."`
}

// ConflictsResult is the result of list_conflicts.
type ConflictsResult struct {
	Conflicts []memory.Conflict `json:"conflicts"`
}

// ResolveConflictArgs are the arguments of resolve_conflict.
type ResolveConflictArgs struct {
	ID     string `json:"id" jsonschema:"Id of the conflict, as remember or list_conflicts gave it."`
	Keep   string `json:"keep" jsonschema:"newer: the newer memory holds and the older is superseded; older: the other way round; both: they do not contradict each other, and both stay in search."`
	Reason string `json:"reason,omitempty" jsonschema:"Why, kept with the decision."`
}

// ConflictResult is the result of resolve_conflict.
type ConflictResult struct {
	Conflict memory.Conflict `json:"conflict"`
}

func registerConflicts(s *server.MCPServer, svc Services) {
	add(s, svc, mcp.NewTool("list_conflicts",
		mcp.WithDescription("List contradictions between your memories that remember found: a memory denying another, "+
			"or the same thing with another value (a different day, number, amount, time or name). Open ones kept "+
			"both memories in search until someone decides; resolve_conflict decides."),
		mcp.WithInputSchema[ListConflictsArgs](), mcp.WithOutputSchema[ConflictsResult](),
	), func(ctx context.Context, a ListConflictsArgs) (ConflictsResult, string, error) {
		q := memory.ConflictQuery{AgentID: a.AgentID}
		var err error
		if q.Resolutions, err = memory.ParseConflictResolutions(a.Resolutions); err != nil {
			return ConflictsResult{}, "", err
		}
		if q.Limit, err = count("limit", a.Limit); err != nil {
			return ConflictsResult{}, "", err
		}
		cs, err := svc.Memories.Conflicts(ctx, q)
		if err != nil {
			return ConflictsResult{}, "", err
		}
		return ConflictsResult{Conflicts: cs}, renderConflicts(cs), nil
	})

	add(s, svc, mcp.NewTool("resolve_conflict",
		mcp.WithDescription("Decide a conflict between two of your memories: keep the newer (the older leaves search, "+
			"kept and recallable as superseded), the older, or both (they do not contradict each other). A decision "+
			"can be changed by deciding again."),
		mcp.WithInputSchema[ResolveConflictArgs](), mcp.WithOutputSchema[ConflictResult](),
	), func(ctx context.Context, a ResolveConflictArgs) (ConflictResult, string, error) {
		keep, err := memory.ParseKeep(a.Keep)
		if err != nil {
			return ConflictResult{}, "", err
		}
		c, err := svc.Memories.ResolveConflict(ctx, a.ID, keep, a.Reason)
		if err != nil {
			return ConflictResult{}, "", err
		}
		return ConflictResult{Conflict: c}, renderConflicts([]memory.Conflict{c}), nil
	})
}

// renderConflicts renders conflicts for a model: each with both memories,
// fenced as data.
func renderConflicts(cs []memory.Conflict) string {
	if len(cs) == 0 {
		return "conflicts: none"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "conflicts (%d):\n\n%s\n", len(cs), memory.DataDirective)
	for _, c := range cs {
		fmt.Fprintf(&b, "\n- %s (%s, agent %s, %s)\n", c.ID, c.Resolution, c.AgentID, conflictLine(c))
		for _, e := range []*memory.Entry{c.Older, c.Newer} {
			if e != nil {
				head, id, content := renderEntry(*e)
				b.WriteString("  " + head + "\n" + memory.Fence("memory "+id, content) + "\n")
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
