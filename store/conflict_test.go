package store_test

import (
	"slices"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/internal/text"
	"github.com/memory-mcp/memory-mcp/store"
)

// A newer memory that contradicts an older one-sentence memory supersedes
// it: the older leaves search (text and vectors) but stays recallable,
// pointing at the newer, and the conflict is recorded as decided.
func TestRememberSupersedesWhatItContradicts(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		emb := hashEmbedder("hash-32", 32)
		s, _, _ := memoriesOn(t, openDB, &emb)
		old := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The flight to Oslo is on Tuesday."})
		other := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The hotel in Oslo is on Karl Johans gate."})
		nw := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The flight to Oslo is on Wednesday."})
		if len(nw.Conflicts) != 1 {
			t.Fatalf("conflicts %+v, want one with %s", nw.Conflicts, old.ID)
		}
		c := nw.Conflicts[0]
		if c.OlderID != old.ID || c.NewerID != nw.ID || c.Kind != memory.ConflictValue || c.Slot != "day" ||
			c.OlderValue != "Tuesday" || c.NewerValue != "Wednesday" || c.Resolution != memory.ConflictNewerWins ||
			c.DetectedBy != "agent:ann" || c.ResolvedAt == nil {
			t.Fatalf("conflict %+v", c)
		}
		hits := search(t, s, ann, memory.Query{Text: "flight Oslo"})
		if slices.Contains(hits, old.ID) || !slices.Contains(hits, nw.ID) || !slices.Contains(hits, other.ID) {
			t.Fatalf("search finds %v: want the newer flight and the hotel, not the superseded flight %s", hits, old.ID)
		}
		got, err := s.Recall(as(ann), []string{old.ID})
		if err != nil || got[0].ArchiveReason != memory.ArchiveSuperseded || got[0].SupersededBy != nw.ID || got[0].Content != old.Content {
			t.Fatalf("recall of the superseded memory: %+v, %v", got, err)
		}
		page, err := s.List(as(ann), memory.ListQuery{States: []memory.MemoryState{memory.StateSuperseded}})
		if err != nil || page.Total != 1 || page.Memories[0].ID != old.ID {
			t.Fatalf("list of superseded: %+v, %v", page, err)
		}
		stats, err := s.Stats(as(ann), "")
		if err != nil || stats.Total.Superseded != 1 || stats.Total.Active != 2 {
			t.Fatalf("stats %+v, %v", stats.Total, err)
		}
		// A negation supersedes too.
		veg := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The user eats fish."})
		no := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The user doesn't eat fish."})
		if len(no.Conflicts) != 1 || no.Conflicts[0].OlderID != veg.ID || no.Conflicts[0].Kind != memory.ConflictNegation {
			t.Fatalf("negation: %+v", no.Conflicts)
		}
	})
}

// What both may be true of is no conflict: other subjects, values that
// add up, another namespace, events at other times, another agent's memory.
func TestRememberLeavesCompatibleMemoriesAlone(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, clock := memoriesOn(t, openDB, nil)
		rememberOutcome(t, s, ann, memory.EntryWrite{Content: "Priya works at Stripe."})
		rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The user met Bob on Monday."})
		rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The deploy window is Friday.", Namespace: "billing"})
		rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The standup was at 9:30.", Category: memory.CategoryEpisodic})
		rememberOutcome(t, s, bob, memory.EntryWrite{Content: "Marco works at Adyen."})
		clock.Advance(48 * 3600e9)
		for _, w := range []memory.EntryWrite{
			{Content: "Marco works at Adyen."},                                                       // another subject
			{Content: "The user met Carol on Monday."},                                               // one may meet both
			{Content: "The deploy window is Thursday.", Namespace: "search"},                         // another namespace
			{Content: "The standup was at 10:00.", Category: memory.CategoryEpisodic},                // another day's standup
			{Content: "Priya works at Stripe. She leads the payments team."},                         // the same value
			{Content: "Priya worked at Adyen.", OccurredAt: clock.Now().Add(-3 * 365 * 24 * 3600e9)}, // another time
		} {
			if r := rememberOutcome(t, s, ann, w); len(r.Conflicts) != 0 {
				t.Errorf("%q: conflicts %+v", w.Content, r.Conflicts)
			}
		}
		if cs, err := s.Conflicts(as(ann), memory.ConflictQuery{Resolutions: memory.ConflictResolutions}); err != nil || len(cs) != 0 {
			t.Fatalf("conflicts listed: %+v, %v", cs, err)
		}
	})
}

