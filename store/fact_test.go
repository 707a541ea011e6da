package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

func intp(i int) *int { return &i }

func TestPublishRepublishRetract(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		facts := store.NewFactService(db)
		ctx := as(senior)

		f1, err := facts.Publish(ctx, memory.FactWrite{FactID: "policy-jwt", Content: "Services authenticate with JWT.", Category: memory.FactCorePolicy, Tags: []string{"auth", "auth", " security "}})
		if err != nil {
			t.Fatal(err)
		}
		if f1.Version != 1 || !f1.Active() || strings.Join(f1.Tags, ",") != "auth,security" || f1.Author.AgentID != "sam" || f1.Author.Seniority != memory.SenioritySenior {
			t.Fatalf("first publish = %+v", f1)
		}
		f2, err := facts.Publish(ctx, memory.FactWrite{FactID: "policy-jwt", Content: "Services authenticate with short-lived JWT.", Category: memory.FactCorePolicy, ExpectedVersion: intp(1)})
		if err != nil {
			t.Fatal(err)
		}
		if f2.Version != 2 || !f2.CreatedAt.Equal(f1.CreatedAt) || !f2.UpdatedAt.After(f1.UpdatedAt) {
			t.Fatalf("republish = %+v", f2)
		}
		f3, err := facts.Retract(ctx, memory.FactRetract{FactID: "policy-jwt", Reason: "moved to mTLS"})
		if err != nil {
			t.Fatal(err)
		}
		if f3.Version != 3 || f3.Active() || f3.Content != f2.Content {
			t.Fatalf("retract = %+v", f3)
		}
		if _, err := facts.Retract(ctx, memory.FactRetract{FactID: "policy-jwt"}); memory.ErrorCode(err) != memory.ECONFLICT {
			t.Fatalf("second retract: %v", err)
		}
		f4, err := facts.Publish(ctx, memory.FactWrite{FactID: "policy-jwt", Content: "JWT again.", Category: memory.FactCorePolicy})
		if err != nil {
			t.Fatal(err)
		}
		if f4.Version != 4 || !f4.Active() {
			t.Fatalf("reactivated = %+v", f4)
		}
		hist, err := facts.History(ctx, "policy-jwt")
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"PUBLISH", "PUBLISH", "RETRACT", "PUBLISH"}
		for i, op := range hist {
			if op.Type != want[i] || op.Version != i+1 {
				t.Fatalf("history[%d] = %+v", i, op)
			}
			if i > 0 && op.Timestamp.Before(hist[i-1].Timestamp) {
				t.Fatalf("timestamps go backwards at %d", i)
			}
		}
		if len(hist) != 4 || hist[2].Content != nil || hist[2].Reason != "moved to mTLS" || *hist[1].Content != f2.Content {
			t.Fatalf("history = %+v", hist)
		}
	})
}

func TestCompareAndSet(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		facts := store.NewFactService(db)
		ctx := as(senior)
		if _, err := facts.Publish(ctx, memory.FactWrite{FactID: "f", Content: "a", Category: memory.FactADR, ExpectedVersion: intp(0)}); err != nil {
			t.Fatalf("create with expected_version 0: %v", err)
		}
		_, err := facts.Publish(ctx, memory.FactWrite{FactID: "f", Content: "b", Category: memory.FactADR, ExpectedVersion: intp(0)})
		if memory.ErrorCode(err) != memory.ECONFLICT || !strings.Contains(err.Error(), "is at version 1, you sent expected_version 0") {
			t.Fatalf("stale create: %v", err)
		}
		_, err = facts.Retract(ctx, memory.FactRetract{FactID: "f", ExpectedVersion: intp(3)})
		if memory.ErrorCode(err) != memory.ECONFLICT || !strings.Contains(err.Error(), "version 1") {
			t.Fatalf("stale retract: %v", err)
		}
		_, err = facts.Publish(ctx, memory.FactWrite{FactID: "g", Content: "b", Category: memory.FactADR, ExpectedVersion: intp(2)})
		if memory.ErrorCode(err) != memory.ECONFLICT || !strings.Contains(err.Error(), "does not exist yet") {
			t.Fatalf("expected version on missing fact: %v", err)
		}
		if f, _ := facts.Get(ctx, "f"); f.Version != 1 || f.Content != "a" {
			t.Fatalf("a failed CAS changed the fact: %+v", f)
		}
	})
}

