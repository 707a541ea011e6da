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
	FactID          string   `json:"fact_id,omitempty" jsonschema:"Id to create or replace, e.g. policy-jwt-auth; omit for a new id from the content."`
	Content         string   `json:"content" jsonschema:"The fact, stated so that it stands alone."`
	Category        string   `json:"category" jsonschema:"enum=core_policy,enum=adr,enum=procedure,enum=convention,enum=other" jsonschema_description:"core_policy (rules every agent obeys; humans and seniors), adr, procedure, convention or other."`
	Tags            []string `json:"tags,omitempty" jsonschema:"Labels; superseded_by:<fact_id> marks it replaced."`
	ExpectedVersion *int     `json:"expected_version,omitempty" jsonschema:"The version you last read (ECONFLICT if it moved on); 0: the fact must not exist yet."`
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
		mcp.WithDescription("Publish an organisational fact (policy, decision, procedure, convention) that binds every agent, to the append-only fact log; an existing fact_id gets a new version. Returns the fact and its version, or outcome duplicate or unchanged when nothing new was said, with any contradicting facts as open conflicts."),
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
		mcp.WithDescription("Retract a fact that is no longer true: a new version in the log; the fact leaves queries, and publishing its fact_id again brings it back."),
		mcp.WithInputSchema[RetractFactArgs](), mcp.WithOutputSchema[FactResult](),
	), func(ctx context.Context, a RetractFactArgs) (FactResult, string, error) {
		f, err := facts.Retract(ctx, memory.FactRetract{FactID: a.FactID, Reason: a.Reason, ExpectedVersion: a.ExpectedVersion})
		return FactResult{Fact: f}, fmt.Sprintf("retracted %s (now version %d)", f.ID, f.Version), err
	})

	add(s, svc, mcp.NewTool("get_fact",
		mcp.WithDescription("Read one fact by id, retracted ones too, optionally with the history of every version."),
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
		mcp.WithDescription("Search the facts in force by text, category and tags, or as they stood at as_of. Superseded facts are marked superseded_by."),
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
		mcp.WithDescription("List the facts in force in one category, oldest first, a page at a time, with the total: to read every core policy or ADR."),
		mcp.WithInputSchema[ListFactsArgs](), mcp.WithOutputSchema[memory.FactPage](),
	), func(ctx context.Context, a ListFactsArgs) (memory.FactPage, string, error) {
		if a.Category == "" {
			return memory.FactPage{}, "", memory.Errorf(memory.EINVALID,
				"category is required: give one of core_policy, adr, procedure, convention, other (query_facts searches every category)")
		}
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
