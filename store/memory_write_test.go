package store_test

import (
	"errors"
	"slices"
	"sync"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// concurrently runs each of fns at once, each writer on its own goroutine,
// and fails t with whatever they returned.
func concurrently(t *testing.T, fns ...func() error) {
	t.Helper()
	errs := make(chan error, len(fns))
	var wg sync.WaitGroup
	for _, fn := range fns {
		wg.Go(func() { errs <- fn() })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// twoServices are memory services on two handles of one database, two
// processes as far as the store can tell, on db's clock.
func twoServices(t *testing.T, db *store.DB) []*store.MemoryService {
	other := reopen(t, db)
	other.Now = db.Now
	return []*store.MemoryService{store.NewMemoryService(db, nil), store.NewMemoryService(other, nil)}
}

// Writers on two connections saying the same thing at once store it once:
// the dedup check and the insert are one transaction, serializable on
// PostgreSQL, so a writer that lost the race runs again, finds the
// memory the winner stored and is answered duplicate, and every telling
// is counted.
func TestConcurrentRepeatsStoreOneMemory(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		services := twoServices(t, db)
		w := memory.EntryWrite{Content: "The release train leaves every second Tuesday."}
		const each = 4
		outs := make(chan memory.Remembered, 2*each)
		var writers []func() error
		for _, s := range services {
			for range each {
				writers = append(writers, func() error {
					r, err := s.Remember(as(ann), w)
					outs <- r
					return err
				})
			}
		}
		concurrently(t, writers...)
		close(outs)
		var stored, duplicates []memory.Remembered
		for r := range outs {
			switch r.Outcome {
			case memory.WriteOutcomeStored:
				stored = append(stored, r)
			case memory.WriteOutcomeDuplicate:
				duplicates = append(duplicates, r)
			}
		}
		if len(stored) != 1 || len(duplicates) != 2*each-1 {
			t.Fatalf("%d stored, %d duplicates; want 1 and %d", len(stored), len(duplicates), 2*each-1)
		}
		for _, d := range duplicates {
			if d.ID != stored[0].ID || d.Tier != memory.DedupExact {
				t.Errorf("a duplicate of %s (tier %q), want of %s", d.ID, d.Tier, stored[0].ID)
			}
		}
		page, err := services[1].List(as(ann), memory.ListQuery{})
		if err != nil || page.Total != 1 || page.Memories[0].ID != stored[0].ID || page.Memories[0].SeenCount != 2*each {
			t.Fatalf("listed %+v, %v; want the one memory, seen %d times", page, err, 2*each)
		}
	})
}

// Two agents publishing the same statement at once make one shared copy;
// the later publish is a duplicate of it.
func TestConcurrentPublishesMakeOneSharedCopy(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		services := twoServices(t, db)
		w := memory.EntryWrite{Content: "The VPN certificate is renewed on the first of each month."}
		authors := []memory.Identity{ann, bob}
		ids := []string{remember(t, services[0], ann, w).ID, remember(t, services[1], bob, w).ID}
		outs := make([]memory.MemoryPublished, 2)
		concurrently(t,
			func() (err error) { outs[0], err = services[0].Publish(as(authors[0]), ids[0]); return err },
			func() (err error) { outs[1], err = services[1].Publish(as(authors[1]), ids[1]); return err })
		if outs[0].ID != outs[1].ID || !outs[0].Shared {
			t.Fatalf("publishes answered %s and %s, want one shared copy", outs[0].ID, outs[1].ID)
		}
		if got := []memory.WriteOutcome{outs[0].Outcome, outs[1].Outcome}; !(got[0] == memory.WriteOutcomeStored && got[1] == memory.WriteOutcomeDuplicate) &&
			!(got[0] == memory.WriteOutcomeDuplicate && got[1] == memory.WriteOutcomeStored) {
			t.Fatalf("outcomes %v, want one stored and one duplicate", got)
		}
		if n := activeShared(t, db); n != 1 {
			t.Fatalf("%d shared copies, want 1", n)
		}
	})
}

