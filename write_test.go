package memory

import (
	"math"
	"strings"
	"testing"
)

func ok(b Bucket, op Operation, target string, p Payload) WriteRequest {
	return WriteRequest{Decision: DecisionAccept, Bucket: b, Operation: op, TargetID: target, Payload: p, Confidence: 0.9}
}

func TestWriteRequestCheck(t *testing.T) {
	long := strings.Repeat("x", MaxStateTextBytes+1)
	tests := []struct {
		name string
		req  WriteRequest
		rule string // "" = passes
		want string // substring of the message
	}{
		{"issue upsert", ok(BucketIssues, OpUpsert, "pandas_import_blocker", Payload{Text: "pandas import fails"}), "", ""},
		{"issue resolve with reason", ok(BucketIssues, OpResolve, "pandas_import_blocker", Payload{Reason: "pinned"}), "", ""},
		{"resolve without target passes structure", ok(BucketIssues, OpResolve, "", Payload{}), "", ""},
		{"plan", ok(BucketPlan, OpUpsert, "main", Payload{Text: "ship it"}), "", ""},
		{"task state", ok(BucketTaskState, OpUpsert, "build_42", Payload{State: "done", Text: "green"}), "", ""},
		{"result with task", ok(BucketResults, OpAppend, "", Payload{Text: "acc 0.91", TaskID: "eval_1"}), "", ""},
		{"learning", ok(BucketLearnings, OpAppend, "", Payload{Text: "pin pandas"}), "", ""},
		{"decision invalidate", ok(BucketDecisions, OpInvalidate, "use_postgres", Payload{}), "", ""},
		{"ignore skips the rest", WriteRequest{Decision: DecisionIgnore, Bucket: "nope"}, "", ""},

		{"bad decision", WriteRequest{Decision: "maybe"}, RuleDecision, `decision "maybe"`},
		{"confidence high", WriteRequest{Decision: DecisionAccept, Confidence: 1.5}, RuleConfidence, "outside 0..1"},
		{"confidence NaN", WriteRequest{Decision: DecisionAccept, Confidence: math.NaN()}, RuleConfidence, "outside 0..1"},
		{"unknown bucket", ok("gossip", OpAppend, "", Payload{Text: "x"}), RuleBucket, `unknown bucket "gossip"`},
		{"op not allowed", ok(BucketResults, OpResolve, "", Payload{}), RuleOperation, `results does not accept "resolve": use append`},
		{"issues append", ok(BucketIssues, OpAppend, "x", Payload{Text: "x"}), RuleOperation, "use upsert or resolve"},
		{"target not slug", ok(BucketIssues, OpUpsert, "Pandas-Blocker", Payload{Text: "x"}), RuleTargetSlug, "not a slug"},
		{"target too long", ok(BucketIssues, OpUpsert, strings.Repeat("a", MaxTargetIDLen+1), Payload{Text: "x"}), RuleTargetSlug, "not a slug"},
		{"target on results", ok(BucketResults, OpAppend, "eval_1", Payload{Text: "x"}), RuleTargetSlug, "leave target_id empty"},
		{"text too big", ok(BucketLearnings, OpAppend, "", Payload{Text: long}), RuleSize, "payload.text is 8193 bytes; the limit is 8192 bytes (1 over)"},
		{"bad utf8", ok(BucketLearnings, OpAppend, "", Payload{Text: "a\xffb"}), RuleSize, "not valid UTF-8"},
		{"too many aliases", func() WriteRequest {
			r := ok(BucketIssues, OpUpsert, "x", Payload{Text: "x"})
			r.CandidateAliases = make([]string, MaxAliases+1)
			return r
		}(), RuleSize, "17 candidate_aliases"},
		{"upsert without text", ok(BucketIssues, OpUpsert, "x", Payload{}), RulePayload, "issues/upsert needs payload.text"},
		{"blank text", ok(BucketLearnings, OpAppend, "", Payload{Text: "  "}), RulePayload, "needs payload.text"},
		{"task without state", ok(BucketTaskState, OpUpsert, "t1", Payload{Text: "x"}), RulePayload, "needs payload.state"},
		{"state on issue", ok(BucketIssues, OpUpsert, "x", Payload{Text: "x", State: "done"}), RulePayload, "does not take payload.state"},
		{"text on resolve", ok(BucketIssues, OpResolve, "x", Payload{Text: "x"}), RulePayload, "issues/resolve does not take payload.text"},
		{"reason on append", ok(BucketDecisions, OpAppend, "x", Payload{Text: "x", Reason: "y"}), RulePayload, "does not take payload.reason"},
		{"task id not slug", ok(BucketResults, OpAppend, "", Payload{Text: "x", TaskID: "Eval 1"}), RulePayload, "payload.task_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.req.Check()
			switch {
			case tt.rule == "" && v != nil:
				t.Fatalf("rejected: %v", v)
			case tt.rule != "" && v == nil:
				t.Fatalf("passed, want %s", tt.rule)
			case tt.rule != "" && (v.Rule != tt.rule || !strings.Contains(v.Message, tt.want)):
				t.Fatalf("got %v, want %s containing %q", v, tt.rule, tt.want)
			}
		})
	}
}

