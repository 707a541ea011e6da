package gate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/gate"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

var (
	ann   = memory.Identity{AgentID: "ann", Seniority: memory.SeniorityMid, Autonomy: memory.AutonomySemi}
	bob   = memory.Identity{AgentID: "bob", Seniority: memory.SeniorityMid, Autonomy: memory.AutonomySemi}
	olive = memory.Identity{AgentID: "olive", Human: true}
)

type fixture struct {
	t   *testing.T
	db  *store.DB
	mem *store.MemoryService
	g   *gate.Gates
	clk *storetest.Clock
}

// newFixtureOn opens a fixture on a fresh PostgreSQL database of the test
// server when engine is "postgres", else on a SQLite file.
func newFixtureOn(t *testing.T, engine string) *fixture {
	t.Helper()
	var db *store.DB
	var err error
	if engine == "postgres" {
		db, err = store.OpenPostgres(context.Background(), storetest.PostgresURL(t))
	} else {
		db, err = store.Open(context.Background(), filepath.Join(t.TempDir(), store.FileName))
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	clk := storetest.NewClock(time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC), 0)
	db.Now = clk.Now
	return &fixture{t: t, db: db, mem: store.NewMemoryService(db, nil), g: gate.New(db), clk: clk}
}

// onEngines runs test once per store engine, as subtests named after them,
// each opening its fixtures through the newFixture it is given (its
// parameter is named newFixture, shadowing the SQLite-only function); a
// subtest that never called it fails, since it ran on SQLite twice.
func onEngines(t *testing.T, test func(t *testing.T, newFixture func(*testing.T) *fixture)) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			opened := false
			test(t, func(t *testing.T) *fixture {
				opened = true
				return newFixtureOn(t, engine)
			})
			if !opened && !t.Skipped() {
				t.Errorf("the test never opened a fixture through its %s newFixture", engine)
			}
		})
	}
}

// remember calls remember through the gates as who, as the tool does.
func (f *fixture) remember(who memory.Identity, key, content string) (any, string, error) {
	args, _ := json.Marshal(map[string]any{"content": content})
	c := memory.WriteCall{Tool: "remember", Key: key, Args: args}
	return f.g.Run(memory.WithIdentity(context.Background(), who), c, func(ctx context.Context) (any, string, error) {
		r, err := f.mem.Remember(ctx, memory.EntryWrite{Content: content})
		if err != nil {
			return nil, "", err
		}
		return map[string]any{"id": r.ID, "outcome": r.Outcome}, "remembered " + r.ID, nil
	})
}

// TestMergeIsLogged: a repeat that adds a tag is merged, and the write log
// says so (with the tier that found it and the new memory), which the
// metrics count as accepted and as a dedup hit.
func TestMergeIsLogged(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		f := newFixture(t)
		ctx := memory.WithIdentity(context.Background(), ann)
		var ids []string
		for _, tags := range [][]string{{"ops"}, {"ops", "oncall"}} {
			args, _ := json.Marshal(map[string]any{"content": "The rota changes on Monday.", "tags": tags})
			res, _, err := f.g.Run(ctx, memory.WriteCall{Tool: "remember", Args: args}, func(ctx context.Context) (any, string, error) {
				r, err := f.mem.Remember(ctx, memory.EntryWrite{Content: "The rota changes on Monday.", Tags: tags})
				return map[string]any{"id": r.ID}, "", err
			})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, idOf(t, res))
		}
		recs := f.log()
		if got, want := outcomes(recs), "remember:stored remember:merged@dedup(exact)"; got != want || recs[1].Ref != ids[1] || ids[0] == ids[1] {
			t.Fatalf("write log %q (ref %s), want %q for %s", got, recs[1].Ref, want, ids[1])
		}
		m, err := f.g.WriteMetrics(ctx, time.Hour)
		if err != nil || m.WAR != 1 || m.DHR != 0.5 {
			t.Fatalf("metrics %+v, %v: both calls accepted, one a dedup hit", m, err)
		}
	})
}

