package store_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// openDB opens a fresh database file in t.TempDir with a clock that advances one
// second per reading, starting at 2026-01-01.
func openDB(t testing.TB) (*store.DB, *testClock) {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	clk := &testClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	db.Now = clk.Now
	return db, clk
}

type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

func (c *testClock) Peek() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func as(id memory.Identity) context.Context {
	return memory.WithIdentity(context.Background(), id)
}

var (
	junior = memory.Identity{AgentID: "june", Seniority: memory.Junior, Autonomy: memory.Semi}
	senior = memory.Identity{AgentID: "sam", Seniority: memory.Senior, Autonomy: memory.Full}
	human  = memory.Identity{AgentID: "alice", Human: true}
)

func TestMigrateFreshAndReopenAgree(t *testing.T) {
	path := filepath.Join(t.TempDir(), store.FileName)
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	v1, err := db.SchemaVersion(ctx)
	if err != nil || v1 < 1 {
		t.Fatalf("schema version %d, %v", v1, err)
	}
	db.Close()
	db, err = store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	v2, _ := db.SchemaVersion(ctx)
	if v1 != v2 {
		t.Fatalf("reopen changed schema version %d -> %d", v1, v2)
	}
}

func TestChangeFeed(t *testing.T) {
	db, _ := openDB(t)
	facts := store.NewFactService(db)
	ctx := as(senior)
	for _, id := range []string{"a", "b", "a"} {
		if _, err := facts.Publish(ctx, memory.FactWrite{FactID: id, Content: "x " + id, Category: memory.OtherFact}); err != nil {
			t.Fatal(err)
		}
	}
	ch, err := db.ChangesSince(ctx, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch) != 3 || ch[0].Ref != "a" || ch[1].Ref != "b" || ch[2].Ref != "a" || ch[0].Kind != "fact" {
		t.Fatalf("changes = %+v", ch)
	}
	rest, _ := db.ChangesSince(ctx, ch[1].Seq, 10)
	if len(rest) != 1 || rest[0].Seq != ch[2].Seq {
		t.Fatalf("changes since %d = %+v", ch[1].Seq, rest)
	}
	last, _ := db.LastChange(ctx)
	if last != ch[2].Seq {
		t.Fatalf("last change %d, want %d", last, ch[2].Seq)
	}
}
