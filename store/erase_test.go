package store_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// secret is what the erase tests remove: a word no other text holds.
const secret = "Quxzorblat"

// quoting counts the rows of every table that holds text and quotes s
// (ASCII case folded), by table.
func quoting(t *testing.T, db *store.DB, s string) map[string]int {
	t.Helper()
	cols := map[string][]string{
		"memories":              {"content", "tags", "source", "forget_reason"},
		"memory_repeats":        {"content", "tags", "source"},
		"notes":                 {"text"},
		"events_memory":         {"raw_input", "payload_json", "source_ref"},
		"pending_memory_events": {"raw_input", "request_json"},
		"shared_issues":         {"text", "reference_memory_json"},
		"shared_learnings":      {"text"},
		"block_versions":        {"value"},
		"blocks":                {"value"},
		"operation_log":         {"content"},
		"snapshot":              {"content"},
		"idempotency_keys":      {"result", "text"},
		"erasures":              {"reason", "selector", "counts"},
	}
	out := map[string]int{}
	_, pg := postgresURLs.Load(db)
	for table, cs := range cols {
		var conds []string
		for _, c := range cs {
			if pg {
				conds = append(conds, "strpos(lower(coalesce("+c+", '')), lower($1)) > 0")
			} else {
				conds = append(conds, "instr(lower(coalesce("+c+", '')), lower(?1)) > 0")
			}
		}
		var n int
		if err := db.SQL().QueryRow(`SELECT count(*) FROM `+table+` WHERE `+strings.Join(conds, " OR "), s).Scan(&n); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		if n > 0 {
			out[table] = n
		}
	}
	if pg { // the terms are columns of the rows above
		return out
	}
	for _, fts := range []string{"memory_fts", "memory_archive_fts", "fact_fts", "repeat_fts"} {
		var n int
		if err := db.SQL().QueryRow(`SELECT count(*) FROM `+fts+` WHERE `+fts+` MATCH ?`, `"`+strings.ToLower(s)+`"`).Scan(&n); err != nil {
			t.Fatalf("%s: %v", fts, err)
		}
		if n > 0 {
			out[fts] = n
		}
	}
	return out
}

