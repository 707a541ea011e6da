package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

func publish(t *testing.T, facts *store.FactService, ctx context.Context, w memory.FactWrite) memory.FactPublished {
	t.Helper()
	p, err := facts.Publish(ctx, w)
	if err != nil {
		t.Fatalf("publish %+v: %v", w, err)
	}
	return p
}

func opCount(t *testing.T, db *store.DB) int {
	t.Helper()
	var n int
	if err := db.SQL().QueryRow(`SELECT count(*) FROM operation_log`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A new fact that an active fact of its category already says, in other
// case, punctuation or articles, is not stored; in another category, or
// once the first is retracted, it is.
func TestFactDuplicates(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		facts := store.NewFactService(db)
		ctx := as(senior)
		first := publish(t, facts, ctx, memory.FactWrite{FactID: "logs", Content: "Every service logs in JSON lines.", Category: memory.FactConvention})
		ops := opCount(t, db)
		for _, w := range []memory.FactWrite{
			{Content: "every service logs in JSON lines", Category: memory.FactConvention},
			{FactID: "logs-2", Content: "Every service logs in the JSON lines!", Category: memory.FactConvention},
		} {
			p := publish(t, facts, ctx, w)
			if p.Outcome != memory.WriteOutcomeDuplicate || p.ID != "logs" || p.Version != 1 {
				t.Fatalf("a repeat %q: %+v", w.Content, p)
			}
		}
		if _, err := facts.Get(ctx, "logs-2"); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Fatalf("a duplicate was stored under its own id: %v", err)
		}
		if n := opCount(t, db); n != ops {
			t.Fatalf("duplicates appended %d operations", n-ops)
		}
		if p := publish(t, facts, ctx, memory.FactWrite{FactID: "logs-adr", Content: first.Content, Category: memory.FactADR}); p.Outcome != memory.WriteOutcomeStored {
			t.Fatalf("the same words in another category: %+v", p)
		}
		if p := publish(t, facts, ctx, memory.FactWrite{FactID: "logs-b", Content: "Every service logs in XML.", Category: memory.FactConvention}); p.Outcome != memory.WriteOutcomeStored {
			t.Fatalf("other words: %+v", p)
		}
		// The words key folds case, but a name that is also a word is not
		// the word: "Pay Bill" is not "pay bill".
		publish(t, facts, ctx, memory.FactWrite{FactID: "pay-bill", Content: "Finance will pay Bill on Friday.", Category: memory.FactConvention})
		if p := publish(t, facts, ctx, memory.FactWrite{FactID: "pay-the-bill", Content: "Finance will pay bill on Friday.", Category: memory.FactConvention}); p.Outcome != memory.WriteOutcomeStored {
			t.Fatalf("a name's word in lower case: %+v", p)
		}
		if _, err := facts.Retract(ctx, memory.FactRetract{FactID: "logs"}); err != nil {
			t.Fatal(err)
		}
		if p := publish(t, facts, ctx, memory.FactWrite{FactID: "logs-3", Content: first.Content, Category: memory.FactConvention}); p.Outcome != memory.WriteOutcomeStored {
			t.Fatalf("the words of a retracted fact: %+v", p)
		}
	})
}

// Republishing a fact as it stands stores no version; another tag, or an
// active fact rewritten to say what another says (settling a conflict),
// does.
func TestFactUnchanged(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		facts := store.NewFactService(db)
		ctx := as(senior)
		w := memory.FactWrite{FactID: "tz", Content: "Meetings are booked in UTC.", Category: memory.FactConvention, Tags: []string{"time"}}
		publish(t, facts, ctx, w)
		p := publish(t, facts, ctx, w)
		if p.Outcome != memory.WriteOutcomeUnchanged || p.Version != 1 {
			t.Fatalf("the same again: %+v", p)
		}
		w.Tags = []string{"time", "calendar"}
		if p := publish(t, facts, ctx, w); p.Outcome != memory.WriteOutcomeStored || p.Version != 2 {
			t.Fatalf("a new tag: %+v", p)
		}
		publish(t, facts, ctx, memory.FactWrite{FactID: "tz-other", Content: "Meetings are booked in local time.", Category: memory.FactConvention})
		if p := publish(t, facts, ctx, memory.FactWrite{FactID: "tz-other", Content: "Meetings are booked in UTC.", Category: memory.FactConvention}); p.Outcome != memory.WriteOutcomeStored || p.Version != 2 {
			t.Fatalf("an active fact rewritten to agree: %+v", p)
		}
	})
}