// A clash the rules cannot settle without losing something stays open:
// the older memory says more than the clashing sentence, or it is surer,
// or a human wrote it. Both stay in search until someone decides.
func TestRememberKeepsBothWhenTheNewerMustNotWin(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, _ := memoriesOn(t, openDB, nil)
		longer := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The flight is on Tuesday. The hotel is booked for three nights."})
		r := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The flight is on Friday."})
		if len(r.Conflicts) != 1 || r.Conflicts[0].OlderID != longer.ID || r.Conflicts[0].Resolution != memory.ConflictOpen || r.Conflicts[0].ResolvedAt != nil {
			t.Fatalf("a clash with part of a longer memory: %+v", r.Conflicts)
		}
		sure := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The budget is 400 euros."})
		unsure := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The budget is 600 euros.", Confidence: conf(0.4)})
		if len(unsure.Conflicts) != 1 || unsure.Conflicts[0].Resolution != memory.ConflictOpen {
			t.Fatalf("a less sure newer memory: %+v", unsure.Conflicts)
		}
		hits := search(t, s, ann, memory.Query{Text: "budget euros"})
		if !slices.Contains(hits, sure.ID) || !slices.Contains(hits, unsure.ID) {
			t.Fatalf("search %v: both stand while the conflict is open", hits)
		}
		alicesOwn := rememberOutcome(t, s, alice, memory.EntryWrite{Content: "The office is open on Saturdays."})
		// An agent cannot write in a human's space; the human's own memory
		// contradicted by the human again is superseded.
		again := rememberOutcome(t, s, alice, memory.EntryWrite{Content: "The office is closed on Saturdays."})
		if len(again.Conflicts) != 1 || again.Conflicts[0].OlderID != alicesOwn.ID || again.Conflicts[0].Resolution != memory.ConflictNewerWins {
			t.Fatalf("a human's correction of their own memory: %+v", again.Conflicts)
		}
		open, err := s.Conflicts(as(ann), memory.ConflictQuery{})
		if err != nil || len(open) != 2 || open[0].NewerID != unsure.ID || open[0].Older == nil || open[0].Older.ID != sure.ID || open[0].Newer.Content != "The budget is 600 euros." {
			t.Fatalf("open conflicts of ann: %+v, %v", open, err)
		}
		everyone, err := s.Conflicts(as(alice), memory.ConflictQuery{Resolutions: memory.ConflictResolutions})
		if err != nil || len(everyone) != 3 {
			t.Fatalf("a human lists every agent's conflicts: %d, %v", len(everyone), err)
		}
		if _, err := s.Conflicts(as(bob), memory.ConflictQuery{AgentID: "ann"}); memory.ErrorCode(err) != memory.EFORBIDDEN {
			t.Fatalf("an agent listing another's conflicts: %v", err)
		}
	})
}

// remember's supersedes corrects one of the caller's memories explicitly;
// what cannot be superseded is a clear error that stores nothing.
func TestRememberSupersedesWhatTheWriterNames(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, db, _ := memoriesOn(t, openDB, nil)
		old := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The user's favourite editor is Vim."})
		nw := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The user switched to Helix for everything.", Supersedes: old.ID})
		if len(nw.Conflicts) != 1 || nw.Conflicts[0].Kind != memory.ConflictStated || nw.Conflicts[0].Resolution != memory.ConflictNewerWins {
			t.Fatalf("stated supersede: %+v", nw.Conflicts)
		}
		bobs := rememberOutcome(t, s, bob, memory.EntryWrite{Content: "Bob's note."})
		count := func() int {
			var n int
			if err := db.SQL().QueryRow(`SELECT count(*) FROM memories`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		before := count()
		for _, c := range []struct {
			supersedes string
			content    string
			code       string
		}{
			{"mem-nope", "Anything new.", memory.ENOTFOUND},
			{bobs.ID, "Anything new.", memory.ENOTFOUND},                           // another agent's is not the caller's
			{old.ID, "Anything new.", memory.ECONFLICT},                            // already superseded
			{nw.ID, "The user switched to Helix for everything.", memory.EINVALID}, // repeats what it would supersede
		} {
			_, err := s.Remember(as(ann), memory.EntryWrite{Content: c.content, Supersedes: c.supersedes})
			if memory.ErrorCode(err) != c.code {
				t.Errorf("supersedes %s: %v, want %s", c.supersedes, err, c.code)
			}
		}
		if n := count(); n != before {
			t.Fatalf("%d memories after the refused writes, want %d", n, before)
		}
		// A repeat of another memory that names one to supersede stores nothing
		// and still supersedes it, by the memory it repeats.
		keep := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "Standup is at 9:30."})
		stale := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "Standup moves to the afternoon."})
		dup := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "standup is at 9:30", Supersedes: stale.ID})
		if dup.Outcome != memory.WriteOutcomeDuplicate || dup.ID != keep.ID || len(dup.Conflicts) != 1 || dup.Conflicts[0].NewerID != keep.ID {
			t.Fatalf("a repeat that supersedes: %+v", dup)
		}
	})
}

