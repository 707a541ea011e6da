package gate_test

import (
	"context"
	"encoding/json"
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

// node is one server process on a shared database: its own store handle
// and its own gates, as a `serve` node has.
type node struct {
	db *store.DB
	g  *gate.Gates
}

// cluster is several nodes on one database, on one engine, with one clock.
type cluster struct {
	t    *testing.T
	open func() *store.DB
	clk  *storetest.Clock
}

// onBothEngines runs test with nodes on one SQLite file, then on one
// PostgreSQL database (skipped without a server, as the store's tests are).
func onBothEngines(t *testing.T, test func(t *testing.T, c *cluster)) {
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), store.FileName)
		test(t, newCluster(t, func() (*store.DB, error) { return store.Open(context.Background(), path) }))
	})
	t.Run("postgres", func(t *testing.T) {
		url := storetest.PostgresURL(t)
		test(t, newCluster(t, func() (*store.DB, error) { return store.OpenPostgres(context.Background(), url) }))
	})
}

func newCluster(t *testing.T, open func() (*store.DB, error)) *cluster {
	c := &cluster{t: t, clk: storetest.NewClock(time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC), 0)}
	c.open = func() *store.DB {
		db, err := open()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		db.Now = c.clk.Now
		return db
	}
	return c
}

// node starts another node, its gates set by set.
func (c *cluster) node(set func(*gate.Gates)) node {
	db := c.open()
	g := gate.New(db)
	set(g)
	return node{db: db, g: g}
}

// call runs a gated call of tool by who on n that writes nothing.
func (n node) call(who memory.Identity, tool string) error {
	ctx := memory.WithIdentity(context.Background(), who)
	_, _, err := n.g.Run(ctx, memory.WriteCall{Tool: tool, Args: json.RawMessage(`{}`)}, func(context.Context) (any, string, error) {
		return map[string]any{}, "done", nil
	})
	return err
}

// TestRateLimitHoldsAcrossNodes: a caller's bucket is one across the nodes
// on a database, whichever node a call lands on and however many race.
func TestRateLimitHoldsAcrossNodes(t *testing.T) {
	onBothEngines(t, func(t *testing.T, c *cluster) {
		limit := func(g *gate.Gates) { g.Limits = memory.RateLimits{memory.AnyTool: {Burst: 10, Per: time.Hour}} }
		nodes := []node{c.node(limit), c.node(limit)}
		// Alternating: the third call, on the first node, finds the two
		// tokens the others took.
		for i := range 4 {
			if err := nodes[i%2].call(ann, "remember"); err != nil {
				t.Fatalf("call %d: %v", i, err)
			}
		}
		// Racing: 16 calls at once on two nodes share the 6 tokens left.
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for i := range 16 {
			wg.Go(func() { errs <- nodes[i%2].call(ann, "remember") })
		}
		wg.Wait()
		close(errs)
		admitted, refused := 0, 0
		for err := range errs {
			switch memory.ErrorCode(err) {
			case "":
				admitted++
			case memory.ERATELIMIT:
				refused++
			default:
				t.Fatalf("racing call: %v", err)
			}
		}
		if admitted != 6 || refused != 10 {
			t.Fatalf("16 racing calls on two nodes: %d admitted, %d refused; want 6 and 10 (10 an hour in all)", admitted, refused)
		}
		// A node started later (one replaced after a loss) finds the
		// bucket as the others left it, and a token comes back on time.
		late := c.node(limit)
		if err := late.call(ann, "remember"); memory.ErrorCode(err) != memory.ERATELIMIT || !strings.Contains(err.Error(), "retry in 360 s") {
			t.Fatalf("a new node: %v, want ERATELIMIT saying to retry in 360 s", err)
		}
		c.clk.Advance(6 * time.Minute)
		if err := late.call(ann, "remember"); err != nil {
			t.Fatalf("after 6 minutes: %v", err)
		}
		if err := nodes[0].call(ann, "remember"); memory.ErrorCode(err) != memory.ERATELIMIT {
			t.Fatalf("the token the new node took: %v, want ERATELIMIT on the first node", err)
		}
		// Another caller has buckets of its own.
		if err := nodes[1].call(bob, "remember"); err != nil {
			t.Fatalf("bob: %v", err)
		}
	})
}

// TestWriteBudgetHoldsAcrossNodes: a team server's budget is a day's,
// counted across nodes, kept when a node goes, and starts again the next
// day.
func TestWriteBudgetHoldsAcrossNodes(t *testing.T) {
	onBothEngines(t, func(t *testing.T, c *cluster) {
		daily := func(g *gate.Gates) { g.Budget, g.BudgetRun = 3, gate.DailyRun }
		a, b := c.node(daily), c.node(daily)
		for i, n := range []node{a, b, a} {
			if err := n.call(ann, "publish_fact"); err != nil {
				t.Fatalf("write %d: %v", i, err)
			}
		}
		a.db.Close() // the first node is lost
		replaced := c.node(daily)
		for _, n := range []node{b, replaced} {
			err := n.call(ann, "remember")
			if memory.ErrorCode(err) != memory.ERATELIMIT || !strings.Contains(err.Error(), "made the 3 writes") ||
				!strings.Contains(err.Error(), "starts again at 2026-05-02 00:00 UTC") {
				t.Fatalf("a 4th write: %v, want ERATELIMIT saying the budget starts again at midnight UTC", err)
			}
		}
		c.clk.Advance(15 * time.Hour)
		if err := b.call(ann, "remember"); err != nil {
			t.Fatalf("the next day: %v", err)
		}
	})
}

