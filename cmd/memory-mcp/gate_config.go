package main

import (
	"fmt"
	"strconv"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/gate"
	"github.com/memory-mcp/memory-mcp/tools"
)

// GateConfig configures the write gates in front of every tool that writes.
type GateConfig struct {
	Limits       memory.RateLimits
	Budget       int
	ExemptHumans bool
	KeyTTL       time.Duration
	Dedup        bool
	// Contradictions is what remember does with a memory it contradicts.
	Contradictions memory.ContradictionMode
	// Judge is who finds contradictions: rules, or rules and the LLM.
	Judge string
	// Approval turns the risk-tier gate on; Risk are its tiers and
	// ApprovalTimeout how long a held write waits for a human.
	Approval        bool
	Risk            gate.RiskTiers
	ApprovalTimeout time.Duration
}

// defaultRateLimits stop a runaway loop and leave ordinary use alone: ten
// writes a second, sustained, of every kind together.
const defaultRateLimits = "*=600/m"

// gateSettings are the write gates' settings.
func gateSettings() []setting {
	return []setting{
		{"rate-limits", "most writes each caller may make, as comma-separated tool=count/unit (unit s, m, h or d); " +
			"* is every tool that writes together, e.g. *=600/m,remember=120/m,publish_fact=20/m; off for none",
			constant(defaultRateLimits),
			func(c *Config, v string) (err error) {
				c.Gates.Limits, err = memory.ParseRateLimits(v, tools.WriteTools())
				return err
			}},
		{"write-budget", "most writes each caller may make in one run (on stdio, one client session; on serve, one UTC day across every node); 0 for no budget",
			constant("0"),
			func(c *Config, v string) error {
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 {
					return fmt.Errorf("%q is not 0 or a positive integer", v)
				}
				c.Gates.Budget = n
				return nil
			}},
		{"rate-limits-exempt-humans", "human callers pass the rate limits and the write budget (true/false)", constant("true"),
			func(c *Config, v string) (err error) {
				c.Gates.ExemptHumans, err = parseBool(v)
				return err
			}},
		{"idempotency-ttl", "how long a write's idempotency_key is kept: a repeat within it returns the first result, e.g. 24h or 7d",
			constant("1d"),
			func(c *Config, v string) error {
				d, err := memory.ParseAge("idempotency-ttl", v)
				if err != nil || d == nil || *d <= 0 {
					return fmt.Errorf("%q is not a positive age such as 24h or 7d", v)
				}
				c.Gates.KeyTTL = *d
				return nil
			}},
		{"dedup", "remember stores nothing when the memory repeats one the agent already has, in the same or nearly the same words, " +
			"and returns that one (true/false)", constant("true"),
			func(c *Config, v string) (err error) {
				c.Gates.Dedup, err = parseBool(v)
				return err
			}},
		{"contradictions", "what remember does with an earlier memory the new one contradicts (the same thing denied, or with another " +
			"day, number, amount, time or name): supersede (the older leaves search when nothing else it says is lost, and the rest " +
			"stay open for review), flag (every one stays open for review) or off", constant("supersede"),
			func(c *Config, v string) (err error) {
				c.Gates.Contradictions, err = memory.ParseContradictionMode(v)
				return err
			}},
		{"contradiction-judge", "who finds contradictions: rules (offline) or llm (the rules, and the LLM asked about the three " +
			"memories nearest a new one by keywords)", constant("rules"),
			func(c *Config, v string) error {
				if v != "rules" && v != "llm" {
					return fmt.Errorf("unknown contradiction judge %q: use rules or llm", v)
				}
				c.Gates.Judge = v
				return nil
			}},
		{"approval", "risk tiers and human approval: on (an agent's medium-risk writes are applied and queued for review, " +
			"its high-risk writes held until a human approves them with decide_approval) or off (every write is applied)",
			constant("on"),
			func(c *Config, v string) error {
				switch v {
				case "on", "off":
					c.Gates.Approval = v == "on"
					return nil
				}
				return fmt.Errorf("%q is not on or off", v)
			}},
		{"risk-tiers", "changes to the risk classification table, as comma-separated rule=tier (low, medium or high), where a rule " +
			"is a tool that writes or one of the table's conditions, e.g. publish_fact=high,retract_memory=medium,publish_fact:core_policy=medium; " +
			"empty keeps the table", constant(""),
			func(c *Config, v string) (err error) {
				c.Gates.Risk, err = gate.ParseRiskTiers(v, tools.WriteTools())
				return err
			}},
		{"approval-timeout", "how long a held write waits for a human's decision before it expires and is never applied, e.g. 24h or 3d",
			constant("1d"),
			func(c *Config, v string) error {
				d, err := memory.ParseAge("approval-timeout", v)
				if err != nil || d == nil || *d <= 0 {
					return fmt.Errorf("%q is not a positive age such as 24h or 3d", v)
				}
				c.Gates.ApprovalTimeout = *d
				return nil
			}},
	}
}

// newGates wires the write gates as cfg sets them.
func newGates(cfg *Config, a *app) *gate.Gates {
	g := gate.New(a.db)
	g.Limits, g.Budget, g.ExemptHumans, g.KeyTTL, g.Log = cfg.Gates.Limits, cfg.Gates.Budget, cfg.Gates.ExemptHumans, cfg.Gates.KeyTTL, a.log
	g.Approval, g.Risk, g.ApprovalTimeout = cfg.Gates.Approval, cfg.Gates.Risk, cfg.Gates.ApprovalTimeout
	return g
}
