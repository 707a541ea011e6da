package main

import "testing"

// TestWriteAccessCanCloseACategoryToHumans: agents:<seniority> admits those
// agents and no human, none admits nobody, and the refusal names the rule.
func TestWriteAccessCanCloseACategoryToHumans(t *testing.T) {
	dir := t.TempDir()
	rules := []string{"--write-access", "adr=agents:senior,procedure=none"}
	human := startIn(t, options{dataDir: dir, args: append([]string{"--agent-id", "alice", "--human"}, rules...)})
	human.fail("publish_fact", map[string]any{"content": "We use SQLite.", "category": "adr"}, "EFORBIDDEN",
		`adr facts may be written only by agents of seniority senior or above, not by humans; you are human "alice" (write-access rule adr=agents:senior)`)
	human.fail("publish_fact", map[string]any{"content": "Deploy on Fridays.", "category": "procedure"}, "EFORBIDDEN",
		`procedure facts may be written by nobody; you are human "alice" (write-access rule procedure=none)`)
	agent := start(t, options{dataDir: dir, args: append([]string{"--agent-id", "sam", "--seniority", "lead"}, rules...)})
	agent.ok("publish_fact", map[string]any{"fact_id": "db", "content": "We use SQLite.", "category": "adr"}, nil)
	human.fail("retract_fact", map[string]any{"fact_id": "db"}, "EFORBIDDEN", "(write-access rule adr=agents:senior)")
}