// stored reports whether the memories table has a row of id, whatever
// its state.
func stored(t *testing.T, db *store.DB, id string) bool {
	t.Helper()
	q := `SELECT count(*) FROM memories WHERE id = ?`
	if _, pg := postgresURLs.Load(db); pg {
		q = `SELECT count(*) FROM memories WHERE id = $1`
	}
	var n int
	if err := db.SQL().QueryRow(q, id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

// seedSecret stores the secret in every kind of row an erase by text
// reaches, written by sam, and returns the memory that holds it.
func seedSecret(t *testing.T, db *store.DB) memory.Entry {
	t.Helper()
	ctx := as(senior)
	mem := store.NewMemoryService(db, nil)
	e := remember(t, mem, senior, memory.EntryWrite{Content: "The vendor contact is " + secret + " at extension 4411."})
	if _, err := mem.Publish(ctx, e.ID); err != nil {
		t.Fatal(err)
	}
	// A repeat keeps the words it was sent in, here the secret's.
	if r, err := mem.Remember(ctx, memory.EntryWrite{Content: "the vendor contact is " + secret + " at extension 4411", Source: "call with " + secret}); err != nil || r.RepeatID == "" {
		t.Fatalf("repeat: %+v %v", r, err)
	}
	seedSecretRows(t, db)
	return e
}

// seedSecretRows stores the secret, written by sam, in every kind of row an
// erase by text reaches but memories: a note, ledger events and the shared
// state they make, a pending write, a block's version and a fact.
func seedSecretRows(t *testing.T, db *store.DB) {
	t.Helper()
	ctx := as(senior)
	if _, err := db.InsertNote(context.Background(), memory.Note{Agent: senior.AgentID, Run: "r", Kind: memory.NoteAgent, Text: "issue: call " + secret}); err != nil {
		t.Fatal(err)
	}
	err := db.Update(context.Background(), func(tx *store.Tx) error {
		for _, ev := range []*memory.Event{
			{Bucket: memory.BucketIssues, Operation: memory.OpUpsert, TargetID: "vendor_call", Payload: memory.Payload{Text: "call " + secret},
				RawInput: "issue: call " + secret, Agent: senior.AgentID, Run: "r", CreatedAt: db.Now()},
			{Bucket: memory.BucketLearnings, Operation: memory.OpAppend, Payload: memory.Payload{Text: secret + " answers mornings"},
				RawInput: "learned: " + secret + " answers mornings", Agent: senior.AgentID, Run: "r", CreatedAt: db.Now()},
		} {
			if err := tx.AppendEvent(context.Background(), ev, store.Project); err != nil {
				return err
			}
		}
		now := db.Now()
		p := memory.PendingItem{RawInput: "fixed: " + secret + " issue", Agent: senior.AgentID, Run: "r", Reason: "two rows fit",
			Request: memory.WriteRequest{Decision: memory.DecisionAccept, Bucket: memory.BucketIssues, Operation: memory.OpResolve,
				ReferenceText: secret + " issue"}, NoteAt: now, CreatedAt: now, UpdatedAt: now}
		return tx.InsertPending(context.Background(), &p)
	})
	if err != nil {
		t.Fatal(err)
	}
	blocks := store.NewBlockService(db)
	if _, err := blocks.Create(ctx, memory.BlockSpec{Label: "contacts", Description: "People.", Value: "Nobody yet."}); err != nil {
		t.Fatal(err)
	}
	if _, err := blocks.Edit(ctx, memory.BlockEdit{Label: "contacts", Op: memory.BlockAppend, Text: secret + " (vendor)"}); err != nil {
		t.Fatal(err)
	}
	facts := store.NewFactService(db)
	if _, err := facts.Publish(ctx, memory.FactWrite{FactID: "vendor", Content: "Vendor questions go to " + secret + ".", Category: memory.FactConvention}); err != nil {
		t.Fatal(err)
	}
}

func TestEraseByTextRemovesEveryCopy(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		e := seedSecret(t, db)
		mem := store.NewMemoryService(db, nil)
		keep := remember(t, mem, senior, memory.EntryWrite{Content: "The vendor invoices monthly."})
		before := quoting(t, db, secret)
		_, pg := postgresURLs.Load(db) // where the terms are the rows' own
		for _, table := range []string{"memories", "memory_repeats", "notes", "events_memory", "pending_memory_events", "shared_issues", "shared_learnings",
			"block_versions", "blocks", "operation_log", "snapshot", "memory_fts", "fact_fts", "repeat_fts"} {
			if before[table] == 0 && !(pg && strings.HasSuffix(table, "_fts")) {
				t.Fatalf("the test stored no %s quoting the secret: %v", table, before)
			}
		}

		dry, err := mem.Erase(as(human), memory.ErasureRequest{Contains: strings.ToLower(secret), Reason: "request 17", DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := quoting(t, db, secret); len(got) != len(before) || !dry.DryRun || dry.Erasure != 0 {
			t.Fatalf("a dry run changed something: %v, %+v", got, dry)
		}
		rep, err := mem.Erase(as(human), memory.ErasureRequest{Contains: strings.ToLower(secret), Reason: "request 17"})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]int{memory.ErasedMemories: 2, memory.ErasedRepeats: 1, memory.ErasedNotes: 1, memory.ErasedEvents: 2, memory.ErasedStateRows: 2,
			memory.ErasedPending: 1, memory.ErasedBlockVersions: 1, memory.ErasedFacts: 1, memory.ErasedFactOperations: 1}
		for k, n := range want {
			if rep.Counts[k] != n || dry.Counts[k] != n {
				t.Errorf("%s: erased %d, dry run said %d; want %d (%v)", k, rep.Counts[k], dry.Counts[k], n, rep.Counts)
			}
		}
		if rep.Rewound != 1 || !rep.Scrubbed || rep.Erasure == 0 {
			t.Errorf("report %+v: want one block rewound, scrubbed, an audit row", rep)
		}
		if got := quoting(t, db, secret); len(got) != 0 {
			t.Fatalf("still quoting the secret after erase: %v", got)
		}
		if _, err := mem.Recall(as(senior), []string{e.ID}); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Errorf("recall of the erased memory: %v", err)
		}
		if _, err := mem.Recall(as(senior), []string{keep.ID}); err != nil {
			t.Errorf("a memory without the text went too: %v", err)
		}
		if ids := search(t, mem, senior, memory.Query{Text: "vendor"}); len(ids) != 1 || ids[0] != keep.ID {
			t.Errorf("search after erase: %v", ids)
		}
		b, err := store.NewBlockService(db).Get(as(senior), "contacts")
		if err != nil || b.Value != "Nobody yet." || b.Version != 1 {
			t.Errorf("block after erase: %+v, %v; want its first version back", b, err)
		}
		if miscounted, _, err := spaceCounts(t, db); err != nil || miscounted != 0 {
			t.Errorf("search statistics: %d spaces miscounted, %v", miscounted, err)
		}
		audit, err := db.Erasures(context.Background())
		if err != nil || len(audit) != 1 {
			t.Fatalf("audit %v, %v", audit, err)
		}
		a := audit[0]
		if a.Kind != "erase" || a.By != human.AgentID || !a.Human || a.Reason != "request 17" || a.ErasedSHA256 != rep.ErasedSHA256 ||
			!strings.Contains(a.Selector, "contains_sha256") || a.Counts[memory.ErasedMemories] != 2 {
			t.Errorf("audit row %+v", a)
		}
	})
}

