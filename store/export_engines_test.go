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
