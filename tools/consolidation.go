package tools

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
)

// ConsolidateMemoryArgs are the arguments of consolidate_memory.
type ConsolidateMemoryArgs struct {
	Namespace  string   `json:"namespace,omitempty" jsonschema:"Only memories in this namespace (default: every namespace)."`
	Categories []string `json:"categories,omitempty" jsonschema:"Only these categories: working, episodic, semantic, procedural, social (default: all)."`
	DryRun     bool     `json:"dry_run,omitempty" jsonschema:"Say what would change, and change nothing."`
	Strategy   string   `json:"strategy,omitempty" jsonschema:"simple (bullets), dual_mode (dense text verbatim, the rest summarised) or llm (the configured model). Default: the server's."`
	OlderThan  string   `json:"older_than,omitempty" jsonschema:"Only memories older than this, e.g. 36h or 7d (default 1 day); 0: all."`
	AgentID    string   `json:"agent_id,omitempty" jsonschema:"Whose memories (humans only; default your own)."`
}

// ConsolidateMemoryResult is the result of consolidate_memory.
type ConsolidateMemoryResult struct {
	memory.ConsolidationReport
}

// RestoreMemoryArgs are the arguments of restore_memory.
type RestoreMemoryArgs struct {
	ID      string `json:"id" jsonschema:"Id of your archived memory, e.g. one of a summary's sources."`
	AgentID string `json:"agent_id,omitempty" jsonschema:"Whose memory (humans only; default your own)."`
}

// ListMemoriesArgs are the arguments of list_memories.
type ListMemoriesArgs struct {
	Categories []string `json:"categories,omitempty" jsonschema:"Only these categories: working, episodic, semantic, procedural, social."`
	Namespaces []string `json:"namespaces,omitempty" jsonschema:"Only memories in one of these namespaces."`
	Tags       []string `json:"tags,omitempty" jsonschema:"Only memories carrying all of these tags."`
	States     []string `json:"states,omitempty" jsonschema:"active (the default), consolidated, archived, expired, forgotten."`
	Offset     *int     `json:"offset,omitempty" jsonschema:"How many to skip, for the next page (default 0)."`
	Limit      *int     `json:"limit,omitempty" jsonschema:"Memories per page, 1 to 500 (default 50)."`
	AgentID    string   `json:"agent_id,omitempty" jsonschema:"Whose memories (humans only; default your own)."`
}

// ListMemoriesResult is the result of list_memories.
type ListMemoriesResult struct {
	memory.EntryPage
}

// MemoryStatsArgs are the arguments of memory_stats.
type MemoryStatsArgs struct {
	AgentID string `json:"agent_id,omitempty" jsonschema:"Whose memories to count (humans only; default your own)."`
}

// MemoryStatsResult is the result of memory_stats.
type MemoryStatsResult struct {
	memory.MemoryStats
}

// registerMaintenance registers the tools that list, count and restore
// memories, and consolidate_memory when consolidation is configured.
func registerMaintenance(s *server.MCPServer, svc Services) {
	if svc.Consolidation != nil {
		registerConsolidate(s, svc)
	}
	add(s, svc, mcp.NewTool("restore_memory",
		mcp.WithDescription("Bring an archived memory (a summary's source, or one retention or the cap archived) back into search exactly as it was."),
		mcp.WithInputSchema[RestoreMemoryArgs](), mcp.WithOutputSchema[MemoryResult](),
	), func(ctx context.Context, a RestoreMemoryArgs) (MemoryResult, string, error) {
		e, err := svc.Memories.Restore(ctx, a.AgentID, a.ID)
		return MemoryResult{ID: e.ID, Memory: e}, "restored " + e.ID + " to search", err
	})

	add(s, svc, mcp.NewTool("list_memories",
		mcp.WithDescription("List your memories without a query, newest first, a page at a time, with the total: to review them, or find archived and consolidated ones (states)."),
		mcp.WithInputSchema[ListMemoriesArgs](), mcp.WithOutputSchema[ListMemoriesResult](),
	), func(ctx context.Context, a ListMemoriesArgs) (ListMemoriesResult, string, error) {
		q := memory.ListQuery{AgentID: a.AgentID, Namespaces: a.Namespaces, Tags: a.Tags}
		for _, c := range a.Categories {
			q.Categories = append(q.Categories, memory.Category(c))
		}
		for _, st := range a.States {
			q.States = append(q.States, memory.MemoryState(st))
		}
		var err error
		if q.Limit, err = count("limit", a.Limit); err != nil {
			return ListMemoriesResult{}, "", err
		}
		if a.Offset != nil {
			q.Offset = *a.Offset
		}
		page, err := svc.Memories.List(ctx, q)
		if err != nil {
			return ListMemoriesResult{}, "", err
		}
		text := fmt.Sprintf("%d of %d from %d\n", len(page.Memories), page.Total, page.Offset) + renderMemories(page.Memories, renderEntry)
		return ListMemoriesResult{page}, text, nil
	})

	add(s, svc, mcp.NewTool("memory_stats",
		mcp.WithDescription("Count your memories per category and state (active, consolidated, archived, expired, forgotten)."),
		mcp.WithInputSchema[MemoryStatsArgs](), mcp.WithOutputSchema[MemoryStatsResult](),
	), func(ctx context.Context, a MemoryStatsArgs) (MemoryStatsResult, string, error) {
		st, err := svc.Memories.Stats(ctx, a.AgentID)
		return MemoryStatsResult{st}, renderStats(st), err
	})
}

