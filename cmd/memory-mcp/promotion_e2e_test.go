package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

type writeNoteResult struct {
	Note     memory.Note      `json:"note"`
	Outcomes []memory.Outcome `json:"outcomes"`
	Retried  []memory.Outcome `json:"retried"`
}

type sharedResult struct {
	Rows []memory.StateRow `json:"rows"`
}

// promoteNote writes a note with promote: true and returns its outcome.
func (s *proc) promoteNote(text string) memory.Outcome {
	s.t.Helper()
	var r writeNoteResult
	s.ok("write_note", map[string]any{"text": text, "promote": true}, &r)
	for _, o := range r.Outcomes {
		if o.NoteID == r.Note.ID {
			return o
		}
	}
	s.t.Fatalf("no outcome for note %d: %+v", r.Note.ID, r)
	return memory.Outcome{}
}

func TestPromotionEndToEnd(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	updated := map[string]bool{}
	curator := start(t, options{dataDir: dir, args: []string{"--agent-id", "alice", "--human"},
		client: &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			mu.Lock()
			updated[req.Params.URI] = true
			mu.Unlock()
		}}})
	for _, uri := range []string{"memory://shared", "memory://shared/issues", "memory://pending"} {
		if err := curator.cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
	}
	s := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "sam", "--pending-max-attempts", "2"}})

	// A note stays private until it is promoted.
	var wr writeNoteResult
	s.ok("write_note", map[string]any{"text": "blocker: pandas import fails in the loader", "task_id": "T-1"}, &wr)
	if wr.Note.ID == 0 || wr.Note.Agent != "sam" || wr.Note.Processed || len(wr.Outcomes) != 0 {
		t.Fatalf("write_note = %+v", wr)
	}
	var rep memory.PromotionReport
	s.ok("promote_notes", nil, &rep)
	if len(rep.Outcomes) != 1 || rep.Outcomes[0].Status != memory.OutcomeCommitted || rep.Outcomes[0].TargetID != "pandas_import_fails_in_loader" {
		t.Fatalf("promote_notes = %+v", rep)
	}
	s.ok("promote_notes", nil, &rep)
	if len(rep.Outcomes) != 0 {
		t.Fatalf("a note was promoted twice: %+v", rep)
	}

	// "The bug" names no row and waits for a curator; "the earlier blocker"
	// names the one issue reported as a blocker; saying it again in the
	// row's own words is a duplicate; two similar issues make a vague note wait.
	for _, n := range []string{"issue: flaky test in the auth module", "issue: flaky test in the billing module", "plan: ship v1 on Friday", "task T-1: blocked on review"} {
		if o := s.promoteNote(n); o.Status != memory.OutcomeCommitted {
			t.Fatalf("%q: %+v", n, o)
		}
	}
	held := s.promoteNote("The bug is fixed.")
	if held.Status != memory.OutcomePending || !strings.Contains(held.Reason, `calls it only "bug"`) {
		t.Fatalf("the bug: %+v", held)
	}
	if o := s.promoteNote("The earlier blocker is fixed."); o.Status != memory.OutcomeCommitted || o.Operation != memory.OpResolve || o.TargetID != "pandas_import_fails_in_loader" {
		t.Fatalf("earlier blocker: %+v", o)
	}
	if o := s.promoteNote("The pandas import in the loader works again."); o.Status != memory.OutcomeIgnored || !strings.Contains(o.Reason, "already closed") {
		t.Fatalf("pandas import: %+v", o)
	}
	o := s.promoteNote("The flaky test is fixed now.")
	if o.Status != memory.OutcomePending || o.PendingID == 0 || len(o.Candidates) != 2 || !strings.Contains(o.Reason, "ambiguous") {
		t.Fatalf("vague note: %+v", o)
	}
	if o := s.promoteNote("hmm, let me look at the logs"); o.Status != memory.OutcomeIgnored {
		t.Fatalf("noise: %+v", o)
	}
	if o := s.promoteNote("[gossip/append] tabs"); o.Status != memory.OutcomeRejected || o.Rule != memory.RuleBucket {
		t.Fatalf("unknown bucket: %+v", o)
	}

	var sh sharedResult
	s.ok("shared_state", map[string]any{"bucket": "issues", "status": "open"}, &sh)
	if len(sh.Rows) != 2 {
		t.Fatalf("open issues = %+v", sh.Rows)
	}
	s.ok("shared_state", map[string]any{"limit": 1}, &sh)
	if len(sh.Rows) != 3 { // plan, issues, task_state: one row each
		t.Fatalf("all buckets = %+v", sh.Rows)
	}
	// The text of shared_state fences what notes wrote.
	if txt := text(s.call("shared_state", map[string]any{"bucket": "plan"})); !strings.Contains(txt, memory.DataDirective) ||
		!strings.Contains(txt, "- plan/main (active, version 1)\n<memory-data label=\"plan/main\">\nship v1 on Friday\n</memory-data>") {
		t.Fatalf("shared_state text:\n%s", txt)
	}

	// The author sees its pending notes; another agent sees that they wait,
	// not what they say; a human sees all.
	var pl memory.PendingList
	s.ok("list_pending", nil, &pl)
	if len(pl.Pending) != 2 || pl.Total != 2 || pl.Pending[1].ID != o.PendingID || pl.Pending[1].RawInput != "The flaky test is fixed now." ||
		!pl.Pending[0].Stale || pl.Pending[1].Stale {
		t.Fatalf("list_pending = %+v", pl)
	}
	other := start(t, options{dataDir: dir, args: []string{"--agent-id", "ann"}})
	other.ok("list_pending", nil, &pl)
	if len(pl.Pending) != 2 || !pl.Pending[1].Redacted || pl.Pending[1].RawInput != "" || pl.Pending[1].Request.ReferenceText != "" {
		t.Fatalf("another agent's list_pending = %+v", pl)
	}
	if md, err := other.read("memory://pending"); err != nil || strings.Contains(md, "flaky test is fixed") || !strings.Contains(md, "(the note is private to sam)") {
		t.Fatalf("memory://pending for another agent = %q, %v", md, err)
	}
	if md, err := curator.read("memory://pending"); err != nil || !strings.Contains(md, memory.DataDirective) ||
		!strings.Contains(md, "by sam\">\nThe flaky test is fixed now.\n</memory-data>") {
		t.Fatalf("memory://pending for a human = %q, %v", md, err)
	}

	// Only a human may curate.
	s.fail("resolve_pending", map[string]any{"pending_id": o.PendingID, "target_id": "flaky_test_in_auth_module"},
		"EFORBIDDEN", `resolve_pending is for human operators only, and is not offered to agents; you are agent "sam" (mid)`)
	var cr memory.CuratorResult
	curator.ok("resolve_pending", map[string]any{"pending_id": o.PendingID, "target_id": "flaky_test_in_auth_module"}, &cr)
	if cr.Pending.Status != memory.PendingCommitted || cr.Outcome == nil || !cr.Outcome.Applied || cr.Pending.Resolution.By != "alice" {
		t.Fatalf("curator bind = %+v", cr)
	}
	curator.fail("resolve_pending", map[string]any{"pending_id": o.PendingID, "drop_reason": "noise"}, "ECONFLICT", "was already committed by alice")
	curator.fail("resolve_pending", map[string]any{"pending_id": held.PendingID, "target_id": "pandas_import_fails_in_loader"}, "ECONFLICT", "already resolved")
	curator.ok("resolve_pending", map[string]any{"pending_id": held.PendingID, "drop_reason": "fixed by note 7"}, &cr)
	s.ok("shared_state", map[string]any{"bucket": "issues", "status": "resolved"}, &sh)
	if len(sh.Rows) != 2 {
		t.Fatalf("resolved issues = %+v", sh.Rows)
	}

	// A second vague note, dropped by the curator.
	s.promoteNote("issue: slow query in reports")
	s.promoteNote("issue: slow query in exports")
	o = s.promoteNote("The slow query is fixed.")
	curator.ok("resolve_pending", map[string]any{"pending_id": o.PendingID, "drop_reason": "cannot tell which"}, &cr)
	if cr.Pending.Status != memory.PendingDropped || cr.Pending.Resolution.Reason != "cannot tell which" {
		t.Fatalf("curator drop = %+v", cr)
	}

	s.ok("list_pending", map[string]any{"all": true, "limit": 2}, &pl)
	if len(pl.Pending) != 2 || pl.Total != 3 || pl.Pending[0].Resolution.Action != "drop" || pl.Pending[1].Resolution.Action != "bind" {
		t.Fatalf("list_pending all = %+v", pl)
	}

	// Resources: the summary fences every text.
	md, err := s.read("memory://shared")
	for _, want := range []string{memory.DataDirective, "- plan/main (active, version 1)\n<memory-data label=\"plan/main\">\nship v1 on Friday\n</memory-data>",
		"- issues/slow_query_in_reports (open)", "- task_state/t_1 (active, version 1)\n<memory-data label=\"task_state/t_1\">\nstate: blocked on review"} {
		if err != nil || !strings.Contains(md, want) {
			t.Fatalf("memory://shared lacks %q: %q, %v", want, md, err)
		}
	}
	js, err := s.read("memory://shared/issues")
	var bucket struct{ Rows []memory.StateRow }
	if err != nil || json.Unmarshal([]byte(js), &bucket) != nil || len(bucket.Rows) != 5 {
		t.Fatalf("memory://shared/issues = %q, %v", js, err)
	}
	for _, r := range bucket.Rows {
		if want := map[bool]string{true: memory.KindBlocker, false: memory.KindIssue}[r.ID == "pandas_import_fails_in_loader"]; r.Kind != want {
			t.Fatalf("issue %s is of kind %q, want %q", r.ID, r.Kind, want)
		}
	}
	for _, uri := range []string{"memory://shared/gossip", "memory://shared/%20issues", "memory://shared/Issues"} {
		if _, err := s.read(uri); err == nil || !strings.Contains(err.Error(), "unknown bucket") {
			t.Fatalf("%s: %v", uri, err)
		}
	}
	if md, err := s.read("memory://pending"); err != nil || !strings.Contains(md, "pending: none (0 in all)") {
		t.Fatalf("memory://pending = %q, %v", md, err)
	}

	// The curator's process heard about the other process's writes.
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		got := updated["memory://shared"] && updated["memory://shared/issues"] && updated["memory://pending"]
		mu.Unlock()
		if got {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("resource updates seen by the other process: %v", updated)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// Replay rebuilds the same state from the ledger.
	var before, after sharedResult
	s.ok("shared_state", map[string]any{"limit": 500}, &before)
	out, err := commandOn(t, dir, "replay", "--data-dir", dir).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "shared state is identical to the ledger's projection") {
		t.Fatalf("replay: %v\n%s", err, out)
	}
	s.ok("shared_state", map[string]any{"limit": 500}, &after)
	b1, _ := json.Marshal(before)
	b2, _ := json.Marshal(after)
	if string(b1) != string(b2) || len(before.Rows) != 7 {
		t.Fatalf("replay changed the state:\n%s\n%s", b1, b2)
	}
}

