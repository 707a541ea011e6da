package memory

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MemoryState is where a memory stands: in search, or why not.
type MemoryState string

// Memory states, as list_memories filters and counts them.
const (
	StateActive       MemoryState = "active"       // in search (summaries included)
	StateConsolidated MemoryState = "consolidated" // archived into a summary
	StateArchived     MemoryState = "archived"     // archived by retention or the cap
	StateSuperseded   MemoryState = "superseded"   // replaced by a memory that contradicts it, or merged into one
	StateExpired      MemoryState = "expired"      // past expires_at
	StateForgotten    MemoryState = "forgotten"    // forgotten, or a retracted shared copy
)

// MemoryStates lists every state in display order.
var MemoryStates = []MemoryState{StateActive, StateConsolidated, StateSuperseded, StateArchived, StateExpired, StateForgotten}

// StateOf returns the state of e at now.
func StateOf(e Entry, now time.Time) MemoryState {
	switch {
	case e.ForgottenAt != nil:
		return StateForgotten
	case e.HasExpired(now) || e.ArchiveReason == ArchiveExpired:
		return StateExpired
	case e.ArchiveReason == ArchiveConsolidated:
		return StateConsolidated
	case e.ArchiveReason == ArchiveSuperseded || e.ArchiveReason == ArchiveMerged:
		return StateSuperseded
	case e.ArchivedAt != nil:
		return StateArchived
	}
	return StateActive
}

// ParseMemoryStates validates a list of state names; empty means active.
func ParseMemoryStates(names []string) ([]MemoryState, error) {
	if len(names) == 0 {
		return []MemoryState{StateActive}, nil
	}
	var out []MemoryState
	for _, n := range names {
		st := MemoryState(strings.ToLower(strings.TrimSpace(n)))
		if !slices.Contains(MemoryStates, st) {
			return nil, Errorf(EINVALID, "unknown state %q: use active, consolidated, superseded, archived, expired or forgotten", n)
		}
		if !slices.Contains(out, st) {
			out = append(out, st)
		}
	}
	return out, nil
}

// ListQuery selects the caller's own memories without a query (seed 004's
// metadata-only retrieve): newest first, a page at a time.
type ListQuery struct {
	AgentID    string // whose: empty for the caller; another agent's only for a human
	Categories []Category
	Namespaces []string
	Tags       []string // all must be present
	States     []MemoryState
	// Shared lists the shared space (every publisher's copies) instead of
	// one agent's personal memories; AgentID is then ignored.
	Shared bool
	Offset int
	Limit  int
	// Before, with BeforeID, starts the page after the memory created at
	// Before with id BeforeID, in the listing's order: keyed paging, whose
	// deep pages read no more than the first (an offset passes over every
	// row before it).
	Before   time.Time
	BeforeID string
}

// Validate checks the filters and fills the defaults (active memories, 50 a
// page, at most 500).
func (q *ListQuery) Validate() error {
	var err error
	if q.Categories, err = ParseCategories(categoryNames(q.Categories)); err != nil {
		return err
	}
	if q.Tags, err = NormalizeTags(q.Tags); err != nil {
		return err
	}
	ns := Query{Namespaces: q.Namespaces}
	if err := ns.validateNamespaces(); err != nil {
		return err
	}
	q.Namespaces = ns.Namespaces
	names := make([]string, len(q.States))
	for i, st := range q.States {
		names[i] = string(st)
	}
	if q.States, err = ParseMemoryStates(names); err != nil {
		return err
	}
	if q.Offset < 0 {
		return Errorf(EINVALID, "offset %d is negative", q.Offset)
	}
	if q.Before.IsZero() != (q.BeforeID == "") {
		return Errorf(EINVALID, "before and before_id go together: the creation time and id of the last memory of the page before")
	}
	if q.BeforeID != "" {
		if err := CheckID("before_id", q.BeforeID); err != nil {
			return err
		}
		if !time.Unix(0, q.Before.UnixNano()).Equal(q.Before) {
			return Errorf(EINVALID, "before %s is out of the range a memory's creation time can have", q.Before.Format(time.RFC3339))
		}
	}
	q.Limit, err = CheckLimit(q.Limit, 50, 500)
	return err
}

// EntryPage is one page of a listing with the total it was cut from.
type EntryPage struct {
	AgentID  string  `json:"agent_id"`
	Memories []Entry `json:"memories"`
	Total    int     `json:"total"`
	Offset   int     `json:"offset"`
}

// StateCounts counts memories by state.
type StateCounts struct {
	Active       int `json:"active"`
	Summaries    int `json:"summaries"` // of the active, those that consolidate others
	Consolidated int `json:"consolidated"`
	Superseded   int `json:"superseded"`
	Archived     int `json:"archived"`
	Expired      int `json:"expired"`
	Forgotten    int `json:"forgotten"`
}

// Add counts one more memory in state st; summary says it consolidates others.
func (c *StateCounts) Add(st MemoryState, summary bool) {
	c.AddN(st, 1)
	if summary && st == StateActive {
		c.Summaries++
	}
}

// AddN counts n more memories in state st (fewer, for n below 0).
func (c *StateCounts) AddN(st MemoryState, n int) {
	switch st {
	case StateActive:
		c.Active += n
	case StateConsolidated:
		c.Consolidated += n
	case StateSuperseded:
		c.Superseded += n
	case StateArchived:
		c.Archived += n
	case StateExpired:
		c.Expired += n
	case StateForgotten:
		c.Forgotten += n
	}
}