// A fact that states another value than an active fact is an open
// conflict; rewriting it so that it no longer clashes settles the
// conflict, and clashing again reopens it; retracting either settles it for
// the other.
func TestFactContradictions(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		facts := store.NewFactService(db)
		ctx := as(senior)
		publish(t, facts, ctx, memory.FactWrite{FactID: "window", Content: "The deploy window is on Friday.", Category: memory.FactProcedure})
		publish(t, facts, ctx, memory.FactWrite{FactID: "lunch", Content: "Lunch is at noon.", Category: memory.FactOther})
		p := publish(t, facts, ctx, memory.FactWrite{FactID: "window-2", Content: "The deploy window is on Tuesday.", Category: memory.FactConvention})
		if len(p.Conflicts) != 1 {
			t.Fatalf("conflicts %+v", p.Conflicts)
		}
		c := p.Conflicts[0]
		if c.Subject != memory.ConflictOfFacts || c.OlderID != "window" || c.NewerID != "window-2" || c.Resolution != memory.ConflictOpen ||
			c.Kind != memory.ConflictValue || c.OlderValue != "Friday" || c.NewerValue != "Tuesday" || c.OlderFact == nil || c.NewerVersion != 1 ||
			!strings.HasPrefix(c.ID, memory.FactConflictPrefix) {
			t.Fatalf("conflict %+v", c)
		}
		if p := publish(t, facts, ctx, memory.FactWrite{FactID: "window-3", Content: "The deploy window is not on Friday.", Category: memory.FactProcedure}); len(p.Conflicts) != 1 || p.Conflicts[0].Kind != memory.ConflictNegation {
			t.Fatalf("a denial: %+v", p.Conflicts)
		}
		list := func() []memory.Conflict {
			t.Helper()
			cs, err := facts.Conflicts(ctx, memory.ConflictQuery{Resolutions: memory.ConflictResolutions})
			if err != nil {
				t.Fatal(err)
			}
			return cs
		}
		if cs := list(); len(cs) != 2 || cs[0].NewerID != "window-3" || cs[1].ID != c.ID {
			t.Fatalf("listed %+v", cs)
		}
		// Rewritten to agree: settled; rewritten to clash again: reopened.
		publish(t, facts, ctx, memory.FactWrite{FactID: "window-2", Content: "Deploys need a reviewer.", Category: memory.FactConvention})
		if cs := list(); cs[1].Resolution != memory.ConflictBothHold || !strings.Contains(cs[1].Reason, "no longer contradicts") {
			t.Fatalf("after window-2 changed: %+v", cs[1])
		}
		again := publish(t, facts, ctx, memory.FactWrite{FactID: "window-2", Content: "The deploy window is on Monday.", Category: memory.FactConvention})
		if len(again.Conflicts) != 1 || again.Conflicts[0].ID != c.ID || again.Conflicts[0].Resolution != memory.ConflictOpen || again.Conflicts[0].NewerVersion != 3 {
			t.Fatalf("clashing again: %+v", again.Conflicts)
		}
		if _, err := facts.Retract(ctx, memory.FactRetract{FactID: "window"}); err != nil {
			t.Fatal(err)
		}
		for _, got := range list() {
			if got.Resolution != memory.ConflictNewerWins || !strings.Contains(got.Reason, "window was retracted") {
				t.Fatalf("after the older fact was retracted: %+v", got)
			}
		}
		// Retracted, it claims nothing.
		if p := publish(t, facts, ctx, memory.FactWrite{FactID: "window-4", Content: "The deploy window is on Sunday.", Category: memory.FactOther}); len(p.Conflicts) != 1 || p.Conflicts[0].OlderID != "window-2" {
			t.Fatalf("against the facts still active: %+v", p.Conflicts)
		}
	})
}

