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

// RememberArgs are the arguments of remember.
type RememberArgs struct {
	Content      string   `json:"content" jsonschema:"One self-contained statement that makes sense without this conversation: who, what, why."`
	Category     string   `json:"category,omitempty" jsonschema:"semantic (facts; the default), episodic (what happened), procedural (how to), social (people), working (this task's scratch)."`
	Namespace    string   `json:"namespace,omitempty" jsonschema:"A project or topic, e.g. billing-service (default 'default')."`
	Tags         []string `json:"tags,omitempty" jsonschema:"Labels for exact filtering."`
	Confidence   *float64 `json:"confidence,omitempty" jsonschema:"0 (a guess) to 1 (certain; the default)."`
	Source       string   `json:"source,omitempty" jsonschema:"Where it came from: a URL, a file, 'user said'."`
	OccurredAt   string   `json:"occurred_at,omitempty" jsonschema:"RFC 3339 time the event happened, when not now."`
	ExpiresAt    string   `json:"expires_at,omitempty" jsonschema:"RFC 3339 time after which it is no longer true and never returned."`
	Supersedes   string   `json:"supersedes,omitempty" jsonschema:"Id of your memory this one corrects: it leaves search, still recallable."`
	NotARepeatOf string   `json:"not_a_repeat_of,omitempty" jsonschema:"Id of the memory these words were answered a repeat of (duplicate_of) but that says something different: they are stored as their own memory."`
}

// RememberResult is the result of remember.
type RememberResult struct {
	ID     string       `json:"id"`
	Memory memory.Entry `json:"memory"`
	// Outcome: stored (a new memory), duplicate (nothing stored: it repeats
	// DuplicateOf, which is returned, counted once more), or merged (it
	// repeats MergedFrom with tags that one lacked: the new memory carries
	// the tags of both and supersedes it).
	Outcome     memory.WriteOutcome `json:"outcome"`
	DuplicateOf string              `json:"duplicate_of,omitempty"`
	// RepeatID is, for outcome duplicate, the repeat that keeps the words
	// sent (recall_memory of DuplicateOf lists it).
	RepeatID   string `json:"repeat_id,omitempty"`
	MergedFrom string `json:"merged_from,omitempty"`
	// Conflicts are the memories this one contradicts: superseded
	// (resolution newer_wins) or both kept for review (open).
	Conflicts []memory.Conflict `json:"conflicts,omitempty"`
}

// remembered shapes remember's result and its readable line; what names
// what was stored ("remembered", "recorded task X (done) as").
func remembered(r memory.Remembered, what string) (RememberResult, string) {
	res := RememberResult{ID: r.ID, Memory: r.Entry, Outcome: r.Outcome, Conflicts: r.Conflicts, MergedFrom: r.MergedFrom, RepeatID: r.RepeatID}
	text := fmt.Sprintf("%s %s (%s, namespace %s)", what, r.ID, r.Category, r.Namespace)
	if r.Outcome == memory.WriteOutcomeMerged {
		text += fmt.Sprintf("; it repeats %s with new tags, so it holds the tags of both and supersedes %s (recallable)", r.MergedFrom, r.MergedFrom)
	}
	if r.Outcome == memory.WriteOutcomeDuplicate {
		res.DuplicateOf = r.ID
		text = fmt.Sprintf("nothing stored: this repeats %s (%s), which you have now said %d times; it is returned as it is. "+
			"Your words are kept as repeat %s (recall_memory %s shows them). If they say something different, call remember "+
			"again with the same arguments and not_a_repeat_of %q to store them as their own memory",
			r.ID, dedupHow(r.Tier), r.SeenCount, r.RepeatID, r.ID, r.ID)
	}
	for _, c := range r.Conflicts {
		text += "\n" + conflictLine(c)
	}
	return res, text
}

// dedupHow says how a duplicate of tier was found.
func dedupHow(tier string) string {
	how := map[string]string{memory.DedupWords: "the same words", memory.DedupSemantic: "the same words in another order or form",
		memory.DedupModel: "the same meaning, as the model judged"}[tier]
	if how == "" {
		how = "the same text"
	}
	return how
}

