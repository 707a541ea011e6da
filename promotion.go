package memory

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// OutcomeStatus is what promotion did with a note (or a pending write).
type OutcomeStatus string

// Outcome statuses.
const (
	OutcomeCommitted OutcomeStatus = "committed" // written to the ledger (and, if Applied, projected)
	OutcomePending   OutcomeStatus = "pending"   // kept in the pending queue until it can be resolved
	OutcomeIgnored   OutcomeStatus = "ignored"   // not a shared-state write, or a duplicate of one
	OutcomeRejected  OutcomeStatus = "rejected"  // broke a validator rule
)

// Candidate is a row the resolver considered for a write, with its score
// (0..1) and the evidence behind it.
type Candidate struct {
	TargetID string   `json:"target_id"`
	Score    float64  `json:"score"`
	Live     bool     `json:"live"` // still open/active (false: closed since the note was written)
	Signals  []string `json:"signals,omitempty"`
}

// Outcome is the recorded result of one promotion attempt. Every stage's
// decision ends in one, with its reason.
type Outcome struct {
	Status          OutcomeStatus `json:"status"`
	NoteID          int64         `json:"note_id,omitempty"`
	PendingID       int64         `json:"pending_id,omitempty"`
	EventID         string        `json:"event_id,omitempty"`
	Bucket          Bucket        `json:"bucket,omitempty"`
	Operation       Operation     `json:"operation,omitempty"`
	TargetID        string        `json:"target_id,omitempty"`
	Applied         bool          `json:"applied,omitempty"`
	ProjectionError string        `json:"projection_error,omitempty"`
	Rule            string        `json:"rule,omitempty"` // rejected: the validator rule broken
	Reason          string        `json:"reason"`
	Candidates      []Candidate   `json:"candidates,omitempty"`
	Interpreter     string        `json:"interpreter,omitempty"`
}

// Summary renders the outcome as one line for a model.
func (o Outcome) Summary() string {
	var b strings.Builder
	if o.NoteID != 0 {
		b.WriteString("note " + strconv.FormatInt(o.NoteID, 10) + ": ")
	} else if o.PendingID != 0 {
		b.WriteString("pending " + strconv.FormatInt(o.PendingID, 10) + ": ")
	}
	b.WriteString(string(o.Status))
	if o.Bucket != "" {
		b.WriteString(" " + string(o.Bucket) + "/" + string(o.Operation))
		if o.TargetID != "" {
			b.WriteString(" " + o.TargetID)
		}
	}
	if o.Rule != "" {
		b.WriteString(" [" + o.Rule + "]")
	}
	if o.Status == OutcomePending && o.NoteID != 0 && o.PendingID != 0 {
		b.WriteString(" (pending item " + strconv.FormatInt(o.PendingID, 10) + ")")
	}
	if o.Status == OutcomeCommitted && !o.Applied {
		b.WriteString(" (recorded, projection failed: replay will apply it)")
	}
	if o.Reason != "" {
		b.WriteString(": " + o.Reason)
	}
	return b.String()
}

// SourceRef is the provenance a ledger event carries: where the write came
// from and how the resolver chose its target.
type SourceRef struct {
	NoteID           int64       `json:"note_id,omitempty"`
	NoteAt           time.Time   `json:"note_at"` // when the note was written
	PendingID        int64       `json:"pending_id,omitempty"`
	MatchedTargetID  string      `json:"matched_target_id,omitempty"`
	CandidateMatches []Candidate `json:"candidate_matches"`
	ResolutionReason string      `json:"resolution_reason"`
	ReferenceText    string      `json:"reference_text,omitempty"`
	CandidateAliases []string    `json:"candidate_aliases,omitempty"`
	Interpreter      string      `json:"interpreter,omitempty"`
	Confidence       float64     `json:"confidence"`
	Rationale        string      `json:"rationale,omitempty"`
	Curator          string      `json:"curator,omitempty"`
}

