package main

import (
	"fmt"
	"strconv"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/consolidation"
)

// consolidationSettings are the settings of consolidation, retention and
// archival (seed 001's ConsolidationConfig).
func consolidationSettings() []setting {
	d := consolidation.DefaultConfig()
	return []setting{
		{"consolidation-strategy", "how a group of memories becomes one summary: simple, dual_mode (offline) or llm (the LLM endpoint)",
			constant(string(d.Strategy)),
			func(c *Config, v string) (err error) {
				c.Consolidation.Strategy, err = memory.ParseConsolidationStrategy(v)
				if err == nil && c.Consolidation.Strategy == "" {
					err = fmt.Errorf("give a strategy: simple, dual_mode or llm")
				}
				return err
			}},
		{"consolidation-summarizer", "who writes dual_mode's summaries of conversational memories: offline (extraction, no model) or llm (the LLM endpoint; " +
			"falls back to truncation when it cannot answer)", constant(string(d.DualMode.Abstractive)),
			func(c *Config, v string) (err error) {
				c.Consolidation.DualMode.Abstractive, err = consolidation.ParseAbstractive(v)
				return err
			}},
		{"consolidation-older-than", "consolidate only memories written longer ago than this, e.g. 36h or 7d; 0 consolidates everything", constant("1d"),
			func(c *Config, v string) error {
				d, err := memory.ParseAge("consolidation-older-than", v)
				if err != nil || d == nil {
					return fmt.Errorf("%q is not an age such as 36h or 7d", v)
				}
				c.Consolidation.OlderThan = *d
				return nil
			}},
		{"retention", "how long memories stay in search, per category, as category=age pairs and a default: " +
			"e.g. working=7d,episodic=90d,default=365d; older memories are archived (restorable), empty keeps them forever", constant(""),
			func(c *Config, v string) (err error) {
				c.Consolidation.Retention.Company, err = memory.ParseRetentionRules("retention", v)
				return
			}},
		{"retention-overrides", `per-agent retention as JSON, e.g. {"ann": {"episodic": "14d", "default": "30d"}}; ` +
			"an agent's rule for a category comes first, then the company's for it, the agent's default, the company's default", constant(""),
			func(c *Config, v string) (err error) {
				c.Consolidation.Retention.Agents, err = memory.ParseRetentionOverrides("retention-overrides", v)
				return
			}},
		{"max-memories-per-agent", "most memories an agent keeps in search; beyond it maintenance archives the least valuable " +
			"(lowest confidence, then oldest); 0 for no cap", constant("0"),
			func(c *Config, v string) error {
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 {
					return fmt.Errorf("%q is not 0 or a positive integer", v)
				}
				c.Consolidation.MaxMemories = n
				return nil
			}},
		{"consolidation-interval", "how often the server maintains each agent's memories in the background, e.g. 12h or 1d; 0 turns it off " +
			"(the interval is the data directory's: several servers run each agent once per interval between them)", constant("1d"),
			func(c *Config, v string) error {
				d, err := memory.ParseAge("consolidation-interval", v)
				if err != nil || d == nil {
					return fmt.Errorf("%q is not an interval such as 12h or 1d (0: off)", v)
				}
				c.Consolidation.Interval = *d
				return nil
			}},
		{"gc-grace", "how long a forgotten, retracted or expired memory is kept (restorable) before gc purges it for good, e.g. 30d; " +
			"the server's scheduler purges at each consolidation-interval look, and 0 turns that off (memory-mcp gc then purges at once)",
			constant("30d"),
			func(c *Config, v string) error {
				d, err := memory.ParseAge("gc-grace", v)
				if err != nil || d == nil {
					return fmt.Errorf("%q is not an age such as 30d or 72h (0: no scheduled purge)", v)
				}
				c.Consolidation.GCGrace = *d
				return nil
			}},
		{"consolidation-lease", "how long a maintenance run holds the data directory without a write before another process may take over " +
			"(a crashed run's work resumes after it)", constant(d.Lease.String()),
			func(c *Config, v string) error {
				d, err := time.ParseDuration(v)
				if err != nil || d <= 0 {
					return fmt.Errorf("%q is not a positive duration such as 2m", v)
				}
				c.Consolidation.Lease = d
				return nil
			}},
	}
}
