package ui

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	memory "github.com/memory-mcp/memory-mcp"
)

// approvalRows is the most requests a page shows.
const approvalRows = 100

type approvalsData struct {
	// The filters, as typed: whose requests, by which rule or tool, and
	// how old at least (an age such as 2h or 3d).
	Agent, Rule, Tool, Age string
	Status                 string // "" for every status
	Statuses               []memory.ApprovalStatus
	Approvals              []memory.Approval
	Offset                 int
	Prev, Next             int // offsets of the neighbouring pages; -1 for none
	// Rules are the rules with requests, or high-risk ones, with how their
	// requests were decided.
	Rules []memory.RuleAdvice
}

// approvals lists approval requests a page at a time: the pending ones
// unless another status (or all) is asked, those that expire soonest first
// (left past their deadline, a held write is never applied); decided ones
// newest first.
func (h *handler) approvals(r *http.Request) (view, error) {
	q := r.URL.Query()
	d := approvalsData{Status: q.Get("status"), Statuses: []memory.ApprovalStatus{memory.ApprovalPending,
		memory.ApprovalApproved, memory.ApprovalRejected, memory.ApprovalExpired, memory.ApprovalFailed}, Prev: -1, Next: -1}
	var err error
	if d.Offset, err = offset(q.Get("offset")); err != nil {
		return view{}, err
	}
	f := memory.ApprovalFilter{Limit: approvalRows + 1, Offset: d.Offset} // one more: is there a next page?
	if err := h.approvalFilter(q, &d, &f); err != nil {
		return view{}, err
	}
	switch d.Status {
	case "":
		d.Status, f.Status, f.ExpiringFirst = string(memory.ApprovalPending), memory.ApprovalPending, true
	case "all":
	default:
		if f.Status, err = memory.ParseApprovalStatus(d.Status); err != nil {
			return view{}, err
		}
		f.ExpiringFirst = f.Status == memory.ApprovalPending
	}
	as, err := h.svc.Approvals.ListApprovals(r.Context(), f)
	if err != nil {
		return view{}, err
	}
	if len(as) > approvalRows {
		as, d.Next = as[:approvalRows], d.Offset+approvalRows
	}
	if d.Offset > 0 {
		d.Prev = max(d.Offset-approvalRows, 0)
	}
	d.Approvals = as
	rules, err := h.svc.Approvals.RuleAdvice(r.Context())
	if err != nil {
		return view{}, err
	}
	d.Rules = slices.DeleteFunc(rules, func(a memory.RuleAdvice) bool { return a.Holds+a.Reviews == 0 && a.Tier != memory.RiskHigh })
	return view{Title: "Approvals", Data: d}, nil
}

// approvalFilter reads the page's filters into d (as typed) and f.
func (h *handler) approvalFilter(q url.Values, d *approvalsData, f *memory.ApprovalFilter) error {
	d.Agent, d.Rule, d.Tool, d.Age = strings.TrimSpace(q.Get("agent")), strings.TrimSpace(q.Get("rule")),
		strings.TrimSpace(q.Get("tool")), strings.TrimSpace(q.Get("age"))
	f.AgentID, f.Rule, f.Tool = d.Agent, d.Rule, d.Tool
	age, err := memory.ParseAge("age", d.Age)
	if err != nil {
		return err
	}
	if age != nil {
		f.Before = h.now.Now().Add(-*age)
	}
	return nil
}

// Filters is the page's filters as a URL query, for its links.
func (d approvalsData) Filters() string {
	v := url.Values{}
	for k, s := range map[string]string{"agent": d.Agent, "rule": d.Rule, "tool": d.Tool, "age": d.Age} {
		if s != "" {
			v.Set(k, s)
		}
	}
	return v.Encode()
}

// maxBulk bounds the requests one bulk decision takes: a page's worth.
const maxBulk = approvalRows

// decideApprovals decides every request ticked with one decision and one
// reason, each as its own decide_approval call through the gates, with its
// own idempotency key (the form's and the request's id, so that sending
// the form again decides none twice) and its own record. One that fails
// leaves the others decided; the message says which did what.
func (h *handler) decideApprovals(r *http.Request) (done, error) {
	ids, reason, decision := r.PostForm["id"], posted(r, "reason"), posted(r, "decision")
	if decision != "approve" && decision != "reject" {
		return done{}, memory.Errorf(memory.EINVALID, "decide with the approve or the reject button (decision %q)", decision)
	}
	if len(ids) == 0 {
		return done{}, memory.Errorf(memory.EINVALID, "tick the requests to %s: none was ticked", decision)
	}
	if len(ids) > maxBulk {
		return done{}, memory.Errorf(memory.EINVALID, "%d requests ticked; decide at most %d at once", len(ids), maxBulk)
	}
	if reason == "" {
		return done{}, memory.Errorf(memory.EINVALID, "give one reason for the %d decisions: the agents and the record see it", len(ids))
	}
	for _, id := range ids {
		if err := memory.CheckID("id", id); err != nil {
			return done{}, err
		}
	}
	key := r.PostFormValue(keyField)
	var ok, failed []string
	for _, id := range ids {
		d := memory.ApprovalDecision{ID: id, Approve: decision == "approve", Reason: reason}
		args := map[string]any{"id": id, "approve": d.Approve, "reason": reason}
		res, err := gated(h, r, "decide_approval", keyFor(key, id), args, approvalFlash, func(ctx context.Context) (memory.Approval, error) {
			return h.svc.Approvals.DecideApproval(ctx, d, h.svc.Run)
		})
		switch {
		case err != nil:
			failed = append(failed, fmt.Sprintf("%s (%s)", id, memory.ErrorMessage(err)))
		case res.Status == memory.ApprovalFailed:
			failed = append(failed, fmt.Sprintf("%s (applied, then failed: %s)", id, res.Error))
		default:
			ok = append(ok, id)
		}
	}
	msg := fmt.Sprintf("%d request(s) %sd, each recorded on its own", len(ok), decision)
	if len(ok) > 0 {
		msg += ": " + strings.Join(ok, ", ")
	}
	if len(failed) > 0 {
		msg += fmt.Sprintf(". %d not: %s", len(failed), strings.Join(failed, "; "))
	}
	next := "/approvals"
	if f := posted(r, "filters"); f != "" {
		if v, err := url.ParseQuery(f); err == nil {
			next += "?" + v.Encode()
		}
	}
	return done{Next: next, Flash: msg + "."}, nil
}