func TestPromotionBadInput(t *testing.T) {
	dir := t.TempDir()
	s := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "june", "--max-content-bytes", "64"}})
	human := start(t, options{dataDir: dir, args: []string{"--agent-id", "alice", "--human"}})
	s.promoteNote("issue: flaky test in the auth module")
	s.promoteNote("issue: flaky test in the billing module")
	pending := s.promoteNote("The flaky test is fixed.").PendingID

	tests := []struct {
		name string
		p    *proc
		tool string
		args map[string]any
		code string
		want string
	}{
		{"empty note", s, "write_note", map[string]any{"text": "  "}, "EINVALID", "text is empty"},
		{"oversize note", s, "write_note", map[string]any{"text": strings.Repeat("x", 65)}, "EINVALID", "65 bytes; the limit is 64 bytes (1 over)"},
		{"bad kind", s, "write_note", map[string]any{"text": "x", "kind": "thought"}, "EINVALID", `unknown note kind "thought": use agent or tool_result`},
		{"bad task id", s, "write_note", map[string]any{"text": "x", "task_id": "a b"}, "EINVALID", "task_id"},
		{"wrong type", s, "write_note", map[string]any{"text": "x", "promote": "yes"}, "EINVALID", `argument "promote" must be true or false`},
		{"unknown argument", s, "write_note", map[string]any{"text": "x", "agent_id": "root"}, "EINVALID", `unknown argument "agent_id"`},
		{"promote unknown argument", s, "promote_notes", map[string]any{"all": true}, "EINVALID", `unknown argument "all"; this tool takes: limit`},
		{"promote limit", s, "promote_notes", map[string]any{"limit": 501}, "EINVALID", "limit 501 is out of range: use 1 to 500"},
		{"unknown bucket", s, "shared_state", map[string]any{"bucket": "gossip"}, "EINVALID", `unknown bucket "gossip"`},
		{"padded bucket", s, "shared_state", map[string]any{"bucket": " issues"}, "EINVALID", `unknown bucket " issues": use one of plan,`},
		{"pending limit", s, "list_pending", map[string]any{"limit": 501}, "EINVALID", "limit 501 is out of range: use 1 to 500"},
		{"status of another bucket", s, "shared_state", map[string]any{"bucket": "issues", "status": "active"}, "EINVALID", "use one of open, resolved"},
		{"limit", s, "shared_state", map[string]any{"limit": 501}, "EINVALID", "limit 501 is out of range"},
		{"agent curates", s, "resolve_pending", map[string]any{"pending_id": pending, "drop_reason": "x"}, "EFORBIDDEN", "for human operators only"},
		{"no pending id", human, "resolve_pending", map[string]any{"drop_reason": "x"}, "EINVALID", "pending_id 0"},
		{"neither", human, "resolve_pending", map[string]any{"pending_id": pending}, "EINVALID", "give target_id"},
		{"both", human, "resolve_pending", map[string]any{"pending_id": pending, "target_id": "a", "drop_reason": "b"}, "EINVALID", "not both"},
		{"bad target", human, "resolve_pending", map[string]any{"pending_id": pending, "target_id": "Flaky Test"}, "EINVALID", "not a slug"},
		{"unknown target", human, "resolve_pending", map[string]any{"pending_id": pending, "target_id": "nope"}, "ENOTFOUND",
			"no open issue nope; the open issues are: flaky_test_in_auth_module, flaky_test_in_billing_module"},
		{"unknown pending", human, "resolve_pending", map[string]any{"pending_id": 999, "drop_reason": "x"}, "ENOTFOUND", "no pending item 999"},
		{"pending id type", human, "resolve_pending", map[string]any{"pending_id": "one"}, "EINVALID", `argument "pending_id" must be an integer`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.p.in(t).fail(tt.tool, tt.args, tt.code, tt.want) })
	}
	// Nothing the bad calls tried was stored.
	var pl memory.PendingList
	s.ok("list_pending", nil, &pl)
	if len(pl.Pending) != 1 || pl.Pending[0].Status != memory.PendingOpen {
		t.Fatalf("pending after bad calls = %+v", pl)
	}
}

