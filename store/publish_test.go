package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// publishOf remembers w as who and publishes it.
func publishOf(t *testing.T, s *store.MemoryService, who memory.Identity, w memory.EntryWrite) memory.MemoryPublished {
	t.Helper()
	e := remember(t, s, who, w)
	p, err := s.Publish(as(who), e.ID)
	if err != nil {
		t.Fatalf("publish %q: %v", w.Content, err)
	}
	return p
}

// activeShared counts the active shared memories every agent's searches
// find.
func activeShared(t *testing.T, db *store.DB) int {
	t.Helper()
	var n int
	if err := db.SQL().QueryRow(`SELECT count(*) FROM memories WHERE shared = 1 AND forgotten_at IS NULL AND archived_at IS NULL`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// reviewCall is a call of publish_memory as the medium tier makes it: its
// write is queued for a human's review.
func reviewCall(who memory.Identity, now time.Time) (*store.Call, context.Context) {
	c := &store.Call{Principal: who.Principal(), Tool: "publish_memory", Started: now, Gates: map[string]time.Duration{},
		Approval: &store.ApprovalRequest{Kind: memory.ApprovalReview, Tier: memory.RiskMedium, Rule: "publish_memory", Caller: who,
			Args: []byte(`{"id":"x"}`), Expires: now.Add(time.Hour)}}
	return c, store.WithCall(as(who), c)
}

// Five agents publishing what one already shared make one shared copy: each
// later publish stores nothing, returns the first copy, is logged as a
// duplicate with its tier and queues no review.
func TestPublishRepeatIsDuplicateOfSharedCopy(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, clk := openDB(t)
		s := store.NewMemoryService(db, nil)
		w := memory.EntryWrite{Content: "The staging database is restored every Sunday night."}
		call, ctx := reviewCall(ann, clk.Peek())
		first, err := s.Publish(ctx, remember(t, s, ann, w).ID)
		if err != nil || first.Outcome != memory.WriteOutcomeStored || !first.Shared || call.Ref != first.ID {
			t.Fatalf("first publish: %+v (log ref %q), %v", first, call.Ref, err)
		}
		// Later than an hour after: a lasting statement is no event.
		clk.Advance(3 * time.Hour)
		for i, who := range []memory.Identity{bob, senior, junior} {
			e := remember(t, s, who, w)
			call, ctx := reviewCall(who, clk.Peek())
			p, err := s.Publish(ctx, e.ID)
			if err != nil {
				t.Fatal(err)
			}
			if p.Outcome != memory.WriteOutcomeDuplicate || p.ID != first.ID || p.Tier != memory.DedupExact || p.SeenCount != i+2 {
				t.Fatalf("%s's publish: %s of %s tier %q seen %d, want an exact duplicate of %s", who.AgentID, p.Outcome, p.ID, p.Tier, p.SeenCount, first.ID)
			}
			if call.Outcome != memory.WriteOutcomeDuplicate || call.Reason != memory.DedupExact || call.Ref != first.ID {
				t.Fatalf("the write log would record %s %q %s", call.Outcome, call.Reason, call.Ref)
			}
			if own, _ := s.Recall(as(who), []string{e.ID}); own[0].Provenance.SharedAs != "" {
				t.Fatalf("the duplicate's memory is shared as %s", own[0].Provenance.SharedAs)
			}
		}
		if n := activeShared(t, db); n != 1 {
			t.Fatalf("%d shared copies, want 1", n)
		}
		reviews, err := db.Approvals(context.Background(), "", memory.ApprovalFilter{Limit: 10})
		if err != nil || len(reviews) != 1 || reviews[0].Caller.AgentID != ann.AgentID {
			t.Fatalf("reviews queued: %+v, %v; want only the first publish's", reviews, err)
		}
	})
}

