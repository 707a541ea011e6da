package gate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/gate"
	"github.com/memory-mcp/memory-mcp/store"
)

var sam = memory.Identity{AgentID: "sam", Seniority: memory.SenioritySenior, Autonomy: memory.AutonomyFull}

// approvals is a fixture with facts: the tools it calls through the gates
// as a surface would, and the runner that applies an approved one.
type approvals struct {
	*fixture
	facts *store.FactService
}

// approvalsOn is the approvals fixture over f.
func approvalsOn(f *fixture) *approvals {
	return &approvals{fixture: f, facts: store.NewFactService(f.db)}
}

type factArgs struct {
	FactID   string `json:"fact_id"`
	Content  string `json:"content,omitempty"`
	Category string `json:"category,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// body runs tool with args as the identity in ctx, without the gates.
func (a *approvals) body(ctx context.Context, tool string, args []byte) (any, string, error) {
	var fa factArgs
	if err := json.Unmarshal(args, &fa); err != nil {
		return nil, "", err
	}
	var f memory.Fact
	var err error
	switch tool {
	case "publish_fact":
		var p memory.FactPublished
		p, err = a.facts.Publish(ctx, memory.FactWrite{FactID: fa.FactID, Content: fa.Content, Category: memory.FactCategory(fa.Category)})
		f = p.Fact
	case "retract_fact":
		f, err = a.facts.Retract(ctx, memory.FactRetract{FactID: fa.FactID, Reason: fa.Reason})
	default:
		return nil, "", fmt.Errorf("no tool %s", tool)
	}
	if err != nil {
		return nil, "", err
	}
	return map[string]any{"fact": f}, tool + " " + f.ID, nil
}

// call calls tool through the gates as who, with key ("" for none).
func (a *approvals) call(who memory.Identity, key, tool string, args factArgs) (any, string, error) {
	b, _ := json.Marshal(args)
	ctx := memory.WithIdentity(context.Background(), who)
	return a.g.Run(ctx, memory.WriteCall{Tool: tool, Key: key, Args: b}, func(ctx context.Context) (any, string, error) {
		return a.body(ctx, tool, b)
	})
}

func (a *approvals) decide(who memory.Identity, id string, approve bool, reason string) (memory.Approval, error) {
	ctx := memory.WithIdentity(context.Background(), who)
	return a.g.DecideApproval(ctx, memory.ApprovalDecision{ID: id, Approve: approve, Reason: reason}, a.body)
}

func (a *approvals) list(who memory.Identity, status memory.ApprovalStatus) []memory.Approval {
	a.t.Helper()
	l, err := a.g.ListApprovals(memory.WithIdentity(context.Background(), who), memory.ApprovalFilter{Status: status})
	if err != nil {
		a.t.Fatal(err)
	}
	return l
}

// fact returns fact id as it stands, or ENOTFOUND.
func (a *approvals) fact(id string) (memory.Fact, error) {
	return a.facts.Get(memory.WithIdentity(context.Background(), olive), id)
}

// outcomes counts the write log's lines by outcome, and rejections also by
// gate ("rejected by approval").
func (a *approvals) outcomes() map[memory.WriteOutcome]int {
	a.t.Helper()
	recs, err := a.db.WriteLog(context.Background(), time.Time{}, "")
	if err != nil {
		a.t.Fatal(err)
	}
	out := map[memory.WriteOutcome]int{}
	for _, r := range recs {
		out[r.Outcome]++
		if r.Outcome == memory.WriteOutcomeRejected {
			out[r.Outcome+" by "+memory.WriteOutcome(r.Gate)]++
		}
	}
	return out
}

// heldID reads the approval id from a held call's error.
func heldID(t *testing.T, err error) string {
	t.Helper()
	if memory.ErrorCode(err) != memory.EHELD {
		t.Fatalf("err = %v, want EHELD", err)
	}
	_, rest, _ := strings.Cut(memory.ErrorMessage(err), " as ")
	id, _, _ := strings.Cut(rest, " ")
	if !strings.HasPrefix(id, "apr-") {
		t.Fatalf("no approval id in %v", err)
	}
	return id
}

var policy = factArgs{FactID: "policy-secrets", Content: "Never log secrets.", Category: "core_policy"}

func TestLowRiskWriteIsApplied(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		a := approvalsOn(newFixture(t))
		if _, _, err := a.call(sam, "", "publish_fact", factArgs{FactID: "x", Content: "low now", Category: "adr"}); err != nil {
			t.Fatal(err)
		}
		a.g.Risk["publish_fact"] = memory.RiskLow
		if _, _, err := a.call(sam, "", "publish_fact", factArgs{FactID: "y", Content: "low", Category: "adr"}); err != nil {
			t.Fatal(err)
		}
		if l := a.list(olive, ""); len(l) != 1 || l[0].Kind != memory.ApprovalReview || l[0].Ref != "x" {
			t.Fatalf("requests = %+v, want only the review of x (y is low risk)", l)
		}
	})
}

func TestMediumRiskWriteIsAppliedAndQueuedForReview(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		a := approvalsOn(newFixture(t))
		_, text, err := a.call(sam, "", "publish_fact", factArgs{FactID: "adr-store", Content: "One SQLite file.", Category: "adr"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.fact("adr-store"); err != nil {
			t.Fatalf("a medium-risk write is applied: %v", err)
		}
		l := a.list(olive, memory.ApprovalPending)
		if len(l) != 1 || l[0].Kind != memory.ApprovalReview || l[0].Tier != memory.RiskMedium || l[0].Rule != "publish_fact" ||
			l[0].Ref != "adr-store" || l[0].ExpiresAt != nil || !strings.Contains(text, l[0].ID) {
			t.Fatalf("requests = %+v, text %q", l, text)
		}
		// Rejecting a review records the verdict; the write stays.
		d, err := a.decide(olive, l[0].ID, false, "say which file")
		if err != nil || d.Status != memory.ApprovalRejected || d.DecidedBy != "human:olive" || d.Reason != "say which file" {
			t.Fatalf("reject review = %+v, %v", d, err)
		}
		if f, err := a.fact("adr-store"); err != nil || f.RetractedAt != nil {
			t.Fatalf("a rejected review changes nothing: %+v, %v", f, err)
		}
		// A human's own write is low risk: the human is the approver.
		if _, _, err := a.call(olive, "", "publish_fact", factArgs{FactID: "adr-2", Content: "Two.", Category: "adr"}); err != nil {
			t.Fatal(err)
		}
		if l := a.list(olive, memory.ApprovalPending); len(l) != 0 {
			t.Fatalf("a human's write was queued: %+v", l)
		}
	})
}

func TestHighRiskWriteIsHeldThenAppliedAsItsCaller(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		a := approvalsOn(newFixture(t))
		_, _, err := a.call(sam, "k1", "publish_fact", policy)
		id := heldID(t, err)
		if _, err := a.fact("policy-secrets"); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Fatalf("a held write is not applied: %v", err)
		}
		// A repeat with the key gets the same answer and asks nothing more.
		_, _, again := a.call(sam, "k1", "publish_fact", policy)
		if again == nil || again.Error() != err.Error() {
			t.Fatalf("repeat = %v, want %v", again, err)
		}
		if l := a.list(olive, ""); len(l) != 1 || l[0].ID != id || l[0].Status != memory.ApprovalPending || l[0].IdempotencyKey != "k1" ||
			l[0].Caller != sam || l[0].Rule != "publish_fact:core_policy" {
			t.Fatalf("requests = %+v", l)
		}
		// An agent sees its own requests, and may not decide.
		if l := a.list(ann, ""); len(l) != 0 {
			t.Fatalf("ann sees sam's request: %+v", l)
		}
		if l := a.list(sam, ""); len(l) != 1 {
			t.Fatalf("sam's requests = %+v", l)
		}
		if _, err := a.decide(sam, id, true, "mine"); memory.ErrorCode(err) != memory.EFORBIDDEN {
			t.Fatalf("an agent decides: %v", err)
		}
		d, err := a.decide(olive, id, true, "agreed in review")
		if err != nil || d.Status != memory.ApprovalApproved || d.Ref != "policy-secrets" || d.Error != "" {
			t.Fatalf("approve = %+v, %v", d, err)
		}
		f, err := a.fact("policy-secrets")
		if err != nil || f.Author.AgentID != "sam" || f.Author.Seniority != memory.SenioritySenior || f.Author.Human {
			t.Fatalf("the approved write, as sam made it: %+v, %v", f, err)
		}
		// Now a repeat with the key gets the write's own result.
		res, _, err := a.call(sam, "k1", "publish_fact", policy)
		if err != nil || !strings.Contains(string(res.(json.RawMessage)), `"policy-secrets"`) {
			t.Fatalf("repeat after approval = %s, %v", res, err)
		}
		// Deciding twice names the first decision.
		if _, err := a.decide(olive, id, false, "no"); memory.ErrorCode(err) != memory.ECONFLICT || !strings.Contains(err.Error(), "approved by human:olive") {
			t.Fatalf("decided twice: %v", err)
		}
		// The held call, the write when applied (this test decides outside the
		// gates, so the decision itself has no line), and the two repeats.
		if o := a.outcomes(); o[memory.WriteOutcomeHeld] != 1 || o[memory.WriteOutcomeStored] != 1 || o[memory.WriteOutcomeReplayed] != 2 {
			t.Fatalf("write log outcomes %v", o)
		}
	})
}

func TestRejectedHoldIsNeverApplied(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		a := approvalsOn(newFixture(t))
		_, _, err := a.call(sam, "k", "publish_fact", policy)
		id := heldID(t, err)
		d, err := a.decide(olive, id, false, "not a policy")
		if err != nil || d.Status != memory.ApprovalRejected || !strings.HasPrefix(d.Error, "EFORBIDDEN: ") {
			t.Fatalf("reject = %+v, %v", d, err)
		}
		if _, err := a.fact("policy-secrets"); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Fatalf("a rejected write was applied: %v", err)
		}
		_, _, err = a.call(sam, "k", "publish_fact", policy)
		if memory.ErrorCode(err) != memory.EFORBIDDEN || !strings.Contains(err.Error(), "not a policy") {
			t.Fatalf("repeat after rejection = %v", err)
		}
		if _, err := a.decide(olive, id, true, "after all"); memory.ErrorCode(err) != memory.ECONFLICT || !strings.Contains(err.Error(), "rejected by human:olive") {
			t.Fatalf("approve after reject = %v", err)
		}
		if _, err := a.decide(olive, "apr-000000000000", true, "?"); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Fatalf("unknown id = %v", err)
		}
		if _, err := a.decide(olive, id, true, ""); memory.ErrorCode(err) != memory.EINVALID {
			t.Fatalf("no reason = %v", err)
		}
	})
}

func TestHoldExpiresClosed(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		a := approvalsOn(newFixture(t))
		a.g.ApprovalTimeout = time.Hour
		_, _, err := a.call(sam, "k", "publish_fact", policy)
		id := heldID(t, err)
		a.clk.Advance(time.Hour)
		if l := a.list(sam, memory.ApprovalExpired); len(l) != 1 || l[0].ID != id || !strings.HasPrefix(l[0].Error, "ECONFLICT: ") {
			t.Fatalf("expired = %+v", l)
		}
		if l := a.list(olive, memory.ApprovalPending); len(l) != 0 {
			t.Fatalf("an expired hold is pending: %+v", l)
		}
		if _, err := a.decide(olive, id, true, "late"); memory.ErrorCode(err) != memory.ECONFLICT || !strings.Contains(err.Error(), "expired") {
			t.Fatalf("approve after expiry = %v", err)
		}
		if _, err := a.fact("policy-secrets"); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Fatalf("an expired write was applied: %v", err)
		}
		_, _, err = a.call(sam, "k", "publish_fact", policy)
		if memory.ErrorCode(err) != memory.ECONFLICT || !strings.Contains(err.Error(), "expired") {
			t.Fatalf("repeat after expiry = %v", err)
		}
		// The held call; its expiry, refused by the approval gate; the repeat.
		if o := a.outcomes(); o[memory.WriteOutcomeHeld] != 1 || o["rejected by approval"] != 1 || o["rejected by idempotency"] != 1 {
			t.Fatalf("outcomes %v", o)
		}
	})
}

func TestApprovedWriteRunsItsChecksAgain(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		a := approvalsOn(newFixture(t))
		if _, _, err := a.call(olive, "", "publish_fact", factArgs{FactID: "adr-old", Content: "JSON files.", Category: "adr"}); err != nil {
			t.Fatal(err)
		}
		_, _, err := a.call(sam, "", "retract_fact", factArgs{FactID: "adr-old", Reason: "replaced"})
		id := heldID(t, err)
		if _, _, err := a.call(olive, "", "retract_fact", factArgs{FactID: "adr-old", Reason: "gone"}); err != nil {
			t.Fatal(err)
		}
		d, err := a.decide(olive, id, true, "yes")
		if err != nil || d.Status != memory.ApprovalFailed || !strings.HasPrefix(d.Error, "ECONFLICT: ") {
			t.Fatalf("approving a write that became invalid = %+v, %v", d, err)
		}
		if f, _ := a.fact("adr-old"); f.Version != 2 {
			t.Fatalf("the fact moved on: %+v", f)
		}
	})
}

func TestHeldWriteIsCheckedFirst(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		a := approvalsOn(newFixture(t))
		june := memory.Identity{AgentID: "june", Seniority: memory.SeniorityJunior, Autonomy: memory.AutonomySemi}
		_, _, err := a.call(june, "", "publish_fact", policy)
		if memory.ErrorCode(err) != memory.EFORBIDDEN {
			t.Fatalf("a junior's core policy = %v, want refused before anything is held", err)
		}
		if l := a.list(olive, ""); len(l) != 0 {
			t.Fatalf("a refused write was held: %+v", l)
		}
	})
}

func TestConcurrentApprovalsApplyOnce(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		a := approvalsOn(newFixture(t))
		if _, _, err := a.call(olive, "", "publish_fact", factArgs{FactID: "adr-x", Content: "X.", Category: "adr"}); err != nil {
			t.Fatal(err)
		}
		_, _, err := a.call(sam, "", "retract_fact", factArgs{FactID: "adr-x", Reason: "wrong"})
		id := heldID(t, err)
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Go(func() { _, errs[i] = a.decide(olive, id, true, "ok") })
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch memory.ErrorCode(err) {
			case "":
				won++
			case memory.ECONFLICT:
			default:
				t.Errorf("decide = %v", err)
			}
		}
		if won != 1 {
			t.Fatalf("%d approvals applied the write, want 1 (%v)", won, errs)
		}
		h, err := a.facts.History(memory.WithIdentity(context.Background(), olive), "adr-x")
		if err != nil || len(h) != 2 {
			t.Fatalf("history = %+v, %v: want the publication and one retraction", h, err)
		}
	})
}

func TestApprovalOff(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		a := approvalsOn(newFixture(t))
		a.g.Approval = false
		if _, _, err := a.call(sam, "", "publish_fact", policy); err != nil {
			t.Fatal(err)
		}
		if l := a.list(olive, ""); len(l) != 0 {
			t.Fatalf("approval off queued %+v", l)
		}
	})
}

func TestParseRiskTiers(t *testing.T) {
	tools := []string{"publish_fact", "remember", "erase"}
	for _, tt := range []struct {
		in, err string
	}{
		{"", ""},
		{"publish_fact=high,remember=medium", ""},
		{"publish_fact:core_policy=medium", ""},
		{"erase=low", ""},
		{"publish_fact=urgent", "unknown risk tier"},
		{"publish=high", "neither a tool that writes"},
		{"remember=low,remember=high", "given twice"},
		{"remember", "rule=tier"},
	} {
		got, err := gate.ParseRiskTiers(tt.in, tools)
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("ParseRiskTiers(%q) = %v, want error %q", tt.in, err, tt.err)
		}
		if err == nil {
			if again, err := gate.ParseRiskTiers(got.String(), tools); err != nil || again.String() != got.String() {
				t.Errorf("%q renders as %q, which reads back as %v, %v", tt.in, got.String(), again, err)
			}
		}
	}
	r, _ := gate.ParseRiskTiers("publish_fact=low", tools)
	for _, tt := range []struct {
		who        memory.Identity
		tool, args string
		want       memory.RiskTier
	}{
		{sam, "publish_fact", `{"category":"adr"}`, memory.RiskLow},
		{sam, "publish_fact", `{"category":"core_policy"}`, memory.RiskHigh},
		{olive, "publish_fact", `{"category":"core_policy"}`, memory.RiskLow},
		{sam, "remember", `{}`, memory.RiskLow},
		{sam, "retract_memory", `{"id":"m"}`, memory.RiskHigh},
		{sam, "memory_block_create", `{"shared":true}`, memory.RiskMedium},
		{sam, "memory_block_create", `{"shared":false}`, memory.RiskLow},
		{sam, "write_note", `{"promote":true}`, memory.RiskMedium},
		{sam, "memory", `{"command":"create","path":"/memories/notes.md"}`, memory.RiskLow},
		{sam, "memory", `{"command":"create","path":"/memories/shared/notes.md"}`, memory.RiskMedium},
		{sam, "memory", `{"command":"delete","path":"/memories/shared"}`, memory.RiskMedium},
		{sam, "memory", `{"command":"rename","old_path":"/memories/a","new_path":"/memories/shared/a"}`, memory.RiskMedium},
		{sam, "memory", `{"command":"rename","old_path":"/memories/shared/a","new_path":"/memories/a"}`, memory.RiskMedium},
		{sam, "memory", `{"command":"create","path":"/memoriesshared/a"}`, memory.RiskLow}, // not a path: the tool refuses it
		{olive, "memory", `{"command":"create","path":"/memories/shared/notes.md"}`, memory.RiskLow},
		{sam, "a_tool_with_no_rule", `{}`, memory.RiskHigh},
		{sam, "resolve_conflict", `{"id":"cf_1","keep":"newer"}`, memory.RiskLow},
		{sam, "resolve_conflict", `{"id":"fcf_1","keep":"Newer"}`, memory.RiskHigh},
		{sam, "resolve_conflict", `{"id":" fcf_1","keep":"older"}`, memory.RiskHigh},
		{sam, "resolve_conflict", `{"id":"fcf_1","keep":" BOTH "}`, memory.RiskLow},
	} {
		if got, rule := r.Classify(tt.who, tt.tool, []byte(tt.args), memory.Subject{}); got != tt.want {
			t.Errorf("Classify(%s, %s %s) = %s (%s), want %s", tt.who.AgentID, tt.tool, tt.args, got, rule, tt.want)
		}
	}
	// What a call would change, where its arguments do not say.
	for _, tt := range []struct {
		tool, args string
		subject    memory.Subject
		want       memory.RiskTier
	}{
		{"publish_fact", `{"fact_id":"p","category":"adr"}`, memory.Subject{FactCategory: memory.FactCorePolicy}, memory.RiskHigh},
		{"publish_fact", `{"fact_id":"p","category":"adr"}`, memory.Subject{FactCategory: memory.FactADR}, memory.RiskLow},
		{"memory_block_rethink", `{"label":"plan"}`, memory.Subject{SharedBlock: true}, memory.RiskMedium},
		{"memory_block_delete", `{"label":"plan"}`, memory.Subject{SharedBlock: true}, memory.RiskMedium},
		{"memory_block_delete", `{"label":"plan"}`, memory.Subject{}, memory.RiskLow},
	} {
		if got, rule := r.Classify(sam, tt.tool, []byte(tt.args), tt.subject); got != tt.want {
			t.Errorf("Classify(%s %s, %+v) = %s (%s), want %s", tt.tool, tt.args, tt.subject, got, rule, tt.want)
		}
		if got, _ := r.Classify(olive, tt.tool, []byte(tt.args), tt.subject); got != memory.RiskLow {
			t.Errorf("a human's %s is %s, want low", tt.tool, got)
		}
	}
}

// A write that repeats what is there (a fact republished as it stands, or
// one another fact already says) writes nothing: nothing is held for a
// human or queued for review, and its log line says so.
func TestRepeatIsNeitherHeldNorQueued(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		a := approvalsOn(newFixture(t))
		if _, _, err := a.call(olive, "", "publish_fact", policy); err != nil {
			t.Fatal(err)
		}
		if _, _, err := a.call(sam, "", "publish_fact", policy); err != nil {
			t.Fatalf("a senior agent republishing the policy as it stands: %v", err)
		}
		again := policy
		again.FactID = "policy-secrets-2"
		if _, _, err := a.call(sam, "", "publish_fact", again); err != nil {
			t.Fatalf("a senior agent publishing the policy under another id: %v", err)
		}
		adr := factArgs{FactID: "adr-1", Content: "One SQLite file.", Category: "adr"}
		a.call(sam, "", "publish_fact", adr)
		a.call(sam, "", "publish_fact", adr)
		if l := a.list(olive, ""); len(l) != 1 || l[0].Ref != "adr-1" {
			t.Fatalf("requests = %+v, want only the first adr's review", l)
		}
		if out := a.outcomes(); out[memory.WriteOutcomeHeld] != 0 || out[memory.WriteOutcomeUnchanged] != 2 || out[memory.WriteOutcomeDuplicate] != 1 {
			t.Fatalf("outcomes = %v", out)
		}
		if _, err := a.fact("policy-secrets-2"); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Fatalf("the repeat under another id was stored: %v", err)
		}
	})
}

// Some calls are classified by what they would change, which their
// arguments do not say: a new version of a core policy filed under another
// category withdraws the policy as much as retracting it would, and an edit
// names a block by its label alone, which may be a block every agent reads.
func TestRiskOfWhatACallWouldChange(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		a := approvalsOn(newFixture(t))
		if _, _, err := a.call(olive, "", "publish_fact", policy); err != nil {
			t.Fatal(err)
		}
		moved := factArgs{FactID: policy.FactID, Content: "Logging secrets is discouraged.", Category: "convention"}
		if _, _, err := a.call(sam, "", "publish_fact", moved); memory.ErrorCode(err) != memory.EHELD {
			t.Fatalf("a core policy moved to a convention by an agent: %v, want it held", err)
		}
		if f, err := a.fact(policy.FactID); err != nil || f.Category != memory.FactCorePolicy || f.Content != policy.Content {
			t.Fatalf("the policy after a held move: %+v, %v; want it as it was", f, err)
		}
		// Another fact's new version in its own category stays medium.
		if _, _, err := a.call(olive, "", "publish_fact", factArgs{FactID: "adr-1", Content: "One file.", Category: "adr"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := a.call(sam, "", "publish_fact", factArgs{FactID: "adr-1", Content: "One SQLite file.", Category: "convention"}); err != nil {
			t.Fatalf("an adr moved by an agent: %v, want it applied and reviewed", err)
		}

		blocks := store.NewBlockService(a.db)
		edit := func(who memory.Identity, label string) error {
			args, _ := json.Marshal(map[string]any{"label": label, "text": "one more line"})
			_, _, err := a.g.Run(memory.WithIdentity(context.Background(), who), memory.WriteCall{Tool: "memory_block_append", Args: args},
				func(ctx context.Context) (any, string, error) {
					b, err := blocks.Edit(ctx, memory.BlockEdit{Label: label, Op: memory.BlockAppend, Text: "one more line"})
					return b, "", err
				})
			return err
		}
		for _, spec := range []memory.BlockSpec{{Label: "team-plan", Description: "the plan", Shared: true, Writers: []string{"*"}},
			{Label: "scratch", Description: "mine"}} {
			if _, err := blocks.Create(memory.WithIdentity(context.Background(), sam), spec); err != nil {
				t.Fatal(err)
			}
		}
		before := len(a.list(olive, memory.ApprovalPending))
		if err := edit(sam, "scratch"); err != nil {
			t.Fatal(err)
		}
		if l := a.list(olive, memory.ApprovalPending); len(l) != before {
			t.Fatalf("an edit of a personal block was queued: %+v", l)
		}
		if err := edit(sam, "team-plan"); err != nil {
			t.Fatal(err)
		}
		l := a.list(olive, memory.ApprovalPending)
		reviewed := slices.IndexFunc(l, func(r memory.Approval) bool {
			return r.Rule == "memory_block_append:shared" && r.Tier == memory.RiskMedium && r.Kind == memory.ApprovalReview
		})
		if len(l) != before+1 || reviewed < 0 {
			t.Fatalf("an edit of a shared block: requests %+v, want one more, a review by rule memory_block_append:shared", l)
		}
	})
}
