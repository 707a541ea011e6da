package gate

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"

	memory "github.com/memory-mcp/memory-mcp"
)

// riskRule is one row of the classification table: the tier of a call of
// tool, or of one whose arguments meet a condition.
type riskRule struct {
	name string // tool, or tool:condition
	tier memory.RiskTier
	// when, for a conditional rule, says whether a call meets it, by its
	// arguments or by what it would change (subject).
	when func(args map[string]any, subject memory.Subject) bool
	why  string // for the README and the setting's help
	// ledger: what a human reviews of the call is what it commits to the
	// shared state's ledger, not its arguments (see store.ApprovalRequest).
	ledger bool
}

// reviewsLedger reports whether a review of a call classified by rule is
// of the ledger events it commits.
func reviewsLedger(rule string) bool {
	for _, r := range riskRules {
		if r.name == rule {
			return r.ledger
		}
	}
	return false
}

// riskRules is the classification table (seed 003, 12.6.2), in one place.
// The seed weighs a write's layer, blast radius and novelty; here those are
// what the tool does: an agent's own memory, note or block is its own
// business (low); what every agent then sees or the team's state is medium;
// a rule every agent must obey, and withdrawing what others may rely on, is
// high. A conditional rule wins over its tool's. A tool that writes and has
// no row is high: a new tool is held until someone decides its tier.
// Humans are the approvers: their own writes are low whatever the table
// says.
var riskRules = []riskRule{
	{name: "remember", tier: memory.RiskLow, why: "the agent's own memory"},
	{name: "forget", tier: memory.RiskLow, why: "the agent's own memory, kept as a soft delete"},
	{name: "restore_memory", tier: memory.RiskLow, why: "the agent's own archived memory"},
	{name: "resolve_conflict", tier: memory.RiskLow, why: "the agent's own memories, superseded not deleted"},
	{name: "resolve_conflict:fact", tier: memory.RiskHigh, why: "keeping one fact retracts the other", when: retractsFact},
	{name: "consolidate_memory", tier: memory.RiskLow, why: "the agent's own memories, archived not deleted (only a human may name another agent)"},
	{name: "record_distillation", tier: memory.RiskLow, why: "a record of the agent's own task"},
	{name: "memory", tier: memory.RiskLow, why: "the agent's own memory files, each edit a new version (view and history only read: no gate)"},
	{name: "memory:shared", tier: memory.RiskMedium, why: "a file under /memories/shared, which other agents read", when: sharedPath},
	{name: "memory_block_create", tier: memory.RiskLow, why: "a personal block"},
	{name: "memory_block_create:shared", tier: memory.RiskMedium, why: "a block other agents see", when: argTrue("shared")},
	{name: "memory_block_append", tier: memory.RiskLow, why: "a block edit, a new version"},
	{name: "memory_block_append:shared", tier: memory.RiskMedium, why: "an edit of a block other agents read", when: sharedBlock},
	{name: "memory_block_insert", tier: memory.RiskLow, why: "a block edit, a new version"},
	{name: "memory_block_insert:shared", tier: memory.RiskMedium, why: "an edit of a block other agents read", when: sharedBlock},
	{name: "memory_block_replace", tier: memory.RiskLow, why: "a block edit, a new version"},
	{name: "memory_block_replace:shared", tier: memory.RiskMedium, why: "an edit of a block other agents read", when: sharedBlock},
	{name: "memory_block_rethink", tier: memory.RiskLow, why: "a block edit, a new version"},
	{name: "memory_block_rethink:shared", tier: memory.RiskMedium, why: "an edit of a block other agents read", when: sharedBlock},
	{name: "memory_block_restore", tier: memory.RiskLow, why: "a block edit, a new version"},
	{name: "memory_block_restore:shared", tier: memory.RiskMedium, why: "an edit of a block other agents read", when: sharedBlock},
	{name: "memory_block_delete", tier: memory.RiskLow, why: "a block edit, a new version"},
	{name: "memory_block_delete:shared", tier: memory.RiskMedium, why: "an edit of a block other agents read", when: sharedBlock},
	{name: "write_note", tier: memory.RiskLow, why: "the agent's working memory"},
	{name: "write_note:promote", tier: memory.RiskMedium, why: "promotes into the team's shared state", when: argTrue("promote"), ledger: true},
	{name: "promote_notes", tier: memory.RiskMedium, why: "the team's shared state", ledger: true},
	{name: "resolve_pending", tier: memory.RiskMedium, why: "the team's shared state", ledger: true},
	{name: "publish_memory", tier: memory.RiskMedium, why: "every agent sees it"},
	{name: "publish_fact", tier: memory.RiskMedium, why: "an organisational fact every agent reads"},
	{name: "publish_fact:core_policy", tier: memory.RiskHigh, why: "a core policy every agent obeys, or a new version of one (in any category)", when: corePolicy},
	{name: "retract_fact", tier: memory.RiskHigh, why: "withdraws knowledge other agents may rely on"},
	{name: "retract_memory", tier: memory.RiskHigh, why: "withdraws shared knowledge other agents may rely on"},
	{name: "decide_approval", tier: memory.RiskLow, why: "humans only"},
	{name: "erase", tier: memory.RiskHigh, why: "removes for good (humans only)"},
	{name: "finetune", tier: memory.RiskHigh, why: "replaces every memory's vector (humans only)"},
}

