package memory

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Retention says how long an agent's personal memories stay in search,
// per category (seed 001, "Per-Agent Retention Overrides"). A memory older
// than its period (by when it was written) is archived, never deleted:
// restore_memory brings it back.
type Retention struct {
	// Company is the company's rule per category and its default.
	Company RetentionRules
	// Agents overrides the company's rules for single agents.
	Agents map[string]RetentionRules
}

// RetentionRules are periods per category and a default for the rest.
type RetentionRules struct {
	Categories map[Category]time.Duration
	Default    *time.Duration // nil: no default at this level
}

// Period resolves the period of agent's memories of category c, in the
// seed's order: the agent's rule for the category, the company's rule for
// it, the agent's default, the company's default, and otherwise keep
// forever (ok false).
func (r Retention) Period(agent string, c Category) (time.Duration, bool) {
	own := r.Agents[agent]
	if d, ok := own.Categories[c]; ok {
		return d, true
	}
	if d, ok := r.Company.Categories[c]; ok {
		return d, true
	}
	if own.Default != nil {
		return *own.Default, true
	}
	if r.Company.Default != nil {
		return *r.Company.Default, true
	}
	return 0, false
}

// ParseRetentionRules reads rules written as comma-separated
// category=age pairs, "default" naming the default: "working=7d,
// episodic=90d, default=365d". Empty is no rule.
func ParseRetentionRules(field, s string) (RetentionRules, error) {
	var r RetentionRules
	for pair := range strings.SplitSeq(s, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		name, age, ok := strings.Cut(pair, "=")
		if !ok {
			return r, Errorf(EINVALID, "%s: %q is not category=age (e.g. episodic=90d)", field, pair)
		}
		if err := r.set(field, strings.TrimSpace(name), strings.TrimSpace(age)); err != nil {
			return r, err
		}
	}
	return r, nil
}

// set records one rule: a category's period, or with name "default" the
// default.
func (r *RetentionRules) set(field, name, age string) error {
	d, err := ParseAge(field+" "+name, age)
	if err != nil {
		return err
	}
	if d == nil || *d <= 0 {
		return Errorf(EINVALID, "%s: %s=%q: give a period longer than 0, or leave the rule out to keep forever", field, name, age)
	}
	if strings.ToLower(name) == "default" {
		if r.Default != nil {
			return Errorf(EINVALID, "%s: default is given twice", field)
		}
		r.Default = d
		return nil
	}
	c := Category(strings.ToLower(name))
	if !slices.Contains(Categories, c) {
		return Errorf(EINVALID, "%s: unknown category %q: use working, episodic, semantic, procedural, social or default", field, name)
	}
	if _, dup := r.Categories[c]; dup {
		return Errorf(EINVALID, "%s: %s is given twice", field, c)
	}
	if r.Categories == nil {
		r.Categories = map[Category]time.Duration{}
	}
	r.Categories[c] = *d
	return nil
}

// ParseRetentionOverrides reads per-agent rules as a JSON object from
// agent id to rules: {"ann": {"episodic": "14d", "default": "30d"}}.
func ParseRetentionOverrides(field, s string) (map[string]RetentionRules, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var raw map[string]map[string]string
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return nil, Errorf(EINVALID, `%s is not a JSON object of agent ids to rules, e.g. {"ann": {"episodic": "14d", "default": "30d"}}: %v`, field, err)
	}
	out := map[string]RetentionRules{}
	for agent, rules := range raw {
		if err := CheckID(field+" agent id", agent); err != nil {
			return nil, err
		}
		var r RetentionRules
		for _, name := range slices.Sorted(maps.Keys(rules)) {
			if err := r.set(fmt.Sprintf("%s %s", field, agent), name, rules[name]); err != nil {
				return nil, err
			}
		}
		out[agent] = r
	}
	return out, nil
}
