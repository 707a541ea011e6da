package ui

import (
	"context"
	"fmt"
	"net/http"

	memory "github.com/memory-mcp/memory-mcp"
)

// approvalRows is the most requests a page shows.
const approvalRows = 100

type approvalsData struct {
	Status     string // "" for every status
	Statuses   []memory.ApprovalStatus
	Approvals  []memory.Approval
	Offset     int
	Prev, Next int // offsets of the neighbouring pages; -1 for none
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
	return view{Title: "Approvals", Data: d}, nil
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