// keyFor is the idempotency key of one decision of a bulk form.
func keyFor(key, id string) string {
	if key == "" {
		return ""
	}
	return key + "-" + id
}

func bulkForm(r *http.Request) *retry {
	fields := []field{{Name: "decision", Label: "Decision", Value: posted(r, "decision"), Choices: []string{"approve", "reject"}},
		{Name: "reason", Label: "Reason", Value: r.PostFormValue("reason"), Long: true}}
	for _, id := range r.PostForm["id"] {
		fields = append(fields, field{Name: "id", Label: "Request", Value: id})
	}
	return &retry{Action: r.URL.Path, Submit: "Decide", Key: r.PostFormValue(keyField), Fields: fields}
}

// markRule marks a rule review only, or holds its writes again, as the
// curator decided from its advice; through the gates as review_only, so
// that the write log keeps who did it and when.
func (h *handler) markRule(r *http.Request) (done, error) {
	rule, reason, on := r.PathValue("rule"), posted(r, "reason"), posted(r, "review_only") == "on"
	args := map[string]any{"rule": rule, "review_only": on, "reason": reason}
	return write(h, r, "review_only", args, "/approvals#rules", func(a memory.RuleAdvice) string {
		if a.ReviewOnly {
			return fmt.Sprintf("Rule %s is review only: its writes now apply at once and wait for review after.", a.Rule)
		}
		return fmt.Sprintf("Rule %s holds its writes again until a human approves them.", a.Rule)
	}, func(ctx context.Context) (memory.RuleAdvice, error) {
		return h.svc.Approvals.MarkReviewOnly(ctx, rule, on, reason)
	})
}

func ruleForm(r *http.Request) *retry {
	return &retry{Action: r.URL.Path, Submit: "Send", Key: r.PostFormValue(keyField), Fields: []field{
		{Name: "review_only", Label: "Review only", Value: posted(r, "review_only"), Choices: []string{"on", "off"}},
		{Name: "reason", Label: "Reason", Value: r.PostFormValue("reason"), Long: true}}}
}

// decideApproval approves or rejects a request as decide_approval would:
// approving a held write applies it, as the agent that made it.
func (h *handler) decideApproval(r *http.Request) (done, error) {
	d := memory.ApprovalDecision{ID: r.PathValue("id"), Reason: posted(r, "reason")}
	switch posted(r, "decision") {
	case "approve":
		d.Approve = true
	case "reject":
	default:
		return done{}, memory.Errorf(memory.EINVALID, "decide with the approve or the reject button (decision %q)", posted(r, "decision"))
	}
	if d.Reason == "" {
		return done{}, memory.Errorf(memory.EINVALID, "give a reason for deciding %s: the agent and the record see it", d.ID)
	}
	args := map[string]any{"id": d.ID, "approve": d.Approve, "reason": d.Reason}
	return write(h, r, "decide_approval", args, "/approvals", approvalFlash, func(ctx context.Context) (memory.Approval, error) {
		return h.svc.Approvals.DecideApproval(ctx, d, h.svc.Run)
	})
}

func approvalFlash(a memory.Approval) string {
	switch {
	case a.Kind == memory.ApprovalHold && a.Status == memory.ApprovalApproved:
		msg := fmt.Sprintf("Approval %s approved: %s was applied as %s", a.ID, a.Tool, a.Caller.Describe())
		if a.Ref != "" {
			msg += " and wrote " + a.Ref
		}
		return msg + "."
	case a.Status == memory.ApprovalFailed:
		return fmt.Sprintf("Approval %s approved, but %s then failed its own checks and wrote nothing: %s", a.ID, a.Tool, a.Error)
	case a.Kind == memory.ApprovalHold && a.Status == memory.ApprovalRejected:
		return fmt.Sprintf("Approval %s rejected: %s will never be applied.", a.ID, a.Tool)
	}
	return fmt.Sprintf("Approval %s: %s (the write was applied before review; the verdict is on record).", a.ID, a.Status)
}

func approvalForm(r *http.Request) *retry {
	submit := "Reject"
	if posted(r, "decision") == "approve" {
		submit = "Approve"
	}
	return &retry{Action: r.URL.Path, Submit: submit, Key: r.PostFormValue(keyField), Fields: []field{
		{Name: "decision", Label: "Decision", Value: posted(r, "decision"), Choices: []string{"approve", "reject"}},
		{Name: "reason", Label: "Reason", Value: r.PostFormValue("reason"), Long: true},
	}}
}
