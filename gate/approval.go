package gate

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// The risk-tier gate (seed 003, 12.6): after the rate limit, before the
// write. A low-risk call runs as it is; a medium-risk call runs and its
// first write queues a review in its own transaction; a high-risk call runs
// its tool's checks up to its first write, which is then undone and
// replaced by an approval request (store.Call.Approval), so that what a
// human approves is a write that passed its own checks. Approving applies
// it again as its caller, through the tool itself (memory.ToolRunner), and
// the tool's checks run again then.

var _ memory.ApprovalService = (*Gates)(nil)

// classify gives call its tier's request, if any.
func (g *Gates) classify(ctx context.Context, who memory.Identity, c memory.WriteCall, call *store.Call) error {
	if !g.Approval {
		return nil
	}
	started := time.Now()
	defer func() { call.Gates[gateApproval] = time.Since(started) }()
	var subject memory.Subject
	if !who.Human && needsSubject(c.Tool) {
		var args struct {
			FactID string `json:"fact_id"`
			Label  string `json:"label"`
		}
		json.Unmarshal(c.Args, &args) // arguments the tool cannot read fail in the tool
		var err error
		if subject, err = g.db.Subject(ctx, who, strings.TrimSpace(args.FactID), strings.TrimSpace(args.Label)); err != nil {
			return err
		}
	}
	if c.Tool == "publish_fact" && !who.Human {
		call.Subject = &subject
	}
	tier, rule := g.Risk.Classify(who, c.Tool, c.Args, subject)
	if tier == memory.RiskHigh {
		// A human marked the rule review only: its writes apply, and wait
		// for review after.
		reviewOnly, err := g.db.ReviewOnly(ctx, rule)
		if err != nil {
			return err
		}
		if reviewOnly {
			tier = memory.RiskMedium
		}
	}
	req := &store.ApprovalRequest{Tier: tier, Rule: rule, Caller: who, Args: c.Args}
	switch tier {
	case memory.RiskMedium:
		req.Kind, req.OnLedger = memory.ApprovalReview, reviewsLedger(rule)
	case memory.RiskHigh:
		req.Kind, req.Expires = memory.ApprovalHold, call.Started.Add(g.ApprovalTimeout)
		// Holds past their deadline are marked as new ones come.
		if _, err := g.db.ExpireApprovals(ctx); err != nil {
			return err
		}
	default:
		return nil
	}
	call.Approval = req
	return nil
}

// heldError is a held call's answer: what is held, why, until when, and how
// to learn the outcome.
func (g *Gates) heldError(call *store.Call, id string) error {
	a := call.Approval
	check := `list_reviews {"status": "pending"} shows it while it waits and its outcome after`
	if call.Key != "" {
		check += "; a repeat of this call with the same idempotency_key returns this answer until it is decided, then the write's own result or why it was not applied"
	} else {
		check += "; making the call again asks again (send an idempotency_key to make a repeat safe)"
	}
	return memory.Errorf(memory.EHELD, "this %s call is held for a human's approval as %s (risk %s, rule %s): it was checked but not applied. "+
		"A human approves or rejects it with decide_approval; if no one does by %s it expires and is never applied. %s",
		call.Tool, id, a.Tier, a.Rule, a.Expires.Format(time.RFC3339), check)
}

// decided returns the key record of a held call again, after marking
// expired holds, so that a repeat past the deadline is told it expired.
func (g *Gates) decided(ctx context.Context, call *store.Call, rec store.KeyRecord) (store.KeyRecord, error) {
	n, err := g.db.ExpireApprovals(ctx)
	if err != nil || n == 0 {
		return rec, err
	}
	again, ok, err := g.db.LookupKey(ctx, call.Principal, call.Key)
	if err != nil || !ok {
		return rec, err
	}
	return again, nil
}

// Approval list bounds.
const (
	defaultApprovalLimit = 50
	maxApprovalLimit     = 500
)