// A fact marked superseded_by another is not contradicted, and its
// conflicts are settled for the other.
func TestFactSupersededClaimsNothing(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		facts := store.NewFactService(db)
		ctx := as(senior)
		publish(t, facts, ctx, memory.FactWrite{FactID: "port", Content: "The API port is 8080.", Category: memory.FactADR})
		p := publish(t, facts, ctx, memory.FactWrite{FactID: "port-2", Content: "The API port is 9090.", Category: memory.FactADR})
		if len(p.Conflicts) != 1 {
			t.Fatalf("conflicts %+v", p.Conflicts)
		}
		publish(t, facts, ctx, memory.FactWrite{FactID: "port", Content: "The API port is 8080.", Category: memory.FactADR,
			Tags: []string{memory.SupersededTagPrefix + "port-2"}})
		cs, _ := facts.Conflicts(ctx, memory.ConflictQuery{Resolutions: []memory.ConflictResolution{memory.ConflictNewerWins}})
		if len(cs) != 1 || cs[0].OlderID != "port" {
			t.Fatalf("after port was marked superseded: %+v", cs)
		}
		if p := publish(t, facts, ctx, memory.FactWrite{FactID: "port-3", Content: "The API port is 7070.", Category: memory.FactADR}); len(p.Conflicts) != 1 || p.Conflicts[0].OlderID != "port-2" {
			t.Fatalf("a third port: %+v", p.Conflicts)
		}
	})
}

// Keeping one fact retracts the other, by the resolver's write access; a
// retraction is not undone by deciding again; keeping both needs access to
// both categories.
func TestResolveFactConflict(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		facts := store.NewFactService(db)
		publish(t, facts, as(human), memory.FactWrite{FactID: "backup", Content: "Backups run at 02:00.", Category: memory.FactCorePolicy})
		c := publish(t, facts, as(junior), memory.FactWrite{FactID: "backup-2", Content: "Backups run at 03:00.", Category: memory.FactConvention}).Conflicts[0]
		for _, keep := range []memory.ConflictResolution{memory.ConflictNewerWins, memory.ConflictBothHold} {
			if _, err := facts.ResolveConflict(as(junior), c.ID, keep, ""); memory.ErrorCode(err) != memory.EFORBIDDEN {
				t.Fatalf("a junior deciding %s over a core policy: %v", keep, err)
			}
		}
		got, err := facts.ResolveConflict(as(junior), c.ID, memory.ConflictOlderWins, "the policy holds")
		if err != nil {
			t.Fatal(err)
		}
		if got.Resolution != memory.ConflictOlderWins || got.NewerFact.Active() || got.Reason != "the policy holds" || got.ResolvedBy != "agent:june" {
			t.Fatalf("resolved %+v", got)
		}
		hist, _ := facts.History(as(junior), "backup-2")
		if last := hist[len(hist)-1]; last.Type != memory.FactOpRetract || !strings.Contains(last.Reason, c.ID) {
			t.Fatalf("the retraction's reason: %+v", last)
		}
		if _, err := facts.ResolveConflict(as(human), c.ID, memory.ConflictNewerWins, ""); memory.ErrorCode(err) != memory.ECONFLICT {
			t.Fatalf("deciding again the other way: %v", err)
		}
		if again, err := facts.ResolveConflict(as(human), c.ID, memory.ConflictOlderWins, ""); err != nil || again.Reason != "the policy holds" {
			t.Fatalf("deciding again the same way: %+v, %v", again, err)
		}
		if _, err := facts.ResolveConflict(as(human), "fcf_0000000000000000", memory.ConflictBothHold, ""); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Fatalf("an unknown conflict: %v", err)
		}
		// Published again, it clashes again: the conflict reopens.
		p := publish(t, facts, as(junior), memory.FactWrite{FactID: "backup-2", Content: "Backups run at 03:00.", Category: memory.FactConvention})
		if len(p.Conflicts) != 1 || p.Conflicts[0].ID != c.ID || p.Conflicts[0].Resolution != memory.ConflictOpen {
			t.Fatalf("republished: %+v", p.Conflicts)
		}
		if both, err := facts.ResolveConflict(as(human), c.ID, memory.ConflictBothHold, ""); err != nil || both.Resolution != memory.ConflictBothHold {
			t.Fatalf("both: %+v, %v", both, err)
		}
		// Both hold of these two values: a new version with the same clash
		// leaves the decision.
		p = publish(t, facts, as(junior), memory.FactWrite{FactID: "backup-2", Content: "Backups run at 03:00.", Category: memory.FactConvention, Tags: []string{"ops"}})
		held, _ := facts.Conflicts(as(junior), memory.ConflictQuery{Resolutions: []memory.ConflictResolution{memory.ConflictBothHold}})
		if len(p.Conflicts) != 0 || len(held) != 1 || held[0].ID != c.ID || !held[0].Decided {
			t.Fatalf("a new tag after both hold: returned %+v, both hold %+v", p.Conflicts, held)
		}
	})
}

