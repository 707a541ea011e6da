package store_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

var (
	provKey  = bytes.Repeat([]byte{0x5a}, store.ProvenanceKeySize)
	otherKey = bytes.Repeat([]byte{0xa5}, store.ProvenanceKeySize)
)

// writeEveryStampedKind writes rows of the stamped tables through the
// store's own paths: memories remembered (with every optional column), a
// shared copy and a consolidation summary; a fact published, republished
// and retracted; two ledger events; a block made, edited and deleted.
// It returns the counts per table.
func writeEveryStampedKind(t *testing.T, db *store.DB) map[string]int {
	t.Helper()
	ctx := as(senior)
	mem := store.NewMemoryService(db, nil)
	first := remember(t, mem, senior, memory.EntryWrite{Content: "The vendor contact is Dana at extension 4411.", Tags: []string{"vendor", "phone"},
		Source: "runbook.md", Confidence: ptr(0.7), OccurredAt: time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC), ExpiresAt: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)})
	if _, err := mem.Publish(ctx, first.ID); err != nil {
		t.Fatal(err)
	}
	remember(t, mem, human, memory.EntryWrite{Content: "Ünïcödé ✓ 部署 naïve café — the human said so"})
	// Repeats, kept with every optional column: a remember answered
	// duplicate, and a human's publish answered duplicate of the copy.
	again := memory.EntryWrite{Content: "the vendor contact is Dana at extension 4411", Tags: []string{"vendor"}, Source: "call notes",
		Confidence: ptr(0.9), OccurredAt: time.Date(2025, 3, 1, 9, 10, 0, 0, time.UTC), ExpiresAt: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	if r, err := mem.Remember(ctx, again); err != nil || r.RepeatID == "" {
		t.Fatalf("repeat: %+v, %v", r, err)
	}
	said := remember(t, mem, human, memory.EntryWrite{Content: first.Content, Tags: []string{"vendor", "phone"},
		OccurredAt: first.OccurredAt, ExpiresAt: *first.ExpiresAt})
	if p, err := mem.Publish(as(human), said.ID); err != nil || p.RepeatID == "" {
		t.Fatalf("publish repeat: %+v, %v", p, err)
	}
	var ids []string
	for _, c := range []string{"garden beds need water", "garden tomatoes planted", "garden aphids sprayed"} {
		ids = append(ids, remember(t, mem, senior, memory.EntryWrite{Content: c}).ID)
	}
	err := db.Update(context.Background(), func(tx *store.Tx) error {
		l, _, err := tx.AcquireLease(context.Background(), store.LeaseMaintenance, "the test", time.Hour)
		if err != nil {
			return err
		}
		_, err = tx.Consolidate(context.Background(), store.Summary{Lease: l, Agent: senior.AgentID, Author: memory.AuthorOf(senior),
			Namespace: "default", Category: memory.CategorySemantic, Content: "garden: water, tomatoes, aphids", Confidence: 0.5,
			Source: "consolidation (test)", OccurredAt: db.Now(), Sources: ids})
		if err != nil {
			return err
		}
		for _, ev := range []*memory.Event{
			{Bucket: memory.BucketIssues, Operation: memory.OpUpsert, TargetID: "vendor_call", Payload: memory.Payload{Text: "call the vendor"},
				RawInput: "issue: call the vendor", Agent: senior.AgentID, Autonomy: senior.Autonomy, Run: "r", CreatedAt: db.Now()},
			{Bucket: memory.BucketLearnings, Operation: memory.OpAppend, Payload: memory.Payload{Text: "the vendor answers mornings"},
				RawInput: "learned: the vendor answers mornings", Agent: senior.AgentID, Run: "r", CreatedAt: db.Now()},
		} {
			if err := tx.AppendEvent(context.Background(), ev, store.Project); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	facts := store.NewFactService(db)
	for _, w := range []memory.FactWrite{
		{FactID: "policy-jwt", Content: "Services authenticate with JWT.", Category: memory.FactConvention, Tags: []string{"auth"}},
		{FactID: "policy-jwt", Content: "Services authenticate with short-lived JWT.", Category: memory.FactConvention},
	} {
		if _, err := facts.Publish(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := facts.Retract(ctx, memory.FactRetract{FactID: "policy-jwt", Reason: "replaced by mTLS"}); err != nil {
		t.Fatal(err)
	}
	blocks := store.NewBlockService(db)
	if _, err := blocks.Create(ctx, memory.BlockSpec{Label: "contacts", Description: "People.", Value: "Nobody yet."}); err != nil {
		t.Fatal(err)
	}
	if _, err := blocks.Edit(ctx, memory.BlockEdit{Label: "contacts", Op: memory.BlockAppend, Text: " Dana."}); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, table := range []string{"memories", "operation_log", "events_memory", "block_versions", "memory_repeats"} {
		var n int
		if err := db.SQL().QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		counts[table] = n
	}
	// Eight memories, three fact operations, two events, the block's two
	// versions (and the default blocks its creation made), two repeats.
	if counts["memories"] != 8 || counts["operation_log"] != 3 || counts["events_memory"] != 2 || counts["block_versions"] < 2 ||
		counts["memory_repeats"] != 2 {
		t.Fatalf("rows written: %v", counts)
	}
	return counts
}

// report returns rep's table figures by name.
func tablesOf(rep store.ProvenanceReport) map[string]store.ProvenanceTable {
	out := map[string]store.ProvenanceTable{}
	for _, t := range rep.Tables {
		out[t.Table] = t
	}
	return out
}

func verify(t *testing.T, db *store.DB) (store.ProvenanceReport, map[string]store.ProvenanceTable) {
	t.Helper()
	rep, err := db.Verify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rep, tablesOf(rep)
}

// Every row the store writes, of each stamped table and by each path
// that writes one, is stamped in its INSERT and verifies.
func TestProvenanceEveryRowStamped(t *testing.T) {
	db, _ := openDB(t)
	if err := db.UseProvenanceKey(context.Background(), provKey); err != nil {
		t.Fatal(err)
	}
	want := writeEveryStampedKind(t, db)
	rep, tables := verify(t, db)
	if len(rep.Tables) != 6 || len(rep.Mismatched) != 0 {
		t.Fatalf("report = %+v", rep)
	}
	for name, n := range want {
		if got := tables[name]; got.Checked != n || got.Valid != n || got.Unstamped != 0 || got.Mismatched != 0 {
			t.Errorf("%s: %+v, want %d valid", name, got, n)
		}
	}
	var nulls int
	for name := range want {
		var n int
		if err := db.SQL().QueryRow(`SELECT count(*) FROM ` + name + ` WHERE stamp IS NULL OR length(stamp) != 32`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		nulls += n
	}
	if nulls != 0 {
		t.Fatalf("%d rows without a 32-byte stamp", nulls)
	}
}

// A covered column changed behind the store's back makes that row, and only
// that row, mismatched, named by table and id; a changed stamp too. A column
// the stamp does not cover (confidence) changes nothing.
func TestProvenanceTamperDetected(t *testing.T) {
	db, _ := openDB(t)
	if err := db.UseProvenanceKey(context.Background(), provKey); err != nil {
		t.Fatal(err)
	}
	writeEveryStampedKind(t, db)
	var memID, eventID string
	if err := db.SQL().QueryRow(`SELECT id FROM memories WHERE content LIKE 'The vendor%' AND shared = 0`).Scan(&memID); err != nil {
		t.Fatal(err)
	}
	if err := db.SQL().QueryRow(`SELECT event_id FROM events_memory ORDER BY seq LIMIT 1`).Scan(&eventID); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`DROP TRIGGER memories_immutable`,
		`UPDATE memories SET content = 'The vendor contact is Mallory at extension 4411.' WHERE id = '` + memID + `'`,
		`UPDATE memories SET confidence = 0.01`, // not covered: it legitimately changes
		`DROP TRIGGER operation_log_no_update`,
		`UPDATE operation_log SET author_seniority = 'principal' WHERE fact_id = 'policy-jwt' AND version = 2`,
		`DROP TRIGGER events_memory_stamp_once`,
		`UPDATE events_memory SET stamp = zeroblob(32) WHERE event_id = '` + eventID + `'`,
		`DROP TRIGGER block_versions_no_update`,
		`UPDATE block_versions SET "at" = "at" + 1 WHERE version = 2`,
		`DROP TRIGGER memory_repeats_immutable`,
		`UPDATE memory_repeats SET content = 'the vendor contact is Mallory' WHERE tool = 'remember'`,
		`UPDATE memory_repeats SET stored_as = 'mem-x'`, // not covered: set when stored after all
	} {
		if _, err := db.SQL().Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var blockID int64
	var repeatID string
	if err := db.SQL().QueryRow(`SELECT id FROM memory_repeats WHERE tool = 'remember'`).Scan(&repeatID); err != nil {
		t.Fatal(err)
	}
	if err := db.SQL().QueryRow(`SELECT block_id FROM block_versions WHERE version = 2`).Scan(&blockID); err != nil {
		t.Fatal(err)
	}
	rep, tables := verify(t, db)
	var got []string
	for _, m := range rep.Mismatched {
		got = append(got, m.Table+":"+m.ID)
	}
	want := []string{"memories:" + memID, "operation_log:policy-jwt v2", "events_memory:" + eventID,
		"block_versions:block " + strconv.FormatInt(blockID, 10) + " v2", "memory_repeats:" + repeatID}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("mismatched = %v, want %v", got, want)
	}
	if m := tables["memories"]; m.Mismatched != 1 || m.Valid != 7 {
		t.Fatalf("memories = %+v", m)
	}
}

// Under another key every stamped row is mismatched. The store refuses a
// second key for a database; here the first one's fingerprint is removed
// behind its back, as when a key file is lost and replaced.
func TestProvenanceOtherKeyMismatchesAll(t *testing.T) {
	db, _ := openDB(t)
	if err := db.UseProvenanceKey(context.Background(), provKey); err != nil {
		t.Fatal(err)
	}
	want := writeEveryStampedKind(t, db)
	other, err := store.Open(context.Background(), db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.UseProvenanceKey(context.Background(), otherKey); err != store.ErrProvenanceKey {
		t.Fatalf("a second key for the database: %v, want ErrProvenanceKey", err)
	}
	if _, err := other.SQL().Exec(`DELETE FROM provenance_key`); err != nil {
		t.Fatal(err)
	}
	if err := other.UseProvenanceKey(context.Background(), otherKey); err != nil {
		t.Fatal(err)
	}
	rep, tables := verify(t, other)
	total := 0
	for name, n := range want {
		if got := tables[name]; got.Mismatched != n || got.Valid != 0 {
			t.Errorf("%s under another key: %+v", name, got)
		}
		total += n
	}
	if len(rep.Mismatched) != total {
		t.Fatalf("%d mismatched rows listed, want %d", len(rep.Mismatched), total)
	}
}

// Rows written without a key are unstamped, reported apart from
// mismatches; TrustUnstamped stamps exactly those, after which they verify,
// and a stamp is never rewritten.
func TestProvenanceUnstampedThenTrusted(t *testing.T) {
	db, _ := openDB(t)
	want := writeEveryStampedKind(t, db) // no key: no stamps
	if err := db.UseProvenanceKey(context.Background(), provKey); err != nil {
		t.Fatal(err)
	}
	remember(t, store.NewMemoryService(db, nil), senior, memory.EntryWrite{Content: "written with the key"})
	rep, tables := verify(t, db)
	if len(rep.Mismatched) != 0 {
		t.Fatalf("unstamped rows reported as mismatched: %+v", rep.Mismatched)
	}
	for name, n := range want {
		valid := 0
		if name == "memories" {
			valid = 1
		}
		if got := tables[name]; got.Unstamped != n || got.Valid != valid || got.Checked != n+valid {
			t.Errorf("%s: %+v, want %d unstamped", name, got, n)
		}
	}
	stamped, err := db.TrustUnstamped(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for name, n := range want {
		if stamped[name] != n {
			t.Errorf("stamped %d rows of %s, want %d", stamped[name], name, n)
		}
		if got := tables[name]; tablesOf(mustVerify(t, db))[name].Valid != got.Checked {
			t.Errorf("%s not all valid after stamping", name)
		}
	}
	if _, err := db.SQL().Exec(`UPDATE memories SET stamp = zeroblob(32)`); err == nil || !strings.Contains(err.Error(), "written once") {
		t.Fatalf("rewriting a stamp: %v", err)
	}
	if !mustVerify(t, db).Complete {
		t.Fatal("after stamping every row the database is not marked complete")
	}
	if again, err := db.TrustUnstamped(context.Background()); !errors.Is(err, store.ErrStampedOnce) || len(again) != 0 {
		t.Fatalf("a second pass stamped %v, %v", again, err)
	}
}

// Once every row was stamped (a database that got its key empty, here),
// a row without a stamp was changed behind the store's back: emptying a
// tampered row's stamp does not pass it off as one from before stamps,
// and the trusting pass refuses to stamp it.
func TestProvenanceEmptiedStampIsMismatched(t *testing.T) {
	db, _ := openDB(t)
	if err := db.UseProvenanceKey(context.Background(), provKey); err != nil {
		t.Fatal(err)
	}
	e := remember(t, store.NewMemoryService(db, nil), senior, memory.EntryWrite{Content: "The vault opens at nine."})
	for _, q := range []string{`DROP TRIGGER memories_immutable`, `DROP TRIGGER memories_stamp_once`,
		`UPDATE memories SET content = 'The vault is always open.', stamp = NULL WHERE id = '` + e.ID + `'`} {
		if _, err := db.SQL().Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rep, tables := verify(t, db)
	if !rep.Complete || tables["memories"].Mismatched != 1 || tables["memories"].Unstamped != 0 ||
		len(rep.Mismatched) != 1 || rep.Mismatched[0].ID != e.ID {
		t.Fatalf("verify after emptying a tampered row's stamp: %+v %+v", rep, tables["memories"])
	}
	if _, err := db.TrustUnstamped(context.Background()); !errors.Is(err, store.ErrStampedOnce) {
		t.Fatalf("trusting the tampered row: %v", err)
	}
}

func mustVerify(t *testing.T, db *store.DB) store.ProvenanceReport {
	rep, _ := verify(t, db)
	return rep
}

// A database from before migration 0013 keeps its rows: they come out of
// the upgrade unstamped, are stamped on the operator's word, and verify.
func TestProvenanceUpgradeLeavesRowsUnstamped(t *testing.T) {
	path := filepath.Join(t.TempDir(), store.FileName)
	old, err := store.OpenWith(context.Background(), path, migrationsBefore("0013"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO memories (id, agent_id, namespace, category, content, tags, confidence, shared, created_at, updated_at, occurred_at, filters)
			VALUES ('mem-old', 'ann', 'default', 'semantic', 'written before stamps', '["old"]', 0.8, 0, 1, 1, 1, '')`,
		`INSERT INTO operation_log (operation_id, fact_id, operation_type, content, category, tags, author_agent_id, timestamp, version)
			VALUES ('op-1', 'fact-old', 'PUBLISH', 'an old fact', 'other', '[]', 'ann', 1, 1)`,
		`INSERT INTO events_memory (event_id, bucket, operation, payload_json, raw_input, source_ref, agent_id, run_id, created_at)
			VALUES ('ev-old', 'learnings', 'append', '{}', 'learned: old', '{}', 'ann', 'r', 1)`,
		`INSERT INTO blocks (scope, label, description, value, char_limit, read_only, owner, writers, readers, version, created_at, updated_at, updated_by)
			VALUES ('agent:ann', 'persona', 'who', 'old', 100, 0, 'ann', '[]', '[]', 1, 1, 1, 'ann')`,
		`INSERT INTO block_versions (block_id, version, op, value, description, char_limit, author_agent_id, at)
			VALUES (1, 1, 'create', 'old', 'who', 100, 'ann', 1)`,
	} {
		if _, err := old.SQL().Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	old.Close()
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.UseProvenanceKey(context.Background(), provKey); err != nil {
		t.Fatal(err)
	}
	rep, _ := verify(t, db)
	for _, tb := range rep.Tables {
		if tb.Table == "memory_repeats" || tb.Table == "imports" { // made after 0013: no row from before stamps
			continue
		}
		if tb.Checked != 1 || tb.Unstamped != 1 || tb.Mismatched != 0 {
			t.Errorf("after the upgrade %s = %+v, want one unstamped row", tb.Table, tb)
		}
	}
	if _, err := db.TrustUnstamped(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, tables := verify(t, db)
	for name, tb := range tables {
		if name != "memory_repeats" && name != "imports" && tb.Valid != 1 || tb.Unstamped != 0 {
			t.Errorf("after stamping %s = %+v", name, tb)
		}
	}
	// The stamped old rows are held to their stamps like any other.
	if _, err := db.SQL().Exec(`DROP TRIGGER memories_immutable; UPDATE memories SET content = 'rewritten' WHERE id = 'mem-old'`); err != nil {
		t.Fatal(err)
	}
	if rep = mustVerify(t, db); len(rep.Mismatched) != 1 || rep.Mismatched[0] != (store.ProvenanceRow{Table: "memories", ID: "mem-old"}) {
		t.Fatalf("mismatched = %+v", rep.Mismatched)
	}
}

func ptr[T any](v T) *T { return &v }

// Stamping goes in batches: rows past the first batches are stamped too,
// each once.
func TestProvenanceTrustInBatches(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		const n = 2345
		tx, err := db.SQL().Begin()
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if _, err := tx.Exec(rawSQL(db, `INSERT INTO memories (id, agent_id, namespace, category, content, tags, confidence, shared,
			created_at, updated_at, occurred_at, filters) VALUES (?, 'ann', 'default', 'semantic', ?, '[]', 1, 0, 1, 1, 1, '')`),
				"mem-"+strconv.Itoa(i), "memory number "+strconv.Itoa(i)); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if err := db.UseProvenanceKey(context.Background(), provKey); err != nil {
			t.Fatal(err)
		}
		stamped, err := db.TrustUnstamped(context.Background())
		if err != nil || stamped["memories"] != n {
			t.Fatalf("stamped %v, %v; want %d memories", stamped, err, n)
		}
		if _, tables := verify(t, db); tables["memories"].Valid != n {
			t.Fatalf("memories = %+v", tables["memories"])
		}
	})
}

// behindTheStore runs q, a statement in SQLite's dialect, on db's database
// directly, as a program other than the store would.
func behindTheStore(t *testing.T, db *store.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.SQL().Exec(rawSQL(db, q), args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// dropTrigger drops a trigger of table behind the store's back.
func dropTrigger(t *testing.T, db *store.DB, name, table string) {
	t.Helper()
	q := `DROP TRIGGER ` + name
	if onPostgres(db) {
		q += ` ON ` + table
	}
	behindTheStore(t, db, q)
}

// writeFactsEventsBlocks writes, through the store, fact operations, ledger
// events and block versions: the stamped rows that are not memories.
func writeFactsEventsBlocks(t *testing.T, db *store.DB, n int) {
	t.Helper()
	ctx := as(senior)
	facts := store.NewFactService(db)
	for i := range n {
		w := memory.FactWrite{FactID: "policy-" + strconv.Itoa(i), Content: "Services authenticate with JWT, rule " + strconv.Itoa(i) + ".",
			Category: memory.FactConvention, Tags: []string{"auth"}}
		if _, err := facts.Publish(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	err := db.Update(context.Background(), func(tx *store.Tx) error {
		for i := range n {
			ev := &memory.Event{Bucket: memory.BucketLearnings, Operation: memory.OpAppend, Payload: memory.Payload{Text: "learned " + strconv.Itoa(i)},
				RawInput: "learned: " + strconv.Itoa(i), Agent: senior.AgentID, Autonomy: senior.Autonomy, Run: "r", CreatedAt: db.Now()}
			if err := tx.AppendEvent(context.Background(), ev, store.Project); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	blocks := store.NewBlockService(db)
	label := "contacts-" + strconv.Itoa(n)
	if _, err := blocks.Create(ctx, memory.BlockSpec{Label: label, Description: "People.", Value: "Nobody yet."}); err != nil {
		t.Fatal(err)
	}
	if _, err := blocks.Edit(ctx, memory.BlockEdit{Label: label, Op: memory.BlockAppend, Text: " Dana."}); err != nil {
		t.Fatal(err)
	}
}

// The stamps of fact operations, ledger events and block versions on either
// engine: rows written before the key are unstamped until trusted, then
// valid, as are rows written after; a covered column changed behind the
// store's back is mismatched, named; once every row was stamped, trusting
// again is refused.
func TestProvenanceStampsOnBothEngines(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		ctx := context.Background()
		writeFactsEventsBlocks(t, db, 3)
		if err := db.UseProvenanceKey(ctx, provKey); err != nil {
			t.Fatal(err)
		}
		counts := map[string]int{}
		for _, table := range []string{"memories", "operation_log", "events_memory", "block_versions"} {
			var n int
			if err := db.SQL().QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
				t.Fatal(err)
			}
			counts[table] = n
		}
		if counts["memories"] != 0 || counts["operation_log"] != 3 || counts["events_memory"] != 3 || counts["block_versions"] < 2 {
			t.Fatalf("rows written: %v", counts)
		}
		rep, tables := verify(t, db)
		if rep.Complete || len(rep.Mismatched) != 0 {
			t.Fatalf("before trusting: %+v", rep)
		}
		for name, n := range counts {
			if got := tables[name]; got.Checked != n || got.Unstamped != n || got.Valid != 0 {
				t.Errorf("%s before trusting: %+v, want %d unstamped", name, got, n)
			}
		}
		stamped, err := db.TrustUnstamped(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for name, n := range counts {
			if stamped[name] != n {
				t.Errorf("trusted %d rows of %s, want %d", stamped[name], name, n)
			}
		}
		writeFactsEventsBlocks(t, db, 4) // stamped in their INSERTs
		rep, tables = verify(t, db)
		if !rep.Complete || len(rep.Mismatched) != 0 {
			t.Fatalf("after trusting: %+v", rep)
		}
		for name, n := range counts {
			if got := tables[name]; got.Unstamped != 0 || got.Mismatched != 0 || got.Valid != got.Checked || got.Checked <= n && name != "memories" {
				t.Errorf("%s after trusting and writing more: %+v", name, got)
			}
		}
		if _, err := db.TrustUnstamped(ctx); !errors.Is(err, store.ErrStampedOnce) {
			t.Fatalf("trusting again = %v, want ErrStampedOnce", err)
		}

		dropTrigger(t, db, "operation_log_no_update", "operation_log")
		behindTheStore(t, db, `UPDATE operation_log SET author_seniority = 'principal' WHERE fact_id = ?`, "policy-1")
		dropTrigger(t, db, "block_versions_no_update", "block_versions")
		var blockID int64
		if err := db.SQL().QueryRow(`SELECT b.id FROM blocks b WHERE b.label = 'contacts-3'`).Scan(&blockID); err != nil {
			t.Fatal(err)
		}
		behindTheStore(t, db, `UPDATE block_versions SET "at" = "at" + 1 WHERE block_id = ? AND version = 2`, blockID)
		rep, _ = verify(t, db)
		var got []string
		for _, m := range rep.Mismatched {
			got = append(got, m.Table+":"+m.ID)
		}
		want := []string{"operation_log:policy-1 v1", "block_versions:block " + strconv.FormatInt(blockID, 10) + " v2"}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("mismatched = %v, want %v", got, want)
		}
	})
}