// ListApprovals implements memory.ApprovalService.
func (g *Gates) ListApprovals(ctx context.Context, f memory.ApprovalFilter) ([]memory.Approval, error) {
	who, err := memory.RequireIdentity(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case f.Limit == 0:
		f.Limit = defaultApprovalLimit
	case f.Limit < 0 || f.Limit > maxApprovalLimit:
		return nil, memory.Errorf(memory.EINVALID, "limit %d is out of range: give 1 to %d", f.Limit, maxApprovalLimit)
	}
	if f.Offset < 0 {
		return nil, memory.Errorf(memory.EINVALID, "offset %d is negative: give 0 or more", f.Offset)
	}
	if f.Status != "" {
		if _, err := memory.ParseApprovalStatus(string(f.Status)); err != nil {
			return nil, err
		}
	}
	principal := "" // a human sees every request
	if !who.Human {
		principal = who.Principal()
	}
	return g.db.Approvals(ctx, principal, f)
}

// DecideApproval implements memory.ApprovalService.
func (g *Gates) DecideApproval(ctx context.Context, d memory.ApprovalDecision, run memory.ToolRunner) (memory.Approval, error) {
	who, err := memory.RequireIdentity(ctx)
	if err != nil {
		return memory.Approval{}, err
	}
	if !who.Human {
		return memory.Approval{}, memory.Errorf(memory.EFORBIDDEN, "only a human may decide an approval; you are %s: "+
			"list_reviews shows your own requests and how they were decided", who.Describe())
	}
	if d.ID == "" {
		return memory.Approval{}, memory.Errorf(memory.EINVALID, "id is required: the approval's id, as list_reviews shows it")
	}
	if d.Reason == "" {
		return memory.Approval{}, memory.Errorf(memory.EINVALID, "reason is required: say why, for the caller and the record")
	}
	if err := memory.CheckReason("reason", d.Reason); err != nil {
		return memory.Approval{}, err
	}
	if _, err := g.db.ExpireApprovals(ctx); err != nil {
		return memory.Approval{}, err
	}
	a, err := g.db.Approval(ctx, d.ID)
	if err != nil {
		return a, err
	}
	v := store.Verdict{ID: d.ID, By: who.Principal(), Approve: d.Approve, Reason: d.Reason}
	if a.Kind != memory.ApprovalHold || !d.Approve || a.Status != memory.ApprovalPending {
		return g.db.RecordVerdict(ctx, v)
	}
	return g.apply(ctx, a, v, run)
}

// apply runs approved held write a as its caller, through the tool, and
// records how it ended. Its first write claims the approval, so a write is
// applied once however many humans approve it at once.
func (g *Gates) apply(ctx context.Context, a memory.Approval, v store.Verdict, run memory.ToolRunner) (memory.Approval, error) {
	call := &store.Call{Principal: a.Caller.Principal(), Tool: a.Tool, Started: g.db.Now.Now(),
		Gates: map[string]time.Duration{}, Applies: &v}
	actx := store.WithCall(memory.WithIdentity(ctx, a.Caller), call)
	res, text, err := run(actx, a.Tool, []byte(a.Arguments))
	if errors.Is(err, store.ErrDecided) {
		// Decided meanwhile (by another human, or the deadline passed):
		// nothing was applied by this call.
		if _, xerr := g.db.ExpireApprovals(ctx); xerr != nil {
			return a, xerr
		}
		return g.db.RecordVerdict(ctx, v) // reports the decision that came first
	}
	g.finish(ctx, call, gateService, res, text, err, false) // the caller's log line; err is recorded below
	o := store.Applied{Committed: call.Committed(), Ref: call.Ref, Text: text, Err: err}
	if err == nil {
		if o.Result, err = json.Marshal(res); err != nil {
			o.Result = nil
		}
		if o.Ref == "" {
			o.Ref = refOf(o.Result)
		}
	}
	return g.db.RecordApplied(ctx, a.ID, v.By, v.Reason, o)
}

