package memory_test

import (
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
)

func TestParseWriteAccess(t *testing.T) {
	w, err := memory.ParseWriteAccess("adr=mid, procedure=human, core_policy=any")
	if err != nil {
		t.Fatal(err)
	}
	if got := w.String(); got != "adr=mid,procedure=human" {
		t.Fatalf("rules = %q", got)
	}
	juniorAgent := memory.Identity{AgentID: "j", Seniority: memory.Junior}
	midAgent := memory.Identity{AgentID: "m", Seniority: memory.Mid}
	principal := memory.Identity{AgentID: "p", Seniority: memory.Principal}
	human := memory.Identity{AgentID: "h", Human: true}
	tests := []struct {
		id   memory.Identity
		cat  memory.FactCategory
		code string
	}{
		{juniorAgent, memory.ADR, memory.EFORBIDDEN},
		{midAgent, memory.ADR, ""},
		{principal, memory.Procedure, memory.EFORBIDDEN},
		{human, memory.Procedure, ""},
		{juniorAgent, memory.CorePolicy, ""}, // "any" opened it
		{juniorAgent, memory.OtherFact, ""},
	}
	for _, tt := range tests {
		if got := memory.ErrorCode(w.Check(tt.id, tt.cat)); got != tt.code {
			t.Errorf("%s writing %s: %q, want %q", tt.id.Describe(), tt.cat, got, tt.code)
		}
	}
	for _, bad := range []string{"adr", "nope=mid", "adr=boss"} {
		if _, err := memory.ParseWriteAccess(bad); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("ParseWriteAccess(%q) = %v", bad, err)
		}
	}
}

func FuzzParseWriteAccess(f *testing.F) {
	for _, s := range []string{"", "core_policy=senior", "adr=human,other=any", "=,=", "adr=mid=mid"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := memory.ParseWriteAccess(s)
		if err != nil {
			return
		}
		// What parses must round-trip.
		again, err := memory.ParseWriteAccess(w.String())
		if err != nil || again.String() != w.String() {
			t.Fatalf("%q -> %q -> %q, %v", s, w.String(), again.String(), err)
		}
	})
}