// An erase by id takes the memory's shared copy (either way round) and the
// summaries made from it, and gives the summaries' other sources back.
func TestEraseByIDTakesCopiesAndSummaries(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		mem := store.NewMemoryService(db, nil)
		var ids []string
		for _, c := range []string{"garden beds need water", "garden tomatoes planted", "garden aphids sprayed"} {
			ids = append(ids, remember(t, mem, senior, memory.EntryWrite{Content: c}).ID)
		}
		copied, err := mem.Publish(as(senior), ids[0])
		if err != nil {
			t.Fatal(err)
		}
		var sum memory.Entry
		err = db.Update(context.Background(), func(tx *store.Tx) (err error) {
			l, _, err := tx.AcquireLease(context.Background(), store.LeaseMaintenance, "the test", time.Hour)
			if err != nil {
				return err
			}
			sum, err = tx.Consolidate(context.Background(), store.Summary{Lease: l, Agent: senior.AgentID, Author: memory.AuthorOf(senior),
				Namespace: "default", Category: memory.CategorySemantic, Content: "garden: water, tomatoes, aphids", Confidence: 0.5,
				Source: "test", OccurredAt: db.Now(), Sources: ids[1:]})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := mem.Erase(as(human), memory.ErasureRequest{IDs: []string{copied.ID, ids[1]}, Reason: "test"})
		if err != nil {
			t.Fatal(err)
		}
		// The copy and its original, the source and its summary; the other
		// source is back in search.
		if rep.Counts[memory.ErasedMemories] != 4 || rep.Counts[memory.ErasedSources] != 2 || rep.Restored != 1 {
			t.Fatalf("report %+v", rep)
		}
		for _, id := range []string{ids[0], copied.ID, ids[1], sum.ID} {
			if _, err := mem.Recall(as(senior), []string{id}); memory.ErrorCode(err) != memory.ENOTFOUND {
				t.Errorf("%s after erase: %v", id, err)
			}
		}
		if found := search(t, mem, senior, memory.Query{Text: "aphids"}); len(found) != 1 || found[0] != ids[2] {
			t.Errorf("the summary's other source is not back in search: %v", found)
		}
		if miscounted, _, err := spaceCounts(t, db); err != nil || miscounted != 0 {
			t.Errorf("%d spaces miscounted (%v)", miscounted, err)
		}
	})
}

// An erase by text finds it in any letter case, beyond ASCII, alike on
// both engines: "ÉCOLE" takes the memories and the fact that say "école"
// or "École", and leaves "ecole", another word.
func TestEraseFoldsCaseBeyondASCII(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		mem := store.NewMemoryService(db, nil)
		lower := remember(t, mem, senior, memory.EntryWrite{Content: "Registration at the école closes on Friday."})
		title := remember(t, mem, junior, memory.EntryWrite{Content: "Pick-up is at the gate.", Tags: []string{"École-Jaurès"}})
		other := remember(t, mem, senior, memory.EntryWrite{Content: "The ecole parking lot is shut."})
		facts := store.NewFactService(db)
		if _, err := facts.Publish(as(senior), memory.FactWrite{FactID: "school", Content: "The École Jaurès is the team's school.", Category: memory.FactConvention}); err != nil {
			t.Fatal(err)
		}
		rep, err := mem.Erase(as(human), memory.ErasureRequest{Contains: "ÉCOLE", Reason: "request 24"})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Counts[memory.ErasedMemories] != 2 || rep.Counts[memory.ErasedFacts] != 1 {
			t.Errorf("erase of ÉCOLE: %v, want the 2 memories and the fact that say it in another case", rep.Counts)
		}
		for _, m := range []struct {
			id   string
			gone bool
		}{{lower.ID, true}, {title.ID, true}, {other.ID, false}} {
			if stored(t, db, m.id) == m.gone {
				t.Errorf("%s: stored %v, want gone %v", m.id, !m.gone, m.gone)
			}
		}
		for _, rest := range []string{"Jaur", "Registration"} { // only beside the erased word
			if got := quoting(t, db, rest); len(got) != 0 {
				t.Errorf("rows still saying %q: %v", rest, got)
			}
		}
	})
}