func TestPublishDedupTiersAndWhatIsNotARepeat(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, clk := openDB(t)
		s := store.NewMemoryService(db, nil)
		s.Contradictions = memory.ContradictionsOff
		first := publishOf(t, s, ann, memory.EntryWrite{Content: "Alice manages the platform team.", Tags: []string{"org"}})
		// Each by another agent: an agent's own repeat is remember's to find.
		agent := func(name string) memory.Identity {
			return memory.Identity{AgentID: strings.ReplaceAll(name, " ", "-"), Seniority: memory.SeniorityMid, Autonomy: memory.AutonomySemi}
		}
		for name, tc := range map[string]struct {
			content, tier string
		}{
			"reworded":   {"Alice manages platform team", memory.DedupWords},
			"restated":   {"The platform team is managed by Alice.", memory.DedupSemantic},
			"recased":    {"alice  manages the PLATFORM team.", memory.DedupExact},
			"fewer tags": {"Alice manages the platform team.", memory.DedupExact},
		} {
			p := publishOf(t, s, agent(name), memory.EntryWrite{Content: tc.content})
			if p.Outcome != memory.WriteOutcomeDuplicate || p.ID != first.ID || p.Tier != tc.tier {
				t.Errorf("%s: %s of %s tier %q, want a %s duplicate of %s", name, p.Outcome, p.ID, p.Tier, tc.tier, first.ID)
			}
		}
		for name, w := range map[string]memory.EntryWrite{
			"a word of the same kind": {Content: "Alice manages the data team."},
			"another category":        {Content: "Alice manages the platform team.", Category: memory.CategorySocial},
			"another namespace":       {Content: "Alice manages the platform team.", Namespace: "work"},
			"an expiry":               {Content: "Alice manages the platform team.", ExpiresAt: clk.Peek().Add(48 * time.Hour)},
			"more tags":               {Content: "Alice manages the platform team.", Tags: []string{"org", "q3"}},
		} {
			if p := publishOf(t, s, agent(name), w); p.Outcome != memory.WriteOutcomeStored || p.ID == first.ID {
				t.Errorf("%s: %s (%s), want a new shared copy", name, p.Outcome, p.ID)
			}
		}
		// Two tellings of an event a day apart are two events.
		day := clk.Peek().Add(-72 * time.Hour)
		run := publishOf(t, s, ann, memory.EntryWrite{Content: "Ran the load test against staging.", Category: memory.CategoryEpisodic, OccurredAt: day})
		if p := publishOf(t, s, bob, memory.EntryWrite{Content: "Ran the load test against staging.", Category: memory.CategoryEpisodic,
			OccurredAt: day.Add(24 * time.Hour)}); p.Outcome != memory.WriteOutcomeStored {
			t.Errorf("another day's event: %s of %s, want a new copy beside %s", p.Outcome, p.ID, run.ID)
		}
		if p := publishOf(t, s, bob, memory.EntryWrite{Content: "Ran the load test against staging.", Category: memory.CategoryEpisodic,
			OccurredAt: day.Add(time.Minute)}); p.Outcome != memory.WriteOutcomeDuplicate || p.ID != run.ID {
			t.Errorf("the same event: %s of %s, want a duplicate of %s", p.Outcome, p.ID, run.ID)
		}
		// A retracted copy says nothing any more.
		wiki := publishOf(t, s, ann, memory.EntryWrite{Content: "The wiki moved to Confluence."})
		if _, err := s.Retract(as(ann), wiki.ID); err != nil {
			t.Fatal(err)
		}
		if p := publishOf(t, s, agent("later"), memory.EntryWrite{Content: "The wiki moved to Confluence."}); p.Outcome != memory.WriteOutcomeStored {
			t.Errorf("after the copy was retracted: %s of %s", p.Outcome, p.ID)
		}
		s.Dedup = false
		if p := publishOf(t, s, agent("undeduped"), memory.EntryWrite{Content: "Alice manages the platform team.", Tags: []string{"org"}}); p.Outcome != memory.WriteOutcomeStored {
			t.Errorf("dedup off: %s", p.Outcome)
		}
	})
}

