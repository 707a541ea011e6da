package memory

import (
	"context"
	"slices"
	"strings"
	"time"
)

// ConflictKind says how two memories were found to contradict each other.
type ConflictKind string

// Conflict kinds.
const (
	ConflictNegation ConflictKind = "negation" // one denies what the other says, or says its opposite (enabled / disabled)
	ConflictValue    ConflictKind = "value"    // the same thing with another number, amount, date, day, time or name
	ConflictStated   ConflictKind = "stated"   // the writer said the new memory supersedes the old (remember's supersedes)
	ConflictModel    ConflictKind = "model"    // the language model judged them contradictory
)

// Clash is how a newer text contradicts an older one.
type Clash struct {
	Kind ConflictKind
	// Slot is the kind of value that differs (number, amount, percent,
	// time, date, day, year, name), or "" for a negation.
	Slot string
	// Older and Newer are what differs, as written: the values, or for a
	// negation the two statements' polarities ("says" / "denies").
	Older, Newer string
	// Whole reports that the older text is the one claim that clashes: a
	// single sentence, so replacing it loses nothing else it said.
	Whole bool
	// Why is what a model said of the pair (kind model).
	Why string
}

// ContradictionMode says what remember does with a contradiction it finds.
type ContradictionMode string

// Contradiction modes.
const (
	// ContradictionsSupersede lets the newer memory supersede the older
	// when that loses nothing (see the store's rules), and leaves the rest
	// open.
	ContradictionsSupersede ContradictionMode = "supersede"
	// ContradictionsFlag leaves every contradiction open for review.
	ContradictionsFlag ContradictionMode = "flag"
	// ContradictionsOff looks for none (remember's supersedes still works).
	ContradictionsOff ContradictionMode = "off"
)

// ParseContradictionMode reads a contradiction mode.
func ParseContradictionMode(s string) (ContradictionMode, error) {
	switch m := ContradictionMode(strings.ToLower(strings.TrimSpace(s))); m {
	case ContradictionsSupersede, ContradictionsFlag, ContradictionsOff:
		return m, nil
	}
	return "", Errorf(EINVALID, "contradictions %q is not one of supersede, flag, off", s)
}

// Judgement is a model's reading of two statements: whether the newer
// contradicts the older (both cannot be true of the same thing at once),
// or says the same (a paraphrase: the semantic tier of dedup), how sure it
// is (0 to 1), and why, in a few words.
type Judgement struct {
	Contradicts bool
	Same        bool
	Score       float64
	Reason      string
}

// ContradictionJudge asks a model whether newer contradicts older or says
// the same (seed 003's NLI step: a contradiction, or entailment both ways).
// It sees the two texts only; an error leaves the pair to the rules.
type ContradictionJudge func(ctx context.Context, older, newer string) (Judgement, error)

// ConflictResolution says how a conflict between two memories stands.
type ConflictResolution string

// Conflict resolutions.
const (
	ConflictOpen      ConflictResolution = "open"       // both stand until someone decides
	ConflictNewerWins ConflictResolution = "newer_wins" // the older memory is superseded by the newer
	ConflictOlderWins ConflictResolution = "older_wins" // the newer memory is superseded by the older
	ConflictBothHold  ConflictResolution = "both_hold"  // both are true: no contradiction
)

// ConflictResolutions lists every resolution.
var ConflictResolutions = []ConflictResolution{ConflictOpen, ConflictNewerWins, ConflictOlderWins, ConflictBothHold}

// ConflictSubject says what a conflict is between.
type ConflictSubject string

// Conflict subjects.
const (
	ConflictOfMemories ConflictSubject = "memories" // two memories of one agent, or two shared memories
	ConflictOfFacts    ConflictSubject = "facts"    // two organisational facts
)

// FactConflictPrefix begins the id of every conflict between facts.
const FactConflictPrefix = "fcf_"

// IsFactConflict reports whether id names a conflict between facts.
func IsFactConflict(id string) bool { return strings.HasPrefix(id, FactConflictPrefix) }

// SharedConflictPrefix begins the id of every conflict between shared
// memories (found by publish_memory; the two may be two agents'). Only a
// human decides one: keeping one retracts the other from every agent.
const SharedConflictPrefix = "scf_"

// IsSharedConflict reports whether id names a conflict between shared
// memories.
func IsSharedConflict(id string) bool { return strings.HasPrefix(id, SharedConflictPrefix) }

