package memory

import (
	"slices"
	"strings"
	"time"
)

// Bucket is one of the seven kinds of canonical shared state (seed 002).
type Bucket string

// The seven buckets.
const (
	BucketPlan        Bucket = "plan"        // one row, "main": the current plan; replaced, versioned
	BucketConstraints Bucket = "constraints" // restrictions in force: active or invalidated
	BucketIssues      Bucket = "issues"      // tracked problems and blockers: open or resolved
	BucketDecisions   Bucket = "decisions"   // choices made: active or superseded, never deleted
	BucketResults     Bucket = "results"     // measurements and outcomes, append-only
	BucketTaskState   Bucket = "task_state"  // latest state per task id
	BucketLearnings   Bucket = "learnings"   // reusable knowledge, append-only
)

// Buckets lists every bucket in display order.
var Buckets = []Bucket{BucketPlan, BucketConstraints, BucketIssues, BucketDecisions, BucketResults, BucketTaskState, BucketLearnings}

// Operation is what a write does to its bucket.
type Operation string

// Operations.
const (
	OpUpsert     Operation = "upsert"     // create the row or replace its content (and reopen it)
	OpAppend     Operation = "append"     // add a new row
	OpResolve    Operation = "resolve"    // close an open issue
	OpInvalidate Operation = "invalidate" // retire an active constraint or decision
)

// bucketOps is the projection contract: which operations each bucket accepts.
var bucketOps = map[Bucket][]Operation{
	BucketPlan:        {OpUpsert},
	BucketConstraints: {OpUpsert, OpInvalidate},
	BucketIssues:      {OpUpsert, OpResolve},
	BucketDecisions:   {OpAppend, OpInvalidate},
	BucketResults:     {OpAppend},
	BucketTaskState:   {OpUpsert},
	BucketLearnings:   {OpAppend},
}

// Row statuses.
const (
	StatusOpen        = "open"
	StatusResolved    = "resolved"
	StatusActive      = "active"
	StatusInvalidated = "invalidated"
	StatusSuperseded  = "superseded"
)

// PlanID is the key of the one plan row.
const PlanID = "main"

// ParseBucket validates a bucket name.
// Names are exact: " issues" is not a bucket.
func ParseBucket(s string) (Bucket, error) {
	b := Bucket(s)
	if slices.Contains(Buckets, b) {
		return b, nil
	}
	return "", Errorf(EINVALID, "unknown bucket %q: use one of %s", s, bucketList())
}

func bucketList() string {
	names := make([]string, len(Buckets))
	for i, b := range Buckets {
		names[i] = string(b)
	}
	return strings.Join(names, ", ")
}

// Known reports whether b is one of the seven buckets.
func (b Bucket) Known() bool { return bucketOps[b] != nil }

// Operations returns the operations b accepts.
func (b Bucket) Operations() []Operation { return bucketOps[b] }

// Allows reports whether b accepts operation op.
func (b Bucket) Allows(op Operation) bool { return slices.Contains(bucketOps[b], op) }

// Tracked reports whether b's rows have a lifecycle that later notes refer
// back to (issues, constraints, decisions). Only these are resolver context,
// and only these carry reference memory.
func (b Bucket) Tracked() bool {
	return b == BucketIssues || b == BucketConstraints || b == BucketDecisions
}

// Keyed reports whether writes to b name their row (plan, task_state and the
// tracked buckets). Results and learnings rows get their ids from the ledger.
func (b Bucket) Keyed() bool { return b != BucketResults && b != BucketLearnings }

// LiveStatus is the status of a row that is in force.
func (b Bucket) LiveStatus() string {
	if b == BucketIssues {
		return StatusOpen
	}
	return StatusActive
}

// ClosedStatus is the status a lifecycle operation moves a row to ("" for
// buckets without one).
func (b Bucket) ClosedStatus() string {
	switch b {
	case BucketIssues:
		return StatusResolved
	case BucketConstraints:
		return StatusInvalidated
	case BucketDecisions:
		return StatusSuperseded
	}
	return ""
}

// Statuses lists the statuses b's rows can have.
func (b Bucket) Statuses() []string {
	if c := b.ClosedStatus(); c != "" {
		return []string{b.LiveStatus(), c}
	}
	return []string{StatusActive}
}

// Noun names one row of b in messages: "issue", "constraint", ...
func (b Bucket) Noun() string {
	switch b {
	case BucketIssues:
		return "open issue"
	case BucketConstraints:
		return "active constraint"
	case BucketDecisions:
		return "active decision"
	case BucketTaskState:
		return "task"
	}
	return strings.TrimSuffix(string(b), "s")
}

// Lifecycle reports whether op closes an existing row, which must therefore
// be identified before the write may commit.
func (op Operation) Lifecycle() bool { return op == OpResolve || op == OpInvalidate }

// ReferenceMemory is the phrase history of a tracked row: the aliases and
// reference phrases later notes used for it. It grows on every bind, so that
// "that earlier blocker" finds the row it meant last time.
type ReferenceMemory struct {
	Aliases []string `json:"aliases"`
	Phrases []string `json:"phrases"`
}