func TestWriteAccess(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		facts := store.NewFactService(db)
		tests := []struct {
			who  memory.Identity
			cat  memory.FactCategory
			code string
		}{
			{junior, memory.FactCorePolicy, memory.EFORBIDDEN},
			{memory.Identity{AgentID: "m", Seniority: memory.SeniorityMid}, memory.FactCorePolicy, memory.EFORBIDDEN},
			{senior, memory.FactCorePolicy, ""},
			{human, memory.FactCorePolicy, ""},
			{junior, memory.FactConvention, ""},
		}
		for _, tt := range tests {
			_, err := facts.Publish(as(tt.who), memory.FactWrite{Content: "rule", Category: tt.cat})
			if memory.ErrorCode(err) != tt.code {
				t.Errorf("%s writing %s: %v, want code %q", tt.who.Describe(), tt.cat, err, tt.code)
			}
			if tt.code == memory.EFORBIDDEN && !strings.Contains(err.Error(), "seniority senior or above") {
				t.Errorf("forbidden message does not name the rule: %v", err)
			}
		}
		// A junior may not move a core policy out of its category, nor retract it.
		if _, err := facts.Publish(as(senior), memory.FactWrite{FactID: "core", Content: "x", Category: memory.FactCorePolicy}); err != nil {
			t.Fatal(err)
		}
		if _, err := facts.Publish(as(junior), memory.FactWrite{FactID: "core", Content: "y", Category: memory.FactOther}); memory.ErrorCode(err) != memory.EFORBIDDEN {
			t.Fatalf("junior recategorised a core policy: %v", err)
		}
		if _, err := facts.Retract(as(junior), memory.FactRetract{FactID: "core"}); memory.ErrorCode(err) != memory.EFORBIDDEN {
			t.Fatalf("junior retracted a core policy: %v", err)
		}
		// No identity: no access.
		if _, err := facts.Publish(t.Context(), memory.FactWrite{Content: "x", Category: memory.FactOther}); memory.ErrorCode(err) != memory.EFORBIDDEN {
			t.Fatalf("anonymous publish: %v", err)
		}
	})
}

// TestWriteAccessBindsHumans: a rule that closes a category to humans holds
// for every write a human makes to it: publishing, retracting, and moving a
// fact into or out of it.
func TestWriteAccessBindsHumans(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		facts := store.NewFactService(db)
		var err error
		if facts.Access, err = memory.ParseWriteAccess("adr=agents:senior,procedure=none"); err != nil {
			t.Fatal(err)
		}
		if _, err := facts.Publish(as(senior), memory.FactWrite{FactID: "adr-1", Content: "We use SQLite.", Category: memory.FactADR}); err != nil {
			t.Fatal(err)
		}
		if _, err := facts.Publish(as(human), memory.FactWrite{FactID: "conv-1", Content: "Tabs.", Category: memory.FactConvention}); err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			name string
			do   func() error
			rule string
		}{
			{"publish", func() error {
				_, err := facts.Publish(as(human), memory.FactWrite{Content: "We use Postgres.", Category: memory.FactADR})
				return err
			}, "adr=agents:senior"},
			{"republish", func() error {
				_, err := facts.Publish(as(human), memory.FactWrite{FactID: "adr-1", Content: "We use Postgres.", Category: memory.FactADR})
				return err
			}, "adr=agents:senior"},
			{"retract", func() error {
				_, err := facts.Retract(as(human), memory.FactRetract{FactID: "adr-1"})
				return err
			}, "adr=agents:senior"},
			{"move out", func() error {
				_, err := facts.Publish(as(human), memory.FactWrite{FactID: "adr-1", Content: "We use SQLite.", Category: memory.FactConvention})
				return err
			}, "adr=agents:senior"},
			{"move in", func() error {
				_, err := facts.Publish(as(human), memory.FactWrite{FactID: "conv-1", Content: "Tabs.", Category: memory.FactADR})
				return err
			}, "adr=agents:senior"},
			{"none", func() error {
				_, err := facts.Publish(as(senior), memory.FactWrite{Content: "Deploy on Fridays.", Category: memory.FactProcedure})
				return err
			}, "procedure=none"},
		}
		for _, tt := range tests {
			err := tt.do()
			if memory.ErrorCode(err) != memory.EFORBIDDEN || !strings.Contains(err.Error(), "write-access rule "+tt.rule) {
				t.Errorf("%s: %v, want EFORBIDDEN naming %s", tt.name, err, tt.rule)
			}
		}
		if f, err := facts.Get(as(human), "adr-1"); err != nil || f.Version != 1 || f.Category != memory.FactADR || !f.Active() {
			t.Fatalf("a refused write changed adr-1: %+v, %v", f, err)
		}
		if _, err := facts.Retract(as(senior), memory.FactRetract{FactID: "adr-1"}); err != nil {
			t.Fatalf("a senior agent may retract under agents:senior: %v", err)
		}
	})
}

