package main

import (
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// envOnly are the variables the binary reads that are no setting (no flag,
// no file key: secrets), each with where the configuration keeps it.
var envOnly = map[string]func(*Config) string{
	"MEMORY_MCP_EMBEDDING_API_KEY": func(c *Config) string { return c.EmbeddingAPIKey },
	"MEMORY_MCP_PROVENANCE_KEY":    func(c *Config) string { return c.ProvenanceKey },
}

var (
	settingsHeader = regexp.MustCompile(`^\|\s*flag\s*\|\s*environment\s*\|\s*default\s*\|\s*meaning\s*\|$`)
	codeCell       = regexp.MustCompile("^`([^`]*)`$")
	tableCell      = regexp.MustCompile(`(?:\\\||[^|])*`)
)

// configDocProblems lists where the settings tables of doc (rows of flag,
// environment, default, meaning) and the settings ss disagree: a setting
// with no row, a row for no setting, a row whose variable is not the
// setting's, or whose default, written as one code span, is not the
// setting's default.
func configDocProblems(doc string, ss []setting) []string {
	var problems []string
	rows := map[string]bool{}
	byName := map[string]setting{}
	for _, s := range ss {
		byName[s.name] = s
	}
	inTable := false
	for line := range strings.Lines(doc) {
		line = strings.TrimSpace(line)
		if settingsHeader.MatchString(line) {
			inTable = true
			continue
		}
		if !strings.HasPrefix(line, "|") {
			inTable = false
		}
		if !inTable || strings.HasPrefix(line, "|---") || strings.HasPrefix(line, "| ---") {
			continue
		}
		cells := tableCell.FindAllString(strings.Trim(line, "|"), -1)
		if len(cells) != 4 {
			problems = append(problems, "a row of "+strings.Join(cells, ",")+" has not 4 cells: "+line)
			continue
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		flag, env, def := strings.Trim(cells[0], "`"), strings.Trim(cells[1], "`"), cells[2]
		if flag == "" {
			if envOnly[env] == nil {
				problems = append(problems, "a row for "+env+", which the binary does not read")
			}
			rows[env] = true
			continue
		}
		name, ok := strings.CutPrefix(flag, "--")
		s, known := byName[name]
		if !ok || !known {
			problems = append(problems, "a row for "+flag+", which is no setting")
			continue
		}
		if rows[name] {
			problems = append(problems, "two rows for "+flag)
		}
		rows[name] = true
		if env != EnvName(name) {
			problems = append(problems, flag+"'s row gives the variable "+env+", not "+EnvName(name))
		}
		if m := codeCell.FindStringSubmatch(def); m != nil && !strings.HasPrefix(m[1], "$") && !sameDefault(m[1], s.def()) {
			problems = append(problems, flag+"'s row gives the default "+m[1]+", the binary's is "+s.def())
		}
	}
	for _, s := range ss {
		if !rows[s.name] {
			problems = append(problems, "--"+s.name+" ("+EnvName(s.name)+") has no row")
		}
	}
	for env := range envOnly {
		if !rows[env] {
			problems = append(problems, env+" has no row")
		}
	}
	slices.Sort(problems)
	return problems
}

// sameDefault says whether a default as documented is the binary's: the
// same text, or the same duration (2m for 2m0s).
func sameDefault(doc, bin string) bool {
	if doc == bin {
		return true
	}
	a, err1 := time.ParseDuration(doc)
	b, err2 := time.ParseDuration(bin)
	return err1 == nil && err2 == nil && a == b
}

// docs/configuration.md has a row for every setting the binary defines,
// and for no other, each with the setting's variable and default: a
// setting added without its row fails here.
func TestConfigurationDocListsEverySetting(t *testing.T) {
	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	noEnv := func(string) string { return "" }
	ss := settings(noEnv)
	for _, p := range configDocProblems(string(doc), ss) {
		t.Error("docs/configuration.md: " + p)
	}

	// The variables read apart from the settings reach the configuration.
	for env, get := range envOnly {
		cfg, err := LoadConfig([]string{"--data-dir", t.TempDir()}, mapEnv(map[string]string{env: strings.Repeat("ab", 32)}), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if get(cfg) != strings.Repeat("ab", 32) {
			t.Errorf("%s does not reach the configuration", env)
		}
	}

	// The check sees each kind of disagreement.
	bad := "| flag | environment | default | meaning |\n|---|---|---|---|\n" +
		"| `--agent-id` | `MEMORY_MCP_AGENT` | your login name | x |\n" +
		"| `--seniority` | `MEMORY_MCP_SENIORITY` | `senior` | x |\n" +
		"| `--no-such-thing` | `MEMORY_MCP_NO_SUCH_THING` | | x |\n" +
		"| | `MEMORY_MCP_EMBEDDING_API_KEY` | | x |\n| | `MEMORY_MCP_SECRET` | | x |\n"
	got := configDocProblems(bad, ss)
	for _, want := range []string{
		"--agent-id's row gives the variable MEMORY_MCP_AGENT, not MEMORY_MCP_AGENT_ID",
		"--seniority's row gives the default senior, the binary's is mid",
		"a row for --no-such-thing, which is no setting",
		"a row for MEMORY_MCP_SECRET, which the binary does not read",
		"--data-dir (MEMORY_MCP_DATA_DIR) has no row",
		"MEMORY_MCP_PROVENANCE_KEY has no row",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("the check of a bad table misses %q; it says %q", want, got)
		}
	}
	if slices.Contains(got, "--seniority (MEMORY_MCP_SENIORITY) has no row") {
		t.Errorf("a row with a wrong default counts as missing: %q", got)
	}
}