func argTrue(name string) func(map[string]any, memory.Subject) bool {
	return func(args map[string]any, _ memory.Subject) bool { return args[name] == true }
}

// corePolicy: publish_fact of a core policy, or of a new version of one,
// whatever category the call gives it (moving a policy out of core policy
// withdraws it as much as retracting it would).
func corePolicy(args map[string]any, subject memory.Subject) bool {
	return argIs("category", string(memory.FactCorePolicy))(args) || subject.FactCategory == memory.FactCorePolicy
}

// sharedBlock: an edit of a block that other agents read.
func sharedBlock(_ map[string]any, subject memory.Subject) bool { return subject.SharedBlock }

// sharedPath: a memory tool call whose path, old_path or new_path lies
// under /memories/shared.
func sharedPath(args map[string]any, _ memory.Subject) bool {
	for _, arg := range []string{"path", "old_path", "new_path"} {
		s, _ := args[arg].(string)
		if p, err := memory.ParseMemoryPath(arg, s); err == nil && p.Shared {
			return true
		}
	}
	return false
}

// needsSubject reports whether a call of tool is classified by what it
// would change, which the gate then reads from the store.
func needsSubject(tool string) bool {
	return tool == "publish_fact" || strings.HasPrefix(tool, "memory_block_") && tool != "memory_block_create"
}

// retractsFact: resolve_conflict on a conflict between facts keeping one,
// which retracts the other (as retract_fact would).
func retractsFact(args map[string]any, _ memory.Subject) bool {
	id, _ := args["id"].(string)
	keep, _ := args["keep"].(string)
	return memory.IsFactConflict(strings.TrimSpace(id)) && !strings.EqualFold(strings.TrimSpace(keep), "both")
}

func argIs(name, value string) func(map[string]any) bool {
	return func(args map[string]any) bool {
		s, _ := args[name].(string)
		return strings.EqualFold(strings.TrimSpace(s), value)
	}
}

// RiskTiers are the tiers of the classification table's rules, by name,
// after configuration.
type RiskTiers map[string]memory.RiskTier

// DefaultRiskTiers returns the classification table's tiers.
func DefaultRiskTiers() RiskTiers {
	out := RiskTiers{}
	for _, r := range riskRules {
		out[r.name] = r.tier
	}
	return out
}

// RiskRules returns the table's rule names in its order, with each one's
// default tier and why, for documentation.
func RiskRules() [][3]string {
	var out [][3]string
	for _, r := range riskRules {
		out = append(out, [3]string{r.name, string(r.tier), r.why})
	}
	return out
}

// ParseRiskTiers reads the risk-tiers setting: comma-separated rule=tier
// overriding the table, e.g. "publish_fact=high,retract_memory=medium". A
// rule is a tool that writes (one of tools) or a conditional rule of the
// table (publish_fact:core_policy); "" keeps the table.
func ParseRiskTiers(s string, tools []string) (RiskTiers, error) {
	out := DefaultRiskTiers()
	s = strings.TrimSpace(s)
	if s == "" {
		return out, nil
	}
	given := map[string]bool{}
	for part := range strings.SplitSeq(s, ",") {
		name, tier, ok := strings.Cut(strings.TrimSpace(part), "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, memory.Errorf(memory.EINVALID, "risk tier %q: write rule=tier, e.g. publish_fact=high", part)
		}
		if _, inTable := out[name]; !inTable && !slices.Contains(tools, name) {
			return nil, memory.Errorf(memory.EINVALID, "risk tier %q: %q is neither a tool that writes nor a rule of the table; use one of %s",
				part, name, strings.Join(ruleNames(tools), ", "))
		}
		if given[name] {
			return nil, memory.Errorf(memory.EINVALID, "risk tier for %s given twice", name)
		}
		given[name] = true
		t, err := memory.ParseRiskTier(strings.TrimSpace(tier))
		if err != nil {
			return nil, memory.Errorf(memory.EINVALID, "risk tier %q: %s", part, memory.ErrorMessage(err))
		}
		out[name] = t
	}
	return out, nil
}

func ruleNames(tools []string) []string {
	names := slices.Clone(tools)
	for _, r := range riskRules {
		if !slices.Contains(names, r.name) {
			names = append(names, r.name)
		}
	}
	sort.Strings(names)
	return names
}

// String renders the tiers that differ from the table, as ParseRiskTiers
// reads them.
func (t RiskTiers) String() string {
	def := DefaultRiskTiers()
	var parts []string
	for k, v := range t {
		if def[k] != v {
			parts = append(parts, k+"="+string(v))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// Classify returns the tier of a call of tool with args (JSON) by who, which
// would change subject, and the rule that gave it.
func (t RiskTiers) Classify(who memory.Identity, tool string, args []byte, subject memory.Subject) (memory.RiskTier, string) {
	if who.Human {
		return memory.RiskLow, "human"
	}
	var m map[string]any // read only for a tool with a conditional rule
	for _, r := range riskRules {
		if r.when == nil || !strings.HasPrefix(r.name, tool+":") {
			continue
		}
		if m == nil {
			json.Unmarshal(args, &m) // arguments the tool cannot read fail in the tool
		}
		if r.when(m, subject) {
			return t[r.name], r.name
		}
	}
	if tier, ok := t[tool]; ok {
		return tier, tool
	}
	return memory.RiskHigh, tool + " (no rule)"
}
