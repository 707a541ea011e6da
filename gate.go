package memory

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// The write gates (seed 003's write path) stand between every mutating tool
// and its service, in this order: idempotency, rate limit, then the service's
// own validation, dedup and commit, each write recorded with its outcome.
// The first two know nothing of what is written and run for every tool
// alike; dedup needs the neighbours of what is written and runs inside the
// service's transaction.

// WriteCall is one call of a mutating tool as the gates see it.
type WriteCall struct {
	Tool string
	// Key is the caller's idempotency_key ("" for none): a repeat with the
	// same key and the same arguments returns the first result.
	Key string
	// Args are the call's arguments without the key, as canonical JSON.
	Args []byte
}

// ErrKeyReused marks (errors.Is) the ECONFLICT that refuses an idempotency
// key already used for a call with other arguments or another tool: sending
// the same key again cannot succeed, so a form that carries it needs a new
// one.
var ErrKeyReused = errors.New("the idempotency key was used for another call")

// WriteGates are the gates in front of every mutating tool.
type WriteGates interface {
	// Run passes call c through the gates in front of its service and, if
	// they admit it, runs fn, which makes the call's writes with the context
	// it is given. A repeat of an earlier call's idempotency key and
	// arguments runs nothing and returns the first call's result: its
	// structured part as JSON (a []byte).
	Run(ctx context.Context, c WriteCall, fn func(context.Context) (result any, text string, err error)) (any, string, error)
}

// MaxIdempotencyKeyLen bounds an idempotency key.
const MaxIdempotencyKeyLen = 200

// CheckIdempotencyKey checks a caller's idempotency key: printable, one
// line, at most MaxIdempotencyKeyLen bytes.
func CheckIdempotencyKey(k string) error {
	if k == "" || len(k) > MaxIdempotencyKeyLen {
		return Errorf(EINVALID, "idempotency_key must be 1 to %d bytes, e.g. a UUID made once per intended write and sent again with every retry of it", MaxIdempotencyKeyLen)
	}
	for _, r := range k {
		if !unicode.IsPrint(r) {
			return Errorf(EINVALID, "idempotency_key may hold only printable characters on one line")
		}
	}
	return nil
}

// WriteOutcome is how a write ended, as the write log records it.
type WriteOutcome string

// Write outcomes.
const (
	WriteOutcomeStored    WriteOutcome = "stored"    // committed as a new write
	WriteOutcomeDuplicate WriteOutcome = "duplicate" // nothing stored: it repeated an existing memory (DuplicateOf)
	WriteOutcomeMerged    WriteOutcome = "merged"    // it repeated a memory with tags it lacked: stored as their merge, which supersedes it
	WriteOutcomeReplayed  WriteOutcome = "replayed"  // a repeat of an idempotency key: the first result returned
	WriteOutcomeRejected  WriteOutcome = "rejected"  // refused by a gate or failed in the service, with a reason
	WriteOutcomeUnchanged WriteOutcome = "unchanged" // succeeded without writing: a dry run, nothing to do, a skipped run
	WriteOutcomeHeld      WriteOutcome = "held"      // not applied: it waits for a human's approval (Ref names it)
)

// WriteRecord is one line of the write log: how a call of a tool that
// writes ended, and which gate decided.
type WriteRecord struct {
	At        time.Time
	Principal string
	Tool      string
	Outcome   WriteOutcome
	Gate      string // the gate that decided an outcome other than stored
	Reason    string // rejected: the error code; duplicate: the tier that found it
	Ref       string // the memory stored or found
	Latency   time.Duration
	Gates     map[string]time.Duration // time spent in each gate
}

// Principal names an identity for the gates' per-caller state (idempotency
// keys, rate limits): an agent and a human of the same name are two callers.
func (id Identity) Principal() string {
	if id.Human {
		return "human:" + id.AgentID
	}
	return "agent:" + id.AgentID
}

// RateLimit is a token bucket: Burst writes at once, refilled at Burst per
// Per.
type RateLimit struct {
	Burst int
	Per   time.Duration
}

// String renders the limit as ParseRateLimits reads it.
func (l RateLimit) String() string {
	for _, u := range rateUnits {
		if l.Per == u.d {
			return strconv.Itoa(l.Burst) + "/" + u.name
		}
	}
	return strconv.Itoa(l.Burst) + "/" + l.Per.String()
}

var rateUnits = []struct {
	name string
	d    time.Duration
}{{"s", time.Second}, {"m", time.Minute}, {"h", time.Hour}, {"d", 24 * time.Hour}}

// RateLimits are the write limits per caller: by tool, and AnyTool for every
// mutating tool together. A call must pass both its tool's limit and the
// AnyTool limit.
type RateLimits map[string]RateLimit

// AnyTool is the RateLimits key of the limit on all writes together.
const AnyTool = "*"

// String renders the limits as ParseRateLimits reads them, sorted.
func (ls RateLimits) String() string {
	var parts []string
	for k, l := range ls {
		parts = append(parts, k+"="+l.String())
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// ParseRateLimits reads the rate-limits setting: comma-separated
// tool=count/unit (unit s, m, h or d, or a Go duration such as 90s), for
// instance "*=300/m,remember=120/m,publish_fact=20/m". A count of 0 forbids
// the tool; "" or "off" sets no limit. tools is the set of tool names a
// limit may name besides "*".
func ParseRateLimits(s string, tools []string) (RateLimits, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "off" {
		return RateLimits{}, nil
	}
	out := RateLimits{}
	for part := range strings.SplitSeq(s, ",") {
		name, spec, ok := strings.Cut(strings.TrimSpace(part), "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, Errorf(EINVALID, "rate limit %q: write tool=count/unit, e.g. remember=120/m", part)
		}
		if name != AnyTool && !slices.Contains(tools, name) {
			return nil, Errorf(EINVALID, "rate limit %q: %q is not a tool that writes; use * or one of %s", part, name, strings.Join(tools, ", "))
		}
		if _, dup := out[name]; dup {
			return nil, Errorf(EINVALID, "rate limit for %s given twice", name)
		}
		n, per, ok := strings.Cut(strings.TrimSpace(spec), "/")
		count, err := strconv.Atoi(strings.TrimSpace(n))
		if !ok || err != nil || count < 0 || count > math.MaxInt32 {
			return nil, Errorf(EINVALID, "rate limit %q: write tool=count/unit with a whole count, e.g. remember=120/m", part)
		}
		d, err := rateUnit(strings.TrimSpace(per))
		if err != nil {
			return nil, Errorf(EINVALID, "rate limit %q: the unit must be s, m, h, d or a duration such as 90s", part)
		}
		out[name] = RateLimit{Burst: count, Per: d}
	}
	return out, nil
}

func rateUnit(s string) (time.Duration, error) {
	for _, u := range rateUnits {
		if s == u.name {
			return u.d, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err == nil && d <= 0 {
		err = fmt.Errorf("not positive")
	}
	return d, err
}