// resolve_conflict decides, and can change its mind: the memory not kept
// is superseded, the one kept comes back; keeping both brings both back.
func TestResolveConflict(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, _ := memoriesOn(t, openDB, nil)
		a := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The office wifi password is shared with guests."})
		b := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The office wifi password is never shared with guests."})
		id := b.Conflicts[0].ID
		active := func() []string { return search(t, s, ann, memory.Query{Text: "office wifi password guests"}) }
		if got := active(); !slices.Equal(got, []string{b.ID}) {
			t.Fatalf("after the automatic supersede: %v", got)
		}
		c, err := s.ResolveConflict(as(ann), id, memory.ConflictOlderWins, "IT confirmed guests get it")
		if err != nil {
			t.Fatal(err)
		}
		if c.Resolution != memory.ConflictOlderWins || c.ResolvedBy != "agent:ann" || c.Reason != "IT confirmed guests get it" ||
			c.Older.ArchivedAt != nil || c.Newer.SupersededBy != a.ID {
			t.Fatalf("keep older: %+v, %v", c, err)
		}
		if got := active(); !slices.Equal(got, []string{a.ID}) {
			t.Fatalf("after keeping the older: %v", got)
		}
		if again, err := s.ResolveConflict(as(ann), id, memory.ConflictOlderWins, ""); err != nil || again.ResolvedAt == nil || !again.ResolvedAt.Equal(*c.ResolvedAt) {
			t.Fatalf("deciding the same again changes nothing: %+v, %v", again, err)
		}
		if c, err = s.ResolveConflict(as(alice), id, memory.ConflictBothHold, "both are said"); err != nil || c.Resolution != memory.ConflictBothHold || c.ResolvedBy != "human:alice" {
			t.Fatalf("a human keeps both: %+v, %v", c, err)
		}
		if got := active(); len(got) != 2 {
			t.Fatalf("after keeping both: %v", got)
		}
		if _, err := s.ResolveConflict(as(bob), id, memory.ConflictNewerWins, ""); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Fatalf("another agent's conflict: %v", err)
		}
		if _, err := s.ResolveConflict(as(ann), "cf_nope", memory.ConflictNewerWins, ""); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Fatalf("an unknown conflict: %v", err)
		}
		if _, err := s.Forget(as(ann), a.ID, "wrong"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ResolveConflict(as(ann), id, memory.ConflictOlderWins, ""); memory.ErrorCode(err) != memory.ECONFLICT {
			t.Fatalf("keeping a forgotten memory: %v", err)
		}
	})
}

// Restoring a superseded memory brings it back beside the one that
// superseded it.
func TestRestoreSupersededMemory(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, _ := memoriesOn(t, openDB, nil)
		old := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "Tom has 2 kids."})
		nw := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "Tom has 3 kids."})
		e, err := s.Restore(as(ann), "", old.ID)
		if err != nil || e.ArchivedAt != nil || e.SupersededBy != "" {
			t.Fatalf("restore: %+v, %v", e, err)
		}
		if got := search(t, s, ann, memory.Query{Text: "Tom kids"}); len(got) != 2 {
			t.Fatalf("search after restore: %v (want %s and %s)", got, old.ID, nw.ID)
		}
	})
}