// conflictLine says what became of a conflict a write found.
func conflictLine(c memory.Conflict) string {
	what := string(c.Kind)
	switch {
	case c.Kind == memory.ConflictStated:
		what = "as you said"
	case c.Kind == memory.ConflictNegation:
		what = "one denies what the other says"
	case c.Slot != "":
		// The values are the memories' words: they stay in the structured
		// result and in the fenced memories, not in this line.
		what = "another " + c.Slot
	}
	if c.Subject == memory.ConflictOfFacts {
		return factConflictLine(c, what)
	}
	if memory.IsSharedConflict(c.ID) {
		return sharedConflictLine(c, what)
	}
	switch c.Resolution {
	case memory.ConflictNewerWins:
		return fmt.Sprintf("superseded %s (%s): it left search and stays recallable; conflict %s is settled newer_wins "+
			"(list_conflicts lists it with resolutions [\"newer_wins\"]; resolve_conflict keeps the older instead)", c.OlderID, what, c.ID)
	case memory.ConflictOpen:
		return fmt.Sprintf("contradicts %s (%s); both kept, conflict %s is open: resolve_conflict decides, or remember with supersedes",
			c.OlderID, what, c.ID)
	}
	return fmt.Sprintf("conflict %s with %s (%s) is settled %s (list_conflicts lists it with resolutions [%q])", c.ID, c.OlderID, what,
		c.Resolution, c.Resolution)
}

// sharedConflictLine says how a conflict between shared memories stands.
func sharedConflictLine(c memory.Conflict, what string) string {
	switch c.Resolution {
	case memory.ConflictOpen:
		return fmt.Sprintf("shared memory %s contradicts shared memory %s (%s); both stay shared, conflict %s is open until a human "+
			"decides it with resolve_conflict", c.NewerID, c.OlderID, what, c.ID)
	case memory.ConflictNewerWins:
		return fmt.Sprintf("shared memory %s holds over %s (%s); %s is retracted", c.NewerID, c.OlderID, what, c.OlderID)
	case memory.ConflictOlderWins:
		return fmt.Sprintf("shared memory %s holds over %s (%s); %s is retracted", c.OlderID, c.NewerID, what, c.NewerID)
	}
	return fmt.Sprintf("shared memories %s and %s both hold (%s)", c.OlderID, c.NewerID, what)
}

// SearchMemoryArgs are the arguments of search_memory.
type SearchMemoryArgs struct {
	Query           string   `json:"query" jsonschema:"The words the memory would use, e.g. 'postgres backup schedule'."`
	Scope           string   `json:"scope,omitempty" jsonschema:"personal (yours), shared (what any agent published, you too) or all (default: yours and others' shared)."`
	Categories      []string `json:"categories,omitempty" jsonschema:"Only these categories."`
	Tags            []string `json:"tags,omitempty" jsonschema:"Only memories with all of these tags."`
	Namespaces      []string `json:"namespaces,omitempty" jsonschema:"Only these namespaces."`
	Since           string   `json:"since,omitempty" jsonschema:"RFC 3339: only events at or after it."`
	Until           string   `json:"until,omitempty" jsonschema:"RFC 3339: only events before it."`
	Limit           *int     `json:"limit,omitempty" jsonschema:"Maximum results, 1 to 100 (default 10)."`
	MinRelevance    *float64 `json:"min_relevance,omitempty" jsonschema:"Drop hits whose score (rank in this search, 0 to 1) is below this. Default 0."`
	IncludeArchived bool     `json:"include_archived,omitempty" jsonschema:"Also search your archived memories, by keywords."`
}

// SearchHit is one search_memory result.
type SearchHit struct {
	ID        string          `json:"id"`
	Content   string          `json:"content"`
	Category  memory.Category `json:"category"`
	Namespace string          `json:"namespace"`
	Tags      []string        `json:"tags"`
	// Score ranks the hits of this search (1: first in every ranking);
	// Relevance compares across searches (see memory.Hit).
	Score      float64   `json:"score"`
	Relevance  float64   `json:"relevance"`
	CreatedAt  time.Time `json:"created_at"`
	OccurredAt time.Time `json:"occurred_at"`
	Shared     bool      `json:"shared"`
	AgentID    string    `json:"agent_id"`
	// Sources: for a summary consolidation made, the memories it replaces
	// (recall_memory or restore_memory them for the originals).
	Sources []string `json:"sources,omitempty"`
	// ArchiveReason: for an archived memory (include_archived), why it left
	// search: consolidated (into ConsolidatedInto), retention, over_cap.
	ArchiveReason    memory.ArchiveReason `json:"archive_reason,omitempty"`
	ConsolidatedInto string               `json:"consolidated_into,omitempty"`
}

// SearchMemoryResult is the result of search_memory.
type SearchMemoryResult struct {
	Results []SearchHit `json:"results"`
}

// RecallMemoryArgs are the arguments of recall_memory.
type RecallMemoryArgs struct {
	IDs []string `json:"ids" jsonschema:"Ids of the memories to read in full, as search_memory returned them (1 to 100)."`
}

