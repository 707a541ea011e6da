package promotion_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/promotion"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

// The scenario corpus (testdata/scenarios/*.txt) is a set of note sequences
// with the outcome expected for each note and the canonical state, ledger and
// pending queue expected after them. The language, one command per line:
//
//	# comment
//	> {agent=ann kind=tool_result task=T-1} text   write a note and promote it (options optional)
//	. text                     write a note without promoting it
//	promote [agent]            promote the notes written with '.' (by sam, or agent)
//	= status [bucket/op] [target] ["reason part"]   the next outcome (rejected: = rejected rule)
//	~ status [bucket/op] [target] ["reason part"]   the next outcome of a pending retry
//	curator bind|drop <pending_id> <target|reason>   as the human curator; its outcome is an '='
//	clock +<duration>          move the clock forward
//	state bucket/id status ["text part"]   a row and its status
//	kind issues/id blocker|issue   the kind an issue was reported as
//	refs bucket/id "phrase"    a row's reference memory holds phrase (or alias)
//	count bucket n             rows in a bucket
//	ledger bucket/op target, ...   the whole ledger in order ("ledger none")
//	pending id open|stale|committed|dropped [attempts=n]   a pending item ("pending none": none open)
//
// Every outcome must be matched by a line: an unexpected outcome fails.

var (
	agent   = memory.Identity{AgentID: "sam", Seniority: memory.SeniorityMid, Autonomy: memory.AutonomySemi}
	curator = memory.Identity{AgentID: "alice", Human: true}
)

// harness is one scenario's world: a real SQLite file and a pipeline over it.
type harness struct {
	t       testing.TB
	db      *store.DB
	clk     *storetest.Clock
	p       *promotion.Pipeline
	outs    []memory.Outcome // waiting for '=' lines
	retried []memory.Outcome // waiting for '~' lines
	binds   []bindResult     // lifecycle outcomes seen, for precision and recall
}

type bindResult struct {
	text, got, want string // target bound (or "" when not bound) and expected
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	clk := storetest.NewClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC), time.Second)
	db.Now = clk.Now
	p := promotion.New(db, "run1")
	p.MaxAttempts = 3
	return &harness{t: t, db: db, clk: clk, p: p}
}

func as(id memory.Identity) context.Context { return memory.WithIdentity(context.Background(), id) }

// note writes a note as who and, with promote, promotes the run's notes.
func (h *harness) note(who memory.Identity, w memory.NoteWrite, promote bool) {
	h.t.Helper()
	if _, err := h.p.WriteNote(as(who), w); err != nil {
		h.t.Fatalf("write note %q: %v", w.Text, err)
	}
	if promote {
		h.promote(who)
	}
}

func (h *harness) promote(who memory.Identity) {
	h.t.Helper()
	rep, err := h.p.Promote(as(who), 0)
	if err != nil {
		h.t.Fatalf("promote: %v", err)
	}
	h.outs = append(h.outs, rep.Outcomes...)
	h.retried = append(h.retried, rep.Retried...)
	h.log(rep.Outcomes, rep.Retried)
}

// log shows every outcome under go test -v (not in benchmarks, whose
// output carries only their figures).
func (h *harness) log(outs, retried []memory.Outcome) {
	if _, bench := h.t.(*testing.B); bench {
		return
	}
	for _, o := range outs {
		h.t.Logf("  %s", o.Summary())
	}
	for _, o := range retried {
		h.t.Logf("    retry %s", o.Summary())
	}
}

// runScenario executes one scenario file.
func runScenario(t testing.TB, path string) *harness {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t)
	var lastNote string
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		where := fmt.Sprintf("%s:%d: %s", filepath.Base(path), i+1, line)
		cmd, rest, _ := strings.Cut(line, " ")
		if cmd == ">" || cmd == "." {
			h.checkDrained(where)
			who, w := parseNote(t, where, rest)
			lastNote = w.Text
			h.note(who, w, cmd == ">")
			continue
		}
		h.step(where, cmd, rest, lastNote)
	}
	h.checkDrained(filepath.Base(path) + ": end")
	return h
}

func (h *harness) step(where, cmd, rest, lastNote string) {
	t := h.t
	t.Helper()
	switch cmd {
	case "promote":
		who := agent
		if rest != "" && rest != "promote" {
			who = memory.Identity{AgentID: rest, Seniority: memory.SeniorityMid}
		}
		h.promote(who)
	case "refs":
		h.expectRefs(where, rest)
	case "=":
		h.expectOutcome(where, &h.outs, rest, lastNote)
	case "~":
		h.expectOutcome(where, &h.retried, rest, "")
	case "curator":
		h.curator(where, rest)
	case "clock":
		d, err := time.ParseDuration(strings.TrimPrefix(rest, "+"))
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		h.clk.Advance(d)
	case "state":
		h.expectState(where, rest)
	case "kind":
		h.expectKind(where, rest)
	case "count":
		h.expectCount(where, rest)
	case "ledger":
		h.expectLedger(where, rest)
	case "pending":
		h.expectPending(where, rest)
	default:
		t.Fatalf("%s: unknown command %q", where, cmd)
	}
}

