package memory

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// FactCategory classifies an organisational fact.
type FactCategory string

// Fact categories.
const (
	FactCorePolicy FactCategory = "core_policy"
	FactADR        FactCategory = "adr"
	FactProcedure  FactCategory = "procedure"
	FactConvention FactCategory = "convention"
	FactOther      FactCategory = "other"
)

// FactCategories lists every category in display order.
var FactCategories = []FactCategory{FactCorePolicy, FactADR, FactProcedure, FactConvention, FactOther}

// ParseFactCategory validates a category name. Only the exact names are
// accepted: a padded " core_policy" must not slip past the write rules keyed
// by the exact name.
func ParseFactCategory(s string) (FactCategory, error) {
	c := FactCategory(s)
	if slices.Contains(FactCategories, c) {
		return c, nil
	}
	return "", Errorf(EINVALID, "unknown category %q: use one of core_policy, adr, procedure, convention, other", s)
}

// Fact operations recorded in the operation log.
const (
	FactOpPublish = "PUBLISH"
	FactOpRetract = "RETRACT"
)

// SupersededTagPrefix marks a fact as replaced by another: the tag
// "superseded_by:policy-jwt-v2" on a fact says policy-jwt-v2 replaces it.
const SupersededTagPrefix = "superseded_by:"

// ReservedFactID cannot name a fact: memory://facts/snapshot/... is the
// snapshot resource, so memory://facts/snapshot/history would be ambiguous.
const ReservedFactID = "snapshot"

// Author is who performed an operation, as recorded at write time.
type Author struct {
	AgentID   string    `json:"agent_id"`
	Seniority Seniority `json:"seniority,omitempty"`
	Autonomy  Autonomy  `json:"autonomy,omitempty"`
	Human     bool      `json:"is_human"`
}

// AuthorOf returns the author record for an identity.
func AuthorOf(id Identity) Author {
	a := Author{AgentID: id.AgentID, Human: id.Human}
	if !id.Human {
		a.Seniority, a.Autonomy = id.Seniority, id.Autonomy
	}
	return a
}

// Fact is an organisational fact as the snapshot holds it (or as it stood at
// some earlier time, for time-travel reads).
type Fact struct {
	ID           string       `json:"fact_id"`
	Content      string       `json:"content"`
	Category     FactCategory `json:"category"`
	Tags         []string     `json:"tags"`
	Version      int          `json:"version"`
	CreatedAt    time.Time    `json:"created_at"`
	UpdatedAt    time.Time    `json:"updated_at"`
	RetractedAt  *time.Time   `json:"retracted_at,omitempty"`
	Author       Author       `json:"author"`
	SupersededBy string       `json:"superseded_by,omitempty"`
	Score        float64      `json:"score,omitempty"`
}

// Active reports whether the fact is not retracted.
func (f *Fact) Active() bool { return f.RetractedAt == nil }

// MarkSuperseded fills SupersededBy from the superseded_by tag convention.
func (f *Fact) MarkSuperseded() {
	f.SupersededBy = ""
	for _, t := range f.Tags {
		if rest, ok := strings.CutPrefix(t, SupersededTagPrefix); ok && strings.TrimSpace(rest) != "" {
			f.SupersededBy = strings.TrimSpace(rest)
		}
	}
}

// FactOperation is one row of the append-only operation log.
type FactOperation struct {
	OperationID string       `json:"operation_id"`
	FactID      string       `json:"fact_id"`
	Type        string       `json:"operation_type"`
	Content     *string      `json:"content"`
	Category    FactCategory `json:"category"`
	Tags        []string     `json:"tags"`
	Author      Author       `json:"author"`
	Timestamp   time.Time    `json:"timestamp"`
	Version     int          `json:"version"`
	Reason      string       `json:"reason,omitempty"`
}

// FactWrite asks to publish (create or replace) a fact.
type FactWrite struct {
	FactID          string // empty: derive an id from the content
	Content         string
	Category        FactCategory
	Tags            []string
	ExpectedVersion *int // compare-and-set: 0 means "must not exist yet"
}