// A database from before migration 0010 gains claims for its memories, so
// a new memory finds the earlier ones it contradicts, and the archive
// reasons accept superseded.
func TestConflictMigrationClaimsEarlierMemories(t *testing.T) {
	db := upgraded(t, "0010", func(old *store.DB) {
		exec(t, old, `INSERT INTO memories (id, agent_id, namespace, category, content, tags, confidence, shared,
			created_at, updated_at, occurred_at, filters) VALUES ('mem-old', 'ann', 'default', 'semantic', 'The deploy window is Friday.', '[]', 1, 0, 1, 1, 1, '')`)
		if _, err := old.SQL().Exec(`UPDATE memories SET archived_at = 2, archive_reason = 'superseded' WHERE id = 'mem-old'`); err == nil {
			t.Fatal("before the migration, superseded is not an archive reason (the test would prove nothing)")
		}
	})
	r := rememberOutcome(t, store.NewMemoryService(db, nil), ann, memory.EntryWrite{Content: "The deploy window is Thursday."})
	if len(r.Conflicts) != 1 || r.Conflicts[0].OlderID != "mem-old" || r.Conflicts[0].Resolution != memory.ConflictNewerWins {
		t.Fatalf("a contradiction of a memory from before the upgrade: %+v", r.Conflicts)
	}
	var ok string
	if err := db.SQL().QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity after rewriting the CHECK: %s, %v", ok, err)
	}
}

// Contradictions flag leaves every clash open; off looks for none.
func TestContradictionModes(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, _ := memoriesOn(t, openDB, nil)
		s.Contradictions = memory.ContradictionsFlag
		rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The flight is on Tuesday."})
		r := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The flight is on Wednesday."})
		if len(r.Conflicts) != 1 || r.Conflicts[0].Resolution != memory.ConflictOpen {
			t.Fatalf("flag: %+v", r.Conflicts)
		}
		s.Contradictions = memory.ContradictionsOff
		if r := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The flight is on Thursday."}); len(r.Conflicts) != 0 {
			t.Fatalf("off: %+v", r.Conflicts)
		}
		if _, err := memory.ParseContradictionMode("sometimes"); memory.ErrorCode(err) != memory.EINVALID {
			t.Fatalf("an unknown mode: %v", err)
		}
	})
}

// Erasing the memory that superseded another removes the conflict (it
// quotes both values) and the claims; the superseded memory stays out of
// search, as when its replacement is forgotten, with no pointer to what
// no longer exists.
// SQLite only until erase runs on PostgreSQL (issue 24, the erasure work).
func TestEraseSupersedingMemory(t *testing.T) {
	s, db, _ := memories(t, nil)
	old := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The vault code is on Tuesday."})
	nw := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The vault code is on Wednesday."})
	if len(nw.Conflicts) != 1 {
		t.Fatalf("conflicts %+v", nw.Conflicts)
	}
	rep, err := s.Erase(as(alice), memory.ErasureRequest{IDs: []string{nw.ID}, Reason: "test"})
	if err != nil || rep.Counts[memory.ErasedConflicts] != 1 || rep.Restored != 0 {
		t.Fatalf("erase: %+v, %v", rep, err)
	}
	for table, want := range map[string]int{"memory_conflicts": 0, "memory_claims": len(text.ClaimKeys(old.Content))} {
		var n int
		if err := db.SQL().QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil || n != want {
			t.Fatalf("%s: %d rows, want %d (%v)", table, n, want, err)
		}
	}
	if got := search(t, s, ann, memory.Query{Text: "vault code"}); len(got) != 0 {
		t.Fatalf("search after erasing the correction: %v, want nothing", got)
	}
	got, err := s.Recall(as(ann), []string{old.ID})
	if err != nil || got[0].ArchiveReason != memory.ArchiveSuperseded || got[0].SupersededBy != "" {
		t.Fatalf("the superseded memory after the erase: %+v, %v", got, err)
	}
}