func TestWriteRequestCheckTarget(t *testing.T) {
	tests := []struct {
		req  WriteRequest
		want string
	}{
		{ok(BucketIssues, OpResolve, "", Payload{}), "issues/resolve needs a target_id"},
		{ok(BucketTaskState, OpUpsert, "", Payload{State: "x"}), "task_state/upsert needs a target_id"},
		{ok(BucketPlan, OpUpsert, "other", Payload{Text: "x"}), `target_id "other" is not it`},
		{ok(BucketPlan, OpUpsert, "main", Payload{Text: "x"}), ""},
		{ok(BucketResults, OpAppend, "", Payload{Text: "x"}), ""},
		{ok(BucketIssues, OpResolve, "a", Payload{}), ""},
	}
	for _, tt := range tests {
		v := tt.req.CheckTarget()
		if (v == nil) != (tt.want == "") || v != nil && (v.Rule != RuleTarget || !strings.Contains(v.Message, tt.want)) {
			t.Errorf("%s/%s %q: got %v, want %q", tt.req.Bucket, tt.req.Operation, tt.req.TargetID, v, tt.want)
		}
	}
}

func TestEveryBucketOperationHasAPayloadRule(t *testing.T) {
	for _, b := range Buckets {
		for _, op := range b.Operations() {
			r := ok(b, op, "x", Payload{})
			if !b.Keyed() {
				r.TargetID = ""
			}
			rule := PayloadRuleFor(b, op)
			for _, f := range rule.Required {
				switch f {
				case "text":
					r.Payload.Text = "t"
				case "state":
					r.Payload.State = "s"
				}
			}
			if v := r.Check(); v != nil {
				t.Errorf("%s/%s with its required fields: %v", b, op, v)
			}
		}
	}
}

func TestSlugifyAndTextKey(t *testing.T) {
	slugs := []struct{ in, want string }{
		{"Pandas import fails in the loader", "pandas_import_fails_in_loader"},
		{"  The   BUILD is broken!! ", "build_broken"},
		{"Ünïcode only é", "n_code_only"},
		{"...", ""},
		{"supercalifragilisticexpialidocious word", "supercalifrag"},
		{"a b c d e f g h i j k l m n o p", "b_c_d_e_f_g"},
	}
	for _, tt := range slugs {
		max := 48
		if strings.HasPrefix(tt.in, "super") {
			max = 13
		}
		if got := Slugify(tt.in, max); got != tt.want || (got != "" && !IsSlug(got)) {
			t.Errorf("Slugify(%q, %d) = %q, want %q", tt.in, max, got, tt.want)
		}
	}
	keys := []struct{ a, b string }{
		{"Pandas import fails.", "pandas   IMPORT fails"},
		{"use SQLite (WAL)", "Use sqlite wal!"},
	}
	for _, k := range keys {
		if TextKey(k.a) != TextKey(k.b) {
			t.Errorf("TextKey(%q) = %q != TextKey(%q) = %q", k.a, TextKey(k.a), k.b, TextKey(k.b))
		}
	}
	if TextKey("pandas fails") == TextKey("pandas failed") {
		t.Error("different words share a key")
	}
}