// Reference memory bounds: the newest entries are kept.
const (
	MaxReferenceAliases = 32
	MaxReferencePhrases = 32
)

// Merge adds aliases and a phrase, skipping blanks and entries already held
// (compared by TextKey), and keeps the newest entries within the bounds.
func (m *ReferenceMemory) Merge(aliases []string, phrase string) {
	m.Aliases = mergeKeyed(m.Aliases, aliases, MaxReferenceAliases)
	m.Phrases = mergeKeyed(m.Phrases, []string{phrase}, MaxReferencePhrases)
}

func mergeKeyed(have, add []string, max int) []string {
	out := slices.Clone(have)
	if out == nil {
		out = []string{}
	}
	seen := map[string]bool{}
	for _, h := range out {
		seen[TextKey(h)] = true
	}
	for _, a := range add {
		a = strings.TrimSpace(a)
		if k := TextKey(a); k != "" && !seen[k] {
			seen[k] = true
			out = append(out, a)
		}
	}
	if len(out) > max {
		out = out[len(out)-max:]
	}
	return out
}

// StateRow is one row of canonical shared state, in any bucket. Fields that
// a bucket does not have are empty.
type StateRow struct {
	Bucket      Bucket           `json:"bucket"`
	ID          string           `json:"id"`
	Text        string           `json:"text,omitempty"`
	State       string           `json:"state,omitempty"`   // task_state
	TaskID      string           `json:"task_id,omitempty"` // results
	Status      string           `json:"status"`
	Kind        string           `json:"kind,omitempty"`    // issues: what it was reported as, KindIssue or KindBlocker
	Version     int              `json:"version,omitempty"` // plan, task_state
	Reference   *ReferenceMemory `json:"reference_memory,omitempty"`
	CloseReason string           `json:"close_reason,omitempty"`
	CreatedAt   time.Time        `json:"created_at"`
	UpdatedAt   time.Time        `json:"updated_at"`
	ClosedAt    *time.Time       `json:"closed_at,omitempty"`
	NotedAt     time.Time        `json:"noted_at,omitzero"` // tracked rows: when the note that created the row was written
	EventID     string           `json:"event_id"`          // the ledger event that last changed the row
}

// The kinds an issue can be reported as. A write reports a blocker when it
// carries KindBlocker among its candidate aliases (the blocker: form and the
// blocked-by sentence do); any other issue write reports a plain issue.
const (
	KindIssue   = "issue"
	KindBlocker = "blocker"
)

// Live reports whether the row is in force.
func (r *StateRow) Live() bool { return r.Status == r.Bucket.LiveStatus() }

// StateContext is the narrow view the interpreter and resolver work from:
// open issues, active constraints and active decisions, plus (for judging
// older notes) the tracked rows closed since a given time.
type StateContext struct {
	Rows []StateRow `json:"rows"`
}

// In returns the context rows of bucket b.
func (c StateContext) In(b Bucket) []StateRow {
	var out []StateRow
	for _, r := range c.Rows {
		if r.Bucket == b {
			out = append(out, r)
		}
	}
	return out
}

// StateQuery selects rows of the shared state. An empty Bucket means every bucket; an
// empty Status means every status; Limit applies per bucket.
type StateQuery struct {
	Bucket Bucket
	Status string
	Limit  int
}

// Validate checks the query and fills in the default limit.
func (q *StateQuery) Validate() error {
	if q.Bucket != "" {
		b, err := ParseBucket(string(q.Bucket))
		if err != nil {
			return err
		}
		q.Bucket = b
	}
	limit, err := CheckLimit(q.Limit, 50, 500)
	if err != nil {
		return err
	}
	q.Limit = limit
	if q.Status == "" {
		return nil
	}
	if q.Bucket != "" && !slices.Contains(q.Bucket.Statuses(), q.Status) {
		return Errorf(EINVALID, "status %q does not apply to %s: use one of %s", q.Status, q.Bucket, strings.Join(q.Bucket.Statuses(), ", "))
	}
	all := []string{StatusOpen, StatusResolved, StatusActive, StatusInvalidated, StatusSuperseded}
	if !slices.Contains(all, q.Status) {
		return Errorf(EINVALID, "unknown status %q: use one of %s", q.Status, strings.Join(all, ", "))
	}
	return nil
}

// StateSummary is the compact current belief: what an agent should read
// before acting.
type StateSummary struct {
	Plan              *StateRow  `json:"plan,omitempty"`
	OpenIssues        []StateRow `json:"open_issues"`
	ActiveConstraints []StateRow `json:"active_constraints"`
	ActiveDecisions   []StateRow `json:"active_decisions"`
	Tasks             []StateRow `json:"tasks"`
	PendingOpen       int        `json:"pending_open"`
	PendingStale      int        `json:"pending_stale"`
	// Omitted counts, per bucket, the live rows beyond SummaryRows that the
	// summary leaves out (memory://shared/{bucket} lists them).
	Omitted map[Bucket]int `json:"omitted,omitempty"`
}

// SummaryRows bounds each list of the summary.
const SummaryRows = 200