// Two agents publishing the same thing with other values: both copies stay
// shared, and the conflict is open for a human, whom both agents can see
// it, and whom only a human decides.
func TestPublishContradictionIsOpenForAHuman(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		s := store.NewMemoryService(db, nil)
		tue := publishOf(t, s, ann, memory.EntryWrite{Content: "The flight to Lisbon is on Tuesday.", Confidence: conf(0.5)})
		if p := publishOf(t, s, bob, memory.EntryWrite{Content: "The flight to Lisbon is on Thursday.", Namespace: "travel"}); len(p.Conflicts) != 0 {
			t.Fatalf("another namespace: %+v", p.Conflicts)
		}
		wed := publishOf(t, s, bob, memory.EntryWrite{Content: "The flight to Lisbon is on Wednesday."})
		if wed.Outcome != memory.WriteOutcomeStored || len(wed.Conflicts) != 1 {
			t.Fatalf("the contradicting publish: %s with %+v", wed.Outcome, wed.Conflicts)
		}
		c := wed.Conflicts[0]
		if !memory.IsSharedConflict(c.ID) || c.Resolution != memory.ConflictOpen || c.OlderID != tue.ID || c.NewerID != wed.ID ||
			c.AgentID != bob.AgentID || c.Kind != memory.ConflictValue || c.OlderValue != "Tuesday" || c.NewerValue != "Wednesday" {
			t.Fatalf("conflict %+v", c)
		}
		if n := activeShared(t, db); n != 3 {
			t.Fatalf("%d active shared copies, want 3 (a more certain publish by another agent supersedes nothing)", n)
		}
		for _, who := range []memory.Identity{ann, bob, alice} {
			cs, err := s.Conflicts(as(who), memory.ConflictQuery{})
			if err != nil || len(cs) != 1 || cs[0].ID != c.ID || cs[0].Older.ID != tue.ID || cs[0].Newer.ID != wed.ID {
				t.Fatalf("%s lists %+v, %v", who.AgentID, cs, err)
			}
		}
		if cs, err := s.Conflicts(as(alice), memory.ConflictQuery{AgentID: ann.AgentID}); err != nil || len(cs) != 1 {
			t.Fatalf("a human listing ann's: %+v, %v", cs, err)
		}
		if cs, err := s.Conflicts(as(senior), memory.ConflictQuery{}); err != nil || len(cs) != 0 {
			t.Fatalf("an agent of neither copy lists %+v, %v", cs, err)
		}
		for who, code := range map[memory.Identity]string{ann: memory.EFORBIDDEN, bob: memory.EFORBIDDEN, senior: memory.ENOTFOUND} {
			if _, err := s.ResolveConflict(as(who), c.ID, memory.ConflictNewerWins, ""); memory.ErrorCode(err) != code {
				t.Fatalf("%s resolving it: %v, want %s", who.AgentID, err, code)
			}
		}
		got, err := s.ResolveConflict(as(alice), c.ID, memory.ConflictNewerWins, "the booking says Wednesday")
		if err != nil || got.Resolution != memory.ConflictNewerWins || got.ResolvedBy != alice.Principal() || got.Older.ForgottenAt == nil ||
			got.Newer.ForgottenAt != nil {
			t.Fatalf("a human keeping the newer: %+v, %v", got, err)
		}
		// An agent is not shown another agent's copy that recall no longer
		// shows: bob lists it no more; ann (whose copy it was) and a human do.
		for who, want := range map[memory.Identity]int{bob: 0, ann: 1, alice: 1} {
			cs, err := s.Conflicts(as(who), memory.ConflictQuery{Resolutions: []memory.ConflictResolution{memory.ConflictNewerWins}})
			if err != nil || len(cs) != want {
				t.Fatalf("%s lists %d decided conflicts after ann's copy was retracted (%v), want %d", who.AgentID, len(cs), err, want)
			}
		}
		// The older publisher's own memory is untouched; its copy is retracted.
		own, err := s.Recall(as(ann), []string{tue.Provenance.PublishedFrom})
		if err != nil || own[0].ForgottenAt != nil || own[0].Provenance.SharedAs != "" {
			t.Fatalf("ann's memory after the decision: %+v, %v", own, err)
		}
		if _, err := s.ResolveConflict(as(alice), c.ID, memory.ConflictOlderWins, ""); memory.ErrorCode(err) != memory.ECONFLICT ||
			!strings.Contains(err.Error(), "publish it again") {
			t.Fatalf("keeping the retracted copy: %v", err)
		}
		if again, err := s.ResolveConflict(as(alice), c.ID, memory.ConflictNewerWins, ""); err != nil || again.Resolution != memory.ConflictNewerWins {
			t.Fatalf("deciding again as it stands: %+v, %v", again, err)
		}
	})
}