func TestReferenceMemoryMerge(t *testing.T) {
	var m ReferenceMemory
	m.Merge([]string{"blocker", " Blocker ", ""}, "the earlier blocker")
	m.Merge([]string{"pandas error"}, "The earlier blocker!")
	if strings.Join(m.Aliases, "|") != "blocker|pandas error" || strings.Join(m.Phrases, "|") != "the earlier blocker" {
		t.Fatalf("merged = %+v", m)
	}
	for i := range 40 {
		m.Merge(nil, "phrase "+strings.Repeat("x", i+1))
	}
	if len(m.Phrases) != MaxReferencePhrases || m.Phrases[len(m.Phrases)-1] != "phrase "+strings.Repeat("x", 40) {
		t.Fatalf("bound not kept: %d phrases, last %q", len(m.Phrases), m.Phrases[len(m.Phrases)-1])
	}
}

func TestStateQueryValidate(t *testing.T) {
	tests := []struct {
		q    StateQuery
		want string
	}{
		{StateQuery{}, ""},
		{StateQuery{Bucket: BucketIssues, Status: StatusOpen}, ""},
		{StateQuery{Status: StatusSuperseded}, ""},
		{StateQuery{Bucket: "nope"}, `unknown bucket "nope"`},
		{StateQuery{Bucket: BucketIssues, Status: StatusActive}, `status "active" does not apply to issues: use one of open, resolved`},
		{StateQuery{Status: "closed"}, `unknown status "closed"`},
		{StateQuery{Limit: 501}, "limit 501 is out of range"},
	}
	for _, tt := range tests {
		err := tt.q.Validate()
		if (err == nil) != (tt.want == "") || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: got %v, want %q", tt.q, err, tt.want)
		}
	}
}

func TestNoteWriteAndPendingDecisionValidate(t *testing.T) {
	notes := []struct {
		w    NoteWrite
		want string
	}{
		{NoteWrite{Text: "issue: x"}, ""},
		{NoteWrite{Text: "x", Kind: NoteToolResult, TaskID: "T-12"}, ""},
		{NoteWrite{Text: " "}, "text is empty"},
		{NoteWrite{Text: "x", Kind: "thought"}, `unknown note kind "thought"`},
		{NoteWrite{Text: "x", TaskID: "bad id"}, "task_id"},
		{NoteWrite{Text: strings.Repeat("x", 11)}, "11 bytes; the limit is 10 bytes"},
	}
	for _, tt := range notes {
		w := tt.w
		err := w.Validate(10)
		if (err == nil) != (tt.want == "") || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: got %v, want %q", tt.w, err, tt.want)
		}
		if err == nil && w.Kind == "" {
			t.Errorf("%+v: kind not defaulted", tt.w)
		}
	}
	decisions := []struct {
		d    PendingDecision
		want string
	}{
		{PendingDecision{PendingID: 1, TargetID: "x"}, ""},
		{PendingDecision{PendingID: 1, DropReason: "noise"}, ""},
		{PendingDecision{TargetID: "x"}, "pending_id 0"},
		{PendingDecision{PendingID: 1}, "give target_id"},
		{PendingDecision{PendingID: 1, TargetID: "x", DropReason: "y"}, "not both"},
		{PendingDecision{PendingID: 1, TargetID: "X Y"}, "not a slug"},
	}
	for _, tt := range decisions {
		err := tt.d.Validate()
		if (err == nil) != (tt.want == "") || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: got %v, want %q", tt.d, err, tt.want)
		}
	}
}
