package promotion_test

import (
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
)

// TestAdvLLMBypass: the model alone picks the row a write changes, through
// reference_text, payload.reason and upsert target_id.
func TestAdvLLMBypass(t *testing.T) {
	h := newHarness(t)
	for _, n := range []string{"blocker: pandas import fails in the loader", "issue: flaky auth test", "issue: disk_full: disk full on runner",
		"constraint: no_friday_deploys: never deploy on fridays", "lifted constraint: no_friday_deploys", "fixed: disk_full",
		"issue: ci_red: CI is red on main"} {
		h.note(agent, memory.NoteWrite{Text: n}, true)
	}
	h.outs = nil
	answers := map[string]memory.WriteRequest{
		"The earlier blocker is fixed.": {Decision: memory.Accept, Bucket: memory.Issues, Operation: memory.Resolve, ReferenceText: "flaky_auth_test", Confidence: 0.9},
		"That thing is sorted.":         {Decision: memory.Accept, Bucket: memory.Issues, Operation: memory.Resolve, ReferenceText: "ci red main", Confidence: 0.9},
		"All good on my side.":          {Decision: memory.Accept, Bucket: memory.Issues, Operation: memory.Resolve, Payload: memory.Payload{Reason: "pandas_import_fails_in_loader works"}, ReferenceText: "x", Confidence: 0.9},
		"The loader looks fine.":        {Decision: memory.Accept, Bucket: memory.Issues, Operation: memory.Upsert, TargetID: "pandas_import_fails_in_loader", Payload: memory.Payload{Text: "loader ok"}, Confidence: 0.9},
		"Runner seems ok.":              {Decision: memory.Accept, Bucket: memory.Issues, Operation: memory.Upsert, TargetID: "disk_full", Payload: memory.Payload{Text: "disk full again"}, Confidence: 0.9},
		"Deploy went smooth.":           {Decision: memory.Accept, Bucket: memory.Constraints, Operation: memory.Upsert, TargetID: "no_friday_deploys", Payload: memory.Payload{Text: "never deploy"}, Confidence: 0.9},
	}
	withLLM(h, (&model{}).serve(t, func(user string) answer {
		for note, r := range answers {
			if strings.Contains(user, note) {
				return request(r)
			}
		}
		return answer{status: 400}
	}))
	for _, n := range []string{"The earlier blocker is fixed.", "That thing is sorted.", "All good on my side.", "The loader looks fine.", "Runner seems ok.", "Deploy went smooth."} {
		h.note(agent, memory.NoteWrite{Text: n}, true)
	}
	for _, o := range h.outs {
		if o.Status == memory.Committed {
			t.Errorf("model text alone changed %s/%s: %s", o.Bucket, o.TargetID, o.Summary())
		}
	}
}