// Keeping both retracts neither; the personal check never sees the shared
// copies' claims.
func TestPublishConflictBothHoldAndPersonalSpaceApart(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		s := store.NewMemoryService(db, nil)
		publishOf(t, s, ann, memory.EntryWrite{Content: "The standup is at 9:30."})
		p := publishOf(t, s, bob, memory.EntryWrite{Content: "The standup is at 10:00."})
		if len(p.Conflicts) != 1 {
			t.Fatalf("conflicts %+v", p.Conflicts)
		}
		got, err := s.ResolveConflict(as(alice), p.Conflicts[0].ID, memory.ConflictBothHold, "two teams")
		if err != nil || got.Older.ForgottenAt != nil || got.Newer.ForgottenAt != nil || activeShared(t, db) != 2 {
			t.Fatalf("keeping both: %+v, %v", got, err)
		}
		r := rememberOutcome(t, s, junior, memory.EntryWrite{Content: "The standup is at 11:00."})
		if r.Outcome != memory.WriteOutcomeStored || len(r.Conflicts) != 0 {
			t.Fatalf("another agent's personal memory met the shared ones: %+v", r.Conflicts)
		}
		s.Contradictions = memory.ContradictionsOff
		if p := publishOf(t, s, senior, memory.EntryWrite{Content: "The standup is at 8:45."}); len(p.Conflicts) != 0 {
			t.Fatalf("contradictions off: %+v", p.Conflicts)
		}
	})
}