// Selectors narrow each other.
func TestEraseSelectorsNarrow(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		mem := store.NewMemoryService(db, nil)
		mine := remember(t, mem, senior, memory.EntryWrite{Content: "Lunch with " + secret + " on Friday."})
		theirs := remember(t, mem, junior, memory.EntryWrite{Content: secret + " prefers email."})
		other := remember(t, mem, senior, memory.EntryWrite{Content: "Lunch on Friday is at noon."})
		rep, err := mem.Erase(as(human), memory.ErasureRequest{AgentID: senior.AgentID, Contains: secret, Reason: "test"})
		if err != nil || rep.Counts[memory.ErasedMemories] != 1 {
			t.Fatalf("agent and contains: %+v, %v", rep, err)
		}
		for _, m := range []struct {
			who  memory.Identity
			id   string
			gone bool
		}{{senior, mine.ID, true}, {junior, theirs.ID, false}, {senior, other.ID, false}} {
			if stored(t, db, m.id) == m.gone {
				t.Errorf("%s: stored %v, want gone %v", m.id, !m.gone, m.gone)
			}
		}
		// ids and contains: an id whose memory does not quote the text stays.
		rep, err = mem.Erase(as(human), memory.ErasureRequest{IDs: []string{other.ID}, Contains: secret, Reason: "test"})
		if err != nil || rep.Total() != 0 {
			t.Fatalf("ids and contains: %+v, %v", rep, err)
		}
		// agent alone: every memory of that agent.
		rep, err = mem.Erase(as(human), memory.ErasureRequest{AgentID: junior.AgentID, Reason: "agent retired"})
		if err != nil || rep.Counts[memory.ErasedMemories] != 1 {
			t.Fatalf("agent alone: %+v, %v", rep, err)
		}
	})
}

func TestEraseRefusesBadRequestsAndChangesNothing(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		mem := store.NewMemoryService(db, nil)
		e := remember(t, mem, senior, memory.EntryWrite{Content: "The door code is " + secret + "."})
		for _, tc := range []struct {
			who  memory.Identity
			r    memory.ErasureRequest
			code string
			want string
		}{
			{senior, memory.ErasureRequest{IDs: []string{e.ID}, Reason: "x"}, memory.EFORBIDDEN, "human"},
			{human, memory.ErasureRequest{Reason: "x"}, memory.EINVALID, "nothing selected"},
			{human, memory.ErasureRequest{IDs: []string{e.ID}}, memory.EINVALID, "reason"},
			{human, memory.ErasureRequest{IDs: []string{e.ID}, Reason: "  "}, memory.EINVALID, "reason"},
			{human, memory.ErasureRequest{IDs: []string{e.ID, "mem-000000000000"}, Reason: "x"}, memory.ENOTFOUND, "mem-000000000000"},
			{human, memory.ErasureRequest{Contains: "ab", Reason: "x"}, memory.EINVALID, "shorter"},
			{human, memory.ErasureRequest{Contains: secret, Reason: "remove " + secret}, memory.EINVALID, "quotes"},
		} {
			_, err := mem.Erase(as(tc.who), tc.r)
			if memory.ErrorCode(err) != tc.code || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%+v: %v, want %s saying %q", tc.r, err, tc.code, tc.want)
			}
		}
		_, pg := postgresURLs.Load(db) // its terms are the row's own
		if got := quoting(t, db, secret); got["memories"] != 1 || got["memory_fts"] != 1 && !pg {
			t.Fatalf("a refused erase changed something: %v", got)
		}
		if audit, _ := db.Erasures(context.Background()); len(audit) != 0 {
			t.Fatalf("a refused erase left an audit row: %v", audit)
		}
	})
}