// idOf reads the id from a result, fresh or replayed.
func idOf(t *testing.T, res any) string {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ ID string }
	if err := json.Unmarshal(b, &m); err != nil || m.ID == "" {
		t.Fatalf("result %s has no id (%v)", b, err)
	}
	return m.ID
}

func (f *fixture) count(who memory.Identity) int {
	f.t.Helper()
	st, err := f.mem.Stats(memory.WithIdentity(context.Background(), who), "")
	if err != nil {
		if memory.ErrorCode(err) == memory.ENOTFOUND {
			return 0
		}
		f.t.Fatal(err)
	}
	return st.Total.Active + st.Total.Forgotten
}

func (f *fixture) log() []memory.WriteRecord {
	f.t.Helper()
	recs, err := f.db.WriteLog(context.Background(), time.Time{}, "")
	if err != nil {
		f.t.Fatal(err)
	}
	return recs
}

func outcomes(recs []memory.WriteRecord) string {
	var parts []string
	for _, r := range recs {
		s := r.Tool + ":" + string(r.Outcome)
		if r.Gate != "" {
			s += "@" + r.Gate
		}
		if r.Reason != "" {
			s += "(" + r.Reason + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func TestRepeatedKeyReturnsTheFirstResultAndWritesNothing(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		f := newFixture(t)
		res, text, err := f.remember(ann, "k-1", "The deploy window is Friday 14:00 UTC.")
		if err != nil {
			t.Fatal(err)
		}
		first := idOf(t, res)
		res2, text2, err := f.remember(ann, "k-1", "The deploy window is Friday 14:00 UTC.")
		if err != nil {
			t.Fatal(err)
		}
		if idOf(t, res2) != first || text2 != text {
			t.Fatalf("repeat returned %v %q, want the first result %s %q", res2, text2, first, text)
		}
		if n := f.count(ann); n != 1 {
			t.Fatalf("%d memories after a repeated key, want 1", n)
		}
		// Without a key the same statement is a duplicate, found by the dedup
		// gate, not a replay.
		res3, _, err := f.remember(ann, "", "the deploy window  is friday 14:00 utc.")
		if err != nil || idOf(t, res3) != first {
			t.Fatalf("unkeyed repeat: %v, %v", res3, err)
		}
		if got, want := outcomes(f.log()), "remember:stored remember:replayed@idempotency remember:duplicate@dedup(exact)"; got != want {
			t.Fatalf("write log %q, want %q", got, want)
		}
		recs := f.log()
		if recs[0].Ref != first || recs[0].Principal != "agent:ann" || recs[0].Gates["rate_limit"] <= 0 || recs[2].Gates["dedup"] <= 0 {
			t.Fatalf("first line %+v, third %+v: want the stored id, the principal and each gate's time", recs[0], recs[2])
		}
	})
}

func TestKeyWithOtherArgumentsIsAConflict(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		f := newFixture(t)
		if _, _, err := f.remember(ann, "k-1", "Backups run nightly at 02:00."); err != nil {
			t.Fatal(err)
		}
		_, _, err := f.remember(ann, "k-1", "Backups run weekly on Sunday.")
		if memory.ErrorCode(err) != memory.ECONFLICT || !strings.Contains(err.Error(), "other arguments") || !errors.Is(err, memory.ErrKeyReused) {
			t.Fatalf("same key, other arguments: %v, want ECONFLICT naming other arguments, marked ErrKeyReused", err)
		}
		if n := f.count(ann); n != 1 {
			t.Fatalf("%d memories, want 1: the conflicting call must write nothing", n)
		}
		// The same key for another tool is a conflict too.
		args, _ := json.Marshal(map[string]any{"id": "mem-x"})
		_, _, err = f.g.Run(memory.WithIdentity(context.Background(), ann), memory.WriteCall{Tool: "forget", Key: "k-1", Args: args},
			func(context.Context) (any, string, error) { t.Fatal("the service ran"); return nil, "", nil })
		if memory.ErrorCode(err) != memory.ECONFLICT || !strings.Contains(err.Error(), "tool remember") {
			t.Fatalf("same key, other tool: %v", err)
		}
		if got, want := outcomes(f.log()), "remember:stored remember:rejected@idempotency(ECONFLICT) forget:rejected@idempotency(ECONFLICT)"; got != want {
			t.Fatalf("write log %q, want %q", got, want)
		}
	})
}

