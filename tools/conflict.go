package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
)

// ListConflictsArgs are the arguments of list_conflicts.
type ListConflictsArgs struct {
	Resolutions []string `json:"resolutions,omitempty" jsonschema:"Only conflicts standing so: open (both memories kept, undecided; the default), newer_wins (the older was superseded), older_wins, both_hold, or all."`
	Limit       *int     `json:"limit,omitempty" jsonschema:"Maximum conflicts, 1 to 100 (default 10), newest first."`
	AgentID     string   `json:"agent_id,omitempty" jsonschema:"Whose conflicts between memories (humans only; default your own, or for a human every agent's). Naming an agent lists memories only."`
	Subject     string   `json:"subject,omitempty" jsonschema:"enum=memories,enum=facts" jsonschema_description:"Only conflicts between memories (your own, or for a human every agent's) or between organisational facts (everyone's); default both."`
}

// ConflictsResult is the result of list_conflicts.
type ConflictsResult struct {
	Conflicts []memory.Conflict `json:"conflicts"`
}

// ResolveConflictArgs are the arguments of resolve_conflict.
type ResolveConflictArgs struct {
	ID     string `json:"id" jsonschema:"Id of the conflict, as remember or list_conflicts gave it."`
	Keep   string `json:"keep" jsonschema:"newer: the newer memory or fact holds and the older is superseded (a fact: retracted); older: the other way round; both: they do not contradict each other, and both stay."`
	Reason string `json:"reason,omitempty" jsonschema:"Why, kept with the decision."`
}

// ConflictResult is the result of resolve_conflict.
type ConflictResult struct {
	Conflict memory.Conflict `json:"conflict"`
}

func registerConflicts(s *server.MCPServer, svc Services) {
	add(s, svc, mcp.NewTool("list_conflicts",
		mcp.WithDescription("List contradictions found between your memories, between shared memories, and between facts (one denies the other, or another value). Open ones keep both until resolve_conflict decides."),
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
		if q.Subject, err = memory.ParseConflictSubject(a.Subject); err != nil {
			return ConflictsResult{}, "", err
		}
		cs, err := listConflicts(ctx, svc, q)
		if err != nil {
			return ConflictsResult{}, "", err
		}
		return ConflictsResult{Conflicts: cs}, renderConflicts(cs), nil
	})

	add(s, svc, mcp.NewTool("resolve_conflict",
		mcp.WithDescription("Decide a conflict: keep newer (the older is superseded, still recallable), older, or both (no contradiction); deciding again changes it. For facts, keeping one retracts the other and needs write access to its category. Shared-memory conflicts (scf_...) only a human decides."),
		mcp.WithInputSchema[ResolveConflictArgs](), mcp.WithOutputSchema[ConflictResult](),
	), func(ctx context.Context, a ResolveConflictArgs) (ConflictResult, string, error) {
		keep, err := memory.ParseKeep(a.Keep)
		if err != nil {
			return ConflictResult{}, "", err
		}
		resolve := svc.Memories.ResolveConflict
		if memory.IsFactConflict(a.ID) {
			resolve = svc.Facts.ResolveConflict
		}
		c, err := resolve(ctx, a.ID, keep, a.Reason)
		if err != nil {
			return ConflictResult{}, "", err
		}
		return ConflictResult{Conflict: c}, renderConflicts([]memory.Conflict{c}), nil
	})
}

// listConflicts lists the conflicts q asks for, between memories and
// between facts, newest first.
func listConflicts(ctx context.Context, svc Services, q memory.ConflictQuery) ([]memory.Conflict, error) {
	if err := q.Check(); err != nil {
		return nil, err
	}
	cs := []memory.Conflict{}
	if q.Subject != memory.ConflictOfFacts {
		mine, err := svc.Memories.Conflicts(ctx, q)
		if err != nil {
			return nil, err
		}
		cs = append(cs, mine...)
	}
	if q.Subject != memory.ConflictOfMemories && q.AgentID == "" {
		facts, err := svc.Facts.Conflicts(ctx, q)
		if err != nil {
			return nil, err
		}
		cs = append(cs, facts...)
	}
	slices.SortStableFunc(cs, func(a, b memory.Conflict) int { return b.DetectedAt.Compare(a.DetectedAt) })
	return cs[:min(len(cs), q.Limit)], nil
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
		whose := "agent " + c.AgentID
		if c.Subject == memory.ConflictOfFacts {
			whose = "organisational facts"
		}
		fmt.Fprintf(&b, "\n- %s (%s, %s, %s)\n", c.ID, c.Resolution, whose, conflictLine(c))
		for _, e := range []*memory.Entry{c.Older, c.Newer} {
			if e != nil {
				head, id, content := renderEntry(*e)
				b.WriteString("  " + head + "\n" + memory.Fence("memory "+id, content) + "\n")
			}
		}
		for _, f := range []*memory.Fact{c.OlderFact, c.NewerFact} {
			if f != nil {
				b.WriteString("  " + factHead(*f) + "\n" + memory.Fence("fact "+f.ID, f.Content) + "\n")
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// factConflictLine says how a conflict between facts stands.
func factConflictLine(c memory.Conflict, what string) string {
	switch c.Resolution {
	case memory.ConflictOpen:
		return fmt.Sprintf("fact %s version %d contradicts fact %s version %d (%s); both stand until someone with write access "+
			"decides with resolve_conflict", c.NewerID, c.NewerVersion, c.OlderID, c.OlderVersion, what)
	case memory.ConflictNewerWins:
		return fmt.Sprintf("fact %s holds over %s (%s); %s is retracted", c.NewerID, c.OlderID, what, c.OlderID)
	case memory.ConflictOlderWins:
		return fmt.Sprintf("fact %s holds over %s (%s); %s is retracted", c.OlderID, c.NewerID, what, c.NewerID)
	}
	return fmt.Sprintf("facts %s and %s both hold (%s)", c.OlderID, c.NewerID, what)
}

// factHead is the line above a fact in a conflict: its id, version,
// category and whether it stands.
func factHead(f memory.Fact) string {
	state := "active"
	if !f.Active() {
		state = "retracted"
	}
	return fmt.Sprintf("fact %s version %d (%s, %s)", f.ID, f.Version, f.Category, state)
}