// Validate checks the write against the structural rules and normalises tags.
func (w *FactWrite) Validate(maxBytes int) error {
	if w.FactID != "" {
		if err := CheckID("fact_id", w.FactID); err != nil {
			return err
		}
		if w.FactID == ReservedFactID {
			return Errorf(EINVALID, "fact_id %q is reserved (memory://facts/snapshot is the snapshot resource); choose another id", w.FactID)
		}
	}
	if err := CheckContent("content", w.Content, maxBytes); err != nil {
		return err
	}
	if _, err := ParseFactCategory(string(w.Category)); err != nil {
		return err
	}
	tags, err := NormalizeTags(w.Tags)
	if err != nil {
		return err
	}
	w.Tags = tags
	if w.FactID != "" { // a derived id is checked once it is known
		if err := CheckSupersededBy(w.FactID, w.Tags); err != nil {
			return err
		}
	}
	if w.ExpectedVersion != nil && *w.ExpectedVersion < 0 {
		return Errorf(EINVALID, "expected_version %d is negative: use 0 for a new fact or the version you read", *w.ExpectedVersion)
	}
	return nil
}

// CheckSupersededBy refuses a superseded_by tag that names the fact id
// itself: a fact cannot replace itself, and every read would mark it
// superseded with nothing in force in its place.
func CheckSupersededBy(id string, tags []string) error {
	for _, t := range tags {
		if rest, ok := strings.CutPrefix(t, SupersededTagPrefix); ok && strings.TrimSpace(rest) == id {
			return Errorf(EINVALID, "tag %q names fact %s itself: a fact cannot be superseded by itself; "+
				"tag it with the id of the fact that replaces it, or publish the new content under this id", t, id)
		}
	}
	return nil
}

// FactPublished is what a publish did. Outcome is stored (a new version),
// unchanged (the fact already says this, in these words, category and
// tags: no new version) or duplicate (another active fact of the category
// already says it, in these words or with only case, punctuation, articles
// or "is"/"are" changed: nothing is stored and Fact is that one).
// Conflicts are the active facts the new version contradicts, recorded open
// for review: a fact binds every agent, so no write settles which holds.
type FactPublished struct {
	Fact
	Outcome   WriteOutcome
	Conflicts []Conflict
}

// FactRetract asks to retract a fact.
type FactRetract struct {
	FactID          string
	Reason          string
	ExpectedVersion *int
}

// FactQuery selects facts. A zero AsOf reads the current snapshot.
type FactQuery struct {
	Text       string
	Categories []FactCategory
	Tags       []string // all must be present
	AsOf       time.Time
	Limit      int
}

// Validate checks the filters, drops duplicate categories, normalises tags
// and resolves the default limit (10, at most 100).
func (q *FactQuery) Validate() error {
	limit, err := CheckLimit(q.Limit, 10, 100)
	if err != nil {
		return err
	}
	q.Limit = limit
	var cats []FactCategory
	for _, c := range q.Categories {
		if _, err := ParseFactCategory(string(c)); err != nil {
			return err
		}
		if !slices.Contains(cats, c) {
			cats = append(cats, c)
		}
	}
	q.Categories = cats
	q.Tags, err = NormalizeTags(q.Tags)
	return err
}

// FactPage is one page of a listing with the total it was cut from.
type FactPage struct {
	Facts  []Fact `json:"facts"`
	Total  int    `json:"total"`
	Offset int    `json:"offset"`
}

// FactService is the organisational fact store: an append-only operation log
// with a materialised snapshot. Writes take the caller's identity from ctx.
type FactService interface {
	// Publish passes w through dedup and the contradiction check and, if it
	// says something new, appends it; see FactPublished.
	Publish(ctx context.Context, w FactWrite) (FactPublished, error)
	Retract(ctx context.Context, r FactRetract) (Fact, error)
	// Conflicts lists contradictions between facts (q.AgentID is not
	// used: facts are everyone's).
	Conflicts(ctx context.Context, q ConflictQuery) ([]Conflict, error)
	// ResolveConflict decides a conflict between facts: the one not kept
	// is retracted.
	ResolveConflict(ctx context.Context, id string, keep ConflictResolution, reason string) (Conflict, error)
	Get(ctx context.Context, id string) (Fact, error)
	History(ctx context.Context, id string) ([]FactOperation, error)
	Query(ctx context.Context, q FactQuery) ([]Fact, error)
	List(ctx context.Context, c FactCategory, offset, limit int) (FactPage, error)
	// SnapshotAt returns the facts active at t; a zero t means now.
	SnapshotAt(ctx context.Context, t time.Time) ([]Fact, error)
}

// WriteRule says who may write a category (seed 004's CategoryWriteRule):
// agents of at least MinSeniority ("" admits no agent) and, if Humans,
// human operators. The zero rule admits nobody.
type WriteRule struct {
	MinSeniority Seniority
	Humans       bool
}