// Erasing a fact takes its claims and conflicts with it: they name it and
// quote it.
func TestEraseFactWithConflicts(t *testing.T) {
	db, _ := openDB(t)
	facts := store.NewFactService(db)
	publish(t, facts, as(senior), memory.FactWrite{FactID: "door", Content: "The vault door code is 4711.", Category: memory.FactOther})
	publish(t, facts, as(senior), memory.FactWrite{FactID: "door-2", Content: "The vault door code is 1234.", Category: memory.FactOther})
	rep, err := store.NewMemoryService(db, nil).Erase(as(human), memory.ErasureRequest{Contains: "1234", Reason: "a secret"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Counts[memory.ErasedFacts] != 1 || rep.Counts[memory.ErasedConflicts] != 1 {
		t.Fatalf("report %+v", rep.Counts)
	}
	for _, q := range []string{`SELECT count(*) FROM fact_conflicts`, `SELECT count(*) FROM fact_claims WHERE fact_id = 'door-2'`} {
		var n int
		if err := db.SQL().QueryRow(q).Scan(&n); err != nil || n != 0 {
			t.Fatalf("%s = %d, %v", q, n, err)
		}
	}
}

// A database from before migration 0014 gains the words keys and claims of
// its facts: a new fact finds the earlier one it repeats or contradicts.
func TestFactGateMigrationKeysEarlierFacts(t *testing.T) {
	db := upgraded(t, "0014", func(old *store.DB) {
		if _, err := store.NewFactService(old).Publish(as(senior), memory.FactWrite{FactID: "standup", Content: "Standup is at 9:30.", Category: memory.FactProcedure}); err == nil {
			t.Fatal("before the migration, publishing writes a column that does not exist (the test would prove nothing)")
		}
		exec(t, old,
			`INSERT INTO operation_log (id, operation_id, fact_id, operation_type, content, category, tags, timestamp, version, author_agent_id, author_is_human)
				VALUES (1, 'op-1', 'standup', 'PUBLISH', 'Standup is at 9:30.', 'procedure', '[]', 1, 1, 'sam', 0)`,
			`INSERT INTO snapshot (fact_id, content, category, tags, created_at, updated_at, version, content_op, author_agent_id)
				VALUES ('standup', 'Standup is at 9:30.', 'procedure', '[]', 1, 1, 1, 1, 'sam')`)
	})
	facts := store.NewFactService(db)
	if p := publish(t, facts, as(senior), memory.FactWrite{Content: "standup is at 9:30", Category: memory.FactProcedure}); p.Outcome != memory.WriteOutcomeDuplicate {
		t.Fatalf("a repeat of a fact from before the upgrade: %+v", p)
	}
	if p := publish(t, facts, as(senior), memory.FactWrite{FactID: "standup-2", Content: "Standup is at 10:00.", Category: memory.FactProcedure}); len(p.Conflicts) != 1 {
		t.Fatalf("a contradiction of a fact from before the upgrade: %+v", p)
	}
}

// A conflict settled because a version stopped clashing reopens when a
// later version clashes again: only someone's decision that both hold
// outlasts the same clash.
func TestFactConflictReopensAfterSettling(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		facts := store.NewFactService(db)
		ctx := as(senior)
		publish(t, facts, ctx, memory.FactWrite{FactID: "a", Content: "The deploy window is on Friday.", Category: memory.FactProcedure})
		c := publish(t, facts, ctx, memory.FactWrite{FactID: "b", Content: "The deploy window is on Tuesday.", Category: memory.FactProcedure}).Conflicts[0]
		publish(t, facts, ctx, memory.FactWrite{FactID: "b", Content: "Deploys need a reviewer.", Category: memory.FactProcedure})
		again := publish(t, facts, ctx, memory.FactWrite{FactID: "b", Content: "The deploy window is on Tuesday.", Category: memory.FactProcedure})
		if len(again.Conflicts) != 1 || again.Conflicts[0].ID != c.ID || again.Conflicts[0].Resolution != memory.ConflictOpen {
			t.Fatalf("the same clash after it was settled: %+v", again.Conflicts)
		}
	})
}