// Each tier's candidates in the shared space come by an index, not by
// walking the shared memories. SQLite's plan: PostgreSQL's planner picks
// its own by the table's statistics.
func TestSharedDuplicateQueryUsesTheIndexes(t *testing.T) {
	db, _ := openDB(t)
	rows, err := db.SQL().Query(`EXPLAIN QUERY PLAN `+store.SharedDuplicateQuery, "e", "w", "m", "default", "semantic", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	text := strings.Join(plan, "\n")
	for _, index := range []string{"memories_shared_exact_key", "memories_shared_words_key", "memories_shared_meaning_key"} {
		if !strings.Contains(text, index) {
			t.Errorf("the plan does not use %s:\n%s", index, text)
		}
	}
	if strings.Contains(text, "SCAN m") || strings.Contains(text, "SCAN memories") {
		t.Errorf("the plan walks the memories:\n%s", text)
	}
}

// Shared copies published before the gates get their keys and claims when
// the database is upgraded.
func TestSharedGatesMigrationKeysEarlierCopies(t *testing.T) {
	db := upgraded(t, "0019", func(old *store.DB) {
		exec(t, old, `INSERT INTO memories (id, agent_id, namespace, category, content, tags, confidence, shared,
			created_at, updated_at, occurred_at, filters) VALUES ('mem-own', 'ann', 'default', 'semantic', 'The release freeze starts on Monday.', '[]', 1, 0, 1, 1, 1, '')`,
			`INSERT INTO memories (id, agent_id, namespace, category, content, tags, confidence, shared, published_from, published_at,
			created_at, updated_at, occurred_at, filters) VALUES ('mem-old', 'ann', 'default', 'semantic', 'The release freeze starts on Monday.', '[]', 1, 1, 'mem-own', 2, 2, 2, 1, '')`)
	})
	s := store.NewMemoryService(db, nil)
	if p := publishOf(t, s, bob, memory.EntryWrite{Content: "The release freeze starts on Monday."}); p.Outcome != memory.WriteOutcomeDuplicate || p.ID != "mem-old" {
		t.Fatalf("a repeat of a copy from before the upgrade: %s %s", p.Outcome, p.ID)
	}
	p := publishOf(t, s, bob, memory.EntryWrite{Content: "The release freeze starts on Tuesday."})
	if len(p.Conflicts) != 1 || p.Conflicts[0].OlderID != "mem-old" {
		t.Fatalf("a contradiction of a copy from before the upgrade: %+v", p.Conflicts)
	}
}

// A publish answered "duplicate" changes nothing of the copy but its count
// (the copy, and how sure it is, are its publisher's), and is not lost when
// that publisher retracts the copy: the earliest repeat still held is
// shared in its place, as its own publisher's. A copy a human's decision
// retracts is not handed on.
func TestRetractedCopyIsHandedToARepeat(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, clk := openDB(t)
		s := store.NewMemoryService(db, nil)
		unsure := 0.4
		w := memory.EntryWrite{Content: "The staging database is restored every Sunday night.", Confidence: &unsure}
		first := publishOf(t, s, ann, w)
		clk.Advance(3 * time.Hour)
		sure := memory.EntryWrite{Content: w.Content}
		bobs := remember(t, s, bob, sure)
		if p, err := s.Publish(as(bob), bobs.ID); err != nil || p.Outcome != memory.WriteOutcomeDuplicate || p.Confidence != unsure {
			t.Fatalf("bob's publish: %+v, %v; want a duplicate with ann's copy's confidence %v", p, err, unsure)
		}
		clk.Advance(time.Hour)
		juniors := remember(t, s, junior, sure)
		if _, err := s.Publish(as(junior), juniors.ID); err != nil {
			t.Fatal(err)
		}

		if _, err := s.Retract(as(ann), first.ID); err != nil {
			t.Fatal(err)
		}
		own, err := s.Recall(as(bob), []string{bobs.ID})
		if err != nil || own[0].Provenance == nil || own[0].Provenance.SharedAs == "" {
			t.Fatalf("after ann retracted her copy, bob's memory is %+v, %v; want it shared", own, err)
		}
		handed := own[0].Provenance.SharedAs
		if n := activeShared(t, db); n != 1 {
			t.Fatalf("%d shared copies, want bob's alone", n)
		}
		copies, err := s.Recall(as(senior), []string{handed})
		if err != nil || copies[0].AgentID != bob.AgentID || !copies[0].Active() {
			t.Fatalf("the copy handed on: %+v, %v", copies, err)
		}
		// Junior's repeat now repeats bob's copy: bob's retraction hands it on.
		if _, err := s.Retract(as(bob), handed); err != nil {
			t.Fatal(err)
		}
		if own, _ := s.Recall(as(junior), []string{juniors.ID}); own[0].Provenance.SharedAs == "" {
			t.Fatal("junior's repeat was not handed bob's retracted copy")
		}

		// A repeat whose memory was forgotten is not shared again; and what a
		// human's decision of a conflict retracts stays retracted.
		v := memory.EntryWrite{Content: "The release train leaves on Tuesday."}
		kept := publishOf(t, s, ann, v)
		clk.Advance(3 * time.Hour)
		gone := remember(t, s, bob, v)
		if p, err := s.Publish(as(bob), gone.ID); err != nil || p.Outcome != memory.WriteOutcomeDuplicate {
			t.Fatalf("bob's publish: %+v, %v", p, err)
		}
		if _, err := s.Forget(as(bob), gone.ID, "wrong"); err != nil {
			t.Fatal(err)
		}
		before := activeShared(t, db)
		if _, err := s.Retract(as(ann), kept.ID); err != nil {
			t.Fatal(err)
		}
		if n := activeShared(t, db); n != before-1 {
			t.Fatalf("%d shared copies after the retraction, want %d: a forgotten repeat was shared", n, before-1)
		}

		x := memory.EntryWrite{Content: "The team offsite is in Lisbon."}
		judged := publishOf(t, s, ann, x)
		clk.Advance(3 * time.Hour)
		repeat := remember(t, s, bob, x)
		if p, err := s.Publish(as(bob), repeat.ID); err != nil || p.Outcome != memory.WriteOutcomeDuplicate {
			t.Fatalf("bob's publish: %+v, %v", p, err)
		}
		other := publishOf(t, s, senior, memory.EntryWrite{Content: "The team offsite is in Porto."})
		if len(other.Conflicts) != 1 || other.Conflicts[0].OlderID != judged.ID {
			t.Fatalf("the contradicting publish: %+v, want one open conflict with ann's copy", other.Conflicts)
		}
		before = activeShared(t, db)
		if _, err := s.ResolveConflict(as(alice), other.Conflicts[0].ID, memory.ConflictNewerWins, "the booking says Porto"); err != nil {
			t.Fatal(err)
		}
		if n := activeShared(t, db); n != before-1 {
			t.Fatalf("%d shared copies after a human kept the newer, want %d: the judged statement came back as bob's", n, before-1)
		}
	})
}