// Event is one row of the events_memory ledger: a committed canonical write.
// The ledger is written first and is the source of truth; the shared tables
// are its projection and can be rebuilt from it.
type Event struct {
	Seq             int64     `json:"seq"`
	EventID         string    `json:"event_id"`
	Bucket          Bucket    `json:"bucket"`
	Operation       Operation `json:"operation"`
	TargetID        string    `json:"target_id,omitempty"`
	Payload         Payload   `json:"payload"`
	RawInput        string    `json:"raw_input"`
	SourceRef       SourceRef `json:"source_ref"`
	Agent           string    `json:"agent_id"`           // the note's author
	Autonomy        Autonomy  `json:"autonomy,omitempty"` // the note author's, as the note recorded it
	Run             string    `json:"run_id"`
	CreatedAt       time.Time `json:"created_at"`
	Applied         bool      `json:"applied"`
	ProjectionError string    `json:"projection_error,omitempty"`
}

// Pending item statuses. A stale item is still open: visible, and waiting for
// a curator.
const (
	PendingOpen      = "open"
	PendingCommitted = "committed"
	PendingDropped   = "dropped"
)

// PendingResolution records how a pending item left the queue.
type PendingResolution struct {
	Action   string    `json:"action"` // retry (committed by a retry pass), bind, drop, duplicate
	By       string    `json:"by"`     // the curator, or "promotion"
	At       time.Time `json:"at"`
	EventID  string    `json:"event_id,omitempty"`
	TargetID string    `json:"target_id,omitempty"`
	Reason   string    `json:"reason,omitempty"`
}

// PendingItem is a write that matters but could not yet be committed safely,
// kept with why and how often it was retried.
type PendingItem struct {
	ID          int64              `json:"pending_id"`
	Request     WriteRequest       `json:"request"`
	RawInput    string             `json:"raw_input"`
	NoteID      int64              `json:"note_id,omitempty"`
	Agent       string             `json:"agent_id"`
	Autonomy    Autonomy           `json:"autonomy,omitempty"` // the note author's, as the note recorded it
	Run         string             `json:"run_id"`
	Kind        NoteKind           `json:"kind,omitempty"` // of the note: tool output stays untrusted
	Interpreter string             `json:"interpreter,omitempty"`
	Reason      string             `json:"reason"`
	Candidates  []Candidate        `json:"candidates"`
	Attempts    int                `json:"attempts"`
	Stale       bool               `json:"stale"`
	Status      string             `json:"status"`
	NoteAt      time.Time          `json:"note_at"` // when the note was written: what it can refer to
	CreatedAt   time.Time          `json:"created_at"`
	UpdatedAt   time.Time          `json:"updated_at"`
	Resolution  *PendingResolution `json:"resolution,omitempty"`
	// Redacted: the note's text (raw input and what the interpreter read
	// from it) is private to its author and shown only to them and humans.
	Redacted bool `json:"redacted,omitempty"`
}

// Redact removes the note's private text from the item: its raw input and
// the request's text fields, which the interpreter took from the note.
func (p *PendingItem) Redact() {
	p.RawInput, p.Redacted = "", true
	for i := range p.Candidates {
		p.Candidates[i].Signals = nil // they quote the note's words
	}
	r := &p.Request
	r.Payload, r.ReferenceText, r.CandidateAliases, r.Rationale = Payload{}, "", nil, ""
}

// PendingQuery selects pending items: the open ones (stale included), or
// with All every item; at most Limit, oldest first.
type PendingQuery struct {
	All   bool
	Limit int
	// Agent narrows the items to one agent's notes; NotedBefore to notes
	// written before it. Offset skips that many of the items selected.
	Agent       string
	NotedBefore time.Time
	Offset      int
}

// Validate checks the query and fills in the default limit.
func (q *PendingQuery) Validate() error {
	limit, err := CheckLimit(q.Limit, 100, 500)
	q.Limit = limit
	if err != nil {
		return err
	}
	if q.Agent != "" {
		if err := CheckID("agent", q.Agent); err != nil {
			return err
		}
	}
	if q.Offset < 0 {
		return Errorf(EINVALID, "offset %d is negative", q.Offset)
	}
	return nil
}

