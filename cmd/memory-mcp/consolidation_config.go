package main

import (
	"fmt"

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
	}
}
