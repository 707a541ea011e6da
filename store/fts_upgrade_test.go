package store_test

import (
	"context"
	"slices"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

// Migration 0033 indexes again, with the store's own terms, what FTS5's
// Porter tokenizer indexed: the active memories, the archive and the
// published facts, so that after the upgrade "international" no longer
// finds "internal", in any of them.
func TestFTSMigrationIndexesAgainWithTheStoresTerms(t *testing.T) {
	var internal, international, archived string
	db := upgraded(t, "0033", func(old *store.DB) {
		s := store.NewMemoryService(old, nil)
		internal = remember(t, s, ann, memory.EntryWrite{Content: "the internal API is slow"}).ID
		international = remember(t, s, ann, memory.EntryWrite{Content: "the international API is slow"}).ID
		archived = remember(t, s, ann, memory.EntryWrite{Content: "the accounting runbook"}).ID
		exec(t, old, `UPDATE memories SET archived_at = 1, archive_reason = 'expired' WHERE id = '`+archived+`'`)
		if _, err := store.NewFactService(old).Publish(as(senior), memory.FactWrite{FactID: "payments",
			Content: "International payments settle daily.", Category: memory.FactConvention}); err != nil {
			t.Fatal(err)
		}
	})
	s := store.NewMemoryService(db, nil)
	for query, want := range map[string][]string{"international": {international}, "internal": {internal}, "slow": {internal, international}} {
		got := search(t, s, ann, memory.Query{Text: query})
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("search %q found %v, want %v", query, got, want)
		}
	}
	if got := search(t, s, ann, memory.Query{Text: "accounting", IncludeArchived: true}); !slices.Equal(got, []string{archived}) {
		t.Errorf("the archive: search accounting found %v, want %s", got, archived)
	}
	if got := search(t, s, ann, memory.Query{Text: "account", IncludeArchived: true}); len(got) != 0 {
		t.Errorf("the archive: search account found %v", got)
	}
	facts := store.NewFactService(db)
	for query, want := range map[string]int{"international": 1, "internal": 0, "payment": 1} {
		if got, err := facts.Query(as(senior), memory.FactQuery{Text: query}); err != nil || len(got) != want {
			t.Errorf("facts %q: %d found (%v), want %d", query, len(got), err, want)
		}
	}
}

// A PostgreSQL database whose rows were written before the store wrote
// their terms gets them from the migration that made the store write them.
func TestPostgresMigrationFillsTerms(t *testing.T) {
	ctx := context.Background()
	url := storetest.PostgresURL(t)
	old, err := store.OpenPostgresWith(ctx, url, postgresMigrationsBefore("0033"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = old.SQL().Exec(`INSERT INTO memories (id, agent_id, namespace, category, content, tags, confidence,
		created_at, updated_at, occurred_at, filters, length) VALUES ('mem-old', 'ann', 'default', 'semantic',
		'the international API is slow', '[]', 1, 1, 1, 1, $1, 5)`, store.FilterTokens("ann", false, "default", memory.CategorySemantic, nil))
	if err == nil {
		_, err = old.SQL().Exec(`INSERT INTO operation_log (operation_id, fact_id, operation_type, content, category, tags,
			author_agent_id, timestamp, version) VALUES ('op-1', 'payments', 'PUBLISH', 'International payments', 'convention', '[]', 'sam', 1, 1)`)
	}
	old.Close()
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.OpenPostgres(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var missing int
	if err := db.SQL().QueryRow(`SELECT (SELECT count(*) FROM memories WHERE terms IS NULL)
		+ (SELECT count(*) FROM operation_log WHERE terms IS NULL)`).Scan(&missing); err != nil || missing != 0 {
		t.Fatalf("%d rows without terms after the migration (%v)", missing, err)
	}
	s := store.NewMemoryService(db, nil)
	if got := search(t, s, ann, memory.Query{Text: "international"}); !slices.Equal(got, []string{"mem-old"}) {
		t.Errorf("search international found %v, want mem-old", got)
	}
	if got := search(t, s, ann, memory.Query{Text: "internal"}); len(got) != 0 {
		t.Errorf("search internal found %v", got)
	}
}
