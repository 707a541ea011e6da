package memory

import (
	"context"
	"time"
)

// Risk tiers and human approval (seed 003, 12.6). Every call of a tool that
// writes is classified by the write gates from the tool, its arguments and
// the caller: a low-risk write is applied (AUTO); a medium one is applied
// and queued for a human's review (ASYNC); a high one is held, not applied,
// until a human approves it (SYNC), and expires unapplied when no one does
// in time (fail closed).

// RiskTier is how much harm a wrong write could do, and so how much human
// attention it gets.
type RiskTier string

// Risk tiers.
const (
	RiskLow    RiskTier = "low"    // applied
	RiskMedium RiskTier = "medium" // applied, and queued for review
	RiskHigh   RiskTier = "high"   // held until a human approves it
)

// ParseRiskTier parses "low", "medium" or "high".
func ParseRiskTier(s string) (RiskTier, error) {
	switch t := RiskTier(s); t {
	case RiskLow, RiskMedium, RiskHigh:
		return t, nil
	}
	return "", Errorf(EINVALID, "unknown risk tier %q: use low, medium or high", s)
}

// Subject is what a call would change as it stands before the call, for
// the risk rules its arguments cannot decide: the category of the fact a
// publish_fact names (it may move a core policy to another category), and
// whether the block an edit names by label is a shared one.
type Subject struct {
	FactCategory FactCategory
	SharedBlock  bool
}

// ApprovalKind is what an approval request asks of a human.
type ApprovalKind string

// Approval kinds.
const (
	// ApprovalHold: a high-risk write that was not applied; approving it
	// applies it as its caller, rejecting it or letting it expire drops it.
	ApprovalHold ApprovalKind = "hold"
	// ApprovalReview: a medium-risk write that was applied; the decision is
	// a recorded verdict and changes nothing in the store.
	ApprovalReview ApprovalKind = "review"
)

// ApprovalStatus is where an approval request stands.
type ApprovalStatus string

// Approval statuses.
const (
	ApprovalPending  ApprovalStatus = "pending"  // waiting for a human
	ApprovalApproved ApprovalStatus = "approved" // a human approved it (a hold: and it was applied)
	ApprovalRejected ApprovalStatus = "rejected" // a human rejected it (a hold: never applied)
	ApprovalExpired  ApprovalStatus = "expired"  // a hold no one decided in time: never applied
	ApprovalFailed   ApprovalStatus = "failed"   // a hold a human approved whose write then failed its tool's own checks
)

// ParseApprovalStatus parses an approval status.
func ParseApprovalStatus(s string) (ApprovalStatus, error) {
	switch st := ApprovalStatus(s); st {
	case ApprovalPending, ApprovalApproved, ApprovalRejected, ApprovalExpired, ApprovalFailed:
		return st, nil
	}
	return "", Errorf(EINVALID, "unknown approval status %q: use pending, approved, rejected, expired or failed", s)
}

// Approval is one request for a human's decision on a write.
type Approval struct {
	ID     string         `json:"id"`
	Kind   ApprovalKind   `json:"kind"`
	Status ApprovalStatus `json:"status"`
	Tier   RiskTier       `json:"tier"`
	// Rule is the classification rule that gave the tier, e.g.
	// publish_fact:core_policy.
	Rule string `json:"rule"`
	// Caller is who made the write; a held write is applied as this
	// identity.
	Caller Identity `json:"caller"`
	Tool   string   `json:"tool"`
	// Arguments are the call's arguments, as JSON, without its
	// idempotency_key.
	Arguments      string    `json:"arguments"`
	IdempotencyKey string    `json:"idempotency_key,omitempty"`
	CreatedAt      time.Time `json:"created_at"`
	// ExpiresAt is when a hold no one decided expires.
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	DecidedBy string     `json:"decided_by,omitempty"` // the human who decided
	DecidedAt *time.Time `json:"decided_at,omitempty"`
	Reason    string     `json:"reason,omitempty"` // the decision's reason
	// Ref is what the write wrote (a memory, a fact), when it says; for a
	// promotion's review, its first ledger event.
	Ref string `json:"ref,omitempty"`
	// Wrote is, for the review of a promotion (write_note with promote,
	// promote_notes, resolve_pending), what it committed to the shared
	// state: its arguments alone ({} for promote_notes) say nothing.
	Wrote []LedgerWrite `json:"wrote,omitempty"`
	// Error is how a held write failed when it was applied, or why it was
	// not: the error a repeat of the call gets.
	Error string `json:"error,omitempty"`
}