// The no-delete triggers hold outside an erase: the permit is only ever
// held inside one.
func TestDeletesOutsideEraseAreRefused(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		seedSecret(t, db)
		refused := func(tables ...string) {
			t.Helper()
			for _, table := range tables {
				if _, err := db.SQL().Exec(`DELETE FROM ` + table); err == nil || !strings.Contains(err.Error(), "only") &&
					!strings.Contains(err.Error(), "soft-deleted") && !strings.Contains(err.Error(), "never changes") {
					t.Errorf("DELETE FROM %s: %v, want refused", table, err)
				}
			}
		}
		refused("memories", "events_memory", "block_versions", "operation_log")
		var permits int
		if err := db.SQL().QueryRow(`SELECT count(*) FROM erase_permit`).Scan(&permits); err != nil || permits != 0 {
			t.Fatalf("erase_permit holds %d rows (%v)", permits, err)
		}
		mem := store.NewMemoryService(db, nil)
		if _, err := mem.Erase(as(human), memory.ErasureRequest{Contains: secret, Reason: "test"}); err != nil {
			t.Fatal(err)
		}
		if err := db.SQL().QueryRow(`SELECT count(*) FROM erase_permit`).Scan(&permits); err != nil || permits != 0 {
			t.Fatalf("after an erase erase_permit holds %d rows (%v)", permits, err)
		}
		remember(t, mem, senior, memory.EntryWrite{Content: "after the erase"})
		refused("memories", "erasures")
		if _, err := db.SQL().Exec(`UPDATE erasures SET reason = 'edited'`); err == nil {
			t.Error("the audit can be edited")
		}
	})
}

// A second handle on the file, standing for another process, drops the
// erased memory from its vector index through the change feed.
func TestEraseLeavesAnotherHandlesIndex(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		a, b := twoHandlesOn(t, openDB)
		e := remember(t, a, senior, memory.EntryWrite{Content: "rollout step uses blue green deploys"})
		remember(t, a, senior, memory.EntryWrite{Content: "rollback needs a feature flag"})
		if ids := search(t, b, senior, memory.Query{Text: "rollout step", Limit: 1}); len(ids) != 1 || ids[0] != e.ID {
			t.Fatalf("b found %v before the erase", ids)
		}
		if b.Index.Len() != 2 {
			t.Fatalf("b's index holds %d", b.Index.Len())
		}
		if _, err := a.Erase(as(human), memory.ErasureRequest{IDs: []string{e.ID}, Reason: "test"}); err != nil {
			t.Fatal(err)
		}
		search(t, b, senior, memory.Query{Text: "rollback"}) // syncs
		if b.Index.Len() != 1 || a.Index.Len() != 1 {
			t.Fatalf("index sizes after the erase: a %d, b %d; want 1", a.Index.Len(), b.Index.Len())
		}
	})
}