func TestBadInput(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		defer store.SetFactIDSuffix("abc123")()
		db, _ := openDB(t)
		facts := store.NewFactService(db)
		facts.MaxContentBytes = 100
		ctx := as(senior)
		tests := []struct {
			name string
			w    memory.FactWrite
			msg  string
		}{
			{"empty", memory.FactWrite{Content: "  ", Category: memory.FactOther}, "content is empty"},
			{"oversize", memory.FactWrite{Content: strings.Repeat("x", 101), Category: memory.FactOther}, "101 bytes; the limit is 100 bytes (1 over)"},
			{"category", memory.FactWrite{Content: "x", Category: "rumour"}, `unknown category "rumour"`},
			{"id", memory.FactWrite{FactID: "has space", Content: "x", Category: memory.FactOther}, "may contain only"},
			{"utf8", memory.FactWrite{Content: "\xff", Category: memory.FactOther}, "not valid UTF-8"},
			{"padded category", memory.FactWrite{Content: "x", Category: " core_policy"}, `unknown category " core_policy"`},
			{"reserved id", memory.FactWrite{FactID: "snapshot", Content: "x", Category: memory.FactOther}, "reserved"},
			{"superseded by itself", memory.FactWrite{FactID: "jwt", Content: "x", Category: memory.FactOther, Tags: []string{"superseded_by:jwt"}},
				`tag "superseded_by:jwt" names fact jwt itself: a fact cannot be superseded by itself`},
			{"superseded by its derived id", memory.FactWrite{Content: "Use JWT.", Category: memory.FactOther, Tags: []string{"superseded_by: use-jwt-abc123"}},
				`tag "superseded_by: use-jwt-abc123" names fact use-jwt-abc123 itself`},
		}
		for _, tt := range tests {
			_, err := facts.Publish(ctx, tt.w)
			if memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("%s: %v, want EINVALID containing %q", tt.name, err, tt.msg)
			}
		}
		if _, err := facts.Get(ctx, "nope"); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Errorf("get unknown: %v", err)
		}
		if _, err := facts.History(ctx, "nope"); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Errorf("history unknown: %v", err)
		}
		if _, err := facts.Retract(ctx, memory.FactRetract{FactID: "nope"}); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Errorf("retract unknown: %v", err)
		}
		if _, err := facts.Query(ctx, memory.FactQuery{Limit: 101}); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("limit 101: %v", err)
		}
		if _, err := facts.Query(ctx, memory.FactQuery{Text: "!!!"}); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("query without words: %v", err)
		}
		if _, err := facts.Query(ctx, memory.FactQuery{Categories: []memory.FactCategory{"core_policy\n"}}); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("padded category filter: %v", err)
		}
		many := make([]string, 33)
		for i := range many {
			many[i] = fmt.Sprint("t", i)
		}
		if _, err := facts.Query(ctx, memory.FactQuery{Tags: many}); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("33 tag filters: %v", err)
		}
		// Repeated filters collapse instead of overflowing SQLite's limits.
		same := make([]memory.FactCategory, 40000)
		for i := range same {
			same[i] = memory.FactADR
		}
		if _, err := facts.Query(ctx, memory.FactQuery{Categories: same, Tags: slices.Repeat([]string{"x"}, 5000)}); err != nil {
			t.Errorf("repeated filters: %v", err)
		}
	})
}