// TestLLMInterpreterEndToEnd runs the binary with the LLM interpreter
// against a fake OpenAI-compatible server, then with the server failing.
func TestLLMInterpreterEndToEnd(t *testing.T) {
	var mu sync.Mutex
	fail := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		defer mu.Unlock()
		if fail {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		content := `{"decision":"accept","bucket":"decisions","operation":"append","target_id":"","payload":{"text":"use Postgres for the queue","state":"","reason":"","task_id":""},"reference_text":"","candidate_aliases":[],"confidence":0.8,"rationale":"a choice"}`
		json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}}})
	}))
	defer srv.Close()
	s := startIn(t, options{args: []string{"--interpreter", "llm", "--llm-base-url", srv.URL + "/v1", "--llm-model", "m", "--llm-timeout", "500ms"}})
	if o := s.promoteNote("Went with Postgres for the queue after the benchmark."); o.Status != memory.OutcomeCommitted || o.Interpreter != "llm" || o.TargetID != "use_postgres_for_queue" {
		t.Fatalf("llm outcome = %+v", o)
	}
	mu.Lock()
	fail = true
	mu.Unlock()
	if o := s.promoteNote("issue: disk full on the runner"); o.Status != memory.OutcomeCommitted || !strings.HasPrefix(o.Interpreter, "rules (llm ") {
		t.Fatalf("fallback outcome = %+v", o)
	}
}

