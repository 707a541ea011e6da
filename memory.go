package memory

import (
	"context"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"
)

// Category classifies an agent memory (seed 001's memory types).
type Category string

// Memory categories.
const (
	CategoryWorking    Category = "working"    // the current task's context
	CategoryEpisodic   Category = "episodic"   // past events and decisions
	CategorySemantic   Category = "semantic"   // knowledge and facts learned
	CategoryProcedural Category = "procedural" // skills and how-to
	CategorySocial     Category = "social"     // people, preferences, relationships
)

// Categories lists every memory category in display order.
var Categories = []Category{CategoryWorking, CategoryEpisodic, CategorySemantic, CategoryProcedural, CategorySocial}

// DefaultCategory is the category of a memory remembered without one.
const DefaultCategory = CategorySemantic

// DefaultNamespace is the namespace of a memory remembered without one.
const DefaultNamespace = "default"

// ParseCategory validates a memory category name, in any case.
func ParseCategory(s string) (Category, error) {
	c := Category(strings.ToLower(strings.TrimSpace(s)))
	if slices.Contains(Categories, c) {
		return c, nil
	}
	return "", Errorf(EINVALID, "unknown category %q: use one of working, episodic, semantic, procedural, social", s)
}

// ParseCategories validates a list of category names.
func ParseCategories(names []string) ([]Category, error) {
	out := make([]Category, 0, len(names))
	for _, n := range names {
		c, err := ParseCategory(n)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// Scope selects whose memories a search reads.
type Scope string

// Search scopes.
const (
	ScopePersonal Scope = "personal" // the caller's own memories
	ScopeShared   Scope = "shared"   // memories other agents published to the shared space
	ScopeAll      Scope = "all"      // both
)

// ParseScope validates a scope name, in any case; empty means ScopeAll.
func ParseScope(s string) (Scope, error) {
	switch sc := Scope(strings.ToLower(strings.TrimSpace(s))); sc {
	case "":
		return ScopeAll, nil
	case ScopePersonal, ScopeShared, ScopeAll:
		return sc, nil
	}
	return "", Errorf(EINVALID, "unknown scope %q: use personal (your own memories), shared (memories other agents published) or all", s)
}

// Provenance says where a memory came from: who wrote it and, for a shared
// memory, who published it, when, and from which personal entry.
type Provenance struct {
	Author        Author     `json:"author"`
	Source        string     `json:"source,omitempty"`
	PublishedFrom string     `json:"published_from,omitempty"`
	PublishedBy   string     `json:"published_by,omitempty"`
	PublishedAt   *time.Time `json:"published_at,omitempty"`
	SharedAs      string     `json:"shared_as,omitempty"` // the active shared copy of a personal memory
	// Imported is the exact import that wrote the memory into this store.
	Imported *ImportProvenance `json:"imported,omitempty"`
}

// ImportProvenance is an exact import (memory-mcp import of an export into
// an empty store), as the store recorded it.
type ImportProvenance struct {
	ID     int64     `json:"id" jsonschema:"The import's number in this store."`
	At     time.Time `json:"at" jsonschema:"When the import ran."`
	By     string    `json:"by" jsonschema:"Who ran it, as a principal (human:NAME)."`
	File   string    `json:"file" jsonschema:"The file imported, as the importer named it."`
	SHA256 string    `json:"sha256" jsonschema:"SHA-256 of the file's bytes."`
	Format string    `json:"format" jsonschema:"The file's format."`
}

// Entry is one agent memory as stored.
type Entry struct {
	ID         string     `json:"id"`
	AgentID    string     `json:"agent_id"`
	Namespace  string     `json:"namespace"`
	Category   Category   `json:"category"`
	Content    string     `json:"content"`
	Tags       []string   `json:"tags"`
	Confidence float64    `json:"confidence"`
	Source     string     `json:"source,omitempty"`
	Shared     bool       `json:"shared"`
	CreatedAt  time.Time  `json:"created_at"`
	UpdatedAt  time.Time  `json:"updated_at"`
	OccurredAt time.Time  `json:"occurred_at"`
	ExpiresAt  *time.Time `json:"expires_at,omitempty"`
	// ForgottenAt is set once the memory is forgotten (or, for a shared
	// memory, retracted); the row is kept with the reason.
	ForgottenAt  *time.Time `json:"forgotten_at,omitempty"`
	ForgetReason string     `json:"forget_reason,omitempty"`
	// Expired marks a memory past its expires_at when it was read. Only its
	// author is ever shown one (search_memory with ids); searches never return them.
	Expired    bool        `json:"expired,omitempty"`
	Provenance *Provenance `json:"provenance,omitempty"`
	// ArchivedAt is set when maintenance archived the memory: it left every
	// default search and is kept whole, restorable by id as it was.
	ArchivedAt    *time.Time    `json:"archived_at,omitempty"`
	ArchiveReason ArchiveReason `json:"archive_reason,omitempty"`
	// ConsolidatedInto is the summary an archived memory went into.
	ConsolidatedInto string `json:"consolidated_into,omitempty"`
	// RestoredAt is when the memory was last brought back from the archive;
	// maintenance measures its age from then.
	RestoredAt *time.Time `json:"restored_at,omitempty"`
	// Sources are the memories a consolidated memory summarises, in order.
	Sources []string `json:"sources,omitempty"`
	// SeenCount is how many times the memory was remembered: a repeat
	// stores nothing and counts here, with when it was last said.
	SeenCount  int        `json:"seen_count,omitempty"`
	LastSeenAt *time.Time `json:"last_seen_at,omitempty"`
	// SupersededBy is the memory that replaced this one (archive reason
	// superseded): a correction or a newer contradicting statement.
	SupersededBy string `json:"superseded_by,omitempty"`
}

// Remembered is what remember did: stored the memory, or found that it
// repeats one the agent already has (Outcome duplicate), which it returns
// with its confidence raised to the higher of the two and its count and
// last-seen time brought up to date.
type Remembered struct {
	Entry
	Outcome WriteOutcome // stored, duplicate or merged
	// MergedFrom is, for outcome merged, the memory the new one merges and
	// supersedes.
	MergedFrom string
	// Tier is how a duplicate was found (DedupExact, DedupWords,
	// DedupSemantic, DedupModel).
	Tier string
	// RepeatID, for outcome duplicate, is the repeat that keeps the words
	// sent (see Repeat).
	RepeatID string
	// Conflicts are the contradictions the write found with the agent's
	// other memories, and what became of them.
	Conflicts []Conflict
}

// MemoryPublished is what publish_memory did: stored a shared copy
// (Outcome stored), or found that an active shared memory of the same
// namespace and category, any agent's, already says it (Outcome duplicate:
// nothing stored, Entry is that shared memory, counted once more, and Tier
// says how it was found). Conflicts are the active shared memories the new
// copy contradicts, recorded open: a shared memory is its publisher's, so no
// other agent's publish settles which holds.
type MemoryPublished struct {
	Entry
	Outcome   WriteOutcome // stored or duplicate
	Tier      string
	RepeatID  string // for outcome duplicate: the repeat that keeps the publish (see Repeat)
	Conflicts []Conflict
}

// Dedup tiers: how remember found that a memory repeats one.
const (
	DedupExact    = "exact"    // the same text but for case and spacing
	DedupWords    = "words"    // the same words in the same order, but for punctuation, "the", forms of "to be", spellings and plural endings
	DedupSemantic = "semantic" // the same content words in another order or form (Restates)
	DedupModel    = "model"    // a language model judged it says the same
)

// ArchiveReason says why a memory was archived.
type ArchiveReason string

// Archive reasons.
const (
	ArchiveConsolidated ArchiveReason = "consolidated" // summarised into ConsolidatedInto
	ArchiveRetention    ArchiveReason = "retention"    // older than its category's retention period
	ArchiveOverCap      ArchiveReason = "over_cap"     // beyond its agent's cap, the least valuable first
	ArchiveExpired      ArchiveReason = "expired"      // past expires_at: it left the indexes
	ArchiveSuperseded   ArchiveReason = "superseded"   // replaced by SupersededBy, which contradicts it
	ArchiveMerged       ArchiveReason = "merged"       // repeated with new tags: SupersededBy holds it with both's tags
)

// Active reports whether e is neither forgotten nor archived: in search
// unless it has expired (see HasExpired).
func (e Entry) Active() bool { return e.ForgottenAt == nil && e.ArchivedAt == nil }

// HasExpired reports whether e has expired at now.
func (e *Entry) HasExpired(now time.Time) bool {
	return e.ExpiresAt != nil && !e.ExpiresAt.After(now)
}

// EntryWrite asks to remember something (seed 004's MemoryStoreRequest plus
// occurred_at). The owner comes from the caller's identity.
type EntryWrite struct {
	Namespace  string
	Category   Category
	Content    string
	Tags       []string
	Confidence *float64 // nil means 1
	Source     string
	OccurredAt time.Time // zero means now
	ExpiresAt  time.Time // zero means never
	// Supersedes is the id of one of the caller's active memories that this
	// one corrects: it is archived as superseded, pointing here.
	Supersedes string
	// NotARepeatOf is a memory the caller may read that this write was
	// answered a repeat of and that says something else: dedup does not
	// count the write a repeat of it (every other gate runs as ever).
	NotARepeatOf string
}

// MaxSourceLen bounds the free-text source of a memory.
const MaxSourceLen = 512

// Validate checks the write against the structural rules, fills defaults and
// normalises tags. now is the time the write would be stamped with.
func (w *EntryWrite) Validate(maxBytes int, now time.Time) error {
	if err := CheckContent("content", w.Content, maxBytes); err != nil {
		return err
	}
	if w.Namespace == "" {
		w.Namespace = DefaultNamespace
	}
	if err := CheckID("namespace", w.Namespace); err != nil {
		return err
	}
	if w.Category == "" {
		w.Category = DefaultCategory
	}
	c, err := ParseCategory(string(w.Category))
	if err != nil {
		return err
	}
	w.Category = c
	tags, err := NormalizeTags(w.Tags)
	if err != nil {
		return err
	}
	w.Tags = tags
	if w.Confidence != nil && (math.IsNaN(*w.Confidence) || *w.Confidence < 0 || *w.Confidence > 1) {
		return Errorf(EINVALID, "confidence %v is out of range: use a number from 0 (a guess) to 1 (certain)", *w.Confidence)
	}
	if err := CheckText("source", w.Source, 0); err != nil {
		return err
	}
	if w.NotARepeatOf != "" {
		if err := CheckID("not_a_repeat_of", w.NotARepeatOf); err != nil {
			return err
		}
	}
	if len(w.Source) > MaxSourceLen {
		return Errorf(EINVALID, "source is %d bytes; the limit is %d", len(w.Source), MaxSourceLen)
	}
	if w.OccurredAt.IsZero() {
		w.OccurredAt = now
	}
	if !w.ExpiresAt.IsZero() && !w.ExpiresAt.After(now) {
		return Errorf(EINVALID, "expires_at %s is not in the future (now is %s): omit it for a memory that does not expire",
			w.ExpiresAt.Format(time.RFC3339), now.Format(time.RFC3339))
	}
	return nil
}

// ConfidenceOr returns the write's confidence, 1 when none was given.
func (w *EntryWrite) ConfidenceOr() float64 {
	if w.Confidence == nil {
		return 1
	}
	return *w.Confidence
}

// Search limits.
const (
	DefaultSearchLimit = 10
	MaxSearchLimit     = 100
	MaxQueryBytes      = 4096
	MaxNamespaces      = 32
	MaxRecallIDs       = 100
)

// Query is a memory search (seed 004's MemoryQuery).
type Query struct {
	Text         string
	Scope        Scope
	Categories   []Category
	Tags         []string // all must be present
	Namespaces   []string
	Since, Until time.Time // on occurred_at: since inclusive, until exclusive
	Limit        int
	MinRelevance *float64 // nil means the configured default
	// IncludeArchived also searches the caller's archived memories (those
	// consolidated, aged out or over the cap), ranked by keywords.
	IncludeArchived bool
	// AgentID is whose personal memories are searched: the caller's
	// (empty), or for a human another agent's, ranked as that agent's own
	// search would rank them (the review page).
	AgentID string
}

// Validate checks the query, fills defaults and normalises its lists.
func (q *Query) Validate() error {
	if err := checkQueryText(q.Text); err != nil {
		return err
	}
	var err error
	if q.Scope, err = ParseScope(string(q.Scope)); err != nil {
		return err
	}
	if q.Categories, err = ParseCategories(categoryNames(q.Categories)); err != nil {
		return err
	}
	if q.Tags, err = NormalizeTags(q.Tags); err != nil {
		return err
	}
	if err := q.validateNamespaces(); err != nil {
		return err
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && !q.Since.Before(q.Until) {
		return Errorf(EINVALID, "since %s is not before until %s: the range would be empty",
			q.Since.Format(time.RFC3339), q.Until.Format(time.RFC3339))
	}
	if q.Limit, err = CheckLimit(q.Limit, DefaultSearchLimit, MaxSearchLimit); err != nil {
		return err
	}
	if m := q.MinRelevance; m != nil && (math.IsNaN(*m) || *m < 0 || *m > 1) {
		return Errorf(EINVALID, "min_relevance %v is out of range: use a score from 0 to 1", *m)
	}
	return nil
}

// checkQueryText rejects query text that is empty, too long or has no word
// to search for: "!!!" matches no keyword, and its vector would only be the
// embedder's guess for no text at all.
func checkQueryText(text string) error {
	if err := CheckContent("query", text, 0); err != nil {
		return err
	}
	if len(text) > MaxQueryBytes {
		return Errorf(EINVALID, "query is %d bytes; the limit is %d bytes (%d over): search with the key words, not a whole text",
			len(text), MaxQueryBytes, len(text)-MaxQueryBytes)
	}
	if strings.IndexFunc(text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) < 0 {
		return Errorf(EINVALID, "query %q has no searchable words: use the names and terms the memory would contain", clip(text, 64))
	}
	return nil
}

func (q *Query) validateNamespaces() error {
	if len(q.Namespaces) > MaxNamespaces {
		return Errorf(EINVALID, "%d namespaces given; the limit is %d", len(q.Namespaces), MaxNamespaces)
	}
	out := make([]string, 0, len(q.Namespaces))
	for _, ns := range q.Namespaces {
		if err := CheckID("namespace", ns); err != nil {
			return err
		}
		if !slices.Contains(out, ns) {
			out = append(out, ns)
		}
	}
	q.Namespaces = out
	return nil
}

func categoryNames(cs []Category) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = string(c)
	}
	return out
}

// Hit is one ranked search result.
type Hit struct {
	Entry
	// Score is the fused rank score in [0, 1] that ranked the hit: 1 for
	// first place in every list, so the top hit scores about 1 whatever
	// it says. It compares hits of one search only.
	Score float64 `json:"score"`
	// Relevance is how much of the query the memory's words answer, on
	// one scale for every query: its keyword score (BM25) over that of a
	// memory holding each query word once, at most 1. The query's rare
	// words weigh most; 0 is a memory found by meaning only, holding no
	// query word.
	Relevance float64 `json:"relevance"`
}

// MemoryService is agent memory: personal entries, the shared space they can
// be published to, and hybrid search over both. Every method reads the caller
// from ctx; another agent's personal memory is indistinguishable from one that
// does not exist.
type MemoryService interface {
	// Remember stores a personal memory, unless it repeats one of the
	// caller's active memories in the same namespace and category.
	Remember(ctx context.Context, w EntryWrite) (Remembered, error)
	Search(ctx context.Context, q Query) ([]Hit, error)
	// Recall returns the entries with these ids, in the order asked.
	Recall(ctx context.Context, ids []string) ([]Entry, error)
	// Forget soft-deletes one of the caller's memories, keeping it with reason.
	Forget(ctx context.Context, id, reason string) (Entry, error)
	// ForgetAll forgets several of the caller's memories in one
	// transaction: all of them, or none when one cannot be forgotten.
	ForgetAll(ctx context.Context, ids []string, reason string) ([]Entry, error)
	// PublishEntry copies one of the caller's personal memories to the
	// shared space, unless an active shared memory already says it (one
	// that p.NotARepeatOf names aside).
	PublishEntry(ctx context.Context, p PublishWrite) (MemoryPublished, error)
	// Repeats lists writes answered "duplicate", with the words they sent:
	// the caller's own, or for a human any agent's.
	Repeats(ctx context.Context, q RepeatQuery) ([]Repeat, error)
	// StoreRepeat stores a repeat's words as their own memory after all, as
	// its author's (the caller's own repeat, or for a human any agent's),
	// through every gate but the dedup answer it overrides.
	StoreRepeat(ctx context.Context, id string) (Remembered, error)
	// Retract withdraws the caller's shared copy (by its id or its original's).
	Retract(ctx context.Context, id string) (Entry, error)
	// RetractOf is Retract of agent's shared copy: the caller's (empty), or
	// for a human any agent's.
	RetractOf(ctx context.Context, agent, id string) (Entry, error)
	// Restore brings one of the caller's archived memories back into search,
	// exactly as it was archived (agent: a human may name whose).
	Restore(ctx context.Context, agent, id string) (Entry, error)
	// List pages through the caller's own memories without a query, newest
	// first, with the total (a human may name another agent in the query).
	List(ctx context.Context, q ListQuery) (EntryPage, error)
	// Stats counts an agent's memories per category and state: the caller's,
	// or for a human caller the agent named.
	Stats(ctx context.Context, agent string) (MemoryStats, error)
	// Counts counts the memories List would page through under q's
	// categories and namespaces, in every state (q's states, tags and page
	// aside; Summaries is not counted): the caller's own, or for a human
	// the agent named, or with q.Shared the shared space.
	Counts(ctx context.Context, q ListQuery) (StateCounts, error)
	// Conflicts lists contradictions between an agent's memories, newest
	// first, with both memories.
	Conflicts(ctx context.Context, q ConflictQuery) ([]Conflict, error)
	// ResolveConflict decides a conflict: keep the newer memory, the older,
	// or both; the one not kept is archived as superseded, and one kept
	// that was superseded comes back.
	ResolveConflict(ctx context.Context, id string, keep ConflictResolution, reason string) (Conflict, error)
	// ForgetOf is Forget of agent's memory: the caller's (empty), or for a
	// human any agent's.
	ForgetOf(ctx context.Context, agent, id, reason string) (Entry, error)
	// Story reads what is recorded about one memory in any state, for a
	// human (any agent's) or the memory's own agent: see MemoryStory.
	Story(ctx context.Context, id string) (MemoryStory, error)
	// Trends counts, per step of q, conflicts opened and settled, memories
	// consolidated and each agent's active memories: for a human only.
	Trends(ctx context.Context, q TrendQuery) (MemoryTrends, error)
	// Agents lists every agent that has kept memories, by id, with how
	// many of its personal and shared ones are in search: for a human only.
	Agents(ctx context.Context) ([]AgentMemories, error)
}

// AgentMemories is how many of one agent's memories are in search (active:
// neither forgotten nor archived), its own and its copies in the shared
// space.
type AgentMemories struct {
	AgentID  string
	Personal int
	Shared   int
}

// MemoryStory is what is recorded about one memory besides its repeats and
// conflicts (RepeatQuery.MemoryIDs, ConflictQuery.MemoryID read those).
type MemoryStory struct {
	// Entry is the memory in whatever state it is, with its provenance and,
	// for a summary, its sources.
	Entry Entry
	// Stamp is the verdict on its provenance stamp: StampValid,
	// StampUnstamped, StampMismatched, StampNoKey or StampUnchecked.
	Stamp string
	// Replaced are the memories it superseded or that were merged into it.
	Replaced []Entry
	// Writes are the write log's lines that name it, newest first.
	Writes []WriteRecord
}

// The verdicts on a memory's provenance stamp (MemoryStory.Stamp).
const (
	StampValid      = "valid"      // the covered columns are as written
	StampUnstamped  = "unstamped"  // written before stamps, not yet trusted
	StampMismatched = "mismatched" // changed after the write, or stamped with another key
	StampNoKey      = "no key"     // this store has no provenance key to check with
	StampUnchecked  = "unchecked"  // this engine's stamps are checked by verify only
)
