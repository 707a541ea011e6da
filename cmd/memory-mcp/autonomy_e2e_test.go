package main

import (
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
)

// TestNotesRecordAutonomy: --autonomy is recorded with a note, and shown with
// it in what write_note returns and with the pending item it became.
func TestNotesRecordAutonomy(t *testing.T) {
	s := startIn(t, options{args: []string{"--agent-id", "fay", "--autonomy", "full"}})
	var r struct {
		Note     map[string]any   `json:"note"`
		Outcomes []memory.Outcome `json:"outcomes"`
	}
	s.ok("write_note", map[string]any{"text": "fixed: pandas_import", "promote": true}, &r)
	if r.Note["autonomy"] != "full" || len(r.Outcomes) != 1 || r.Outcomes[0].Status != memory.OutcomePending {
		t.Fatalf("write_note = %+v", r)
	}
	var pl struct {
		Pending []map[string]any `json:"pending"`
	}
	s.ok("list_pending", nil, &pl)
	if len(pl.Pending) != 1 || pl.Pending[0]["autonomy"] != "full" || pl.Pending[0]["agent_id"] != "fay" {
		t.Fatalf("list_pending = %+v", pl)
	}
}