func (h *harness) checkDrained(where string) {
	h.t.Helper()
	for _, o := range h.outs {
		h.t.Errorf("%s: unexpected outcome %s", where, o.Summary())
	}
	for _, o := range h.retried {
		h.t.Errorf("%s: unexpected retry outcome %s", where, o.Summary())
	}
	h.outs, h.retried = nil, nil
}

func parseNote(t testing.TB, where, rest string) (memory.Identity, memory.NoteWrite) {
	who, w := agent, memory.NoteWrite{}
	if strings.HasPrefix(rest, "{") {
		opts, text, ok := strings.Cut(rest[1:], "}")
		if !ok {
			t.Fatalf("%s: unclosed {", where)
		}
		for _, kv := range strings.Fields(opts) {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "agent":
				who = memory.Identity{AgentID: v, Seniority: memory.SeniorityMid}
			case "kind":
				w.Kind = memory.NoteKind(v)
			case "task":
				w.TaskID = v
			default:
				t.Fatalf("%s: unknown note option %q", where, k)
			}
		}
		rest = strings.TrimSpace(text)
	}
	w.Text = strings.ReplaceAll(rest, `\n`, "\n")
	return who, w
}

// expect is a parsed '=' or '~' line.
type expect struct {
	status, bucketOp, target, reason string
}

func parseExpect(rest string) expect {
	var e expect
	if i := strings.Index(rest, `"`); i >= 0 {
		e.reason = strings.Trim(rest[i:], `"`)
		rest = rest[:i]
	}
	f := strings.Fields(rest)
	e.status = f[0]
	if len(f) > 1 {
		e.bucketOp = f[1]
	}
	if len(f) > 2 {
		e.target = f[2]
	}
	return e
}

func (h *harness) expectOutcome(where string, queue *[]memory.Outcome, rest, note string) {
	h.t.Helper()
	if len(*queue) == 0 {
		h.t.Errorf("%s: no outcome left to match", where)
		return
	}
	o := (*queue)[0]
	*queue = (*queue)[1:]
	e := parseExpect(rest)
	got := string(o.Bucket) + "/" + string(o.Operation)
	if o.Status == memory.OutcomeRejected {
		got = o.Rule
	}
	switch {
	case string(o.Status) != e.status,
		e.bucketOp != "" && got != e.bucketOp,
		e.target != "" && o.TargetID != e.target,
		e.reason != "" && !strings.Contains(o.Reason, e.reason):
		h.t.Errorf("%s\n\tgot %s", where, o.Summary())
	case o.Status == memory.OutcomeCommitted && !o.Applied:
		h.t.Errorf("%s: committed but not applied: %s", where, o.ProjectionError)
	}
	if e.status == string(memory.OutcomeCommitted) && strings.Contains(e.bucketOp, "/") && isLifecycle(e.bucketOp) || e.status == string(memory.OutcomePending) {
		want := ""
		if e.status == string(memory.OutcomeCommitted) {
			want = e.target
		}
		bound := ""
		if o.Status == memory.OutcomeCommitted {
			bound = o.TargetID
		}
		h.binds = append(h.binds, bindResult{text: note, got: bound, want: want})
	}
}

func isLifecycle(bucketOp string) bool {
	_, op, _ := strings.Cut(bucketOp, "/")
	return memory.Operation(op).Lifecycle()
}

func (h *harness) curator(where, rest string) {
	h.t.Helper()
	f := strings.SplitN(rest, " ", 3)
	if len(f) != 3 {
		h.t.Fatalf("%s: want curator bind|drop <id> <target|reason>", where)
	}
	id, _ := strconv.ParseInt(f[1], 10, 64)
	d := memory.PendingDecision{PendingID: id}
	if f[0] == "bind" {
		d.TargetID = f[2]
	} else {
		d.DropReason = f[2]
	}
	res, err := h.p.ResolvePending(as(curator), d)
	if err != nil {
		h.t.Fatalf("%s: %v", where, err)
	}
	if res.Outcome != nil {
		h.outs = append(h.outs, *res.Outcome)
		h.log([]memory.Outcome{*res.Outcome}, nil)
	}
	h.retried = append(h.retried, res.Retried...)
}

func (h *harness) rows(b memory.Bucket) []memory.StateRow {
	h.t.Helper()
	rows, err := h.p.State(context.Background(), memory.StateQuery{Bucket: b, Limit: 500})
	if err != nil {
		h.t.Fatal(err)
	}
	return rows
}

func (h *harness) expectState(where, rest string) {
	h.t.Helper()
	e := parseExpect(rest) // "bucket/id status "text""
	bucket, id, _ := strings.Cut(e.status, "/")
	for _, r := range h.rows(memory.Bucket(bucket)) {
		if r.ID != id {
			continue
		}
		if r.Status != e.bucketOp || !strings.Contains(r.Text+" "+r.State, e.reason) {
			h.t.Errorf("%s\n\tgot %s %q %q", where, r.Status, r.Text, r.State)
		}
		return
	}
	h.t.Errorf("%s: no such row; %s has %s", where, bucket, ids(h.rows(memory.Bucket(bucket))))
}

