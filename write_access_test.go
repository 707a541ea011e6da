package memory_test

import (
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
)

func TestParseWriteAccess(t *testing.T) {
	w, err := memory.ParseWriteAccess("adr=mid, procedure=human, core_policy=any, convention=agents:lead, other=none")
	if err != nil {
		t.Fatal(err)
	}
	if got := w.String(); got != "adr=mid,convention=agents:lead,core_policy=any,other=none,procedure=human" {
		t.Fatalf("rules = %q", got)
	}
	juniorAgent := memory.Identity{AgentID: "j", Seniority: memory.SeniorityJunior}
	midAgent := memory.Identity{AgentID: "m", Seniority: memory.SeniorityMid}
	lead := memory.Identity{AgentID: "l", Seniority: memory.SeniorityLead}
	principal := memory.Identity{AgentID: "p", Seniority: memory.SeniorityPrincipal}
	human := memory.Identity{AgentID: "h", Human: true}
	tests := []struct {
		id   memory.Identity
		cat  memory.FactCategory
		code string
	}{
		{juniorAgent, memory.FactADR, memory.EFORBIDDEN},
		{midAgent, memory.FactADR, ""},
		{human, memory.FactADR, ""}, // a seniority admits humans too
		{principal, memory.FactProcedure, memory.EFORBIDDEN},
		{human, memory.FactProcedure, ""},
		{juniorAgent, memory.FactCorePolicy, ""}, // "any" opened it
		{human, memory.FactCorePolicy, ""},
		{midAgent, memory.FactConvention, memory.EFORBIDDEN},
		{lead, memory.FactConvention, ""},
		{principal, memory.FactConvention, ""},
		{human, memory.FactConvention, memory.EFORBIDDEN}, // agents:lead keeps humans out
		{principal, memory.FactOther, memory.EFORBIDDEN},
		{human, memory.FactOther, memory.EFORBIDDEN}, // none is nobody
	}
	for _, tt := range tests {
		if got := memory.ErrorCode(w.Check(tt.id, tt.cat)); got != tt.code {
			t.Errorf("%s writing %s: %q, want %q", tt.id.Describe(), tt.cat, got, tt.code)
		}
	}
	for _, bad := range []string{"adr", "nope=mid", "adr=boss", "adr=agents:", "adr=agents:human", "adr=agents:any", "adr=humans"} {
		if _, err := memory.ParseWriteAccess(bad); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("ParseWriteAccess(%q) = %v", bad, err)
		}
	}
}

// TestWriteAccessMessages: a refusal names the rule in words and as it is
// configured, for a human as for an agent.
func TestWriteAccessMessages(t *testing.T) {
	w, err := memory.ParseWriteAccess("adr=agents:senior,procedure=none,convention=human")
	if err != nil {
		t.Fatal(err)
	}
	human := memory.Identity{AgentID: "alice", Human: true}
	mid := memory.Identity{AgentID: "bob", Seniority: memory.SeniorityMid}
	tests := []struct {
		id   memory.Identity
		cat  memory.FactCategory
		want string
	}{
		{human, memory.FactADR, `adr facts may be written only by agents of seniority senior or above, not by humans; you are human "alice" (write-access rule adr=agents:senior)`},
		{mid, memory.FactADR, `adr facts may be written only by agents of seniority senior or above, not by humans; you are agent "bob" (mid) (write-access rule adr=agents:senior)`},
		{human, memory.FactProcedure, `procedure facts may be written by nobody; you are human "alice" (write-access rule procedure=none)`},
		{mid, memory.FactConvention, `convention facts may be written only by humans; you are agent "bob" (mid) (write-access rule convention=human)`},
		{mid, memory.FactCorePolicy, `core_policy facts may be written only by humans or agents of seniority senior or above; you are agent "bob" (mid) (write-access rule core_policy=senior)`},
	}
	for _, tt := range tests {
		err := w.Check(tt.id, tt.cat)
		if memory.ErrorCode(err) != memory.EFORBIDDEN || memory.ErrorMessage(err) != tt.want {
			t.Errorf("%s writing %s:\n got %v\nwant %s", tt.id.Describe(), tt.cat, err, tt.want)
		}
	}
	// The parse error lists every form a rule may take.
	_, err = memory.ParseWriteAccess("adr=boss")
	if !strings.Contains(memory.ErrorMessage(err), "agents:<seniority>, human, any or none") {
		t.Errorf("parse error: %v", err)
	}
}

func FuzzParseWriteAccess(f *testing.F) {
	for _, s := range []string{"", "core_policy=senior", "adr=human,other=any", "=,=", "adr=mid=mid",
		"core_policy=any", "adr=agents:lead,other=none", "procedure=agents:MID"} {
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

func TestWriteAccessRulesIgnoreCase(t *testing.T) {
	for upper, lower := range map[string]string{"adr=None": "adr=none", "adr=Agents:MID": "adr=agents:mid", "adr=HUMAN": "adr=human",
		"adr=Senior": "adr=senior", "adr=ANY": "adr=any"} {
		a, err := memory.ParseWriteAccess(upper)
		b, err2 := memory.ParseWriteAccess(lower)
		if err != nil || err2 != nil || a.String() != b.String() {
			t.Errorf("%s = %v, %v; %s = %v, %v", upper, a, err, lower, b, err2)
		}
	}
}