func registerConsolidate(s *server.MCPServer, svc Services) {
	add(s, svc, mcp.NewTool("consolidate_memory",
		mcp.WithDescription("Keep memory small: replace each group of 3 or more older memories about the same thing by one summary; the others are archived (restore_memory brings any back), and expired or over-retention memories are archived too. Run with dry_run first. Returns the groups and what was archived."),
		mcp.WithInputSchema[ConsolidateMemoryArgs](), mcp.WithOutputSchema[ConsolidateMemoryResult](),
	), func(ctx context.Context, a ConsolidateMemoryArgs) (ConsolidateMemoryResult, string, error) {
		r := memory.ConsolidationRequest{AgentID: a.AgentID, DryRun: a.DryRun}
		var err error
		if r.Strategy, err = memory.ParseConsolidationStrategy(a.Strategy); err != nil {
			return ConsolidateMemoryResult{}, "", err
		}
		if r.Categories, err = memory.ParseCategories(a.Categories); err != nil {
			return ConsolidateMemoryResult{}, "", err
		}
		if a.Namespace != "" {
			if err := memory.CheckID("namespace", a.Namespace); err != nil {
				return ConsolidateMemoryResult{}, "", err
			}
			r.Namespaces = []string{a.Namespace}
		}
		if r.OlderThan, err = memory.ParseAge("older_than", a.OlderThan); err != nil {
			return ConsolidateMemoryResult{}, "", err
		}
		rep, err := svc.Consolidation.Consolidate(ctx, r)
		return ConsolidateMemoryResult{rep}, renderConsolidation(rep), err
	})
}

func renderConsolidation(r memory.ConsolidationReport) string {
	var b strings.Builder
	verb := "consolidated"
	if r.DryRun {
		verb = "would consolidate"
	}
	if r.Skipped != "" {
		return "nothing done: " + r.Skipped
	}
	fmt.Fprintf(&b, "%s %d memories of %s into %d summaries (%s); active memories %d -> %d, tokens %d -> %d",
		verb, r.Consolidated, r.AgentID, len(r.Groups), r.Strategy, r.ActiveBefore, r.ActiveAfter, r.TokensBefore, r.TokensAfter)
	for _, a := range []struct {
		n   int
		why string
	}{{r.Retention, "by retention"}, {r.OverCap, "over the cap"}, {r.Expired, "expired"}} {
		if a.n > 0 {
			fmt.Fprintf(&b, "; archived %d %s", a.n, a.why)
		}
	}
	if len(r.Groups) == 0 {
		return b.String()
	}
	b.WriteString("\n\n" + memory.DataDirective + "\n")
	for _, g := range r.Groups {
		fmt.Fprintf(&b, "\n- %s/%s, %s: %s kept; %s -> %s\n", g.Namespace, g.Category, g.Mode, g.Kept,
			strings.Join(g.Sources, ", "), cmp.Or(g.SummaryID, "(dry run)"))
		b.WriteString(memory.Fence("summary", g.Summary) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func renderStats(st memory.MemoryStats) string {
	line := func(name string, c memory.StateCounts) string {
		return fmt.Sprintf("%s: %d active (%d summaries), %d consolidated, %d archived, %d expired, %d forgotten",
			name, c.Active, c.Summaries, c.Consolidated, c.Archived, c.Expired, c.Forgotten)
	}
	lines := []string{line("memories of "+st.AgentID, st.Total)}
	for _, c := range st.Categories {
		lines = append(lines, "- "+line(string(c.Category), c.StateCounts))
	}
	return strings.Join(lines, "\n")
}