// Contradicting statements written at once on two connections end as if
// written one after the other: the later supersedes the earlier, and the
// conflict is recorded once.
func TestConcurrentContradictionsSupersedeOnce(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		services := twoServices(t, db)
		writes := []string{"The flight to Oslo is on Tuesday.", "The flight to Oslo is on Friday."}
		outs := make([]memory.Remembered, 2)
		concurrently(t,
			func() (err error) {
				outs[0], err = services[0].Remember(as(ann), memory.EntryWrite{Content: writes[0]})
				return err
			},
			func() (err error) {
				outs[1], err = services[1].Remember(as(ann), memory.EntryWrite{Content: writes[1]})
				return err
			})
		older, newer := outs[0], outs[1]
		if len(older.Conflicts) > 0 {
			older, newer = newer, older
		}
		if len(older.Conflicts) != 0 || len(newer.Conflicts) != 1 || newer.Conflicts[0].OlderID != older.ID ||
			newer.Conflicts[0].Resolution != memory.ConflictNewerWins {
			t.Fatalf("conflicts %+v and %+v; want the later write to supersede the earlier", outs[0].Conflicts, outs[1].Conflicts)
		}
		page, err := services[0].List(as(ann), memory.ListQuery{})
		if err != nil || page.Total != 1 || page.Memories[0].ID != newer.ID {
			t.Fatalf("active: %+v, %v; want only %s", page, err, newer.ID)
		}
		got, err := services[1].Recall(as(ann), []string{older.ID})
		if err != nil || got[0].ArchiveReason != memory.ArchiveSuperseded || got[0].SupersededBy != newer.ID {
			t.Fatalf("the earlier: %+v, %v; want it superseded by %s", got, err, newer.ID)
		}
		conflicts, err := services[1].Conflicts(as(ann), memory.ConflictQuery{Resolutions: []memory.ConflictResolution{memory.ConflictNewerWins}})
		if err != nil || len(conflicts) != 1 {
			t.Fatalf("conflicts listed %+v, %v; want one", conflicts, err)
		}
	})
}

// One memory published twice at once, and forgotten twice at once, from two
// connections: one of each succeeds, and the other is told what the first
// did, as if they had come one after the other.
func TestConcurrentChangesOfOneMemory(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		services := twoServices(t, db)
		e := remember(t, services[0], ann, memory.EntryWrite{Content: "The on-call phone is in the second drawer."})
		errs := make([]error, 2)
		concurrently(t,
			func() error { _, errs[0] = services[0].Publish(as(ann), e.ID); return nil },
			func() error { _, errs[1] = services[1].Publish(as(ann), e.ID); return nil })
		if (errs[0] == nil) == (errs[1] == nil) {
			t.Fatalf("two publishes of one memory: %v and %v, want one to succeed", errs[0], errs[1])
		}
		wantCode(t, errors.Join(errs...), memory.ECONFLICT, "already shared as")
		if n := activeShared(t, db); n != 1 {
			t.Fatalf("%d shared copies, want 1", n)
		}
		concurrently(t,
			func() error { _, errs[0] = services[0].Forget(as(ann), e.ID, "moved"); return nil },
			func() error { _, errs[1] = services[1].Forget(as(ann), e.ID, "moved"); return nil })
		if (errs[0] == nil) == (errs[1] == nil) {
			t.Fatalf("two forgets of one memory: %v and %v, want one to succeed", errs[0], errs[1])
		}
		wantCode(t, errors.Join(errs...), memory.ECONFLICT, "already forgotten")
	})
}

// The tests below hold the write paths to what List and Recall say, on
// both engines; their twins (TestResolveConflict,
// TestRestoreSupersededMemory, TestRememberMergesARepeatWithNewTags,
// TestForgetIsSoftAndRecorded, TestPublishSearchSharedAndRetract) say the
// same of search.

// listed returns the ids of who's active memories (or, shared, the shared
// space's), newest first.
func listed(t *testing.T, s *store.MemoryService, who memory.Identity, shared bool) []string {
	t.Helper()
	page, err := s.List(as(who), memory.ListQuery{Shared: shared, Limit: 100})
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	ids := make([]string, len(page.Memories))
	for i, e := range page.Memories {
		ids[i] = e.ID
	}
	slices.Sort(ids)
	return ids
}

func sorted(ids ...string) []string { slices.Sort(ids); return ids }

func TestResolveConflictChangesWhatIsActive(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, _ := memoriesOn(t, openDB, nil)
		a := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The office wifi password is shared with guests."})
		b := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The office wifi password is never shared with guests."})
		if len(b.Conflicts) != 1 {
			t.Fatalf("conflicts %+v, want one", b.Conflicts)
		}
		id := b.Conflicts[0].ID
		if got := listed(t, s, ann, false); !slices.Equal(got, []string{b.ID}) {
			t.Fatalf("after the automatic supersede: %v", got)
		}
		c, err := s.ResolveConflict(as(ann), id, memory.ConflictOlderWins, "IT confirmed guests get it")
		if err != nil || c.Resolution != memory.ConflictOlderWins || c.Older.ArchivedAt != nil || c.Newer.SupersededBy != a.ID {
			t.Fatalf("keep older: %+v, %v", c, err)
		}
		if got := listed(t, s, ann, false); !slices.Equal(got, []string{a.ID}) {
			t.Fatalf("after keeping the older: %v", got)
		}
		if c, err = s.ResolveConflict(as(alice), id, memory.ConflictBothHold, "both are said"); err != nil || c.ResolvedBy != "human:alice" {
			t.Fatalf("a human keeps both: %+v, %v", c, err)
		}
		if got := listed(t, s, ann, false); !slices.Equal(got, sorted(a.ID, b.ID)) {
			t.Fatalf("after keeping both: %v", got)
		}
		if _, err := s.ResolveConflict(as(bob), id, memory.ConflictNewerWins, ""); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Fatalf("another agent's conflict: %v", err)
		}
		// Restoring what a contradiction superseded brings it back.
		old := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "Tom has 2 kids."})
		nw := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "Tom has 3 kids."})
		if e, err := s.Restore(as(ann), "", old.ID); err != nil || e.ArchivedAt != nil || e.SupersededBy != "" {
			t.Fatalf("restore: %+v, %v", e, err)
		}
		if got := listed(t, s, ann, false); !slices.Equal(got, sorted(a.ID, b.ID, old.ID, nw.ID)) {
			t.Fatalf("after the restore: %v", got)
		}
	})
}

