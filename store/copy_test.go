package store_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// TestCopyMovesEverythingOntoPostgres: a SQLite store copied into an empty
// PostgreSQL database holds every row with its id and its stamp (verify
// passes under the same key), goes on numbering where SQLite stopped, and
// a second copy into it is refused.
func TestCopyMovesEverythingOntoPostgres(t *testing.T) {
	key := make([]byte, store.ProvenanceKeySize)
	rand.Read(key)
	ctx := context.Background()
	lite, _ := openDB(t)
	if err := lite.UseProvenanceKey(ctx, key); err != nil {
		t.Fatal(err)
	}
	ann := memory.Identity{AgentID: "ann", Seniority: memory.SeniorityLead, Autonomy: memory.AutonomyFull}
	facts := store.NewFactService(lite)
	mems := store.NewMemoryService(lite, nil)
	for i := range 3 {
		if _, err := facts.Publish(as(ann), memory.FactWrite{FactID: "deploy-day", Content: fmt.Sprintf("Deploys happen on day %d.", i+1), Category: memory.FactConvention}); err != nil {
			t.Fatal(err)
		}
	}
	var kept memory.Remembered
	for i := range 5 {
		r, err := mems.Remember(as(ann), memory.EntryWrite{Content: fmt.Sprintf("The staging cluster %d restarts at noon.", i)})
		if err != nil {
			t.Fatal(err)
		}
		kept = r
	}
	if _, err := mems.Forget(as(ann), kept.ID, "wrong cluster"); err != nil {
		t.Fatal(err)
	}
	note, err := lite.InsertNote(ctx, memory.Note{Agent: "ann", Run: "r1", Kind: memory.NoteAgent, Text: "Checked the rota."})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lite.AddToken(ctx, memory.Token{ID: "tok-1", Identity: ann, CreatedBy: "ops"}, []byte("0123456789abcdef0123456789abcdef")); err != nil {
		t.Fatal(err)
	}

	pg, _ := openPostgresDB(t)
	copied, err := lite.Copy(ctx, pg)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	rows := map[string]int64{}
	for _, c := range copied {
		tables = append(tables, c.Table)
		rows[c.Table] = c.Rows
	}
	if rows["memories"] != 5 || rows["operation_log"] != 3 || rows["notes"] != 1 || rows["auth_tokens"] != 1 || rows["provenance_key"] != 1 ||
		rows["memory_counts"] == 0 {
		t.Fatalf("copied %v", copied)
	}
	// The kept counts come over as they were (the triggers off), not
	// counted again for each memory copied.
	if bad, err := pg.CheckCounts(ctx); err != nil || len(bad) != 0 {
		t.Fatalf("the copied counts differ from the copied memories: %+v, %v", bad, err)
	}
	want, err := lite.RowCounts(ctx, tables)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pg.RowCounts(ctx, tables)
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range tables {
		if got[tb] != want[tb] {
			t.Errorf("%s: %d rows on PostgreSQL, %d on SQLite", tb, got[tb], want[tb])
		}
	}

	if err := pg.UseProvenanceKey(ctx, key); err != nil {
		t.Fatalf("the copied database refuses the key its rows were stamped with: %v", err)
	}
	before, err := lite.Verify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	after, err := pg.Verify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Mismatched) > 0 || fmt.Sprint(after.Tables) != fmt.Sprint(before.Tables) || after.Complete != before.Complete {
		t.Fatalf("verify on PostgreSQL: %+v; on SQLite: %+v", after, before)
	}
	valid := 0
	for _, tb := range after.Tables {
		valid += tb.Valid
	}
	if stamped := int(rows["memories"] + rows["operation_log"]); valid < stamped {
		t.Fatalf("verify found %d valid stamps, fewer than the %d memories and fact operations copied", valid, stamped)
	}

	// Ids and history as they were; the next write is numbered after them.
	hist, err := store.NewFactService(pg).History(as(ann), "deploy-day")
	if err != nil || len(hist) != 3 || *hist[2].Content != "Deploys happen on day 3." {
		t.Fatalf("history on PostgreSQL: %v, %v", hist, err)
	}
	gone, err := store.NewMemoryService(pg, nil).List(as(ann), memory.ListQuery{States: []memory.MemoryState{memory.StateForgotten}})
	if err != nil || len(gone.Memories) != 1 || gone.Memories[0].ID != kept.ID || gone.Memories[0].ForgottenAt == nil {
		t.Fatalf("the forgotten memories on PostgreSQL: %+v, %v; want %s", gone, err, kept.ID)
	}
	// The copied rows are searched by their terms on PostgreSQL as by FTS5.
	q := memory.Query{Text: "staging cluster noon", Limit: 10}
	hits, werr := store.NewMemoryService(lite, nil).Search(as(ann), q)
	found, gerr := store.NewMemoryService(pg, nil).Search(as(ann), q)
	if werr != nil || gerr != nil || len(hits) != 4 || len(found) != len(hits) {
		t.Fatalf("search after the copy: %d hits on PostgreSQL (%v), %d in SQLite (%v); want the 4 memories not forgotten", len(found), gerr, len(hits), werr)
	}
	for i := range hits {
		if found[i].ID != hits[i].ID {
			t.Fatalf("hit %d: %s on PostgreSQL, %s in SQLite", i, found[i].ID, hits[i].ID)
		}
	}
	next, err := pg.InsertNote(ctx, memory.Note{Agent: "ann", Run: "r1", Kind: memory.NoteAgent, Text: "After the move."})
	if err != nil || next.ID != note.ID+1 {
		t.Fatalf("the first note written after the copy: id %d, %v; want %d", next.ID, err, note.ID+1)
	}

	_, err = lite.Copy(ctx, pg)
	if memory.ErrorCode(err) != memory.ECONFLICT || !strings.Contains(err.Error(), "is not empty") {
		t.Fatalf("a second copy into the same database: %v, want ECONFLICT saying it is not empty", err)
	}
}

// BenchmarkCopy copies a SQLite store of 5,000 memories (and what their
// writes made beside them: the write log, the change feed, spaces) into
// PostgreSQL, and reports the rows copied per second, checks included.
func BenchmarkCopy(b *testing.B) {
	ctx := context.Background()
	lite, _ := openDB(b)
	mems := store.NewMemoryService(lite, nil)
	ann := as(memory.Identity{AgentID: "ann", Seniority: memory.SeniorityMid, Autonomy: memory.AutonomySemi})
	for i := range 5000 {
		if _, err := mems.Remember(ann, memory.EntryWrite{Content: fmt.Sprintf("Build %d of the nightly pipeline failed at step %d on runner %d.", i, i%17, i%5)}); err != nil {
			b.Fatal(err)
		}
	}
	var rows int64
	for b.Loop() {
		b.StopTimer()
		pg, _ := openPostgresDB(b) // a new database, its schema made
		b.StartTimer()
		copied, err := lite.Copy(ctx, pg)
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range copied {
			rows += c.Rows
		}
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}