// A conflict found open and later settled by the writer (supersedes through
// a repeat of the newer memory) reads as settled; a passing statement (one
// that expires) never hides a lasting one.
func TestConflictSettledLaterAndPassingStatements(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, clock := memoriesOn(t, openDB, nil)
		a := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The team offsite is in Lisbon.", Confidence: conf(0.9)})
		b := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The team offsite is in Porto.", Confidence: conf(0.5)})
		if len(b.Conflicts) != 1 || b.Conflicts[0].Resolution != memory.ConflictOpen {
			t.Fatalf("a less sure newer memory: %+v", b.Conflicts)
		}
		again := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The team offsite is in Porto.", Supersedes: a.ID})
		if again.Outcome != memory.WriteOutcomeDuplicate || len(again.Conflicts) != 1 || again.Conflicts[0].ID != b.Conflicts[0].ID ||
			again.Conflicts[0].Resolution != memory.ConflictNewerWins {
			t.Fatalf("settled through a repeat: %+v", again)
		}
		if open, err := s.Conflicts(as(ann), memory.ConflictQuery{}); err != nil || len(open) != 0 {
			t.Fatalf("open conflicts after it was settled: %+v, %v", open, err)
		}
		lasting := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The office is open on Saturdays."})
		passing := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The office is closed on Saturdays.", ExpiresAt: clock.Peek().Add(7 * 24 * time.Hour)})
		if len(passing.Conflicts) != 1 || passing.Conflicts[0].OlderID != lasting.ID || passing.Conflicts[0].Resolution != memory.ConflictOpen {
			t.Fatalf("a passing statement over a lasting one: %+v", passing.Conflicts)
		}
	})
}

// Memories whose claims the earlier rules hashed are hashed again by
// migration 0023: a list of days stored before it (with a claim row of a
// key no rule makes now) is found and superseded by the same sentence with
// another day.
func TestClaimsMigrationRekeysEarlierMemories(t *testing.T) {
	db := upgraded(t, "0023", func(old *store.DB) {
		exec(t, old, `INSERT INTO memories (pk, id, agent_id, namespace, category, content, tags, confidence, shared,
			created_at, updated_at, occurred_at, filters) VALUES (7, 'mem-old', 'ann', 'default', 'procedural', 'Deploys go out only on Tuesdays and Thursdays after 10:00 UTC.', '[]', 1, 0, 1, 1, 1, '')`,
			`INSERT INTO memory_claims (agent_id, claim, value, memory_pk) VALUES ('ann', 1, 2, 7)`)
	})
	var stale int
	if err := db.SQL().QueryRow(`SELECT count(*) FROM memory_claims WHERE claim = 1`).Scan(&stale); err != nil || stale != 0 {
		t.Fatalf("a claim the earlier rules hashed is still stored: %d, %v", stale, err)
	}
	r := rememberOutcome(t, store.NewMemoryService(db, nil), ann, memory.EntryWrite{Content: "Deploys go out only on Mondays after 10:00 UTC.", Category: memory.CategoryProcedural})
	if len(r.Conflicts) != 1 || r.Conflicts[0].OlderID != "mem-old" || r.Conflicts[0].Resolution != memory.ConflictNewerWins {
		t.Fatalf("the new list of days does not supersede the one stored before the upgrade: %+v", r.Conflicts)
	}
}

// Migration 0032 hashes again the claims of memories stored before the
// rules read a channel, an email address or a charge handed over: an email
// stored with the earlier rules' claim is superseded by another address,
// and a charge by its handing over.
func TestClaimsMigrationRekeysHandles(t *testing.T) {
	db := upgraded(t, "0032", func(old *store.DB) {
		exec(t, old, `INSERT INTO memories (pk, id, agent_id, namespace, category, content, tags, confidence, shared,
			created_at, updated_at, occurred_at, filters) VALUES (7, 'mem-mail', 'ann', 'default', 'semantic', 'Dana''s email is dana@corp.com.', '[]', 1, 0, 1, 1, 1, ''),
			(8, 'mem-owner', 'ann', 'default', 'semantic', 'Priya is the owner of the billing service.', '[]', 1, 0, 2, 2, 2, '')`,
			`INSERT INTO memory_claims (agent_id, claim, value, memory_pk) VALUES ('ann', 1, 2, 7)`)
	})
	var stale int
	if err := db.SQL().QueryRow(`SELECT count(*) FROM memory_claims WHERE claim = 1`).Scan(&stale); err != nil || stale != 0 {
		t.Fatalf("a claim the earlier rules hashed is still stored: %d, %v", stale, err)
	}
	s := store.NewMemoryService(db, nil)
	for older, newer := range map[string]string{"mem-mail": "Dana's email is dana.k@gmail.com.", "mem-owner": "Priya handed the billing service over to Tom."} {
		r := rememberOutcome(t, s, ann, memory.EntryWrite{Content: newer})
		if len(r.Conflicts) != 1 || r.Conflicts[0].OlderID != older || r.Conflicts[0].Resolution != memory.ConflictNewerWins {
			t.Fatalf("%q does not supersede %s stored before the upgrade: %+v", newer, older, r.Conflicts)
		}
	}
}