func TestKeysOfDifferentCallersDoNotCollide(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		f := newFixture(t)
		for _, who := range []memory.Identity{ann, bob, {AgentID: "ann", Human: true}} {
			if _, _, err := f.remember(who, "shared-key", "The office closes at 18:00."); err != nil {
				t.Fatal(err)
			}
			if n := f.count(who); n != 1 {
				t.Fatalf("%s has %d memories, want 1: another caller's key must not answer its call", who.Describe(), n)
			}
		}
	})
}

func TestKeysExpire(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		f := newFixture(t)
		f.g.KeyTTL = time.Hour
		res, _, err := f.remember(ann, "k", "The VPN certificate expires in June.")
		if err != nil {
			t.Fatal(err)
		}
		f.clk.Advance(59 * time.Minute)
		if _, _, err := f.remember(ann, "k", "A different write under the same key."); memory.ErrorCode(err) != memory.ECONFLICT {
			t.Fatalf("a live key with other arguments: %v", err)
		}
		f.clk.Advance(2 * time.Minute)
		res2, _, err := f.remember(ann, "k", "A different write under the same key.")
		if err != nil || idOf(t, res2) == idOf(t, res) {
			t.Fatalf("an expired key was not free again: %v %v", res2, err)
		}
	})
}

func TestBadKeys(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		f := newFixture(t)
		for _, k := range []string{strings.Repeat("k", memory.MaxIdempotencyKeyLen+1), "two\nlines"} {
			if _, _, err := f.remember(ann, k, "Something worth keeping."); memory.ErrorCode(err) != memory.EINVALID {
				t.Errorf("key %.20q: %v, want EINVALID", k, err)
			}
		}
		if n := f.count(ann); n != 0 {
			t.Fatalf("%d memories written by calls with bad keys", n)
		}
	})
}

// A call that fails after its write began leaves neither the write, nor its
// key, nor a stored line: the key stays free for the retry.
func TestFailedCallLeavesNoHalfWrite(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		f := newFixture(t)
		args, _ := json.Marshal(map[string]any{"content": "x"})
		ctx := memory.WithIdentity(context.Background(), ann)
		boom := errors.New("the disk is full")
		_, _, err := f.g.Run(ctx, memory.WriteCall{Tool: "remember", Key: "k", Args: args}, func(ctx context.Context) (any, string, error) {
			// The transaction claims the key first, then fails before it commits.
			return nil, "", f.db.Update(ctx, func(tx *store.Tx) error { return boom })
		})
		if !errors.Is(err, boom) {
			t.Fatalf("err = %v", err)
		}
		if _, ok, _ := f.db.LookupKey(ctx, "agent:ann", "k"); ok {
			t.Fatal("the failed call's key was kept")
		}
		if got := outcomes(f.log()); got != "remember:rejected@service(EINTERNAL)" {
			t.Fatalf("write log %q", got)
		}
		if _, _, err := f.remember(ann, "k", "x"); err != nil {
			t.Fatalf("the retry: %v", err)
		}
	})
}

// Two calls with one key at once: one writes, both return its result.
func TestConcurrentRepeatsWriteOnce(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		f := newFixture(t)
		const n = 8
		ids := make([]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				res, _, err := f.remember(ann, "same", "The release train leaves every other Tuesday.")
				if err != nil {
					t.Error(err)
					return
				}
				ids[i] = idOf(t, res)
			})
		}
		wg.Wait()
		for _, id := range ids {
			if id != ids[0] {
				t.Fatalf("results %v: every repeat must return the first result", ids)
			}
		}
		if c := f.count(ann); c != 1 {
			t.Fatalf("%d memories, want 1", c)
		}
	})
}

