package memory_test

import (
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

// TestRetentionResolution: the seed's order, each level in turn.
func TestRetentionResolution(t *testing.T) {
	day := 24 * time.Hour
	company, err := memory.ParseRetentionRules("retention", "working=7d, episodic=90d")
	if err != nil {
		t.Fatal(err)
	}
	withDefault, _ := memory.ParseRetentionRules("retention", "working=7d,default=365d")
	agents, err := memory.ParseRetentionOverrides("retention-overrides",
		`{"ann": {"episodic": "14d", "default": "30d"}, "bob": {"social": "2d"}}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		r     memory.Retention
		agent string
		cat   memory.Category
		want  time.Duration // 0: keep forever
	}{
		{"agent per-category rule", memory.Retention{Company: company, Agents: agents}, "ann", memory.CategoryEpisodic, 14 * day},
		{"company per-category rule", memory.Retention{Company: company, Agents: agents}, "ann", memory.CategoryWorking, 7 * day},
		{"agent default", memory.Retention{Company: withDefault, Agents: agents}, "ann", memory.CategorySemantic, 30 * day},
		{"company default", memory.Retention{Company: withDefault, Agents: agents}, "bob", memory.CategorySemantic, 365 * day},
		{"agent rule over company default", memory.Retention{Company: withDefault, Agents: agents}, "bob", memory.CategorySocial, 2 * day},
		{"keep forever", memory.Retention{Company: company, Agents: agents}, "bob", memory.CategorySemantic, 0},
		{"no rules", memory.Retention{}, "ann", memory.CategoryWorking, 0},
	} {
		got, ok := c.r.Period(c.agent, c.cat)
		if ok != (c.want != 0) || got != c.want {
			t.Errorf("%s: %s/%s = %v, %v; want %v", c.name, c.agent, c.cat, got, ok, c.want)
		}
	}
}

func TestRetentionRulesRefuseNonsense(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"episodic", "not category=age"},
		{"episodes=3d", `unknown category "episodes"`},
		{"working=0d", "longer than 0"},
		{"working=soon", "not an age"},
		{"working=1d,working=2d", "given twice"},
		{"default=1d,default=2d", "default is given twice"},
	} {
		_, err := memory.ParseRetentionRules("retention", c.in)
		if memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want EINVALID containing %q", c.in, err, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{`["ann"]`, "not a JSON object"},
		{`{"ann": {"episodic": "-1d"}}`, "not an age"},
		{`{"bad id!": {"episodic": "1d"}}`, "agent id"},
	} {
		_, err := memory.ParseRetentionOverrides("retention-overrides", c.in)
		if memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want EINVALID containing %q", c.in, err, c.want)
		}
	}
}