func TestQueryRanksAndFilters(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		facts := store.NewFactService(db)
		ctx := as(senior)
		for _, w := range []memory.FactWrite{
			{FactID: "jwt", Content: "All services authenticate requests with JWT bearer tokens.", Category: memory.FactCorePolicy, Tags: []string{"auth", "security"}},
			{FactID: "review", Content: "Code reviews need two approvals.", Category: memory.FactProcedure, Tags: []string{"process"}},
			{FactID: "naming", Content: "Go packages are named by noun; tokens are never logged.", Category: memory.FactConvention, Tags: []string{"security"}},
			{FactID: "old", Content: "Services authenticate with API keys.", Category: memory.FactADR, Tags: []string{"auth", memory.SupersededTagPrefix + "jwt"}},
		} {
			if _, err := facts.Publish(ctx, w); err != nil {
				t.Fatal(err)
			}
		}
		got, err := facts.Query(ctx, memory.FactQuery{Text: "how do services authenticate? (JWT tokens)"})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) < 2 || got[0].ID != "jwt" || got[0].Score <= 0 {
			t.Fatalf("ranked query = %+v", ids(got))
		}
		got, _ = facts.Query(ctx, memory.FactQuery{Text: "authenticate", Categories: []memory.FactCategory{memory.FactADR}})
		if len(got) != 1 || got[0].ID != "old" || got[0].SupersededBy != "jwt" {
			t.Fatalf("category filter = %+v", got)
		}
		got, _ = facts.Query(ctx, memory.FactQuery{Tags: []string{"security", "auth"}})
		if len(got) != 1 || got[0].ID != "jwt" {
			t.Fatalf("tag AND filter = %v", ids(got))
		}
		got, _ = facts.Query(ctx, memory.FactQuery{Limit: 2})
		if len(got) != 2 || got[0].ID != "old" {
			t.Fatalf("unranked listing is newest first: %v", ids(got))
		}
		// FTS syntax in the query is searched literally, not interpreted.
		if _, err := facts.Query(ctx, memory.FactQuery{Text: `"unbalanced NEAR( content:* OR`}); err != nil {
			t.Fatalf("fts syntax leaked: %v", err)
		}
	})
}

func TestTimeTravel(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, clk := openDB(t)
		facts, ctx, t1, t2, t3 := timeTravelFacts(t, db, clk)

		snap := func(at time.Time) string {
			fs, err := facts.SnapshotAt(ctx, at)
			if err != nil {
				t.Fatal(err)
			}
			var parts []string
			for _, f := range fs {
				parts = append(parts, f.ID+"@"+f.Content)
			}
			return strings.Join(parts, ",")
		}
		for at, want := range map[time.Time]string{
			t1.Add(-time.Hour): "",
			t1:                 "a@alpha one",
			t2:                 "a@alpha two,b@beta one",
			t3:                 "a@alpha two",
		} {
			if got := snap(at); got != want {
				t.Errorf("snapshot at %v = %q, want %q", at, got, want)
			}
		}
		adr := []memory.FactCategory{memory.FactADR}
		got, err := facts.Query(ctx, memory.FactQuery{Categories: adr, AsOf: t1})
		if err != nil || len(got) != 1 || got[0].Content != "alpha one" || got[0].Version != 1 {
			t.Fatalf("as-of query = %+v, %v", got, err)
		}
		got, _ = facts.Query(ctx, memory.FactQuery{Categories: adr, AsOf: t2})
		if len(got) != 2 {
			t.Fatalf("retracted fact missing before its retraction: %+v", got)
		}
		got, _ = facts.Query(ctx, memory.FactQuery{Categories: adr})
		if len(got) != 1 || got[0].ID != "a" {
			t.Fatalf("retracted fact found now: %+v", got)
		}
	})
}

// TestTimeTravelSearch: a search as of a time finds the versions that
// stood then. SQLite only until full-text search runs on PostgreSQL.
func TestTimeTravelSearch(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, clk := openDB(t)
		facts, ctx, t1, t2, _ := timeTravelFacts(t, db, clk)
		got, err := facts.Query(ctx, memory.FactQuery{Text: "alpha", AsOf: t1})
		if err != nil || len(got) != 1 || got[0].Content != "alpha one" || got[0].Version != 1 {
			t.Fatalf("as-of query = %+v, %v", got, err)
		}
		got, _ = facts.Query(ctx, memory.FactQuery{Text: "beta", AsOf: t2})
		if len(got) != 1 {
			t.Fatalf("retracted fact missing before its retraction: %+v", got)
		}
		got, _ = facts.Query(ctx, memory.FactQuery{Text: "beta"})
		if len(got) != 0 {
			t.Fatalf("retracted fact found now: %+v", got)
		}
	})
}

// timeTravelFacts publishes a, then b, then a again, and retracts b,
// returning the times after the first publish, the third, and the retraction.
func timeTravelFacts(t *testing.T, db *store.DB, clk *storetest.Clock) (facts *store.FactService, ctx context.Context, t1, t2, t3 time.Time) {
	t.Helper()
	facts = store.NewFactService(db)
	ctx = as(senior)
	mustPublish := func(id, content string) {
		t.Helper()
		if _, err := facts.Publish(ctx, memory.FactWrite{FactID: id, Content: content, Category: memory.FactADR}); err != nil {
			t.Fatal(err)
		}
	}
	mustPublish("a", "alpha one")
	t1 = clk.Peek()
	mustPublish("b", "beta one")
	mustPublish("a", "alpha two")
	t2 = clk.Peek()
	if _, err := facts.Retract(ctx, memory.FactRetract{FactID: "b"}); err != nil {
		t.Fatal(err)
	}
	return facts, ctx, t1, t2, clk.Peek()
}