// RecallMemoryResult is the result of recall_memory.
type RecallMemoryResult struct {
	Memories []memory.Entry `json:"memories"`
	// Repeats are your writes answered "duplicate" of these memories, with
	// the words you sent, newest first.
	Repeats []memory.Repeat `json:"repeats,omitempty"`
}

// ForgetArgs are the arguments of forget.
type ForgetArgs struct {
	IDs    []string `json:"ids" jsonschema:"Ids of your memories to forget (from search_memory), 1 to 100; all are forgotten or none."`
	Reason string   `json:"reason,omitempty" jsonschema:"Why: wrong, obsolete, superseded by another memory. Kept with the memory."`
}

// PublishMemoryArgs are the arguments of publish_memory.
type PublishMemoryArgs struct {
	ID           string `json:"id" jsonschema:"Id of your memory to share."`
	NotARepeatOf string `json:"not_a_repeat_of,omitempty" jsonschema:"Id of the shared memory a publish of this memory was answered a repeat of (duplicate_of) that says something different: the copy is shared as its own; every other check runs as ever."`
}

// MemoryIDArgs are the arguments of retract_memory.
type MemoryIDArgs struct {
	ID string `json:"id" jsonschema:"Id of the memory."`
}

// PublishResult is the result of publish_memory.
type PublishResult struct {
	ID     string       `json:"id"`
	Memory memory.Entry `json:"memory"`
	// Outcome: stored (a new shared copy), or duplicate (nothing stored: an
	// active shared memory, DuplicateOf, already says it, and is returned).
	Outcome     memory.WriteOutcome `json:"outcome"`
	DuplicateOf string              `json:"duplicate_of,omitempty"`
	// RepeatID is, for outcome duplicate, the repeat that records the
	// publish (recall_memory of DuplicateOf lists it).
	RepeatID string `json:"repeat_id,omitempty"`
	// Conflicts are the shared memories the new copy contradicts, open
	// until a human decides.
	Conflicts []memory.Conflict `json:"conflicts,omitempty"`
}

// published shapes publish_memory's result and its readable line.
func published(id string, p memory.MemoryPublished) (PublishResult, string) {
	res := PublishResult{ID: p.ID, Memory: p.Entry, Outcome: p.Outcome, Conflicts: p.Conflicts}
	text := fmt.Sprintf("published %s as shared memory %s", id, p.ID)
	if p.Outcome == memory.WriteOutcomeDuplicate {
		res.DuplicateOf, res.RepeatID = p.ID, p.RepeatID
		text = fmt.Sprintf("nothing stored: shared memory %s, published by %s, already says this (%s); it is returned as it is, "+
			"and the publish is kept as repeat %s. If %s says something different, call publish_memory again with id %q and "+
			"not_a_repeat_of %q to share it as its own",
			p.ID, p.AgentID, dedupHow(p.Tier), p.RepeatID, id, id, p.ID)
	}
	for _, c := range p.Conflicts {
		text += "\n" + conflictLine(c)
	}
	return res, text
}

// MemoryResult is the result of retract_memory.
type MemoryResult struct {
	ID     string       `json:"id"`
	Memory memory.Entry `json:"memory"`
}

