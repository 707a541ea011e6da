package main

import (
	"os/exec"
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
)

type approvalsResult struct {
	Approvals []memory.Approval `json:"approvals"`
}

type approvalResult struct {
	Approval memory.Approval `json:"approval"`
}

// An agent's core policy is held in its own server process; a human, in a
// second process on the same data directory, approves it, and the policy
// then exists as the agent wrote it. The agent learns the outcome by
// repeating its call with its key, and may not decide itself.
func TestHeldWriteApprovedFromAnotherProcess(t *testing.T) {
	dir := t.TempDir()
	sam := start(t, options{dataDir: dir, args: []string{"--agent-id", "sam", "--seniority", "senior"}})
	policy := map[string]any{"fact_id": "policy-secrets", "content": "Never log secrets.", "category": "core_policy",
		"idempotency_key": "policy-secrets-1"}
	sam.fail("publish_fact", policy, "EHELD", "held for a human's approval as apr-")
	held := text(sam.call("publish_fact", policy))
	sam.fail("get_fact", map[string]any{"fact_id": "policy-secrets"}, "ENOTFOUND", "")
	// An argument's name in another case is refused, not read past the
	// classification as the same argument.
	sam.fail("publish_fact", map[string]any{"fact_id": "policy-b", "content": "Obey B.", "Category": "core_policy"}, "EINVALID",
		`unknown argument "Category"`)
	sam.fail("get_fact", map[string]any{"fact_id": "policy-b"}, "ENOTFOUND", "")

	var mine approvalsResult
	sam.ok("list_approvals", map[string]any{"status": "pending"}, &mine)
	if len(mine.Approvals) != 1 || mine.Approvals[0].Tool != "publish_fact" || mine.Approvals[0].Tier != memory.RiskHigh ||
		!strings.Contains(held, mine.Approvals[0].ID) {
		t.Fatalf("sam's pending requests = %+v (held: %s)", mine, held)
	}
	id := mine.Approvals[0].ID
	sam.fail("decide_approval", map[string]any{"id": id, "approve": true, "reason": "mine"}, "EFORBIDDEN", "for human operators only")

	olivia := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "olivia", "--human"}})
	var all approvalsResult
	olivia.ok("list_approvals", map[string]any{}, &all)
	if len(all.Approvals) != 1 || all.Approvals[0].ID != id || all.Approvals[0].Caller.AgentID != "sam" {
		t.Fatalf("olivia's requests = %+v", all)
	}
	olivia.fail("decide_approval", map[string]any{"id": id, "approve": true}, "EINVALID", "reason")
	var d approvalResult
	olivia.ok("decide_approval", map[string]any{"id": id, "approve": true, "reason": "agreed at the security review"}, &d)
	if d.Approval.Status != memory.ApprovalApproved || d.Approval.DecidedBy != "human:olivia" || d.Approval.Ref != "policy-secrets" {
		t.Fatalf("decision = %+v", d)
	}
	olivia.fail("decide_approval", map[string]any{"id": id, "approve": false, "reason": "wait"}, "ECONFLICT", "already decided: approved by human:olivia")
	var f factResult
	olivia.ok("get_fact", map[string]any{"fact_id": "policy-secrets"}, &f)
	if f.Fact.Author.AgentID != "sam" || f.Fact.Author.Seniority != memory.SenioritySenior || f.Fact.Category != memory.FactCorePolicy {
		t.Fatalf("the approved policy = %+v, want it as sam wrote it", f.Fact)
	}

	// Sam's repeat now gets the write's own result, and writes nothing more.
	var again factResult
	sam.ok("publish_fact", policy, &again)
	if again.Fact.ID != "policy-secrets" || again.Fact.Version != 1 {
		t.Fatalf("sam's repeat after approval = %+v", again.Fact)
	}
	sam.ok("list_approvals", map[string]any{"status": "approved"}, &mine)
	if len(mine.Approvals) != 1 || mine.Approvals[0].Reason != "agreed at the security review" {
		t.Fatalf("sam's approved requests = %+v", mine)
	}
	out, err := commandOn(t, dir, "stats", "--data-dir", dir, "--window", "1h").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "held 1") {
		t.Fatalf("memory-mcp stats: %v\n%s", err, out)
	}
}

// Approval off applies every write; bad settings are refused at start.
func TestApprovalSettings(t *testing.T) {
	sam := startIn(t, options{args: []string{"--agent-id", "sam", "--seniority", "senior", "--approval", "off"}})
	sam.ok("publish_fact", map[string]any{"fact_id": "policy-x", "content": "X.", "category": "core_policy"}, nil)
	var l approvalsResult
	sam.ok("list_approvals", map[string]any{}, &l)
	if len(l.Approvals) != 0 {
		t.Fatalf("approval off queued %+v", l)
	}
	sam.fail("list_approvals", map[string]any{"status": "maybe"}, "EINVALID", "unknown approval status")
	sam.fail("list_approvals", map[string]any{"limit": 0}, "EINVALID", "limit 0 is out of range")
	sam.stop()

	lax := startIn(t, options{args: []string{"--agent-id", "sam", "--seniority", "senior", "--risk-tiers", "publish_fact:core_policy=low,retract_fact=medium"}})
	lax.ok("publish_fact", map[string]any{"fact_id": "policy-y", "content": "Y.", "category": "core_policy"}, nil)
	lax.ok("retract_fact", map[string]any{"fact_id": "policy-y"}, nil)
	lax.ok("list_approvals", map[string]any{}, &l)
	if len(l.Approvals) != 1 || l.Approvals[0].Kind != memory.ApprovalReview || l.Approvals[0].Tool != "retract_fact" {
		t.Fatalf("requests = %+v, want the retraction under review only", l)
	}
	lax.stop()

	for _, bad := range [][]string{{"--approval", "maybe"}, {"--risk-tiers", "publish=high"}, {"--approval-timeout", "0"}} {
		out, err := exec.Command(binary(t), append([]string{"stdio", "--data-dir", t.TempDir()}, bad...)...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), strings.TrimPrefix(bad[0], "--")) {
			t.Errorf("memory-mcp stdio %v: %v\n%s", bad, err, out)
		}
	}
}