func TestLLMInterpreterNeedsAKeyForOpenAI(t *testing.T) {
	out, err := exec.Command(binary(t), "config", "--interpreter", "llm", "--data-dir", t.TempDir()).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "needs an API key") {
		t.Fatalf("config without a key: %v\n%s", err, out)
	}
	cmd := exec.Command(binary(t), "config", "--interpreter", "llm", "--data-dir", t.TempDir())
	cmd.Env = []string{"OPENAI_API_KEY=sk-secret", "HOME=" + t.TempDir()}
	out, err = cmd.CombinedOutput()
	if err != nil || strings.Contains(string(out), "sk-secret") || !strings.Contains(string(out), "(set)") {
		t.Fatalf("config with a key: %v\n%s", err, out)
	}
}

// TestConcurrentPromotion has two servers in two processes (one of them this
// one) promote overlapping notes at the same time on one data directory: writes serialise, and the same issue
// reported by both becomes one row.
func TestConcurrentPromotion(t *testing.T) {
	dir := t.TempDir()
	procs := []*proc{
		startAtOnce(t, 0, options{dataDir: dir, args: []string{"--agent-id", "ann"}}),
		startAtOnce(t, 1, options{dataDir: dir, args: []string{"--agent-id", "bob"}}),
	}
	subjects := []string{"pandas import fails", "redis times out", "disk full on runner", "login page crashes",
		"cache serves stale entries", "cron job runs twice", "search index lags", "upload size limit too low"}
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[string]int{}
	errs := make(chan error, 100)
	for i, p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j, s := range subjects {
				notes := []string{"issue: " + s} // both report every issue
				if j%2 == i {
					notes = append(notes, fmt.Sprintf("result: run %d of %s", i, s)) // and results of their own
				}
				for _, n := range notes {
					res, err := p.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "write_note",
						Arguments: map[string]any{"text": n, "promote": true}})
					if err == nil && res.IsError {
						err = fmt.Errorf("%s", text(res))
					}
					if err != nil {
						errs <- err
						continue
					}
					var r writeNoteResult
					b, _ := json.Marshal(res.StructuredContent)
					json.Unmarshal(b, &r)
					mu.Lock()
					for _, o := range r.Outcomes {
						statuses[string(o.Bucket)+" "+string(o.Status)]++
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// Each issue was committed once; the other process's report was a duplicate.
	if statuses["issues committed"] != len(subjects) || statuses["issues ignored"] != len(subjects) {
		t.Fatalf("outcomes = %v", statuses)
	}
	var sh sharedResult
	procs[0].ok("shared_state", map[string]any{"bucket": "issues"}, &sh)
	seen := map[string]int{}
	for _, r := range sh.Rows {
		seen[r.Text]++
	}
	for text, n := range seen {
		if n != 1 {
			t.Errorf("issue %q has %d rows", text, n)
		}
	}
	procs[1].ok("shared_state", map[string]any{"bucket": "results"}, &sh)
	if len(seen) != len(subjects) || len(sh.Rows) != len(subjects) {
		t.Fatalf("%d issues, %d results; want %d each", len(seen), len(sh.Rows), len(subjects))
	}
	out, err := commandOn(t, dir, "replay", "--data-dir", dir).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "identical") {
		t.Fatalf("replay after concurrent writes: %v\n%s", err, out)
	}
}