func TestMergeAndForgetChangeWhatIsActive(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, db, _ := memoriesOn(t, openDB, nil)
		first := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The team offsite is in Lisbon.", Tags: []string{"offsite"}, Confidence: conf(0.6)})
		m := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "the team offsite is in Lisbon", Tags: []string{"travel", "offsite"}, Confidence: conf(0.9)})
		if m.Outcome != memory.WriteOutcomeMerged || m.MergedFrom != first.ID || !slices.Equal(m.Tags, []string{"offsite", "travel"}) ||
			m.Confidence != 0.9 || m.SeenCount != 2 {
			t.Fatalf("merge: %+v", m)
		}
		if got := listed(t, s, ann, false); !slices.Equal(got, []string{m.ID}) {
			t.Fatalf("after the merge: %v, want %s alone", got, m.ID)
		}
		if got, err := s.Recall(as(ann), []string{first.ID}); err != nil || got[0].ArchiveReason != memory.ArchiveMerged || got[0].SupersededBy != m.ID {
			t.Fatalf("the merged memory: %+v, %v", got, err)
		}
		f, err := s.Forget(as(ann), m.ID, "moved to Porto")
		if err != nil || f.ForgottenAt == nil || f.ForgetReason != "moved to Porto" {
			t.Fatalf("forget = %+v, %v", f, err)
		}
		if got := listed(t, s, ann, false); len(got) != 0 {
			t.Fatalf("after forgetting: %v", got)
		}
		_, err = s.Forget(as(ann), m.ID, "")
		wantCode(t, err, memory.ECONFLICT, "already forgotten")
		var by string
		if err := db.SQL().QueryRow(rawSQL(db, `SELECT forgotten_by FROM memories WHERE id = ?`), m.ID).Scan(&by); err != nil || by != "ann" {
			t.Fatalf("forgotten_by = %q, %v", by, err)
		}
		_, err = s.Restore(as(ann), "", m.ID)
		wantCode(t, err, memory.ECONFLICT, "remember it again")

		// Forgetting several is all or nothing.
		x := remember(t, s, ann, memory.EntryWrite{Content: "The badge office opens at nine."})
		y := remember(t, s, ann, memory.EntryWrite{Content: "Parking passes are renewed in March."})
		_, err = s.ForgetAll(as(ann), []string{x.ID, m.ID}, "")
		wantCode(t, err, memory.ECONFLICT, "already forgotten")
		if got := listed(t, s, ann, false); !slices.Equal(got, sorted(x.ID, y.ID)) {
			t.Fatalf("after a refused forget of several: %v", got)
		}
		if es, err := s.ForgetAll(as(ann), []string{x.ID, y.ID}, "moved"); err != nil || len(es) != 2 || es[1].ForgottenAt == nil {
			t.Fatalf("forget of several: %+v, %v", es, err)
		}

		// Forgetting a summarised source, here by a human, forgets the
		// summary that says what it said; its other sources come back.
		var src []string
		for _, c := range []string{"Melanie ran a charity race.", "Melanie joined a support group.", "Melanie painted a lake."} {
			src = append(src, remember(t, s, ann, memory.EntryWrite{Content: c}).ID)
		}
		sum, err := consolidate(t, db, ann, "Melanie ran, joined a group and painted.", src...)
		if err != nil {
			t.Fatal(err)
		}
		if got := listed(t, s, ann, false); !slices.Equal(got, []string{sum.ID}) {
			t.Fatalf("after the consolidation: %v, want the summary %s alone", got, sum.ID)
		}
		if _, err := s.ForgetOf(as(alice), "ann", src[0], "wrong race"); err != nil {
			t.Fatal(err)
		}
		if got := listed(t, s, ann, false); !slices.Equal(got, sorted(src[1], src[2])) {
			t.Fatalf("after a source was forgotten: %v, want its other sources", got)
		}
	})
}

