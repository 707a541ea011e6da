package store_test

import (
	"bytes"
	"context"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

// TestExportIsTheSameOnBothEngines: an export made on SQLite imports into
// PostgreSQL exactly (verify passes under the new store's key), and
// PostgreSQL's export of it is the same bytes; that export imports into
// SQLite and comes out the same again. A store imported into on
// PostgreSQL goes on writing: its keys are past the imported ones.
func TestExportIsTheSameOnBothEngines(t *testing.T) {
	ctx := context.Background()
	lite, _ := openDB(t)
	if err := lite.UseProvenanceKey(ctx, provKey); err != nil {
		t.Fatal(err)
	}
	writeEveryStampedKind(t, lite)
	var file bytes.Buffer
	counts, err := lite.Export(ctx, store.ExportFilter{}, &file)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"memory", "fact_op", "fact", "block", "block_version", "event"} {
		if counts[k] == 0 {
			t.Fatalf("the SQLite store exported no %s: %v", k, counts)
		}
	}

	pg, _ := openPostgresDB(t)
	if err := pg.UseProvenanceKey(ctx, otherKey); err != nil {
		t.Fatal(err)
	}
	rep, err := pg.Import(ctx, bytes.NewReader(file.Bytes()), store.ImportSource{File: "lite.jsonl", By: "human:alice"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Records == 0 || rep.Kinds["memory"] != counts["memory"] {
		t.Fatalf("import into PostgreSQL: %+v, want %v", rep, counts)
	}
	if v, tables := verify(t, pg); len(v.Mismatched) != 0 || tables["imports"].Valid != 1 || tables["memories"].Valid != counts["memory"] {
		t.Fatalf("verify after the import into PostgreSQL: %+v", v)
	}
	var fromPG bytes.Buffer
	if _, err := pg.Export(ctx, store.ExportFilter{}, &fromPG); err != nil {
		t.Fatal(err)
	}
	storetest.SameLines(t, "PostgreSQL's export of the import", file.String(), fromPG.String())

	back, _ := openDB(t)
	if _, err := back.Import(ctx, bytes.NewReader(fromPG.Bytes()), store.ImportSource{File: "pg.jsonl", By: "human:alice"}); err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if _, err := back.Export(ctx, store.ExportFilter{}, &again); err != nil {
		t.Fatal(err)
	}
	storetest.SameLines(t, "SQLite's export of PostgreSQL's", file.String(), again.String())

	// A filtered export selects alike on both engines.
	for _, f := range []store.ExportFilter{{AgentID: senior.AgentID}, {Namespace: "default"}} {
		var a, b bytes.Buffer
		if _, err := lite.Export(ctx, f, &a); err != nil {
			t.Fatal(err)
		}
		if _, err := pg.Export(ctx, f, &b); err != nil {
			t.Fatal(err)
		}
		storetest.SameLines(t, "the filtered export", a.String(), b.String())
	}

	mem := store.NewMemoryService(pg, nil)
	remember(t, mem, senior, memory.EntryWrite{Content: "Written on PostgreSQL after the import."})
	if _, err := pg.InsertNote(ctx, memory.Note{Agent: senior.AgentID, Run: "r", Kind: memory.NoteAgent, Text: "a note after the import"}); err != nil {
		t.Fatalf("a note after the import: %v", err)
	}
	if _, err := pg.Import(ctx, bytes.NewReader(file.Bytes()), store.ImportSource{File: "lite.jsonl", By: "human:alice"}); memory.ErrorCode(err) != memory.ECONFLICT {
		t.Errorf("an exact import into a store that holds memory = %v, want ECONFLICT", err)
	}
}