// Settling looks at every open conflict of the fact, not only those the
// claims lookup brings back (it is bounded): republishing one of many facts
// that all clash leaves its conflicts open.
func TestFactConflictsStayOpenPastTheLookupBound(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		facts := store.NewFactService(db)
		ctx := as(senior)
		for i := range 18 {
			publish(t, facts, ctx, memory.FactWrite{FactID: fmt.Sprintf("p%d", i), Content: fmt.Sprintf("The API port is %d.", 8000+i), Category: memory.FactADR})
		}
		publish(t, facts, ctx, memory.FactWrite{FactID: "p0", Content: "The API port is 8000.", Category: memory.FactADR, Tags: []string{"api"}})
		cs, err := facts.Conflicts(ctx, memory.ConflictQuery{Resolutions: []memory.ConflictResolution{memory.ConflictBothHold}})
		if err != nil || len(cs) != 0 {
			t.Fatalf("conflicts settled though they still clash: %d, %v", len(cs), err)
		}
	})
}

// A conflict keeps the orientation it was found in: republishing the older
// fact does not make it the newer, so keeping the newer keeps the fact it
// named when found.
func TestFactConflictKeepsItsOrientation(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		facts := store.NewFactService(db)
		ctx := as(senior)
		publish(t, facts, ctx, memory.FactWrite{FactID: "a", Content: "Standup is at 9:30.", Category: memory.FactProcedure})
		c := publish(t, facts, ctx, memory.FactWrite{FactID: "b", Content: "Standup is at 10:00.", Category: memory.FactProcedure}).Conflicts[0]
		re := publish(t, facts, ctx, memory.FactWrite{FactID: "a", Content: "Standup is at 9:30.", Category: memory.FactProcedure, Tags: []string{"daily"}})
		if len(re.Conflicts) != 1 || re.Conflicts[0].OlderID != "a" || re.Conflicts[0].NewerID != "b" || re.Conflicts[0].OlderVersion != 2 ||
			re.Conflicts[0].OlderValue != c.OlderValue {
			t.Fatalf("after the older fact was republished: %+v", re.Conflicts)
		}
		got, err := facts.ResolveConflict(as(human), c.ID, memory.ConflictNewerWins, "")
		if err != nil || got.OlderFact.Active() || !got.NewerFact.Active() || got.NewerID != "b" {
			t.Fatalf("keeping the newer: %+v, %v", got, err)
		}
	})
}

// A conflict the model found is not settled by a version the rules cannot
// read: only the model, or someone deciding, can say it is gone.
func TestModelFactConflictOutlastsARepublish(t *testing.T) {
	db, _ := openDB(t)
	facts := store.NewFactService(db)
	failing := false
	facts.Judge = func(_ context.Context, older, newer string) (memory.Judgement, error) {
		if failing {
			return memory.Judgement{}, fmt.Errorf("the model is down")
		}
		return memory.Judgement{Contradicts: strings.Contains(newer, "Paris") && strings.Contains(older, "Lyon"), Score: 0.95, Reason: "moved"}, nil
	}
	ctx := as(senior)
	publish(t, facts, ctx, memory.FactWrite{FactID: "office", Content: "The office is in Lyon.", Category: memory.FactOther})
	p := publish(t, facts, ctx, memory.FactWrite{FactID: "office-2", Content: "The whole team now works from Paris.", Category: memory.FactOther})
	if len(p.Conflicts) != 1 || p.Conflicts[0].Kind != memory.ConflictModel {
		t.Fatalf("the model's finding: %+v", p.Conflicts)
	}
	failing = true
	publish(t, facts, ctx, memory.FactWrite{FactID: "office-2", Content: "The whole team now works from Paris.", Category: memory.FactOther, Tags: []string{"hq"}})
	cs, _ := facts.Conflicts(ctx, memory.ConflictQuery{})
	if len(cs) != 1 || cs[0].ID != p.Conflicts[0].ID {
		t.Fatalf("open conflicts after a republish the model could not judge: %+v", cs)
	}
}