// Of is the count in state st.
func (c StateCounts) Of(st MemoryState) int {
	switch st {
	case StateActive:
		return c.Active
	case StateConsolidated:
		return c.Consolidated
	case StateSuperseded:
		return c.Superseded
	case StateArchived:
		return c.Archived
	case StateExpired:
		return c.Expired
	case StateForgotten:
		return c.Forgotten
	}
	return 0
}

// CategoryStats counts one category's memories by state.
type CategoryStats struct {
	Category Category `json:"category"`
	StateCounts
}

// MemoryStats counts an agent's personal memories, per category and in all.
type MemoryStats struct {
	AgentID    string          `json:"agent_id"`
	Categories []CategoryStats `json:"categories"`
	Total      StateCounts     `json:"total"`
}

// ConsolidationStrategy is how a group of memories becomes one summary
// (seed 001's consolidation strategies).
type ConsolidationStrategy string

// Consolidation strategies.
const (
	// ConsolidateSimple concatenates the memories as truncated bullets.
	ConsolidateSimple ConsolidationStrategy = "simple"
	// ConsolidateDualMode classifies the group's density: dense content
	// (code, identifiers, figures) keeps its key facts verbatim with anchors;
	// sparse content is summarised (offline by extraction, or by the LLM).
	ConsolidateDualMode ConsolidationStrategy = "dual_mode"
	// ConsolidateLLM has the configured model synthesise the group.
	ConsolidateLLM ConsolidationStrategy = "llm"
)

// ConsolidationStrategies lists every strategy.
var ConsolidationStrategies = []ConsolidationStrategy{ConsolidateSimple, ConsolidateDualMode, ConsolidateLLM}

// ParseConsolidationStrategy validates a strategy name; empty means the default.
func ParseConsolidationStrategy(s string) (ConsolidationStrategy, error) {
	st := ConsolidationStrategy(strings.ToLower(strings.TrimSpace(s)))
	if st == "" || slices.Contains(ConsolidationStrategies, st) {
		return st, nil
	}
	return "", Errorf(EINVALID, "unknown consolidation strategy %q: use simple, dual_mode or llm", s)
}

// ConsolidationRequest asks for one agent's memories to be consolidated.
type ConsolidationRequest struct {
	// AgentID is whose memories: empty for the caller; another agent's only
	// for a human caller.
	AgentID    string
	Namespaces []string
	Categories []Category
	// OlderThan: only memories written longer ago are consolidated; nil for
	// the configured default.
	OlderThan *time.Duration
	Strategy  ConsolidationStrategy // empty for the configured default
	DryRun    bool                  // say what would change, change nothing
}

// GroupReport is one group of memories a run consolidated (or, dry, would).
type GroupReport struct {
	Namespace string   `json:"namespace"`
	Category  Category `json:"category"`
	// Kept is the group's most valuable memory, left as it is.
	Kept    string   `json:"kept,omitempty"`
	Sources []string `json:"sources"`
	// Mode says how the summary was made: concatenation, extractive,
	// abstractive, llm, or a fallback (concat-fallback, truncation).
	Mode      string `json:"mode"`
	SummaryID string `json:"summary_id,omitempty"`
	Summary   string `json:"summary"`
	Tokens    int    `json:"tokens"` // the summary's, against TokensIn
	TokensIn  int    `json:"tokens_in"`
}

// ConsolidationReport says what a run did (or, dry, would do) to an
// agent's memories.
type ConsolidationReport struct {
	AgentID  string                `json:"agent_id"`
	Strategy ConsolidationStrategy `json:"strategy"`
	DryRun   bool                  `json:"dry_run"`
	Groups   []GroupReport         `json:"groups"`
	// The memories archived, by reason: consolidated into the groups'
	// summaries, by retention, over the cap, expired.
	Consolidated int `json:"consolidated"`
	Retention    int `json:"retention"`
	OverCap      int `json:"over_cap"`
	Expired      int `json:"expired"`
	// Active memories and their tokens before and after the run.
	ActiveBefore int `json:"active_before"`
	ActiveAfter  int `json:"active_after"`
	TokensBefore int `json:"tokens_before"`
	TokensAfter  int `json:"tokens_after"`
	// Skipped says why nothing ran (another run holds the lease), if so.
	Skipped string `json:"skipped,omitempty"`
	// LongestWrite is how long the run's longest transaction (one group's)
	// held the database's write lock, which other writers wait for and
	// searches do not: for the command line and the benchmarks, not a
	// tool's result.
	LongestWrite time.Duration `json:"-"`
}

// ConsolidationService keeps memory small and true: it consolidates groups
// of related memories into summaries, archives what retention, the cap or
// expiry retire.
type ConsolidationService interface {
	Consolidate(ctx context.Context, r ConsolidationRequest) (ConsolidationReport, error)
}

// ParseAge reads an age such as "36h", "90m" or "7d" (days, which Go
// durations lack); empty is nil, for the configured default.
func ParseAge(field, s string) (*time.Duration, error) {
	if s == "" {
		return nil, nil
	}
	// Blanks are not "left out": a model that sent them meant some age.
	if s = strings.TrimSpace(s); s == "" {
		return nil, Errorf(EINVALID, "%s is blank: leave it out for the default, or give an age such as 36h, 90m or 7d", field)
	}
	var d time.Duration
	var err error
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n float64
		if n, err = strconv.ParseFloat(days, 64); err == nil && n >= 0 && n < 1e5 {
			d = time.Duration(n * float64(24*time.Hour))
		} else if err == nil {
			err = errors.New("out of range")
		}
	} else {
		d, err = time.ParseDuration(s)
	}
	if err != nil || d < 0 {
		return nil, Errorf(EINVALID, "%s %q is not an age: use hours, minutes or days, e.g. 36h, 90m or 7d", field, s)
	}
	return &d, nil
}
