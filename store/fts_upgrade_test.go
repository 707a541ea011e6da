package store_test

import (
	"context"
	"slices"
	"strconv"
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

// Migration 0044 indexes again with the terms that keep "C#" and ".NET"
// whole and pair CJK characters: rows indexed before it hold the old terms
// ("c", one term for a whole Japanese sentence) and the old lengths, on
// both engines; after it a search finds them by the new terms, and a
// memory's length and its space's total count the new terms.
func TestTermsMigrationIndexesSignsAndCJKAgain(t *testing.T) {
	texts := []string{"I write C# at work.", "昨日は東京タワーに行った", "Ann ships Node.js services."}
	// what the tokenizer before 0044 indexed them as, and their lengths then
	old := []string{"I write C at work.", "zzonetermforthewholerun", "Ann ships Node js services."}
	oldLength := []int{5, 1, 5}
	newLength := []int{5, 11, 4}
	check := func(t *testing.T, db *store.DB, ids []string) {
		s := store.NewMemoryService(db, nil)
		for q, want := range map[string][]string{"C#": {ids[0]}, "c": nil, "東京": {ids[1]}, "タワー": {ids[1]},
			"node.js": {ids[2]}, "js": nil, "zzonetermforthewholerun": nil} {
			if got := search(t, s, ann, memory.Query{Text: q}); !slices.Equal(got, want) {
				t.Errorf("search %q found %v, want %v", q, got, want)
			}
		}
		total := 0
		for i, id := range ids {
			var n int
			if err := db.SQL().QueryRow(`SELECT length FROM memories WHERE id = '` + id + `'`).Scan(&n); err != nil || n != newLength[i] {
				t.Errorf("length of %q is %d (%v), want %d", texts[i], n, err, newLength[i])
			}
			total += newLength[i]
		}
		var tokens int
		if err := db.SQL().QueryRow(`SELECT tokens FROM memory_spaces WHERE agent_id = 'ann'`).Scan(&tokens); err != nil || tokens != total {
			t.Errorf("ann's space counts %d tokens (%v), want %d", tokens, err, total)
		}
		facts, err := store.NewFactService(db).Query(as(senior), memory.FactQuery{Text: "F#"})
		if err != nil || len(facts) != 1 {
			t.Errorf("facts F#: %d found (%v), want 1", len(facts), err)
		}
	}
	t.Run("sqlite", func(t *testing.T) {
		var ids []string
		db := upgraded(t, "0044", func(db *store.DB) {
			s := store.NewMemoryService(db, nil)
			for i, c := range texts {
				id := remember(t, s, ann, memory.EntryWrite{Content: c}).ID
				ids = append(ids, id)
				exec(t, db, `INSERT INTO memory_fts (memory_fts, rowid, content, tags, filters)
					SELECT 'delete', pk, content, tags, filters FROM memories WHERE id = '`+id+`'`,
					`INSERT INTO memory_fts (rowid, content, tags, filters) SELECT pk, '`+old[i]+`', tags, filters FROM memories WHERE id = '`+id+`'`,
					`DROP TRIGGER memories_immutable`,
					`UPDATE memories SET length = `+strconv.Itoa(oldLength[i])+` WHERE id = '`+id+`'`,
					`CREATE TRIGGER memories_immutable BEFORE UPDATE OF id, agent_id, namespace, category, content, tags, shared,
					    created_at, occurred_at, published_from, filters, length ON memories BEGIN
					    SELECT RAISE(ABORT, 'memory content and ownership are immutable');
					END`)
			}
			exec(t, db, `UPDATE memory_spaces SET tokens = 11 WHERE agent_id = 'ann'`)
			if _, err := store.NewFactService(db).Publish(as(senior), memory.FactWrite{FactID: "lang",
				Content: "Pricing is written in F#.", Category: memory.FactConvention}); err != nil {
				t.Fatal(err)
			}
			exec(t, db, `INSERT INTO fact_fts (fact_fts, rowid, content, tags) SELECT 'delete', id, content, tags FROM operation_log`,
				`INSERT INTO fact_fts (rowid, content, tags) SELECT id, 'Pricing is written in F.', tags FROM operation_log`)
		})
		check(t, db, ids)
	})
	t.Run("postgres", func(t *testing.T) {
		ctx := context.Background()
		url := storetest.PostgresURL(t)
		db, err := store.OpenPostgresWith(ctx, url, postgresMigrationsBefore("0044"))
		if err != nil {
			t.Fatal(err)
		}
		s := store.NewMemoryService(db, nil)
		var ids []string
		pgExec := func(q string, args ...any) {
			if _, err := db.SQL().Exec(q, args...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		for _, c := range texts {
			ids = append(ids, remember(t, s, ann, memory.EntryWrite{Content: c}).ID)
		}
		pgExec(`ALTER TABLE memories DISABLE TRIGGER USER`)
		for i, id := range ids {
			pgExec(`UPDATE memories SET terms = to_tsvector('simple', $1) || setweight(to_tsvector('simple', filters), 'A'), length = $2 WHERE id = $3`,
				old[i], oldLength[i], id)
		}
		pgExec(`ALTER TABLE memories ENABLE TRIGGER USER`)
		pgExec(`UPDATE memory_spaces SET tokens = 11 WHERE agent_id = 'ann'`)
		if _, err := store.NewFactService(db).Publish(as(senior), memory.FactWrite{FactID: "lang",
			Content: "Pricing is written in F#.", Category: memory.FactConvention}); err != nil {
			t.Fatal(err)
		}
		pgExec(`ALTER TABLE operation_log DISABLE TRIGGER USER`)
		pgExec(`UPDATE operation_log SET terms = to_tsvector('simple', 'Pricing is written in F.')`)
		pgExec(`ALTER TABLE operation_log ENABLE TRIGGER USER`)
		db.Close()
		db, err = store.OpenPostgres(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		check(t, db, ids)
	})
}