func registerMemories(s *server.MCPServer, svc Services) {
	mem := svc.Memories
	add(s, svc, mcp.NewTool("remember",
		mcp.WithDescription("Store a memory that should outlive this conversation: a preference, a decision and why, a fact about a project or person, how a task was done, what happened. One self-contained statement per memory; skip small talk, secrets and what the code or docs say. Personal until you publish_memory it. Returns its id, and any contradiction it found; a repeat of one of your memories stores nothing (duplicate_of; not_a_repeat_of stores it if it says something different)."),
		mcp.WithInputSchema[RememberArgs](), mcp.WithOutputSchema[RememberResult](),
	), func(ctx context.Context, a RememberArgs) (RememberResult, string, error) {
		w := memory.EntryWrite{Namespace: a.Namespace, Category: memory.Category(a.Category), Content: a.Content,
			Tags: a.Tags, Confidence: a.Confidence, Source: a.Source, Supersedes: a.Supersedes, NotARepeatOf: a.NotARepeatOf}
		var err error
		if w.OccurredAt, err = memory.ParseTime("occurred_at", a.OccurredAt); err != nil {
			return RememberResult{}, "", err
		}
		if w.ExpiresAt, err = memory.ParseTime("expires_at", a.ExpiresAt); err != nil {
			return RememberResult{}, "", err
		}
		r, err := mem.Remember(ctx, w)
		if err != nil {
			return RememberResult{}, "", err
		}
		res, text := remembered(r, "remembered")
		return res, text, nil
	})

	add(s, svc, mcp.NewTool("search_memory",
		mcp.WithDescription("Search your memories (and shared ones) before answering from assumptions: at a task's start, or when the user refers to earlier work, preferences or decisions. Query with the words the memory would contain. Returns hits best first, each with relevance: the share of the query's words (rare words weighing most) the memory holds, 1 = all, comparable across searches; 0 = found by meaning alone."),
		mcp.WithInputSchema[SearchMemoryArgs](), mcp.WithOutputSchema[SearchMemoryResult](),
	), func(ctx context.Context, a SearchMemoryArgs) (SearchMemoryResult, string, error) {
		q, err := searchQuery(a)
		if err != nil {
			return SearchMemoryResult{}, "", err
		}
		hits, err := mem.Search(ctx, q)
		res := SearchMemoryResult{Results: make([]SearchHit, len(hits))}
		for i, h := range hits {
			res.Results[i] = SearchHit{ID: h.ID, Content: h.Content, Category: h.Category, Namespace: h.Namespace, Tags: h.Tags,
				Score: h.Score, Relevance: h.Relevance, CreatedAt: h.CreatedAt, OccurredAt: h.OccurredAt, Shared: h.Shared, AgentID: h.AgentID,
				Sources: h.Sources, ArchiveReason: h.ArchiveReason, ConsolidatedInto: h.ConsolidatedInto}
		}
		return res, renderMemories(hits, renderHit), err
	})

	add(s, svc, mcp.NewTool("recall_memory",
		mcp.WithDescription("Read memories in full by id, with provenance (author, source; for a shared memory its publisher and original), and your writes answered duplicate of them (repeats). Forgotten memories come back marked forgotten_at, with the reason."),
		mcp.WithInputSchema[RecallMemoryArgs](), mcp.WithOutputSchema[RecallMemoryResult](),
	), func(ctx context.Context, a RecallMemoryArgs) (RecallMemoryResult, string, error) {
		es, err := mem.Recall(ctx, a.IDs)
		if err != nil {
			return RecallMemoryResult{}, "", err
		}
		// The caller's own repeats, a human's too: what another agent sent
		// is its own to read back.
		who, _ := memory.IdentityFrom(ctx)
		reps, err := mem.Repeats(ctx, memory.RepeatQuery{AgentID: who.AgentID, MemoryIDs: a.IDs, Limit: memory.MaxSearchLimit})
		if err != nil {
			return RecallMemoryResult{}, "", err
		}
		text := renderMemories(es, renderEntry)
		if len(reps) > 0 {
			text += "\n\n" + renderRepeats(reps)
		}
		return RecallMemoryResult{Memories: es, Repeats: reps}, text, nil
	})

	add(s, svc, mcp.NewTool("forget",
		mcp.WithDescription("Forget your memories that are wrong or obsolete: they leave search and are kept, with the reason, for audit. To correct a memory, forget it and remember the right statement. A shared copy stays until retract_memory. Summaries made from a forgotten memory are forgotten too."),
		mcp.WithInputSchema[ForgetArgs](), mcp.WithOutputSchema[RecallMemoryResult](),
	), func(ctx context.Context, a ForgetArgs) (RecallMemoryResult, string, error) {
		es, err := mem.ForgetAll(ctx, a.IDs, a.Reason)
		if err != nil {
			return RecallMemoryResult{}, "", err
		}
		lines := make([]string, len(es))
		for i, e := range es {
			lines[i] = "forgot " + e.ID
			if e.Provenance != nil && e.Provenance.SharedAs != "" {
				lines[i] += fmt.Sprintf("; it is still shared as %s, which other agents find until you retract_memory it", e.Provenance.SharedAs)
			}
		}
		return RecallMemoryResult{Memories: es}, strings.Join(lines, "\n"), nil
	})

	add(s, svc, mcp.NewTool("publish_memory",
		mcp.WithDescription("Share one of your memories with every agent (their scope shared or all finds it), for what the team should know, not private context. Returns the shared copy's id, or the shared memory that already says it (outcome duplicate; not_a_repeat_of shares it if it says something different); contradictions with shared memories stay open for a human."),
		mcp.WithInputSchema[PublishMemoryArgs](), mcp.WithOutputSchema[PublishResult](),
	), func(ctx context.Context, a PublishMemoryArgs) (PublishResult, string, error) {
		p, err := mem.PublishEntry(ctx, memory.PublishWrite{ID: a.ID, NotARepeatOf: a.NotARepeatOf})
		if err != nil {
			return PublishResult{}, "", err
		}
		res, text := published(a.ID, p)
		return res, text, nil
	})

	add(s, svc, mcp.NewTool("retract_memory",
		mcp.WithDescription("Withdraw a memory you shared, by the shared copy's id or its original's. Other agents stop finding it; your own memory stays."),
		mcp.WithInputSchema[MemoryIDArgs](), mcp.WithOutputSchema[MemoryResult](),
	), func(ctx context.Context, a MemoryIDArgs) (MemoryResult, string, error) {
		e, err := mem.Retract(ctx, a.ID)
		return MemoryResult{ID: e.ID, Memory: e}, "retracted shared memory " + e.ID, err
	})
}