// LedgerWrite is one ledger event a reviewed promotion committed.
type LedgerWrite struct {
	Seq       int64     `json:"seq"`
	Bucket    Bucket    `json:"bucket"`
	Operation Operation `json:"operation"`
	TargetID  string    `json:"target_id,omitempty"`
	// RawInput is the note the event was read from.
	RawInput string `json:"raw_input"`
}

// ApprovalFilter selects approval requests.
type ApprovalFilter struct {
	Status ApprovalStatus // "" for every status
	Limit  int            // 0 for the default
	Offset int            // how many of the selected to skip, for the next page
	// ExpiringFirst orders the requests by deadline, the soonest first
	// (those without one after, oldest first), so that the ones about to
	// expire unapplied come before the rest; otherwise newest first.
	ExpiringFirst bool
	// AgentID, Rule and Tool narrow to one caller's (agent or human of
	// that id), one classification rule's and one tool's requests; Before,
	// when set, to those made before it (older than an age).
	AgentID string
	Rule    string
	Tool    string
	Before  time.Time
}

// ApprovalDecision is a human's decision on an approval request.
type ApprovalDecision struct {
	ID      string
	Approve bool
	Reason  string
}

// ToolRunner runs the tool named tool with args (its arguments as JSON) as
// the identity in ctx, with the tool's own decoding and checks but none of
// the write gates: how an approved held write is applied.
type ToolRunner func(ctx context.Context, tool string, args []byte) (result any, text string, err error)

// ApprovalService lists and decides approval requests.
type ApprovalService interface {
	// ListApprovals returns requests newest first: every caller's to a
	// human, an agent's own to an agent.
	ListApprovals(ctx context.Context, f ApprovalFilter) ([]Approval, error)
	// DecideApproval records a human's decision; approving a held write
	// applies it through run as the identity that made it.
	DecideApproval(ctx context.Context, d ApprovalDecision, run ToolRunner) (Approval, error)
	// RuleAdvice counts, per classification rule, how its requests were
	// decided, for a human weighing whether to review its writes only.
	RuleAdvice(ctx context.Context) ([]RuleAdvice, error)
	// MarkReviewOnly marks a rule review only (a high-risk write by it is
	// applied and queued for review instead of held), or with on false
	// unmarks it; humans only.
	MarkReviewOnly(ctx context.Context, rule string, on bool, reason string) (RuleAdvice, error)
}

// RuleAdvice is how one rule's requests were decided.
type RuleAdvice struct {
	Rule string   `json:"rule"`
	Tier RiskTier `json:"tier"` // as configured
	// Holds counts its held writes by status; HoldsApproved were approved
	// as they were held (a held write cannot be changed, only decided).
	Holds, HoldsApproved, HoldsRejected int
	// Reviews counts its writes queued for review; ReviewsApproved were
	// approved unchanged.
	Reviews, ReviewsApproved int
	// ReviewOnly: a human marked the rule review only (by whom, when, why).
	ReviewOnly bool
	MarkedBy   string
	MarkedAt   time.Time
	Reason     string
}

// Advised says the rule's held writes were all approved as they were
// held, over at least a few decisions: reviewing them after they apply
// would lose nothing a hold caught.
func (a RuleAdvice) Advised() bool {
	return a.Tier == RiskHigh && !a.ReviewOnly && a.HoldsApproved >= 3 && a.HoldsRejected == 0
}
