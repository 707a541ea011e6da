package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/ncruces/go-sqlite3/driver"
)

// TestConcurrentProcessesLoseNothing runs 4 real memory-mcp processes on one
// data directory, each publishing 200 times over 10 shared fact ids, and then
// checks the log: every publish is there once, per-fact versions are 1..n with
// no gap or duplicate, and the snapshot holds each fact's last committed write.
func TestConcurrentProcessesLoseNothing(t *testing.T) {
	const procs, perProc, factIDs = 4, 200, 10
	dir := t.TempDir()
	servers := make([]*proc, procs)
	for i := range servers {
		servers[i] = start(t, options{dataDir: dir, args: []string{"--agent-id", fmt.Sprintf("writer-%d", i)}})
	}
	type ack struct {
		fact    string
		version int
		content string
	}
	acks := make(chan ack, procs*perProc)
	errs := make(chan error, procs)
	var wg sync.WaitGroup
	for p, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- publishMany(s, p, perProc, factIDs, func(id string, version int, content string) {
				acks <- ack{id, version, content}
			})
		}()
	}
	wg.Wait()
	close(acks)
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}

	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "memory.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	logged := map[string]string{} // fact@version -> content
	rows, err := db.Query(`SELECT fact_id, version, content FROM operation_log ORDER BY fact_id, version`)
	if err != nil {
		t.Fatal(err)
	}
	next := map[string]int{}
	for rows.Next() {
		var id, content string
		var v int
		if err := rows.Scan(&id, &v, &content); err != nil {
			t.Fatal(err)
		}
		if next[id]+1 != v {
			t.Fatalf("fact %s: version %d follows %d", id, v, next[id])
		}
		next[id] = v
		logged[fmt.Sprintf("%s@%d", id, v)] = content
	}
	rows.Close()
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
	srows, err := db.Query(`SELECT fact_id, version, content FROM snapshot`)
	if err != nil {
		t.Fatal(err)
	}
	defer srows.Close()
	for srows.Next() {
		var id, content string
		var v int
		srows.Scan(&id, &v, &content)
		if v != next[id] || content != logged[fmt.Sprintf("%s@%d", id, v)] {
			t.Errorf("snapshot %s = v%d %q, log ends at v%d %q", id, v, content, next[id], logged[fmt.Sprintf("%s@%d", id, next[id])])
		}
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
