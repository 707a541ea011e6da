package store_test

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// TestExportSameOnBothEngines: the same writes on either engine export to
// the same bytes, under every filter (each binds its parameters in every
// kind's condition, which PostgreSQL must type), and an export of nothing
// is a header and a trailer.
func TestExportSameOnBothEngines(t *testing.T) {
	since := time.Date(2026, 1, 1, 0, 0, 3, 0, time.UTC)
	filters := map[string]store.ExportFilter{
		"all": {}, "agent": {AgentID: "ann"}, "namespace": {Namespace: "home"}, "since": {Since: &since},
		"until": {Until: &since},
	}
	got := map[string]map[string]string{}
	for _, e := range engines {
		db, _ := e.open(t)
		facts := store.NewFactService(db)
		ctx := as(senior)
		for _, w := range []memory.FactWrite{
			{FactID: "deploy-review", Content: "Every deploy is reviewed.", Category: memory.FactConvention},
			{FactID: "auth", Content: "Services authenticate with JWT.", Category: memory.FactADR, Tags: []string{"security"}},
			{FactID: "auth", Content: "Services authenticate with mTLS.", Category: memory.FactADR},
		} {
			if _, err := facts.Publish(ctx, w); err != nil {
				t.Fatalf("%s: publish %s: %v", e.name, w.FactID, err)
			}
		}
		if _, err := facts.Retract(ctx, memory.FactRetract{FactID: "deploy-review", Reason: "replaced"}); err != nil {
			t.Fatalf("%s: retract: %v", e.name, err)
		}
		got[e.name] = map[string]string{}
		for name, f := range filters {
			var b bytes.Buffer
			counts, err := db.Export(context.Background(), f, &b)
			if err != nil {
				t.Fatalf("%s: export %s: %v", e.name, name, err)
			}
			// operation ids are random: the rest must be the same
			got[e.name][name] = operationID.ReplaceAllString(b.String(), `"operation_id":"…"`)
			if name == "all" && (counts["fact_op"] != 4 || counts["fact"] != 2) {
				t.Errorf("%s: export of everything counted %v, want 4 fact_op and 2 fact", e.name, counts)
			}
			if name == "agent" && len(counts) != 0 {
				t.Errorf("%s: an agent with no memory exported %v", e.name, counts)
			}
		}
	}
	for name := range filters {
		got["sqlite"][name], got["postgres"][name] = withoutSum(got["sqlite"][name]), withoutSum(got["postgres"][name])
		if lite, pg := got["sqlite"][name], got["postgres"][name]; lite != pg {
			t.Errorf("export %s differs:\nsqlite:\n%s\npostgres:\n%s", name, lite, pg)
		}
	}
	if !strings.Contains(got["postgres"]["all"], `"content":"Services authenticate with mTLS."`) {
		t.Errorf("the export misses the fact:\n%s", got["postgres"]["all"])
	}
}

var (
	operationID = regexp.MustCompile(`"operation_id":"[^"]*"`)
	trailerSum  = regexp.MustCompile(`"sha256":"[0-9a-f]*"`)
)

// withoutSum is an export without its trailer's checksum, which covers the
// random operation ids.
func withoutSum(export string) string { return trailerSum.ReplaceAllString(export, `"sha256":"…"`) }

// TestExportOfEverythingLeavesOutOrphans: an export of everything checks
// in the store, not in sets of every id it wrote, that what a link or a
// claim names is there: a claim of a memory that is gone (memory_claims
// has no foreign key) is left out on either engine, as an export with a
// filter leaves it out, and the export imports into an empty store.
func TestExportOfEverythingLeavesOutOrphans(t *testing.T) {
	onEngines(t, func(t *testing.T, open opener) {
		db, _ := open(t)
		ctx := as(senior)
		mem := store.NewMemoryService(db, nil)
		for _, c := range []string{"The staging database runs on port 5433", "Backups run nightly at 02:00 UTC"} {
			if _, err := mem.Remember(ctx, memory.EntryWrite{Content: c, Category: memory.CategorySemantic}); err != nil {
				t.Fatal(err)
			}
		}
		export := func(f store.ExportFilter) (string, store.ExportCounts) {
			var b bytes.Buffer
			counts, err := db.Export(context.Background(), f, &b)
			if err != nil {
				t.Fatal(err)
			}
			return b.String(), counts
		}
		_, before := export(store.ExportFilter{})
		if before["memory_claim"] == 0 {
			t.Fatalf("the memories have no claims to test with: %v", before)
		}
		if _, err := db.SQL().Exec(`INSERT INTO memory_claims (agent_id, claim, value, memory_pk) VALUES ('sam', 1, 2, 987654321)`); err != nil {
			t.Fatal(err)
		}
		all, counts := export(store.ExportFilter{})
		if counts["memory_claim"] != before["memory_claim"] || strings.Contains(all, "987654321") {
			t.Errorf("the export of everything holds the claim of no memory: %v, was %v", counts, before)
		}
		if _, own := export(store.ExportFilter{AgentID: "sam"}); own["memory_claim"] != before["memory_claim"] {
			t.Errorf("the export of sam's memory counted %v, want the %d claims", own, before["memory_claim"])
		}
		into, _ := open(t)
		if _, err := into.Import(context.Background(), strings.NewReader(all), store.ImportSource{File: "all.jsonl", By: "human:ann"}); err != nil {
			t.Fatalf("import: %v", err)
		}
		var again bytes.Buffer
		if _, err := into.Export(context.Background(), store.ExportFilter{}, &again); err != nil {
			t.Fatal(err)
		}
		if withoutSum(again.String()) != withoutSum(all) {
			t.Errorf("the imported store exports other records:\n%s\nwant:\n%s", again.String(), all)
		}
	})
}
