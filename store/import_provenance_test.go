package store_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// TestImportIsTheProvenanceOfItsRows: an exact import records who imported
// which file (the checksum of its bytes) as the provenance of the memories
// it wrote, which recall shows, and a memory written after it does not
// carry; the record is stamped, so verify passes and then finds it when it
// is altered; the record is not exported, so the round trip stays exact.
func TestImportIsTheProvenanceOfItsRows(t *testing.T) {
	ctx := context.Background()
	src, _ := openDB(t)
	if err := src.UseProvenanceKey(ctx, provKey); err != nil {
		t.Fatal(err)
	}
	writeEveryStampedKind(t, src)
	var file bytes.Buffer
	if _, err := src.Export(ctx, store.ExportFilter{}, &file); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(file.Bytes())

	db, _ := openDB(t)
	if err := db.UseProvenanceKey(ctx, otherKey); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Import(ctx, bytes.NewReader(file.Bytes()), store.ImportSource{File: "/backups/ann.jsonl", By: "human:alice"}); err != nil {
		t.Fatal(err)
	}
	rep, tables := verify(t, db)
	if len(rep.Mismatched) != 0 || tables["imports"].Valid != 1 || tables["memories"].Valid != 8 {
		t.Fatalf("verify after the import: %+v", rep)
	}
	var again bytes.Buffer
	if _, err := db.Export(ctx, store.ExportFilter{}, &again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(file.Bytes(), again.Bytes()) {
		t.Fatal("the export of the imported store differs from the file imported")
	}

	mem := store.NewMemoryService(db, nil)
	found, err := mem.List(as(senior), memory.ListQuery{})
	if err != nil || len(found.Memories) == 0 {
		t.Fatalf("list: %+v, %v", found, err)
	}
	for _, e := range found.Memories {
		imp := e.Provenance.Imported
		if imp == nil || imp.File != "/backups/ann.jsonl" || imp.By != "human:alice" || imp.SHA256 != hex.EncodeToString(sum[:]) ||
			imp.Format != store.ExportFormat || imp.ID != 1 || imp.At.IsZero() {
			t.Fatalf("the imported memory %s shows import %+v", e.ID, imp)
		}
	}
	later := remember(t, mem, senior, memory.EntryWrite{Content: "Written after the import, here."})
	got, err := mem.Recall(as(senior), []string{later.ID})
	if err != nil || len(got) != 1 || got[0].Provenance.Imported != nil {
		t.Fatalf("a memory written after the import: %+v, %v", got, err)
	}

	if _, err := db.SQL().Exec(`UPDATE imports SET file = 'elsewhere.jsonl'`); err == nil {
		t.Fatal("an import record was changed")
	}
	if _, err := db.SQL().Exec(`UPDATE imports SET stamp = zeroblob(32)`); err != nil {
		t.Fatal(err)
	}
	if rep, _ := verify(t, db); len(rep.Mismatched) != 1 || rep.Mismatched[0].Table != "imports" || rep.Mismatched[0].ID != "import 1" {
		t.Fatalf("verify after the record's stamp changed: %+v", rep.Mismatched)
	}
}

// TestImportDefersTheFullTextIndex: the triggers an exact import lifts
// while it inserts are the ones the migrations made (else the import would
// quietly take the slow path), and they are back after it.
func TestImportDefersTheFullTextIndex(t *testing.T) {
	db, _ := openDB(t)
	want := map[string]string{}
	for _, name := range []string{"memories_fts_insert", "operation_log_fts"} {
		var sql string
		if err := db.SQL().QueryRow(`SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name = ?`, name).Scan(&sql); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want[name] = sql
	}
	if n := store.DeferredIndexes(db); n != 2 {
		t.Fatalf("an import would defer %d of the 2 full-text triggers: a migration changed one; update deferredIndexes", n)
	}
	src, _ := openDB(t)
	writeEveryStampedKind(t, src)
	var file bytes.Buffer
	if _, err := src.Export(context.Background(), store.ExportFilter{}, &file); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Import(context.Background(), &file, store.ImportSource{File: "f", By: "human:alice"}); err != nil {
		t.Fatal(err)
	}
	for name, sql := range want {
		var got string
		if err := db.SQL().QueryRow(`SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name = ?`, name).Scan(&got); err != nil || got != sql {
			t.Errorf("%s after the import: %q, %v", name, got, err)
		}
	}
	// The index holds what the source's triggers indexed, row for row.
	for _, q := range []string{`SELECT group_concat(rowid || ':' || content, '|') FROM (SELECT rowid, content FROM memory_fts ORDER BY rowid)`,
		`SELECT group_concat(rowid || ':' || content, '|') FROM (SELECT rowid, content FROM fact_fts ORDER BY rowid)`} {
		var a, b string
		if err := src.SQL().QueryRow(q).Scan(&a); err != nil {
			t.Fatal(err)
		}
		if err := db.SQL().QueryRow(q).Scan(&b); err != nil {
			t.Fatal(err)
		}
		if a == "" || a != b {
			t.Errorf("%s:\nsource   %s\nimported %s", q, a, b)
		}
	}
}

// TestEntriesReadTheImportRecordOnEngines: reading a memory looks for the
// import that wrote it on either engine; one remembered here has none.
func TestEntriesReadTheImportRecordOnEngines(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		mem, _, _ := memoriesOn(t, openDB, nil)
		e := remember(t, mem, senior, memory.EntryWrite{Content: "Remembered here, not imported."})
		got, err := mem.List(as(senior), memory.ListQuery{})
		if err != nil || len(got.Memories) != 1 || got.Memories[0].ID != e.ID || got.Memories[0].Provenance.Imported != nil {
			t.Fatalf("list: %+v, %v", got, err)
		}
	})
}
