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
	Content      string   `json:"content" jsonschema:"The memory, as one self-contained statement that will make sense later without this conversation: who, what, and why (max 32 KiB by default)."`
	Category     string   `json:"category,omitempty" jsonschema:"semantic (default: facts and knowledge), episodic (events and decisions: what happened), procedural (how to do something), social (people, their preferences and relationships), working (scratch context for the current task)."`
	Namespace    string   `json:"namespace,omitempty" jsonschema:"A project or topic to file it under, e.g. billing-service (letters, digits, . _ : -; default 'default'). Searches can be narrowed to namespaces."`
	Tags         []string `json:"tags,omitempty" jsonschema:"Short labels for exact filtering, e.g. [\"deploy\", \"postgres\"]."`
	Confidence   *float64 `json:"confidence,omitempty" jsonschema:"How sure you are, 0 (a guess) to 1 (certain; the default)."`
	Source       string   `json:"source,omitempty" jsonschema:"Where it came from: a URL, a file, 'user said', a tool name. Kept as provenance."`
	OccurredAt   string   `json:"occurred_at,omitempty" jsonschema:"RFC 3339 time the remembered event happened, e.g. 2026-03-01T14:00:00Z, when that is not now. Recency ranking and since/until filters use it."`
	ExpiresAt    string   `json:"expires_at,omitempty" jsonschema:"RFC 3339 time after which the memory is no longer true and must not be returned, e.g. the end of a freeze. Omit for lasting memories."`
	Supersedes   string   `json:"supersedes,omitempty" jsonschema:"Id of one of your memories that this one corrects or replaces: it leaves search, kept and recallable, marked superseded by the new one."`
	NotARepeatOf string   `json:"not_a_repeat_of,omitempty" jsonschema:"Id of a memory a remember of these words was answered a repeat of (duplicate_of) that says something different: the words are stored as their own memory; every other check runs as ever."`
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
		return fmt.Sprintf("superseded %s (%s): it left search and stays recallable; conflict %s", c.OlderID, what, c.ID)
	case memory.ConflictOpen:
		return fmt.Sprintf("contradicts %s (%s); both kept, conflict %s is open: resolve_conflict decides, or remember with supersedes",
			c.OlderID, what, c.ID)
	}
	return fmt.Sprintf("conflict %s with %s (%s): %s", c.ID, c.OlderID, what, c.Resolution)
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
	Query           string   `json:"query" jsonschema:"What you are looking for, in the words the memory would use: names, terms, topics (e.g. 'postgres backup schedule' rather than 'what did we decide?')."`
	Scope           string   `json:"scope,omitempty" jsonschema:"personal: only your own memories; shared: memories other agents published; all (default): both."`
	Categories      []string `json:"categories,omitempty" jsonschema:"Only these categories: working, episodic, semantic, procedural, social."`
	Tags            []string `json:"tags,omitempty" jsonschema:"Only memories carrying all of these tags."`
	Namespaces      []string `json:"namespaces,omitempty" jsonschema:"Only memories in one of these namespaces."`
	Since           string   `json:"since,omitempty" jsonschema:"RFC 3339 time: only memories of events that occurred at or after it."`
	Until           string   `json:"until,omitempty" jsonschema:"RFC 3339 time: only memories of events that occurred before it."`
	Limit           *int     `json:"limit,omitempty" jsonschema:"Maximum results, 1 to 100 (default 10)."`
	MinRelevance    *float64 `json:"min_relevance,omitempty" jsonschema:"Drop results scoring below this, 0 to 1. A memory ranked first by every ranking that found anything (keywords, word similarity, vectors, the period the query names) scores 1; one far down every ranking scores near 0. Default 0."`
	IncludeArchived bool     `json:"include_archived,omitempty" jsonschema:"true: also search your archived memories (those consolidated into a summary, or archived by retention or the memory cap), by keywords. Default false."`
}