// Migration 0038 hashes again the claims of memories stored before the
// rules read updates told in other words: an owner stored with the earlier
// rules' claims is superseded by "is now owned by", a version by an
// upgrade.
func TestClaimsMigrationRekeysRewordedUpdates(t *testing.T) {
	db := upgraded(t, "0038", func(old *store.DB) {
		exec(t, old, `INSERT INTO memories (pk, id, agent_id, namespace, category, content, tags, confidence, shared,
			created_at, updated_at, occurred_at, filters) VALUES (7, 'mem-owner', 'ann', 'default', 'semantic', 'The billing service is owned by the payments team.', '[]', 1, 0, 1, 1, 1, ''),
			(8, 'mem-version', 'ann', 'default', 'semantic', 'The cluster runs Kubernetes 1.27.', '[]', 1, 0, 2, 2, 2, '')`,
			`INSERT INTO memory_claims (agent_id, claim, value, memory_pk) VALUES ('ann', 1, 2, 7)`)
	})
	var stale int
	if err := db.SQL().QueryRow(`SELECT count(*) FROM memory_claims WHERE claim = 1`).Scan(&stale); err != nil || stale != 0 {
		t.Fatalf("a claim the earlier rules hashed is still stored: %d, %v", stale, err)
	}
	s := store.NewMemoryService(db, nil)
	for older, newer := range map[string]string{"mem-owner": "The billing service is now owned by the platform team.",
		"mem-version": "The cluster was upgraded to Kubernetes 1.29."} {
		r := rememberOutcome(t, s, ann, memory.EntryWrite{Content: newer})
		if len(r.Conflicts) != 1 || r.Conflicts[0].OlderID != older || r.Conflicts[0].Resolution != memory.ConflictNewerWins {
			t.Fatalf("%q does not supersede %s stored before the upgrade: %+v", newer, older, r.Conflicts)
		}
	}
}

// Migration 0053 hashes again, on both engines, the claims of memories and
// facts stored before a name that modifies a noun stopped being a value:
// the claims the earlier rules stored are gone, a memory stored before the
// upgrade is still superseded by a new value of what it states, and no
// longer by another budget of the same owner.
func TestClaimsMigrationRekeysModifiers(t *testing.T) {
	ids := map[string]string{}
	setup := func(t *testing.T, old *store.DB) {
		s := store.NewMemoryService(old, nil)
		for _, c := range []string{"Ruby owns the IT budget.", "The QA lead is Sky."} {
			ids[c] = remember(t, s, ann, memory.EntryWrite{Content: c}).ID
		}
		if _, err := store.NewFactService(old).Publish(as(senior), memory.FactWrite{FactID: "lead",
			Content: "The release lead is Omar.", Category: memory.FactConvention}); err != nil {
			t.Fatal(err)
		}
		// As the earlier rules hashed them: other claims than today's.
		exec(t, old, `DELETE FROM memory_claims`, `DELETE FROM fact_claims`,
			`INSERT INTO memory_claims (agent_id, claim, value, memory_pk) SELECT 'ann', 1, 2, pk FROM memories`)
	}
	check := func(t *testing.T, db *store.DB) {
		var stale, facts int
		if err := db.SQL().QueryRow(`SELECT count(*) FROM memory_claims WHERE claim = 1`).Scan(&stale); err != nil || stale != 0 {
			t.Fatalf("a claim the earlier rules hashed is still stored: %d, %v", stale, err)
		}
		if err := db.SQL().QueryRow(`SELECT count(*) FROM fact_claims WHERE fact_id = 'lead'`).Scan(&facts); err != nil || facts == 0 {
			t.Fatalf("the fact's claims were not hashed again: %d, %v", facts, err)
		}
		s := store.NewMemoryService(db, nil)
		if r := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "Ruby owns the CI budget."}); len(r.Conflicts) != 0 {
			t.Errorf("another budget conflicts with one stored before the upgrade: %+v", r.Conflicts)
		}
		r := rememberOutcome(t, s, ann, memory.EntryWrite{Content: "The QA lead is Ruby."})
		if len(r.Conflicts) != 1 || r.Conflicts[0].OlderID != ids["The QA lead is Sky."] || r.Conflicts[0].Resolution != memory.ConflictNewerWins {
			t.Errorf("a new QA lead does not supersede the one stored before the upgrade: %+v", r.Conflicts)
		}
	}
	onUpgrade(t, "0053", setup, check)
}