func TestListPaginates(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		facts := store.NewFactService(db)
		ctx := as(human)
		for i := range 5 {
			if _, err := facts.Publish(ctx, memory.FactWrite{FactID: "p" + string(rune('0'+i)), Content: "policy " + string(rune('0'+i)), Category: memory.FactCorePolicy}); err != nil {
				t.Fatal(err)
			}
		}
		facts.Retract(ctx, memory.FactRetract{FactID: "p0"})
		page, err := facts.List(ctx, memory.FactCorePolicy, 1, 2)
		if err != nil {
			t.Fatal(err)
		}
		if page.Total != 4 || len(page.Facts) != 2 || page.Facts[0].ID != "p2" || page.Facts[1].ID != "p3" {
			t.Fatalf("page = total %d %v", page.Total, ids(page.Facts))
		}
	})
}

func TestGeneratedIDs(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		facts := store.NewFactService(db)
		f, err := facts.Publish(as(senior), memory.FactWrite{Content: "Use UTC timestamps everywhere, always!", Category: memory.FactConvention})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(f.ID, "use-utc-timestamps-everywhere-always-") || memory.CheckID("fact_id", f.ID) != nil {
			t.Fatalf("generated id %q", f.ID)
		}
	})
}

func ids(fs []memory.Fact) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.ID)
	}
	return out
}

var _ = store.FileName

// A publish_fact classified on what the fact was (a convention) and
// written after it became a core policy is refused, not applied at the
// lower tier: the gate's reading of the fact travels with the call.
func TestPublishRefusesAFactThatChangedSinceItWasClassified(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, clk := openDB(t)
		facts := store.NewFactService(db)
		if _, err := facts.Publish(as(human), memory.FactWrite{FactID: "logs", Content: "Logs are kept 30 days.", Category: memory.FactConvention}); err != nil {
			t.Fatal(err)
		}
		call := &store.Call{Principal: senior.Principal(), Tool: "publish_fact", Started: clk.Peek(), Gates: map[string]time.Duration{},
			Subject: &memory.Subject{FactCategory: memory.FactConvention}}
		// Meanwhile a human makes it a core policy.
		if _, err := facts.Publish(as(human), memory.FactWrite{FactID: "logs", Content: "Logs are kept 30 days.", Category: memory.FactCorePolicy}); err != nil {
			t.Fatal(err)
		}
		_, err := facts.Publish(store.WithCall(as(senior), call), memory.FactWrite{FactID: "logs", Content: "Logs are kept 7 days.", Category: memory.FactConvention})
		if memory.ErrorCode(err) != memory.ECONFLICT || !strings.Contains(err.Error(), "send it again") {
			t.Fatalf("publish on a stale classification: %v, want ECONFLICT", err)
		}
		// A change that would not have classified it higher is no reason to
		// refuse: a fact another writer made meanwhile is a new version's race.
		fresh := &store.Call{Principal: senior.Principal(), Tool: "publish_fact", Started: clk.Peek(), Gates: map[string]time.Duration{},
			Subject: &memory.Subject{}}
		if _, err := facts.Publish(as(human), memory.FactWrite{FactID: "raced", Content: "Builds run nightly.", Category: memory.FactConvention}); err != nil {
			t.Fatal(err)
		}
		if _, err := facts.Publish(store.WithCall(as(senior), fresh), memory.FactWrite{FactID: "raced", Content: "Builds run hourly.", Category: memory.FactConvention}); err != nil {
			t.Fatalf("a publish classified before another writer made the fact: %v", err)
		}
		if f, err := facts.Get(as(senior), "logs"); err != nil || f.Category != memory.FactCorePolicy || f.Content != "Logs are kept 30 days." {
			t.Fatalf("the fact after the refused publish: %+v, %v", f, err)
		}
		// Classified on what it is, the same call goes ahead (to its own checks).
		call.Subject = &memory.Subject{FactCategory: memory.FactCorePolicy}
		if _, err := facts.Publish(store.WithCall(as(senior), call), memory.FactWrite{FactID: "logs", Content: "Logs are kept 7 days.", Category: memory.FactConvention}); err != nil {
			t.Fatalf("publish on a current classification: %v", err)
		}
	})
}