// TestReplayListsFlippedEvents records an event whose projection fails (as
// the inputter would, through the store), then runs the replay command: it
// applies the event, says which event flipped, and a second replay finds
// the state identical.
func TestReplayListsFlippedEvents(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db, err := openTestStore(ctx, t, dir)
	if err != nil {
		t.Fatal(err)
	}
	ev := memory.Event{Bucket: memory.BucketIssues, Operation: memory.OpUpsert, TargetID: "db_timeout", Payload: memory.Payload{Text: "db calls time out"},
		RawInput: "issue: db_timeout: db calls time out", Agent: "sam", Run: "r", CreatedAt: db.Now.Now()}
	err = db.Update(ctx, func(tx *store.Tx) error {
		return tx.AppendEvent(ctx, &ev, func(context.Context, *store.Tx, *memory.Event) error { return errors.New("disk on fire") })
	})
	db.Close()
	if err != nil || ev.Applied {
		t.Fatalf("append: %v, %+v", err, ev)
	}
	out, err := commandOn(t, dir, "replay", "--data-dir", dir).CombinedOutput()
	want := fmt.Sprintf("event 1 (%s) issues/upsert db_timeout: failed before, now applied", ev.EventID)
	if err != nil || !strings.Contains(string(out), "1 applied, 0 failed") || !strings.Contains(string(out), want) ||
		!strings.Contains(string(out), "shared state changed") {
		t.Fatalf("replay: %v\n%s", err, out)
	}
	out, err = commandOn(t, dir, "replay", "--data-dir", dir).CombinedOutput()
	if err != nil || strings.Contains(string(out), "event 1") || !strings.Contains(string(out), "identical") {
		t.Fatalf("second replay: %v\n%s", err, out)
	}
}