// A fact marked superseded is not what a new fact repeats: saying it again
// restates it. A stale expected_version is refused even when the write
// would change nothing.
func TestFactRepeatOfSupersededAndStaleVersion(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		facts := store.NewFactService(db)
		ctx := as(senior)
		publish(t, facts, ctx, memory.FactWrite{FactID: "logs-old", Content: "Logs go to Splunk.", Category: memory.FactADR,
			Tags: []string{memory.SupersededTagPrefix + "logs-new"}})
		if p := publish(t, facts, ctx, memory.FactWrite{FactID: "logs-back", Content: "Logs go to Splunk.", Category: memory.FactADR}); p.Outcome != memory.WriteOutcomeStored {
			t.Fatalf("restating a superseded fact: %+v", p)
		}
		stale := 0
		if _, err := facts.Publish(ctx, memory.FactWrite{FactID: "logs-back", Content: "Logs go to Splunk.", Category: memory.FactADR, ExpectedVersion: &stale}); memory.ErrorCode(err) != memory.ECONFLICT {
			t.Fatalf("an unchanged publish with a stale expected_version: %v", err)
		}
		if _, err := facts.Publish(ctx, memory.FactWrite{FactID: "logs-dup", Content: "logs go to splunk", Category: memory.FactADR, ExpectedVersion: &stale}); err != nil {
			t.Fatalf("a duplicate with expected_version 0 (it does not exist): %v", err)
		}
	})
}

// The model's paraphrase is a repeat only within the category, of an
// active fact that is not superseded.
func TestModelJudgedFactDuplicate(t *testing.T) {
	db, _ := openDB(t)
	facts := store.NewFactService(db)
	asked := 0
	facts.Judge = func(_ context.Context, older, newer string) (memory.Judgement, error) {
		asked++
		return memory.Judgement{Same: true, Score: 0.95, Reason: "a paraphrase"}, nil
	}
	ctx := as(senior)
	publish(t, facts, ctx, memory.FactWrite{FactID: "cafe", Content: "The office cafe opens at nine.", Category: memory.FactOther})
	if p := publish(t, facts, ctx, memory.FactWrite{Content: "The office cafe starts serving at nine.", Category: memory.FactOther}); p.Outcome != memory.WriteOutcomeDuplicate || p.ID != "cafe" {
		t.Fatalf("a paraphrase in the category: %+v", p)
	}
	if p := publish(t, facts, ctx, memory.FactWrite{FactID: "cafe-adr", Content: "The office cafe serves from nine.", Category: memory.FactADR}); p.Outcome != memory.WriteOutcomeStored {
		t.Fatalf("a paraphrase in another category: %+v", p)
	}
	before := asked
	if p := publish(t, facts, ctx, memory.FactWrite{FactID: "cafe", Content: "The office cafe opens at nine.", Category: memory.FactOther}); p.Outcome != memory.WriteOutcomeUnchanged {
		t.Fatalf("republished as it stands: %+v", p)
	}
	if asked != before {
		t.Fatalf("the model was asked %d times about a write that changes nothing", asked-before)
	}
}

// Erasing a text takes the conflicts whose reason quotes it, though both
// facts stay: a decider's words are stored content too.
func TestEraseConflictReasonQuotingTheText(t *testing.T) {
	db, _ := openDB(t)
	facts := store.NewFactService(db)
	publish(t, facts, as(senior), memory.FactWrite{FactID: "pin", Content: "The door pin is 1111.", Category: memory.FactOther})
	c := publish(t, facts, as(senior), memory.FactWrite{FactID: "pin-2", Content: "The door pin is 2222.", Category: memory.FactOther}).Conflicts[0]
	if _, err := facts.ResolveConflict(as(human), c.ID, memory.ConflictBothHold, "front door hunter2, back door the other"); err != nil {
		t.Fatal(err)
	}
	rep, err := store.NewMemoryService(db, nil).Erase(as(human), memory.ErasureRequest{Contains: "hunter2", Reason: "a secret"})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.SQL().QueryRow(`SELECT count(*) FROM fact_conflicts WHERE reason LIKE '%hunter2%'`).Scan(&n); err != nil || n != 0 || rep.Counts[memory.ErasedConflicts] != 1 {
		t.Fatalf("conflicts quoting the text: %d left, report %+v, %v", n, rep.Counts, err)
	}
	if _, err := facts.Get(as(human), "pin"); err != nil {
		t.Fatalf("a fact that does not quote the text went: %v", err)
	}
}