// PendingList is a page of the pending queue and how many items the query
// selects in all.
type PendingList struct {
	Pending []PendingItem `json:"pending"`
	Total   int           `json:"total"`
}

// PendingDecision is a curator's answer to a pending item: bind it to a
// target (and commit it) or drop it with a reason. Exactly one is given.
type PendingDecision struct {
	PendingID  int64
	TargetID   string
	DropReason string
}

// Validate checks that the decision is well formed.
func (d PendingDecision) Validate() error {
	switch {
	case d.PendingID <= 0:
		return Errorf(EINVALID, "pending_id %d is not a pending item id: list_reviews shows them", d.PendingID)
	case d.TargetID == "" && strings.TrimSpace(d.DropReason) == "":
		return Errorf(EINVALID, "give target_id to bind the item or drop_reason to drop it")
	case d.TargetID != "" && d.DropReason != "":
		return Errorf(EINVALID, "give target_id or drop_reason, not both")
	case d.TargetID != "" && !IsSlug(d.TargetID):
		return Errorf(EINVALID, "target_id %q is not a slug: use lower-case letters, digits and '_'", d.TargetID)
	}
	return CheckReason("drop_reason", d.DropReason)
}

// PromotionReport is what a promotion pass did: one outcome per note, and the
// outcomes of the pending retries its commits triggered.
type PromotionReport struct {
	Outcomes  []Outcome `json:"outcomes"`
	Retried   []Outcome `json:"retried,omitempty"`
	Remaining int       `json:"remaining,omitempty"` // notes left for another pass
}

// CuratorResult is what a curator's decision did.
type CuratorResult struct {
	Pending PendingItem `json:"pending"`
	Outcome *Outcome    `json:"outcome,omitempty"` // bind: the commit
	Retried []Outcome   `json:"retried,omitempty"`
}

// PromotionService is the governed write path into shared state and its read
// side. Notes are private to the calling agent and run; shared state is read
// by everyone and written only by promotion.
type PromotionService interface {
	WriteNote(ctx context.Context, w NoteWrite) (Note, error)
	// Promote runs up to limit (0: a default batch) unpromoted notes of the
	// caller's run through the pipeline, oldest first.
	Promote(ctx context.Context, limit int) (PromotionReport, error)
	State(ctx context.Context, q StateQuery) ([]StateRow, error)
	Summary(ctx context.Context) (StateSummary, error)
	// ListPending returns pending items; the note text of another agent's
	// item is shown only to humans.
	ListPending(ctx context.Context, q PendingQuery) (PendingList, error)
	// ResolvePending binds or drops a pending item; only humans may.
	ResolvePending(ctx context.Context, d PendingDecision) (CuratorResult, error)
	// Ledger returns events of the ledger, newest first; only humans may
	// read it, since each event carries the raw text of an agent's note.
	Ledger(ctx context.Context, q LedgerQuery) ([]Event, error)
}

// LedgerQuery selects events of the ledger, newest first: every bucket's or
// one bucket's, or one row's (Bucket and TargetID), with a sequence number
// below Before (0: from the newest), at most Limit.
type LedgerQuery struct {
	Bucket   Bucket
	TargetID string
	Before   int64
	Limit    int
}

// Validate checks the query and fills in the default limit (50, at most 500).
func (q *LedgerQuery) Validate() error {
	if q.Bucket != "" {
		if _, err := ParseBucket(string(q.Bucket)); err != nil {
			return err
		}
	}
	if q.TargetID != "" {
		if q.Bucket == "" {
			return Errorf(EINVALID, "target_id %q needs its bucket: a row is named by bucket and id", q.TargetID)
		}
		if err := CheckID("target_id", q.TargetID); err != nil {
			return err
		}
	}
	if q.Before < 0 {
		return Errorf(EINVALID, "before %d is negative: give a sequence number from the ledger, or 0 for the newest events", q.Before)
	}
	limit, err := CheckLimit(q.Limit, 50, 500)
	q.Limit = limit
	return err
}
