package main

import (
	"fmt"
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
		{"consolidation-older-than", "consolidate only memories written longer ago than this, e.g. 36h or 7d; 0 consolidates everything", constant("1d"),
			func(c *Config, v string) error {
				d, err := memory.ParseAge("consolidation-older-than", v)
				if err != nil || d == nil {
					return fmt.Errorf("%q is not an age such as 36h or 7d", v)
				}
				c.Consolidation.OlderThan = *d
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