// SearchHit is one search_memory result.
type SearchHit struct {
	ID         string          `json:"id"`
	Content    string          `json:"content"`
	Category   memory.Category `json:"category"`
	Namespace  string          `json:"namespace"`
	Tags       []string        `json:"tags"`
	Score      float64         `json:"score"`
	CreatedAt  time.Time       `json:"created_at"`
	OccurredAt time.Time       `json:"occurred_at"`
	Shared     bool            `json:"shared"`
	AgentID    string          `json:"agent_id"`
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
	ID     string `json:"id" jsonschema:"Id of your memory to forget."`
	Reason string `json:"reason,omitempty" jsonschema:"Why: wrong, obsolete, superseded by another memory. Kept with the memory."`
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

// MemoryResult is the result of forget and retract_memory.
type MemoryResult struct {
	ID     string       `json:"id"`
	Memory memory.Entry `json:"memory"`
}

func registerMemories(s *server.MCPServer, svc Services) {
	mem := svc.Memories
	add(s, svc, mcp.NewTool("remember",
		mcp.WithDescription("Store a memory that should outlive this conversation: a user's preference, a decision and "+
			"why it was made, a fact about a project or person, how a task was done, what happened. Remember as soon as "+
			"you learn something you or another agent will need again; skip small talk, secrets and what the code or "+
			"docs already say. Write one self-contained statement per memory. Memories are personal to you until you "+
			"publish_memory them. Returns the new memory's id; if it repeats one of your memories, nothing is stored, the words are kept "+
			"as a repeat (recall_memory of the memory lists them), and remember with not_a_repeat_of stores them if they say something different."),
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
		mcp.WithDescription("Search stored memories before you answer from assumptions: at the start of a task, when the "+
			"user refers to earlier work, preferences or decisions, or before asking them something they may have told "+
			"you already. Keyword and semantic matches are fused and ranked; expired and forgotten memories are never "+
			"returned, archived ones only with include_archived (a summary lists the memories it replaced in sources). Query with the names and terms the memory would contain; if nothing fits, rephrase or widen the "+
			"filters. scope: personal (yours), shared (published by other agents) or all (default). Use recall_memory "+
			"on a result's id for its provenance."),
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
				Score: h.Score, CreatedAt: h.CreatedAt, OccurredAt: h.OccurredAt, Shared: h.Shared, AgentID: h.AgentID,
				Sources: h.Sources, ArchiveReason: h.ArchiveReason, ConsolidatedInto: h.ConsolidatedInto}
		}
		return res, renderMemories(hits, renderHit), err
	})

	add(s, svc, mcp.NewTool("recall_memory",
		mcp.WithDescription("Read memories in full by id (from search_memory): every field and the provenance: who wrote "+
			"it, its source, and for a shared memory who published it, when, and from which memory. Forgotten memories "+
			"are returned marked with forgotten_at and the reason. Your writes answered duplicate of these memories are listed "+
			"under repeats, with the words you sent."),
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
		mcp.WithDescription("Forget one of your memories that is wrong or obsolete. It stops appearing in searches and is "+
			"kept, with your reason, for audit. To correct a memory, forget it and remember the corrected statement. A "+
			"memory you shared stays shared until you retract_memory it (forget refuses a shared copy's id). A summary made from it (consolidate_memory) is "+
			"forgotten too, and the summary's other sources come back to search; forgetting a summary brings its sources back."),
		mcp.WithInputSchema[ForgetArgs](), mcp.WithOutputSchema[MemoryResult](),
	), func(ctx context.Context, a ForgetArgs) (MemoryResult, string, error) {
		e, err := mem.Forget(ctx, a.ID, a.Reason)
		if err != nil {
			return MemoryResult{}, "", err
		}
		text := "forgot " + e.ID
		if e.Provenance != nil && e.Provenance.SharedAs != "" {
			text += fmt.Sprintf("; it is still shared as %s, which other agents find until you retract_memory it", e.Provenance.SharedAs)
		}
		return MemoryResult{ID: e.ID, Memory: e}, text, err
	})

	add(s, svc, mcp.NewTool("publish_memory",
		mcp.WithDescription("Share one of your personal memories with every other agent: a copy goes to the shared space, "+
			"where their searches (scope shared or all) find it, marked with you as publisher and the memory it came "+
			"from. Publish what the team should know (conventions, decisions, gotchas), not private context. Returns "+
			"the shared copy's id; if a shared memory of the same namespace and category already says it (any agent's), "+
			"nothing is stored and that one is returned (outcome duplicate; if it says something different, publish again with "+
			"not_a_repeat_of its id). A copy that contradicts shared memories is "+
			"stored, with each conflict left open for a human to decide."),
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
		mcp.WithDescription("Withdraw a memory you shared, by the shared copy's id or by the id of your memory it was "+
			"published from. Other agents stop finding it; your personal memory is untouched, and the shared copy is "+
			"kept for audit."),
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
	return fmt.Sprintf("- %s (score %.2f, %s", h.ID, h.Score, strings.TrimPrefix(head, "- "+h.ID+" (")), id, content
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
