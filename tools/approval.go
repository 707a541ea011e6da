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

// ListApprovalsArgs are the arguments of list_approvals.
type ListApprovalsArgs struct {
	Status string `json:"status,omitempty" jsonschema:"Only requests in this status: pending (waiting for a human), approved, rejected, expired (no one decided in time; never applied) or failed (approved, but the write then failed its own checks). Default: every status."`
	Limit  *int   `json:"limit,omitempty" jsonschema:"Maximum requests, newest first, 1 to 500 (default 50)."`
}

// ListApprovalsResult is the result of list_approvals.
type ListApprovalsResult struct {
	Approvals []memory.Approval `json:"approvals"`
}

// DecideApprovalArgs are the arguments of decide_approval.
type DecideApprovalArgs struct {
	ID      string `json:"id" jsonschema:"Id of the approval request, as list_approvals shows it (apr-...)."`
	Approve *bool  `json:"approve" jsonschema:"true: approve (a held write is then applied as the agent that made it, and its tool's checks run again); false: reject (a held write is never applied; an applied one under review stays, and the rejection is recorded)."`
	Reason  string `json:"reason" jsonschema:"Why, for the agent and the record (max 1000 bytes)."`
}

// ApprovalResult is the result of decide_approval.
type ApprovalResult struct {
	Approval memory.Approval `json:"approval"`
}

// registerApprovals registers list_approvals and decide_approval.
func registerApprovals(s *server.MCPServer, svc Services) {
	add(s, svc, mcp.NewTool("list_approvals",
		mcp.WithDescription("List your writes that wait for, or had, a human's decision, newest first: high-risk ones held until approved, medium-risk ones applied and queued for review. Shows whether a held write was approved (with ref), rejected (with reason), expired or failed."),
		mcp.WithInputSchema[ListApprovalsArgs](), mcp.WithOutputSchema[ListApprovalsResult](),
	), func(ctx context.Context, a ListApprovalsArgs) (ListApprovalsResult, string, error) {
		limit, err := count("limit", a.Limit)
		if err != nil {
			return ListApprovalsResult{}, "", err
		}
		var status memory.ApprovalStatus
		if a.Status != "" {
			if status, err = memory.ParseApprovalStatus(a.Status); err != nil {
				return ListApprovalsResult{}, "", err
			}
		}
		items, err := svc.Approvals.ListApprovals(ctx, memory.ApprovalFilter{Status: status, Limit: limit})
		if err != nil {
			return ListApprovalsResult{}, "", err
		}
		text := list("approval requests", items, approvalLine)
		if len(items) > 0 {
			text = strings.Replace(text, ":\n", ":\n"+memory.DataDirective+"\n", 1)
		}
		return ListApprovalsResult{Approvals: items}, text, nil
	})
	add(s, svc, mcp.NewTool("decide_approval",
		mcp.WithDescription("Humans only: approve or reject a request list_approvals shows. Approving a held write "+
			"applies it now as the agent that made it (its tool's own checks run again, so a write that became invalid "+
			"meanwhile fails with its own error, recorded on the request). Rejecting a held write means it is never "+
			"applied. A write under review was applied already: the decision is recorded and changes nothing; to undo "+
			"it, use the tool that does (retract_memory, retract_fact). A request is decided once."),
		mcp.WithInputSchema[DecideApprovalArgs](), mcp.WithOutputSchema[ApprovalResult](),
	), func(ctx context.Context, a DecideApprovalArgs) (ApprovalResult, string, error) {
		if a.Approve == nil {
			return ApprovalResult{}, "", memory.Errorf(memory.EINVALID, "approve is required: true or false")
		}
		ap, err := svc.Approvals.DecideApproval(ctx, memory.ApprovalDecision{ID: a.ID, Approve: *a.Approve, Reason: a.Reason}, svc.run)
		if err != nil {
			return ApprovalResult{}, "", err
		}
		return ApprovalResult{Approval: ap}, memory.DataDirective + "\n" + approvalLine(ap), nil
	})
}

// approvalLine renders one request: its state outside the fence, the
// call's arguments (an agent's words) inside.
func approvalLine(a memory.Approval) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s %s by %s, risk %s (rule %s), %s since %s", a.ID, a.Kind, a.Tool, a.Caller.Describe(),
		a.Tier, a.Rule, a.Status, a.CreatedAt.Format(time.RFC3339))
	if a.Status == memory.ApprovalPending && a.ExpiresAt != nil {
		fmt.Fprintf(&b, ", expires %s", a.ExpiresAt.Format(time.RFC3339))
	}
	if a.DecidedBy != "" {
		fmt.Fprintf(&b, "; decided by %s", a.DecidedBy)
	}
	if a.Ref != "" {
		fmt.Fprintf(&b, "; wrote %s", a.Ref)
	}
	if a.Error != "" {
		fmt.Fprintf(&b, "; %s", a.Error)
	}
	b.WriteString("\n" + memory.Fence("arguments of "+a.ID, a.Arguments))
	for _, w := range a.Wrote {
		fmt.Fprintf(&b, "\nwrote event %d: %s %s %s, from the note", w.Seq, w.Bucket, w.Operation, w.TargetID)
		b.WriteString("\n" + memory.Fence(fmt.Sprintf("note of event %d", w.Seq), w.RawInput))
	}
	if a.Reason != "" {
		b.WriteString("\n" + memory.Fence("reason of "+a.ID, a.Reason))
	}
	return b.String()
}