// Write rules by name, as ParseWriteAccess reads them besides a seniority
// (humans and agents of at least that seniority) and agents:<seniority>.
// ("any" is no rule: the category is open to every identity.)
var (
	RuleHumans = WriteRule{Humans: true} // humans only
	RuleNone   = WriteRule{}             // nobody
)

// Allows reports whether id may write under the rule.
func (r WriteRule) Allows(id Identity) bool {
	if id.Human {
		return r.Humans
	}
	return r.MinSeniority != "" && id.Seniority.AtLeast(r.MinSeniority)
}

// String names the rule as ParseWriteAccess reads it: "human", "none", a
// seniority (humans and agents) or "agents:<seniority>".
func (r WriteRule) String() string {
	switch {
	case r == RuleHumans:
		return "human"
	case r == RuleNone:
		return "none"
	case r.Humans:
		return r.MinSeniority.String()
	}
	return "agents:" + r.MinSeniority.String()
}

// who says in words who may write under the rule.
func (r WriteRule) who() string {
	switch {
	case r == RuleHumans:
		return "only by humans"
	case r == RuleNone:
		return "by nobody"
	case r.Humans:
		return fmt.Sprintf("only by humans or agents of seniority %s or above", r.MinSeniority)
	}
	return fmt.Sprintf("only by agents of seniority %s or above, not by humans", r.MinSeniority)
}

// parseWriteRule reads one rule other than "any"; see ParseWriteAccess.
func parseWriteRule(s string) (WriteRule, bool) {
	switch s {
	case "human":
		return RuleHumans, true
	case "none":
		return RuleNone, true
	}
	agentsOnly := false
	if rest, ok := strings.CutPrefix(s, "agents:"); ok {
		s, agentsOnly = rest, true
	}
	sen, err := ParseSeniority(s)
	if err != nil {
		return WriteRule{}, false
	}
	return WriteRule{MinSeniority: sen, Humans: !agentsOnly}, true
}

// WriteAccess maps each fact category to its write rule. Categories without a
// rule are open to every identity.
type WriteAccess map[FactCategory]WriteRule

// DefaultWriteAccess restricts core_policy to humans and senior+ agents.
func DefaultWriteAccess() WriteAccess {
	return WriteAccess{FactCorePolicy: {MinSeniority: SenioritySenior, Humans: true}}
}

// Check returns EFORBIDDEN naming the rule when id may not write category c.
// The rule binds humans too: a category may be closed to them (agents:<s>,
// none).
func (w WriteAccess) Check(id Identity, c FactCategory) error {
	rule, ok := w[c]
	if !ok || rule.Allows(id) {
		return nil
	}
	return Errorf(EFORBIDDEN, "%s facts may be written %s; you are %s (write-access rule %s=%s)", c, rule.who(), id.Describe(), c, rule)
}

// String renders the rules in the form ParseWriteAccess reads. A category
// the defaults guard but w leaves open is written "=any", so that the text
// read again does not bring the default back.
func (w WriteAccess) String() string {
	parts := make([]string, 0, len(w))
	for c, r := range w {
		parts = append(parts, fmt.Sprintf("%s=%s", c, r))
	}
	for c := range DefaultWriteAccess() {
		if _, ok := w[c]; !ok {
			parts = append(parts, fmt.Sprintf("%s=any", c))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// ParseWriteAccess reads rules like "core_policy=senior,adr=agents:mid,procedure=human".
// A rule is a seniority (humans and agents of at least that seniority),
// "agents:<seniority>" (such agents only, no human), "human" (humans only),
// "any" (everyone) or "none" (nobody). Categories not named keep the default
// rules.
func ParseWriteAccess(s string) (WriteAccess, error) {
	w := DefaultWriteAccess()
	for _, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		name, text, ok := strings.Cut(part, "=")
		if !ok {
			return nil, Errorf(EINVALID, "write access rule %q: use category=rule, e.g. core_policy=senior", part)
		}
		c, err := ParseFactCategory(strings.TrimSpace(name))
		if err != nil {
			return nil, err
		}
		text = strings.ToLower(strings.TrimSpace(text))
		if text == "any" {
			delete(w, c)
			continue
		}
		rule, ok := parseWriteRule(text)
		if !ok {
			return nil, Errorf(EINVALID, "write access rule for %s: %q is not a seniority, agents:<seniority>, human, any or none", c, text)
		}
		w[c] = rule
	}
	return w, nil
}
