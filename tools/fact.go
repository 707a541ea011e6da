package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
)

// PublishFactArgs are the arguments of publish_fact.
type PublishFactArgs struct {
	FactID          string   `json:"fact_id,omitempty" jsonschema:"Id of the fact to create or replace, e.g. policy-jwt-auth (letters, digits, . _ : -). Omit to create a new fact with an id derived from the content."`
	Content         string   `json:"content" jsonschema:"The fact itself, stated so that it stands alone (at most --max-content-bytes, 32 KiB by default)."`
	Category        string   `json:"category" jsonschema:"enum=core_policy,enum=adr,enum=procedure,enum=convention,enum=other" jsonschema_description:"core_policy (rules every agent must follow; humans and senior agents only by default), adr (architecture decisions), procedure (how things are done), convention (naming, style) or other."`
	Tags            []string `json:"tags,omitempty" jsonschema:"Labels for filtering. The tag superseded_by:<fact_id> marks this fact as replaced by another."`
	ExpectedVersion *int     `json:"expected_version,omitempty" jsonschema:"Compare-and-set: the version you last read. The write fails with ECONFLICT if the fact has moved on. Use 0 to require that the fact does not exist yet."`
}

// RetractFactArgs are the arguments of retract_fact.
type RetractFactArgs struct {
	FactID          string `json:"fact_id" jsonschema:"Id of the fact to retract."`
	Reason          string `json:"reason,omitempty" jsonschema:"Why it is retracted; kept in the audit log."`
	ExpectedVersion *int   `json:"expected_version,omitempty" jsonschema:"Compare-and-set: the version you last read."`
}

// GetFactArgs are the arguments of get_fact.
type GetFactArgs struct {
	FactID         string `json:"fact_id" jsonschema:"Id of the fact."`
	IncludeHistory bool   `json:"include_history,omitempty" jsonschema:"Also return every operation on the fact (who published or retracted what, and when)."`
}

// QueryFactsArgs are the arguments of query_facts.
type QueryFactsArgs struct {
	Query      string   `json:"query,omitempty" jsonschema:"Free text; results are ranked by relevance (BM25). Omit to list the newest facts."`
	Categories []string `json:"categories,omitempty" jsonschema:"Only these categories: core_policy, adr, procedure, convention, other."`
	Tags       []string `json:"tags,omitempty" jsonschema:"Only facts carrying all of these tags."`
	AsOf       string   `json:"as_of,omitempty" jsonschema:"RFC 3339 time, e.g. 2026-03-01T00:00:00Z: search the facts as they stood then (time travel)."`
	Limit      *int     `json:"limit,omitempty" jsonschema:"Maximum results, 1 to 100 (default 10)."`
}

// ListFactsArgs are the arguments of list_facts.
type ListFactsArgs struct {
	Category string `json:"category" jsonschema:"enum=core_policy,enum=adr,enum=procedure,enum=convention,enum=other" jsonschema_description:"The category to list."`
	Offset   int    `json:"offset,omitempty" jsonschema:"How many facts to skip, for paging (default 0)."`
	Limit    *int   `json:"limit,omitempty" jsonschema:"Page size, 1 to 500 (default 50)."`
}

// FactResult is the result of publish_fact, retract_fact and get_fact.
type FactResult struct {
	Fact    memory.Fact            `json:"fact"`
	History []memory.FactOperation `json:"history,omitempty"`
	// Outcome, DuplicateOf and Conflicts say what publish_fact did.
	Outcome     memory.WriteOutcome `json:"outcome,omitempty" jsonschema:"publish_fact: stored (a new version), unchanged (the fact already says this: no new version) or duplicate (another active fact already says it: nothing stored; fact is that one)."`
	DuplicateOf string              `json:"duplicate_of,omitempty" jsonschema:"publish_fact, outcome duplicate: the id of the fact that already says it."`
	Conflicts   []memory.Conflict   `json:"conflicts,omitempty" jsonschema:"publish_fact: active facts this version contradicts, recorded open for review (list_conflicts, resolve_conflict)."`
}

// FactsResult is the result of query_facts.
type FactsResult struct {
	Facts []memory.Fact `json:"facts"`
	AsOf  *time.Time    `json:"as_of,omitempty"`
}

