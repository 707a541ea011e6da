package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestConcurrentProcessesLoseNothing runs 4 memory-mcp servers on one data
// directory, in 4 processes (one of them this one), each publishing 200
// times over 10 shared fact ids, and then checks the log: every publish is
// there once, per-fact versions are 1..n with no gap or duplicate, and the
// snapshot holds each fact's last committed write.
func TestConcurrentProcessesLoseNothing(t *testing.T) {
	const procs, perProc, factIDs = 4, 200, 10
	dir := t.TempDir()
	servers := make([]*proc, procs)
	for i := range servers {
		servers[i] = startAtOnce(t, i, options{dataDir: dir, args: []string{"--agent-id", fmt.Sprintf("writer-%d", i)}})
	}
	type ack struct {
		fact    string
		version int
		content string
	}
	acks := make(chan ack, procs*perProc)
	err := concurrently(servers, func(p int, s *proc) error {
		return publishMany(s, p, perProc, factIDs, func(id string, version int, content string) {
			acks <- ack{id, version, content}
		})
	})
	close(acks)
	if err != nil {
		t.Fatal(err)
	}

	// The log, read through the store: every version of every fact, and
	// the snapshot, which must hold each fact's last version.
	db, err := openTestStore(context.Background(), t, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	facts := store.NewFactService(db)
	logged := map[string]string{} // fact@version -> content
	for i := range factIDs {
		id := fmt.Sprintf("shared-%d", i)
		ops, err := facts.History(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		for v, op := range ops {
			if op.Version != v+1 || op.Content == nil {
				t.Fatalf("fact %s: operation %d is version %d (%+v)", id, v, op.Version, op)
			}
			logged[fmt.Sprintf("%s@%d", id, op.Version)] = *op.Content
		}
		f, err := facts.Get(context.Background(), id)
		if err != nil || f.Version != len(ops) || f.Content != logged[fmt.Sprintf("%s@%d", id, f.Version)] {
			t.Errorf("snapshot %s = v%d %q, %v; the log ends at v%d", id, f.Version, f.Content, err, len(ops))
		}
	}
	n := 0
	for a := range acks {
		n++
		key := fmt.Sprintf("%s@%d", a.fact, a.version)
		if logged[key] != a.content {
			t.Errorf("acknowledged %s = %q, log has %q", key, a.content, logged[key])
		}
	}
	if n != procs*perProc || len(logged) != procs*perProc {
		t.Fatalf("%d acknowledged, %d logged, want %d", n, len(logged), procs*perProc)
	}
}

// publishMany publishes n times from writer p over ids fact ids and reports
// each acknowledged (id, version, content). It runs on its own goroutine, so
// it returns errors instead of failing the test.
func publishMany(s *proc, p, n, ids int, acked func(id string, version int, content string)) error {
	for i := range n {
		id := fmt.Sprintf("shared-%d", (p+i)%ids)
		content := fmt.Sprintf("writer %d publish %d", p, i)
		res, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "publish_fact",
			Arguments: map[string]any{"fact_id": id, "content": content, "category": "convention"}})
		if err != nil {
			return fmt.Errorf("writer %d publish %d: %v", p, i, err)
		}
		if res.IsError {
			return fmt.Errorf("writer %d publish %d: %s", p, i, text(res))
		}
		var r factResult
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("writer %d publish %d: %v", p, i, err)
		}
		acked(id, r.Fact.Version, content)
	}
	return nil
}

// TestConcurrentProcessesRememberAndSearch runs 3 servers in 3 processes (one
// of them this one), one agent each, on one data directory, remembering and
// searching at once: every process finds each memory it wrote on its very
// next search, every agent finds the others' published memories, nothing is
// lost, and the per-space statistics the triggers keep match the rows.
func TestConcurrentProcessesRememberAndSearch(t *testing.T) {
	const procs, perProc = 3, 40
	dir := t.TempDir()
	servers := make([]*proc, procs)
	for i := range servers {
		servers[i] = startAtOnce(t, i, options{dataDir: dir, args: []string{"--agent-id", fmt.Sprintf("agent-%d", i)}})
	}
	// word is a token no other memory contains.
	word := func(p, i int) string { return fmt.Sprintf("zq%dx%d", p, i) }
	call := func(s *proc, name string, args map[string]any, out any) error {
		res, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			return err
		}
		if res.IsError {
			return fmt.Errorf("%s: %s", name, text(res))
		}
		b, _ := json.Marshal(res.StructuredContent)
		return json.Unmarshal(b, out)
	}
	err := concurrently(servers, func(p int, s *proc) error {
		for i := range perProc {
			var r memoryResult
			if err := call(s, "remember", map[string]any{"content": fmt.Sprintf("agent %d wrote item %s", p, word(p, i))}, &r); err != nil {
				return err
			}
			var sr searchResult
			if err := call(s, "search_memory", map[string]any{"query": word(p, i), "scope": "personal"}, &sr); err != nil {
				return err
			}
			if len(sr.Results) != 1 || sr.Results[0].ID != r.ID {
				return fmt.Errorf("agent %d: search for %s right after writing it found %v", p, word(p, i), sr.ids())
			}
			if i%10 == 0 {
				var pub memoryResult
				if err := call(s, "publish_memory", map[string]any{"id": r.ID}, &pub); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, s := range servers {
		for q := range procs {
			for i := 0; i < perProc; i += 10 {
				var sr searchResult
				s.ok("search_memory", map[string]any{"query": word(q, i)}, &sr)
				if len(sr.Results) != 1 || (p != q) != sr.Results[0].Shared {
					t.Fatalf("agent %d searching agent %d's %s: %+v", p, q, word(q, i), sr.Results)
				}
			}
		}
	}
	mismatched, total, err := storetest.SpaceCounts(context.Background(), storeAt(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if mismatched != 0 || total != procs*(perProc+perProc/10) {
		t.Fatalf("%d spaces miscounted; %d memories stored, want %d", mismatched, total, procs*(perProc+perProc/10))
	}
}

// concurrently runs do for every server at once, each on its own goroutine,
// and returns the first error any of them returned.
func concurrently(servers []*proc, do func(p int, s *proc) error) error {
	errs := make(chan error, len(servers))
	var wg sync.WaitGroup
	for p, s := range servers {
		wg.Go(func() { errs <- do(p, s) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