// A key whose call committed but has no result (still running, or the
// server stopped in between; here the result could not be encoded) is
// reported as running, then, after a while, as lost: never run again.
func TestUnfinishedKey(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		f := newFixture(t)
		ctx := memory.WithIdentity(context.Background(), ann)
		args, _ := json.Marshal(map[string]any{"content": "x"})
		call := memory.WriteCall{Tool: "remember", Key: "k", Args: args}
		_, _, err := f.g.Run(ctx, call, func(ctx context.Context) (any, string, error) {
			_, err := f.mem.Remember(ctx, memory.EntryWrite{Content: "x"})
			return make(chan int), "", err
		})
		if err != nil {
			t.Fatal(err)
		}
		ran := func(context.Context) (any, string, error) { t.Fatal("the service ran again"); return nil, "", nil }
		if _, _, err := f.g.Run(ctx, call, ran); memory.ErrorCode(err) != memory.EBUSY || !strings.Contains(err.Error(), "still running") {
			t.Fatalf("repeat while the first call may still run: %v, want EBUSY", err)
		}
		f.clk.Advance(3 * time.Minute)
		if _, _, err := f.g.Run(ctx, call, ran); memory.ErrorCode(err) != memory.ECONFLICT || !strings.Contains(err.Error(), "do not repeat it") {
			t.Fatalf("repeat long after: %v, want ECONFLICT", err)
		}
		if n := f.count(ann); n != 1 {
			t.Fatalf("%d memories, want 1", n)
		}
	})
}

// A call that fails after one of its transactions committed (a note saved,
// then its promotion failed) keeps its error under its key: a repeat gets
// the same error and does not run again, and the log says it failed.
func TestCallFailingAfterItWroteKeepsItsError(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		f := newFixture(t)
		ctx := memory.WithIdentity(context.Background(), ann)
		args, _ := json.Marshal(map[string]any{"text": "x"})
		call := memory.WriteCall{Tool: "write_note", Key: "k", Args: args}
		runs := 0
		fn := func(ctx context.Context) (any, string, error) {
			runs++
			if _, err := f.mem.Remember(ctx, memory.EntryWrite{Content: "saved first"}); err != nil {
				return nil, "", err
			}
			return nil, "", f.db.Update(ctx, func(*store.Tx) error { return memory.Errorf(memory.EINVALID, "the second step failed") })
		}
		if _, _, err := f.g.Run(ctx, call, fn); memory.ErrorCode(err) != memory.EINVALID {
			t.Fatalf("first call: %v", err)
		}
		if _, _, err := f.g.Run(ctx, call, fn); memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(err.Error(), "the second step failed") {
			t.Fatalf("repeat: %v, want the first call's error", err)
		}
		if runs != 1 || f.count(ann) != 1 {
			t.Fatalf("the service ran %d times and wrote %d memories, want 1 and 1", runs, f.count(ann))
		}
		if got, want := outcomes(f.log()), "write_note:rejected@service(EINVALID) write_note:rejected@idempotency(EINVALID)"; got != want {
			t.Fatalf("write log %q, want %q", got, want)
		}
	})
}

// A call that succeeds without writing (a dry run, a skipped run), or whose
// only transactions are bookkeeping, leaves its key free and logs
// "unchanged": a repeat runs again, which changes nothing either.
func TestCallWithoutWriteLeavesItsKeyFree(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		f := newFixture(t)
		ctx := memory.WithIdentity(context.Background(), ann)
		call := memory.WriteCall{Tool: "consolidate_memory", Key: "k", Args: []byte(`{}`)}
		runs := 0
		fn := func(ctx context.Context) (any, string, error) {
			runs++
			// Bookkeeping, as taking a lease is: not the call's write.
			err := f.db.Update(store.WithoutCall(ctx), func(tx *store.Tx) error {
				_, _, err := tx.AcquireLease(ctx, store.LeaseMaintenance, "test", time.Minute)
				return err
			})
			return map[string]any{"run": runs}, "nothing to do", err
		}
		for range 2 {
			if _, _, err := f.g.Run(ctx, call, fn); err != nil {
				t.Fatal(err)
			}
		}
		if runs != 2 {
			t.Fatalf("the service ran %d times, want 2: a call that wrote nothing records nothing under its key", runs)
		}
		if _, ok, _ := f.db.LookupKey(ctx, "agent:ann", "k"); ok {
			t.Fatal("a key was claimed by bookkeeping")
		}
		if got, want := outcomes(f.log()), "consolidate_memory:unchanged@service consolidate_memory:unchanged@service"; got != want {
			t.Fatalf("write log %q, want %q", got, want)
		}
	})
}