// A database made before migration 0012 erases like a new one.
func TestEraseAfterUpgrade(t *testing.T) {
	path := filepath.Join(t.TempDir(), store.FileName)
	names, _ := fs.Glob(store.MigrationFS, "*.sql")
	old := fstest.MapFS{}
	for _, n := range names {
		if n < "0012" {
			b, _ := fs.ReadFile(store.MigrationFS, n)
			old[n] = &fstest.MapFile{Data: b}
		}
	}
	db, err := store.OpenWith(context.Background(), path, old)
	if err != nil {
		t.Fatal(err)
	}
	// Written as the build of that schema wrote it, through the full-text
	// triggers (this build's store writes columns the old schema lacks):
	// remembered, then forgotten.
	for _, q := range []string{
		`INSERT INTO memories (id, agent_id, namespace, category, content, tags, confidence, shared, created_at, updated_at, occurred_at, filters, length)
			VALUES ('mem-old', '` + senior.AgentID + `', 'default', 'semantic', 'Old memory naming ` + secret + `.', '[]', 1, 0, 1, 1, 1, '', 5)`,
		`UPDATE memories SET forgotten_at = 2, updated_at = 2, forgotten_by = '` + senior.AgentID + `', forget_reason = 'forgotten' WHERE id = 'mem-old'`,
	} {
		if _, err := db.SQL().Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	db, err = store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rep, err := store.NewMemoryService(db, nil).Erase(as(human), memory.ErasureRequest{Contains: secret, Reason: "test"})
	if err != nil || rep.Counts[memory.ErasedMemories] != 1 {
		t.Fatalf("%+v, %v", rep, err)
	}
	if got := quoting(t, db, secret); len(got) != 0 {
		t.Fatalf("still quoting after erase: %v", got)
	}
}

// gc purges what was forgotten, retracted or expired past the grace
// period, except a memory one that stays still needs.
func TestCollect(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, clk := openDB(t)
		mem := store.NewMemoryService(db, nil)
		ctx := as(senior)
		forgotten := remember(t, mem, senior, memory.EntryWrite{Content: "old forgotten thing"})
		shared := remember(t, mem, senior, memory.EntryWrite{Content: "still shared thing"})
		cp, err := mem.Publish(ctx, shared.ID)
		if err != nil {
			t.Fatal(err)
		}
		expiring := remember(t, mem, senior, memory.EntryWrite{Content: "short lived thing", ExpiresAt: clk.Peek().Add(time.Hour)})
		recent := remember(t, mem, senior, memory.EntryWrite{Content: "recently forgotten thing"})
		for _, id := range []string{forgotten.ID, shared.ID} {
			if _, err := mem.Forget(ctx, id, ""); err != nil {
				t.Fatal(err)
			}
		}
		clk.Advance(48 * time.Hour)
		if _, err := mem.Forget(ctx, recent.ID, ""); err != nil {
			t.Fatal(err)
		}
		collect := func() memory.ErasureReport {
			var rep memory.ErasureReport
			err := db.Update(context.Background(), func(tx *store.Tx) (err error) {
				rep, err = tx.Collect(context.Background(), human, store.Collection{Before: clk.Peek().Add(-24 * time.Hour), Grace: 24 * time.Hour, Limit: 500})
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			return rep
		}
		rep := collect()
		// The forgotten and the expired memory go; the forgotten original of a
		// live shared copy waits for it; the recent one waits for its grace.
		if rep.Counts[memory.ErasedMemories] != 2 {
			t.Fatalf("gc purged %v", rep.Counts)
		}
		for id, gone := range map[string]bool{forgotten.ID: true, expiring.ID: true, shared.ID: false, cp.ID: false, recent.ID: false} {
			if _, err := mem.Recall(ctx, []string{id}); (memory.ErrorCode(err) == memory.ENOTFOUND) != gone {
				t.Errorf("%s: %v, want gone %v", id, err, gone)
			}
		}
		if _, err := mem.Retract(ctx, cp.ID); err != nil {
			t.Fatal(err)
		}
		clk.Advance(48 * time.Hour)
		if rep = collect(); rep.Counts[memory.ErasedMemories] != 3 {
			t.Fatalf("second gc purged %v; want the copy, its original and the recent one", rep.Counts)
		}
		if rep = collect(); rep.Total() != 0 {
			t.Fatalf("a third gc purged %v", rep.Counts)
		}
		audit, _ := db.Erasures(context.Background())
		if len(audit) != 2 || audit[0].Kind != "gc" || !strings.Contains(audit[0].Selector, "24h0m0s") {
			t.Fatalf("audit %+v", audit)
		}
	})
}

// With a provenance key the audit keeps an erased text only as its HMAC
// under the key: its plain SHA-256 would let anyone confirm a guessed
// short text (a name, a code) by hashing candidates.
func TestEraseAuditKeysTheText(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		key := bytes.Repeat([]byte{7}, store.ProvenanceKeySize)
		if err := db.UseProvenanceKey(context.Background(), key); err != nil {
			t.Fatal(err)
		}
		mem := store.NewMemoryService(db, nil)
		if _, err := mem.Remember(as(ann), memory.EntryWrite{Content: "The door code is 4411."}); err != nil {
			t.Fatal(err)
		}
		if _, err := mem.Erase(as(alice), memory.ErasureRequest{Contains: "4411", Reason: "code"}); err != nil {
			t.Fatal(err)
		}
		audit, err := db.Erasures(context.Background())
		if err != nil || len(audit) != 1 {
			t.Fatalf("audit %v, %v", audit, err)
		}
		plain := sha256.Sum256([]byte("4411"))
		m := hmac.New(sha256.New, key)
		m.Write([]byte("4411"))
		if sel := audit[0].Selector; !strings.Contains(sel, hex.EncodeToString(m.Sum(nil))) || strings.Contains(sel, hex.EncodeToString(plain[:])) {
			t.Fatalf("selector %s: want the keyed hash, not the plain one", sel)
		}
	})
}