func TestPublishAndRetractChangeTheSharedSpace(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, _ := memoriesOn(t, openDB, nil)
		orig := remember(t, s, ann, memory.EntryWrite{Content: "The build cache lives on the NFS share", Tags: []string{"infra"}})
		sh, err := s.Publish(as(ann), orig.ID)
		if err != nil || !sh.Shared || sh.Provenance.PublishedFrom != orig.ID {
			t.Fatalf("publish: %+v, %v", sh, err)
		}
		_, err = s.Publish(as(ann), orig.ID)
		wantCode(t, err, memory.ECONFLICT, "already shared as "+sh.ID)
		if got := listed(t, s, bob, true); !slices.Equal(got, []string{sh.ID}) {
			t.Fatalf("bob's shared space: %v", got)
		}
		_, err = s.Retract(as(bob), sh.ID)
		wantCode(t, err, memory.EFORBIDDEN, "only its publisher can retract it")
		if r, err := s.Retract(as(ann), orig.ID); err != nil || r.ID != sh.ID || r.ForgottenAt == nil {
			t.Fatalf("retract = %+v, %v", r, err)
		}
		if got := listed(t, s, bob, true); len(got) != 0 {
			t.Fatalf("the shared space after the retract: %v", got)
		}
		again, err := s.Publish(as(ann), orig.ID)
		if err != nil {
			t.Fatalf("republish after retract: %v", err)
		}
		if got := listed(t, s, bob, true); !slices.Equal(got, []string{again.ID}) {
			t.Fatalf("the shared space after republishing: %v", got)
		}
	})
}

// failFirstCommit makes PostgreSQL fail the next commit that wrote a row of
// table with a serialization failure, once, as a concurrent writer would:
// the store runs that transaction again. A deferred trigger raises it; a
// sequence counts the commits it saw, since a rollback does not give its
// number back. commits reads how many it saw.
func failFirstCommit(t *testing.T, db *store.DB, table string) (commits func() int) {
	t.Helper()
	for _, q := range []string{
		`CREATE SEQUENCE test_commits_` + table,
		`CREATE FUNCTION test_fail_first_commit_` + table + `() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF nextval('test_commits_` + table + `') = 1 THEN
				RAISE EXCEPTION 'the test fails this commit once' USING ERRCODE = 'serialization_failure';
			END IF;
			RETURN NULL;
		END $$`,
		`CREATE CONSTRAINT TRIGGER test_fail_first_commit AFTER INSERT ON ` + table + `
			DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION test_fail_first_commit_` + table + `()`,
	} {
		if _, err := db.SQL().Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return func() int {
		var n int
		if err := db.SQL().QueryRow(`SELECT last_value FROM test_commits_` + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
}

// A remember PostgreSQL runs again (a serialization failure at its commit)
// answers and stores what the run that committed found: its one conflict,
// not also the one the rolled-back run recorded; a merge's source once,
// not once more for each run.
func TestRememberRunAgainAnswersOnce(t *testing.T) {
	db, _ := openPostgresDB(t)
	s := store.NewMemoryService(db, nil)
	older := remember(t, s, ann, memory.EntryWrite{Content: "The flight to Oslo is on Tuesday."})
	commits := failFirstCommit(t, db, "memory_conflicts")
	r := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The flight to Oslo is on Friday."})
	if n := commits(); n != 2 {
		t.Fatalf("the trigger saw %d commits, want 2: the failed one and the one run again", n)
	}
	listed, err := s.Conflicts(as(ann), memory.ConflictQuery{Resolutions: memory.ConflictResolutions})
	if err != nil || len(listed) != 1 {
		t.Fatalf("conflicts stored: %+v, %v; want one", listed, err)
	}
	if len(r.Conflicts) != 1 || r.Conflicts[0].ID != listed[0].ID || r.Conflicts[0].OlderID != older.ID {
		t.Fatalf("the answer's conflicts %+v, want the stored %s alone", r.Conflicts, listed[0].ID)
	}

	first := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "Backups run at midnight.", Tags: []string{"ops"}, Source: "runbook"})
	commits = failFirstCommit(t, db, "memories")
	merged := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "Backups run at midnight.", Tags: []string{"ops", "db"}, Source: "oncall"})
	if n := commits(); n != 2 || merged.Outcome != memory.WriteOutcomeMerged || merged.MergedFrom != first.ID || merged.Source != "runbook; oncall" {
		t.Fatalf("a merge run again (%d commits): %s of %s, source %q; want the merge of %s, source %q",
			n, merged.Outcome, merged.MergedFrom, merged.Source, first.ID, "runbook; oncall")
	}
	if got, err := s.Recall(as(ann), []string{merged.ID}); err != nil || got[0].Source != "runbook; oncall" {
		t.Fatalf("the merge stored: %+v, %v", got, err)
	}
}