// An agent's metrics count its own calls; a human's, every caller's.
func TestMetricsAreTheCallersOwn(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		f := newFixture(t)
		for _, who := range []memory.Identity{ann, ann, bob} {
			if _, _, err := f.remember(who, "", "A memory of "+who.AgentID+" "+time.Now().String()); err != nil {
				t.Fatal(err)
			}
		}
		for who, want := range map[memory.Identity]int{ann: 2, bob: 1, olive: 3} {
			m, err := f.g.WriteMetrics(memory.WithIdentity(context.Background(), who), time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			if m.Calls != want || m.Outcomes[memory.WriteOutcomeStored] != want {
				t.Errorf("%s sees %d calls (%v), want %d", who.Describe(), m.Calls, m.Outcomes, want)
			}
		}
	})
}

// The write log keeps 90 days: older lines are pruned as new ones come.
func TestWriteLogIsPruned(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		f := newFixture(t)
		for i := range 10 {
			if _, _, err := f.remember(ann, "", fmt.Sprintf("An old memory, number %d.", i)); err != nil {
				t.Fatal(err)
			}
		}
		f.clk.Advance(91 * 24 * time.Hour)
		for i := range 60 {
			if _, _, err := f.remember(ann, "", fmt.Sprintf("A new memory, number %d.", i)); err != nil {
				t.Fatal(err)
			}
		}
		if n := len(f.log()); n != 60 {
			t.Fatalf("the write log holds %d lines, want the 60 of the last 90 days", n)
		}
	})
}

// TestWriteTrendSplitsTheLogBySteps: each call is counted in the step it
// was made in, by outcome; a human sees every caller's.
func TestWriteTrendSplitsTheLogBySteps(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		f := newFixture(t)
		for i, content := range []string{"The rota changes on Monday.", "The rota changes on Monday.", "Deploys freeze on Fridays."} {
			if _, _, err := f.remember(ann, "", content); err != nil {
				t.Fatal(err)
			}
			if i == 1 {
				f.clk.Advance(time.Hour)
			}
		}
		human := memory.WithIdentity(context.Background(), memory.Identity{AgentID: "olivia", Human: true})
		ms, err := f.g.WriteTrend(human, memory.TrendQuery{Until: f.clk.Now().Add(time.Minute), Step: time.Hour, Steps: 3})
		if err != nil || len(ms) != 3 {
			t.Fatalf("trend = %+v, %v", ms, err)
		}
		for i, want := range []map[memory.WriteOutcome]int{{}, {memory.WriteOutcomeStored: 1, memory.WriteOutcomeDuplicate: 1}, {memory.WriteOutcomeStored: 1}} {
			got := ms[i].Outcomes
			if len(got) != len(want) || got[memory.WriteOutcomeStored] != want[memory.WriteOutcomeStored] ||
				got[memory.WriteOutcomeDuplicate] != want[memory.WriteOutcomeDuplicate] || ms[i].Scope != "all callers" {
				t.Errorf("step %d: %+v, want %v", i, ms[i], want)
			}
		}
		if _, err := f.g.WriteTrend(human, memory.TrendQuery{Until: f.clk.Now(), Step: time.Hour, Steps: 0}); memory.ErrorCode(err) != memory.EINVALID {
			t.Fatalf("no steps: %v", err)
		}
	})
}