func registerFacts(s *server.MCPServer, svc Services) {
	registerFactListing(s, svc)
	facts := svc.Facts
	add(s, svc, mcp.NewTool("publish_fact",
		mcp.WithDescription("Publish an organisational fact (policy, architecture decision, procedure, convention) "+
			"to the shared, append-only fact log. Publishing an existing fact_id replaces its content as a new version; "+
			"every version is kept and auditable. Use this for knowledge that should bind every agent and outlive the "+
			"session, not for personal notes. Returns the fact id and its new version. A new fact that an active fact of "+
			"its category already says is not stored (outcome duplicate, duplicate_of); republishing a fact as it stands "+
			"stores no new version (unchanged); active facts the new version contradicts are returned as open conflicts."),
		mcp.WithInputSchema[PublishFactArgs](), mcp.WithOutputSchema[FactResult](),
	), func(ctx context.Context, a PublishFactArgs) (FactResult, string, error) {
		p, err := facts.Publish(ctx, memory.FactWrite{FactID: a.FactID, Content: a.Content,
			Category: memory.FactCategory(a.Category), Tags: a.Tags, ExpectedVersion: a.ExpectedVersion})
		if err != nil {
			return FactResult{}, "", err
		}
		r := FactResult{Fact: p.Fact, Outcome: p.Outcome, Conflicts: p.Conflicts}
		if p.Outcome == memory.WriteOutcomeDuplicate {
			r.DuplicateOf = p.ID
		}
		return r, renderPublished(p), nil
	})

	add(s, svc, mcp.NewTool("retract_fact",
		mcp.WithDescription("Retract an organisational fact that is no longer true. Nothing is erased: the retraction "+
			"is a new version in the log, the fact stops appearing in queries, and publishing the same fact_id again "+
			"reactivates it."),
		mcp.WithInputSchema[RetractFactArgs](), mcp.WithOutputSchema[FactResult](),
	), func(ctx context.Context, a RetractFactArgs) (FactResult, string, error) {
		f, err := facts.Retract(ctx, memory.FactRetract{FactID: a.FactID, Reason: a.Reason, ExpectedVersion: a.ExpectedVersion})
		return FactResult{Fact: f}, fmt.Sprintf("retracted %s (now version %d)", f.ID, f.Version), err
	})

	add(s, svc, mcp.NewTool("get_fact",
		mcp.WithDescription("Read one organisational fact by id, including retracted ones, optionally with its full "+
			"history of operations (author, time, content of each version)."),
		mcp.WithInputSchema[GetFactArgs](), mcp.WithOutputSchema[FactResult](),
	), func(ctx context.Context, a GetFactArgs) (FactResult, string, error) {
		f, err := facts.Get(ctx, a.FactID)
		if err != nil {
			return FactResult{}, "", err
		}
		res := FactResult{Fact: f}
		if a.IncludeHistory {
			if res.History, err = facts.History(ctx, a.FactID); err != nil {
				return res, "", err
			}
		}
		return res, memory.RenderFacts("fact "+f.ID, []memory.Fact{f}) + renderHistory(res.History, a.IncludeHistory), nil
	})

	add(s, svc, mcp.NewTool("query_facts",
		mcp.WithDescription("Search the organisational facts that are in force: free text ranked by relevance, "+
			"filtered by category and tags. Give as_of to see the facts as they stood at an earlier time. "+
			"Superseded facts are marked with superseded_by."),
		mcp.WithInputSchema[QueryFactsArgs](), mcp.WithOutputSchema[FactsResult](),
	), func(ctx context.Context, a QueryFactsArgs) (FactsResult, string, error) {
		asOf, err := memory.ParseTime("as_of", a.AsOf)
		if err != nil {
			return FactsResult{}, "", err
		}
		limit, err := count("limit", a.Limit)
		if err != nil {
			return FactsResult{}, "", err
		}
		cats := make([]memory.FactCategory, len(a.Categories))
		for i, c := range a.Categories {
			cats[i] = memory.FactCategory(c)
		}
		fs, err := facts.Query(ctx, memory.FactQuery{Text: a.Query, Categories: cats, Tags: a.Tags, AsOf: asOf, Limit: limit})
		res := FactsResult{Facts: fs}
		heading := "facts"
		if !asOf.IsZero() {
			res.AsOf = &asOf
			heading += " as of " + asOf.Format(time.RFC3339)
		}
		return res, memory.RenderFacts(heading, fs), err
	})
}

func registerFactListing(s *server.MCPServer, svc Services) {
	add(s, svc, mcp.NewTool("list_facts",
		mcp.WithDescription("List the facts in force in one category, oldest first, a page at a time, with the total "+
			"count. Use it to read every core policy or ADR; use query_facts to search."),
		mcp.WithInputSchema[ListFactsArgs](), mcp.WithOutputSchema[memory.FactPage](),
	), func(ctx context.Context, a ListFactsArgs) (memory.FactPage, string, error) {
		limit, err := count("limit", a.Limit)
		if err != nil {
			return memory.FactPage{}, "", err
		}
		page, err := svc.Facts.List(ctx, memory.FactCategory(a.Category), a.Offset, limit)
		if err != nil {
			return page, "", err
		}
		if len(page.Facts) == 0 {
			return page, fmt.Sprintf("no %s facts at offset %d (there are %d)", a.Category, page.Offset, page.Total), nil
		}
		heading := fmt.Sprintf("%s facts %d-%d of %d", a.Category, page.Offset+1, page.Offset+len(page.Facts), page.Total)
		return page, memory.RenderFacts(heading, page.Facts), nil
	})
}

func renderHistory(ops []memory.FactOperation, asked bool) string {
	if !asked {
		return ""
	}
	return "\n\n" + memory.RenderFactHistory(ops)
}

// renderPublished says what publish_fact did, and what the new version
// contradicts, the facts fenced as data.
func renderPublished(p memory.FactPublished) string {
	var b strings.Builder
	switch p.Outcome {
	case memory.WriteOutcomeDuplicate:
		fmt.Fprintf(&b, "duplicate: fact %s (version %d, %s) already says this; nothing stored. Publish to %s to change it.",
			p.ID, p.Version, p.Category, p.ID)
	case memory.WriteOutcomeUnchanged:
		fmt.Fprintf(&b, "unchanged: fact %s already says this at version %d (%s); no new version", p.ID, p.Version, p.Category)
	default:
		fmt.Fprintf(&b, "published %s version %d (%s)", p.ID, p.Version, p.Category)
	}
	if len(p.Conflicts) > 0 {
		fmt.Fprintf(&b, "\n\nIt contradicts %d active fact(s), recorded as open conflicts for someone with write access to decide "+
			"(resolve_conflict keeps one and retracts the other):\n\n%s\n", len(p.Conflicts), memory.DataDirective)
		for _, c := range p.Conflicts {
			fmt.Fprintf(&b, "\n- %s: %s\n  %s\n%s\n", c.ID, conflictLine(c), factHead(*c.OlderFact), memory.Fence("fact "+c.OlderID, c.OlderFact.Content))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