// An erase by id or by agent takes every row that quotes an erased
// memory's whole content (in any case), whoever wrote it: a note, a ledger
// event's raw input with the row it made, a block version, a fact. A row
// that does not quote it stays, and so does text that quotes a content
// too short to search for.
func TestEraseByIDTakesWhatQuotesIt(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		ctx := context.Background()
		mem := store.NewMemoryService(db, nil)
		const said = "Halvorsen keeps the courier ledger in the blue binder."
		m := remember(t, mem, senior, memory.EntryWrite{Content: said})
		// Too short to be looked for in other rows: it is inside texts that
		// never quoted it.
		short := remember(t, mem, senior, memory.EntryWrite{Content: "Yes, the API"})
		for _, n := range []memory.Note{
			{Agent: junior.AgentID, Run: "r", Kind: memory.NoteAgent, Text: "heard: " + strings.ToUpper(said)},
			{Agent: senior.AgentID, Run: "r", Kind: memory.NoteAgent, Text: "Yes, the API keys rotate; the courier comes on Tuesdays."},
		} {
			if _, err := db.InsertNote(ctx, n); err != nil {
				t.Fatal(err)
			}
		}
		err := db.Update(ctx, func(tx *store.Tx) error {
			return tx.AppendEvent(ctx, &memory.Event{Bucket: memory.BucketLearnings, Operation: memory.OpAppend, Payload: memory.Payload{Text: said},
				RawInput: "learned: " + said, Agent: junior.AgentID, Run: "r", CreatedAt: db.Now()}, store.Project)
		})
		if err != nil {
			t.Fatal(err)
		}
		blocks := store.NewBlockService(db)
		if _, err := blocks.Create(as(junior), memory.BlockSpec{Label: "office", Description: "Where things are.", Value: "Keys at reception."}); err != nil {
			t.Fatal(err)
		}
		if _, err := blocks.Edit(as(junior), memory.BlockEdit{Label: "office", Op: memory.BlockAppend, Text: said}); err != nil {
			t.Fatal(err)
		}
		if _, err := store.NewFactService(db).Publish(as(senior), memory.FactWrite{FactID: "courier", Content: "Audit: " + said, Category: memory.FactConvention}); err != nil {
			t.Fatal(err)
		}
		before := quoting(t, db, "Halvorsen")
		for _, table := range []string{"memories", "notes", "events_memory", "shared_learnings", "block_versions", "operation_log"} {
			if before[table] == 0 {
				t.Fatalf("the test stored no %s quoting the memory: %v", table, before)
			}
		}

		req := memory.ErasureRequest{IDs: []string{m.ID, short.ID}, Reason: "request 40"}
		req.DryRun = true
		dry, err := mem.Erase(as(human), req)
		if err != nil {
			t.Fatal(err)
		}
		req.DryRun = false
		rep, err := mem.Erase(as(human), req)
		if err != nil {
			t.Fatal(err)
		}
		// A fact is someone's statement to every agent, with its history: an
		// erased memory's words in one are left to an erase by contains.
		want := map[string]int{memory.ErasedMemories: 2, memory.ErasedNotes: 1, memory.ErasedEvents: 1, memory.ErasedStateRows: 1,
			memory.ErasedBlockVersions: 1, memory.ErasedFacts: 0, memory.ErasedFactOperations: 0}
		for k, n := range want {
			if rep.Counts[k] != n || dry.Counts[k] != n {
				t.Errorf("%s: erased %d, dry run said %d; want %d (%v)", k, rep.Counts[k], dry.Counts[k], n, rep.Counts)
			}
		}
		_, pg := postgresURLs.Load(db) // a fact's terms are its log row's own
		if got := quoting(t, db, "Halvorsen"); pg && len(got) != 2 || !pg && (len(got) != 3 || got["fact_fts"] != 1) ||
			got["operation_log"] != 1 || got["snapshot"] != 1 {
			t.Fatalf("still quoting the erased memory: %v; want only the fact (its log, snapshot and index)", got)
		}
		if got := quoting(t, db, "the courier comes on Tuesdays"); got["notes"] != 1 {
			t.Errorf("the note that quotes no erased memory (only the too short one) went: %v", got)
		}
		if b, err := blocks.Get(as(junior), "office"); err != nil || b.Value != "Keys at reception." {
			t.Errorf("block after erase: %+v, %v; want its first version back", b, err)
		}
		audit, err := db.Erasures(ctx)
		if err != nil || len(audit) != 1 || audit[0].Counts[memory.ErasedNotes] != 1 || audit[0].Counts[memory.ErasedBlockVersions] != 1 {
			t.Fatalf("audit %+v, %v", audit, err)
		}

		// By agent: the agent's memories, and another agent's note quoting one.
		theirs := remember(t, mem, junior, memory.EntryWrite{Content: "The loading dock closes at five sharp."})
		if _, err := db.InsertNote(ctx, memory.Note{Agent: senior.AgentID, Run: "r", Kind: memory.NoteAgent, Text: "junior said: the loading dock closes at five sharp."}); err != nil {
			t.Fatal(err)
		}
		rep, err = mem.Erase(as(human), memory.ErasureRequest{AgentID: junior.AgentID, Reason: "agent retired"})
		if err != nil || rep.Counts[memory.ErasedMemories] != 1 || rep.Counts[memory.ErasedNotes] != 1 {
			t.Fatalf("erase by agent: %+v, %v", rep, err)
		}
		if stored(t, db, theirs.ID) {
			t.Errorf("the erased memory %s is still stored", theirs.ID)
		}
		if got := quoting(t, db, "loading dock"); len(got) != 0 {
			t.Fatalf("still quoting the agent's erased memory: %v", got)
		}
	})
}