// searchQuery turns search_memory's arguments into a query.
func searchQuery(a SearchMemoryArgs) (memory.Query, error) {
	q := memory.Query{Text: a.Query, Scope: memory.Scope(a.Scope), Tags: a.Tags, Namespaces: a.Namespaces, MinRelevance: a.MinRelevance,
		IncludeArchived: a.IncludeArchived}
	for _, c := range a.Categories {
		q.Categories = append(q.Categories, memory.Category(c))
	}
	var err error
	if q.Since, err = memory.ParseTime("since", a.Since); err != nil {
		return q, err
	}
	if q.Until, err = memory.ParseTime("until", a.Until); err != nil {
		return q, err
	}
	q.Limit, err = count("limit", a.Limit)
	return q, err
}

// renderMemories renders memories for a model to read: the data directive
// once, then for each memory a heading of the system's own fields and its
// content fenced as data, since another agent may have written it.
func renderMemories[T any](items []T, render func(T) (head, id, content string)) string {
	if len(items) == 0 {
		return "memories: none"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "memories (%d):\n\n%s\n", len(items), memory.DataDirective)
	for _, it := range items {
		head, id, content := render(it)
		b.WriteString("\n" + head + "\n" + memory.Fence("memory "+id, content) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// renderRepeats renders the writes answered "duplicate" of recalled
// memories, each with the words sent, fenced as a memory's are.
func renderRepeats(reps []memory.Repeat) string {
	var b strings.Builder
	fmt.Fprintf(&b, "repeats (%d): writes of yours answered duplicate, nothing stored; not_a_repeat_of stores one as its own memory\n", len(reps))
	for _, r := range reps {
		fmt.Fprintf(&b, "\n- %s (%s, %s, said %s, repeat of %s", r.ID, r.Tool, r.Tier, r.SaidAt.Format(time.RFC3339), r.MemoryID)
		if r.From != "" {
			fmt.Fprintf(&b, ", publishing %s", r.From)
		}
		if r.StoredAs != "" {
			fmt.Fprintf(&b, ", stored after all as %s", r.StoredAs)
		}
		b.WriteString(")\n" + memory.Fence("repeat "+r.ID, r.Content) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func renderHit(h memory.Hit) (head, id, content string) {
	head, id, content = renderEntry(h.Entry)
	return fmt.Sprintf("- %s (relevance %.2f, %s", h.ID, h.Relevance, strings.TrimPrefix(head, "- "+h.ID+" (")), id, content
}

func renderEntry(e memory.Entry) (head, id, content string) {
	var b strings.Builder
	fmt.Fprintf(&b, "- %s (%s, %s, occurred %s", e.ID, e.Category, e.Namespace, e.OccurredAt.Format(time.RFC3339))
	if e.Shared {
		fmt.Fprintf(&b, ", shared by %s", e.AgentID)
	}
	if e.ForgottenAt != nil {
		fmt.Fprintf(&b, ", FORGOTTEN %s", e.ForgottenAt.Format(time.RFC3339))
	}
	switch {
	case e.ArchiveReason == memory.ArchiveConsolidated:
		fmt.Fprintf(&b, ", archived into summary %s", e.ConsolidatedInto)
	case e.ArchiveReason == memory.ArchiveSuperseded:
		fmt.Fprintf(&b, ", superseded by %s", e.SupersededBy)
	case e.ArchivedAt != nil:
		fmt.Fprintf(&b, ", archived (%s)", e.ArchiveReason)
	}
	if len(e.Sources) > 0 {
		fmt.Fprintf(&b, ", summary of %s", strings.Join(e.Sources, " "))
	}
	b.WriteString(")")
	// Tags are the writer's words too, so they go inside the fence.
	content = e.Content
	if len(e.Tags) > 0 {
		content += "\n\ntags: " + strings.Join(e.Tags, ", ")
	}
	if e.ForgottenAt != nil && e.ForgetReason != "" {
		content += "\n\nforgotten because: " + e.ForgetReason
	}
	return b.String(), e.ID, content
}