func (h *harness) expectKind(where, rest string) {
	h.t.Helper()
	f := strings.Fields(rest) // "bucket/id kind"
	bucket, id, _ := strings.Cut(f[0], "/")
	for _, r := range h.rows(memory.Bucket(bucket)) {
		if r.ID == id {
			if r.Kind != f[1] {
				h.t.Errorf("%s\n\tgot kind %q", where, r.Kind)
			}
			return
		}
	}
	h.t.Errorf("%s: no such row; %s has %s", where, bucket, ids(h.rows(memory.Bucket(bucket))))
}

func ids(rows []memory.StateRow) string {
	var out []string
	for _, r := range rows {
		out = append(out, r.ID+"("+r.Status+")")
	}
	return "[" + strings.Join(out, " ") + "]"
}

func (h *harness) expectRefs(where, rest string) {
	h.t.Helper()
	e := parseExpect(rest)
	bucket, id, _ := strings.Cut(e.status, "/")
	for _, r := range h.rows(memory.Bucket(bucket)) {
		if r.ID == id && r.Reference != nil {
			all := append(append([]string{}, r.Reference.Aliases...), r.Reference.Phrases...)
			for _, a := range all {
				if a == e.reason {
					return
				}
			}
			h.t.Errorf("%s\n\tgot %q", where, all)
			return
		}
	}
	h.t.Errorf("%s: no such row", where)
}

func (h *harness) expectCount(where, rest string) {
	h.t.Helper()
	bucket, n, _ := strings.Cut(rest, " ")
	rows := h.rows(memory.Bucket(bucket))
	if strconv.Itoa(len(rows)) != strings.TrimSpace(n) {
		h.t.Errorf("%s: got %d rows %s", where, len(rows), ids(rows))
	}
}

func (h *harness) expectLedger(where, rest string) {
	h.t.Helper()
	evs, err := h.db.Events(context.Background(), 0, 10000)
	if err != nil {
		h.t.Fatal(err)
	}
	var got []string
	for _, ev := range evs {
		got = append(got, strings.TrimSpace(string(ev.Bucket)+"/"+string(ev.Operation)+" "+ev.TargetID))
		if !ev.Applied {
			h.t.Errorf("%s: event %d not applied: %s", where, ev.Seq, ev.ProjectionError)
		}
	}
	want := rest
	if want == "none" {
		want = ""
	}
	var wants []string
	for _, w := range strings.Split(want, ",") {
		if w = strings.TrimSpace(w); w != "" {
			wants = append(wants, w)
		}
	}
	if strings.Join(got, ", ") != strings.Join(wants, ", ") {
		h.t.Errorf("%s\n\tgot ledger %s", where, strings.Join(got, ", "))
	}
}

func (h *harness) expectPending(where, rest string) {
	h.t.Helper()
	all, _, err := h.db.ListPending(context.Background(), true, 10000)
	if err != nil {
		h.t.Fatal(err)
	}
	if rest == "none" {
		for _, p := range all {
			if p.Status == memory.PendingOpen {
				h.t.Errorf("%s: pending %d is open: %s", where, p.ID, p.Reason)
			}
		}
		return
	}
	f := strings.Fields(rest)
	id, _ := strconv.ParseInt(f[0], 10, 64)
	for _, p := range all {
		if p.ID != id {
			continue
		}
		status := p.Status
		if p.Stale && status == memory.PendingOpen {
			status = "stale"
		}
		if status != f[1] || len(f) > 2 && f[2] != "attempts="+strconv.Itoa(p.Attempts) {
			h.t.Errorf("%s\n\tgot %s attempts=%d: %s", where, status, p.Attempts, p.Reason)
		}
		return
	}
	h.t.Errorf("%s: no pending item %d", where, id)
}

func TestScenarios(t *testing.T) {
	if n := runScenarios(t, "testdata/scenarios/*.txt"); n < 10 {
		t.Fatalf("scenario corpus has %d files", n)
	}
}

// runScenarios runs every scenario file that pattern matches as a subtest,
// and checks that each one's end state comes back from the ledger alone.
func runScenarios(t *testing.T, pattern string) int {
	files, _ := filepath.Glob(pattern)
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			h := runScenario(t, f)
			before, _ := h.db.DumpState(context.Background())
			if rep, err := h.db.Replay(context.Background(), store.Project); err != nil || rep.Failed != 0 || len(rep.Flipped) != 0 {
				t.Fatalf("replay = %+v, %v", rep, err)
			}
			if after, _ := h.db.DumpState(context.Background()); after != before {
				t.Errorf("replay changed the state:\n%s\n---\n%s", before, after)
			}
		})
	}
	return len(files)
}