// TestHistoryTablesRefuseDeletes: every table that keeps history refuses a
// plain delete, the five of migration 0027 as the first eight do, and an
// erase (the one path that removes) still takes their rows that quote what
// it erases.
func TestHistoryTablesRefuseDeletes(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, clk := openDB(t)
		seedSecret(t, db) // a note and a pending item quoting the secret
		mem := store.NewMemoryService(db, nil)
		remember(t, mem, senior, memory.EntryWrite{Content: "The " + secret + " call is on Tuesday."})
		if r := rememberOutcome(t, mem, senior, memory.EntryWrite{Content: "The " + secret + " call is on Wednesday."}); len(r.Conflicts) != 1 {
			t.Fatalf("no memory conflict to keep: %+v", r.Conflicts)
		}
		facts := store.NewFactService(db)
		publish(t, facts, as(senior), memory.FactWrite{FactID: "door", Content: "The " + secret + " door code is 4711.", Category: memory.FactOther})
		if p := publish(t, facts, as(senior), memory.FactWrite{FactID: "door-2", Content: "The " + secret + " door code is 1234.",
			Category: memory.FactOther}); len(p.Conflicts) != 1 {
			t.Fatalf("no fact conflict to keep: %+v", p.Conflicts)
		}
		call, ctx := gated(senior, "k", memory.ApprovalHold, clk.Peek().Add(time.Hour))
		call.Approval.Args = []byte(`{"content":"call ` + secret + `"}`)
		if _, err := mem.Remember(ctx, memory.EntryWrite{Content: "call " + secret}); !errors.Is(err, store.ErrHeld) {
			t.Fatalf("the held write: %v", err)
		}
		tables := map[string]string{"notes": "notes are kept", "pending_memory_events": "resolved, not deleted",
			"approvals": "decided, not deleted", "memory_conflicts": "resolve_conflict", "fact_conflicts": "resolve_conflict"}
		count := func(table string) int {
			t.Helper()
			var n int
			if err := db.SQL().QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		for table, why := range tables {
			if count(table) == 0 {
				t.Fatalf("the test stored no row in %s", table)
			}
			if _, err := db.SQL().Exec(`DELETE FROM ` + table); err == nil || !strings.Contains(err.Error(), why) {
				t.Errorf("DELETE FROM %s: %v, want refused (%q)", table, err, why)
			}
		}
		if _, err := db.SQL().Exec(`UPDATE notes SET text = 'edited'`); err == nil || !strings.Contains(err.Error(), "never changes") {
			t.Errorf("a note was edited: %v", err)
		}
		if _, err := db.SQL().Exec(`UPDATE approvals SET args = '{}'`); err == nil || !strings.Contains(err.Error(), "never changes") {
			t.Errorf("a held write's arguments were edited: %v", err)
		}
		if _, err := mem.Erase(as(human), memory.ErasureRequest{Contains: secret, Reason: "test"}); err != nil {
			t.Fatal(err)
		}
		for table := range tables {
			if n := count(table); n != 0 {
				t.Errorf("%s keeps %d rows after the erase", table, n)
			}
		}
	})
}