// queued gives the review of a medium-risk call what its result says it
// wrote, when its service did not say (only remember does).
func (g *Gates) queued(ctx context.Context, call *store.Call, id string, res any) {
	if call.Ref != "" {
		return
	}
	b, err := json.Marshal(res)
	if err != nil {
		return
	}
	if ref := refOf(b); ref != "" {
		if err := g.db.SetApprovalRef(ctx, id, ref); err != nil {
			g.Log.ErrorContext(ctx, "approval ref", "approval", id, "err", err)
		}
	}
}

// refOf names what a tool's result says it wrote: the memory's id, or the
// fact's.
func refOf(result []byte) string {
	var r struct {
		ID   string `json:"id"`
		Fact struct {
			FactID string `json:"fact_id"`
		} `json:"fact"`
	}
	if json.Unmarshal(result, &r) != nil {
		return ""
	}
	if r.ID != "" {
		return r.ID
	}
	return r.Fact.FactID
}

// RuleAdvice implements memory.ApprovalService: every rule of the table,
// and any other that requests name, with its configured tier and how its
// requests were decided.
func (g *Gates) RuleAdvice(ctx context.Context) ([]memory.RuleAdvice, error) {
	if err := requireHuman(ctx, "read the rules' advice"); err != nil {
		return nil, err
	}
	got, err := g.db.RuleAdvice(ctx)
	if err != nil {
		return nil, err
	}
	tiers := g.Risk
	if tiers == nil {
		tiers = DefaultRiskTiers()
	}
	for rule := range tiers {
		if got[rule] == nil {
			got[rule] = &memory.RuleAdvice{Rule: rule}
		}
	}
	out := make([]memory.RuleAdvice, 0, len(got))
	for rule, a := range got {
		a.Tier = tiers[rule]
		out = append(out, *a)
	}
	slices.SortFunc(out, func(a, b memory.RuleAdvice) int { return strings.Compare(a.Rule, b.Rule) })
	return out, nil
}

// MarkReviewOnly implements memory.ApprovalService.
func (g *Gates) MarkReviewOnly(ctx context.Context, rule string, on bool, reason string) (memory.RuleAdvice, error) {
	if err := requireHuman(ctx, "mark a rule review only"); err != nil {
		return memory.RuleAdvice{}, err
	}
	who, _ := memory.IdentityFrom(ctx)
	tiers := g.Risk
	if tiers == nil {
		tiers = DefaultRiskTiers()
	}
	tier, ok := tiers[rule]
	switch {
	case !ok:
		return memory.RuleAdvice{}, memory.Errorf(memory.ENOTFOUND, "no rule %q in the risk table: the approvals page lists the rules", rule)
	case on && tier != memory.RiskHigh:
		return memory.RuleAdvice{}, memory.Errorf(memory.EINVALID, "rule %s is %s risk: only a high-risk rule's writes are held, so only one can be made review only", rule, tier)
	case strings.TrimSpace(reason) == "":
		return memory.RuleAdvice{}, memory.Errorf(memory.EINVALID, "give a reason: it is kept with the mark")
	}
	if err := memory.CheckReason("reason", reason); err != nil {
		return memory.RuleAdvice{}, err
	}
	if err := g.db.MarkReviewOnly(ctx, who, rule, on, reason); err != nil {
		return memory.RuleAdvice{}, err
	}
	all, err := g.RuleAdvice(ctx)
	if err != nil {
		return memory.RuleAdvice{}, err
	}
	i := slices.IndexFunc(all, func(a memory.RuleAdvice) bool { return a.Rule == rule })
	return all[i], nil
}

func requireHuman(ctx context.Context, verb string) error {
	who, err := memory.RequireIdentity(ctx)
	if err != nil {
		return err
	}
	if !who.Human {
		return memory.Errorf(memory.EFORBIDDEN, "only a human may %s; you are %s", verb, who.Describe())
	}
	return nil
}