// TestProcessBudgetIsPerProcess: on stdio the budget is one session's,
// though the count is in the database: another process has its own.
func TestProcessBudgetIsPerProcess(t *testing.T) {
	onBothEngines(t, func(t *testing.T, c *cluster) {
		one := func(g *gate.Gates) { g.Budget = 1 }
		a, b := c.node(one), c.node(one)
		for _, n := range []node{a, b} {
			if err := n.call(ann, "remember"); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.call(ann, "remember"); memory.ErrorCode(err) != memory.ERATELIMIT ||
			!strings.Contains(err.Error(), "starts again when the server is restarted") {
			t.Fatalf("a second write in one session: %v", err)
		}
	})
}

// TestIdempotencyKeyHoldsAcrossNodes: one key sent at once to two nodes, as
// a client's retries through a balancer are, writes once, and every call
// gets the first call's answer.
func TestIdempotencyKeyHoldsAcrossNodes(t *testing.T) {
	onBothEngines(t, func(t *testing.T, c *cluster) {
		none := func(g *gate.Gates) { g.Approval = false } // the note itself, not a held request for it
		nodes := []node{c.node(none), c.node(none)}
		ctx := memory.WithIdentity(context.Background(), ann)
		note := func(n node) (any, string, error) {
			call := memory.WriteCall{Tool: "add_note", Key: "retry-7f3a", Args: json.RawMessage(`{"text":"The deploy froze at step 3."}`)}
			return n.g.Run(ctx, call, func(ctx context.Context) (any, string, error) {
				got, err := n.db.InsertNote(ctx, memory.Note{Agent: "ann", Run: "r1", Kind: memory.NoteAgent, Text: "The deploy froze at step 3."})
				return map[string]any{"note_id": got.ID}, fmt.Sprintf("note %d", got.ID), err
			})
		}
		var wg sync.WaitGroup
		texts := make(chan string, 12)
		for i := range 12 {
			wg.Go(func() {
				_, text, err := note(nodes[i%2])
				if err != nil {
					t.Errorf("call %d: %v", i, err)
				}
				texts <- text
			})
		}
		wg.Wait()
		close(texts)
		seen := map[string]int{}
		for text := range texts {
			seen[text]++
		}
		_, n, err := nodes[0].db.UnprocessedNotes(context.Background(), "ann", "r1", 10)
		if err != nil {
			t.Fatal(err)
		}
		if n != 1 || len(seen) != 1 {
			t.Fatalf("12 calls with one key on two nodes: %d notes written, answers %v; want one note and one answer", n, seen)
		}
		// A retry on a node started later replays too.
		_, text, err := note(c.node(none))
		if err != nil || seen[text] != 12 {
			t.Fatalf("a retry on a new node: %q, %v; want the first answer %v", text, err, seen)
		}
	})
}

// BenchmarkAdmit is what holding the rate limits and the budget in the
// database costs a call: a gated call that writes nothing (its write-log
// line is its one write) with no limit, and with a tool's bucket, the
// bucket of all writes and a budget, on each engine.
func BenchmarkAdmit(b *testing.B) {
	engines := map[string]func(b *testing.B) (*store.DB, error){
		"sqlite": func(b *testing.B) (*store.DB, error) {
			return store.Open(context.Background(), filepath.Join(b.TempDir(), store.FileName))
		},
		"postgres": func(b *testing.B) (*store.DB, error) {
			return store.OpenPostgres(context.Background(), storetest.PostgresURL(b))
		},
	}
	for _, engine := range []string{"sqlite", "postgres"} {
		for _, limited := range []bool{false, true} {
			name := engine + "/unlimited"
			if limited {
				name = engine + "/limited"
			}
			b.Run(name, func(b *testing.B) {
				db, err := engines[engine](b)
				if err != nil {
					b.Fatal(err)
				}
				defer db.Close()
				g := gate.New(db)
				if limited {
					g.Limits = memory.RateLimits{"remember": {Burst: 1 << 30, Per: time.Minute}, memory.AnyTool: {Burst: 1 << 30, Per: time.Minute}}
					g.Budget, g.BudgetRun = 1<<30, gate.DailyRun
				}
				n := node{db: db, g: g}
				for b.Loop() {
					if err := n.call(ann, "remember"); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkAdmitOneCaller is the admissions of one busy caller (32 clients
// on one token, spread over three nodes) with a rate limit held in the
// database: they take turns on the caller's bucket row.
func BenchmarkAdmitOneCaller(b *testing.B) {
	for _, engine := range []string{"sqlite", "postgres"} {
		b.Run(engine, func(b *testing.B) {
			var url string
			path := filepath.Join(b.TempDir(), store.FileName)
			if engine == "postgres" {
				url = storetest.PostgresURL(b)
			}
			var nodes []node
			for range 3 {
				db, err := store.Open(context.Background(), path)
				if engine == "postgres" {
					db, err = store.OpenPostgres(context.Background(), url)
				}
				if err != nil {
					b.Fatal(err)
				}
				defer db.Close()
				g := gate.New(db)
				g.Limits = memory.RateLimits{memory.AnyTool: {Burst: 1 << 30, Per: time.Minute}}
				nodes = append(nodes, node{db: db, g: g})
			}
			calls := 0
			for b.Loop() {
				var wg sync.WaitGroup
				for i := range 32 {
					wg.Go(func() {
						for range 20 {
							if err := nodes[i%3].call(ann, "remember"); err != nil {
								b.Error(err)
							}
						}
					})
				}
				wg.Wait()
				calls += 640
			}
			b.ReportMetric(float64(calls)/b.Elapsed().Seconds(), "calls/s")
		})
	}
}