// Conflict is a contradiction between two of an agent's memories, found
// when the newer was remembered (by the rules of Contradicts, or stated by
// its writer), or between two organisational facts, found when the newer
// was published, and how it stands. The memory that lost is archived with
// reason superseded and points to the one that won; it stays recallable.
// The fact that lost is retracted.
type Conflict struct {
	ID      string          `json:"id"`
	Subject ConflictSubject `json:"subject"`
	// AgentID is whose memories (empty for facts; between shared memories,
	// the agent whose publish found it).
	AgentID string       `json:"agent_id"`
	OlderID string       `json:"older_id"`
	NewerID string       `json:"newer_id"`
	Kind    ConflictKind `json:"kind"`
	// Slot, OlderValue and NewerValue say what differs: for a value the
	// kind of value (number, amount, percent, time, date, day, year, name)
	// and the two values as written; for a negation which one says and
	// which denies.
	Slot       string             `json:"slot,omitempty"`
	OlderValue string             `json:"older_value,omitempty"`
	NewerValue string             `json:"newer_value,omitempty"`
	Resolution ConflictResolution `json:"resolution"`
	DetectedAt time.Time          `json:"detected_at"`
	DetectedBy string             `json:"detected_by"`
	ResolvedAt *time.Time         `json:"resolved_at,omitempty"`
	ResolvedBy string             `json:"resolved_by,omitempty"`
	// Reason is why it was decided; for a model's finding, until decided,
	// what the model said.
	Reason string `json:"reason,omitempty"`
	// Older and Newer are the two memories as they are now (in listings).
	Older *Entry `json:"older,omitempty"`
	Newer *Entry `json:"newer,omitempty"`
	// OlderFact and NewerFact are the two facts as they are now, and
	// OlderVersion and NewerVersion the versions that clashed.
	OlderFact    *Fact `json:"older_fact,omitempty"`
	NewerFact    *Fact `json:"newer_fact,omitempty"`
	OlderVersion int   `json:"older_version,omitempty"`
	NewerVersion int   `json:"newer_version,omitempty"`
	// Decided: someone decided it, rather than the rules finding or
	// settling it (facts).
	Decided bool `json:"decided,omitempty"`
}

// ConflictQuery selects conflicts to list.
type ConflictQuery struct {
	// Subject is what between: memories, facts, or empty for both (an
	// AgentID narrows to memories).
	Subject ConflictSubject
	// AgentID is whose conflicts: the caller's (empty), or for a human any
	// agent's; a human leaving it empty lists every agent's.
	AgentID     string
	Resolutions []ConflictResolution // empty: open
	// MemoryID narrows to the conflicts with this memory on either side.
	MemoryID string
	Limit    int
}

// Check resolves the query's defaults (open conflicts, DefaultSearchLimit)
// and bounds its limit.
func (q *ConflictQuery) Check() error {
	limit, err := CheckLimit(q.Limit, DefaultSearchLimit, MaxSearchLimit)
	if err != nil {
		return err
	}
	q.Limit = limit
	if len(q.Resolutions) == 0 {
		q.Resolutions = []ConflictResolution{ConflictOpen}
	}
	if q.MemoryID != "" {
		return CheckID("memory_id", q.MemoryID)
	}
	return nil
}

// ParseConflictSubject reads what conflicts are between: memories, facts,
// or "" for both.
func ParseConflictSubject(s string) (ConflictSubject, error) {
	switch c := ConflictSubject(strings.ToLower(strings.TrimSpace(s))); c {
	case "", ConflictOfMemories, ConflictOfFacts:
		return c, nil
	}
	return "", Errorf(EINVALID, "subject %q is not one of memories, facts", s)
}

// ParseConflictResolutions validates resolution names; empty means open,
// "all" every resolution.
func ParseConflictResolutions(names []string) ([]ConflictResolution, error) {
	if len(names) == 0 {
		return []ConflictResolution{ConflictOpen}, nil
	}
	var out []ConflictResolution
	for _, n := range names {
		n = strings.ToLower(strings.TrimSpace(n))
		if n == "all" {
			return ConflictResolutions, nil
		}
		r := ConflictResolution(n)
		if !slices.Contains(ConflictResolutions, r) {
			return nil, Errorf(EINVALID, "unknown resolution %q: use open, newer_wins, older_wins, both_hold or all", n)
		}
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out, nil
}

// ParseKeep reads what resolve_conflict keeps: newer, older or both.
func ParseKeep(s string) (ConflictResolution, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "newer":
		return ConflictNewerWins, nil
	case "older":
		return ConflictOlderWins, nil
	case "both":
		return ConflictBothHold, nil
	}
	return "", Errorf(EINVALID, "keep %q is not one of newer, older, both", s)
}