// A lifecycle note that states an issue's id before the issue exists waits
// in the pending queue, and the note that creates the issue (another
// agent's, written later) binds it on the retry that follows, through the
// checking MCP client (issue 22).
func TestStatedIDBindsWhenItsRowArrives(t *testing.T) {
	dir := t.TempDir()
	ann := start(t, options{dataDir: dir, args: []string{"--agent-id", "ann"}})
	sam := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "sam"}})
	o := ann.promoteNote("resolved: redis_timeout after raising the pool size")
	if o.Status != memory.OutcomePending || o.PendingID == 0 || !strings.Contains(o.Reason, "(yet)") {
		t.Fatalf("a fix before its issue: %+v", o)
	}
	var wr writeNoteResult
	sam.ok("write_note", map[string]any{"text": "issue: redis_timeout: redis times out under load", "promote": true}, &wr)
	if len(wr.Outcomes) != 1 || wr.Outcomes[0].Status != memory.OutcomeCommitted || len(wr.Retried) != 1 ||
		wr.Retried[0].Status != memory.OutcomeCommitted || wr.Retried[0].PendingID != o.PendingID ||
		wr.Retried[0].Operation != memory.OpResolve || wr.Retried[0].TargetID != "redis_timeout" {
		t.Fatalf("the issue's note and the retry: %+v", wr)
	}
	var sh sharedResult
	sam.ok("shared_state", map[string]any{"bucket": "issues", "status": "resolved"}, &sh)
	if len(sh.Rows) != 1 || sh.Rows[0].ID != "redis_timeout" || sh.Rows[0].Status != "resolved" {
		t.Fatalf("issues = %+v, want redis_timeout resolved", sh.Rows)
	}
	var pl memory.PendingList
	ann.ok("list_pending", nil, &pl)
	if len(pl.Pending) != 0 {
		t.Fatalf("the bound note still waits: %+v", pl)
	}
}
