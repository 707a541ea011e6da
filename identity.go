package memory

import (
	"context"
	"slices"
	"strings"
	"time"
)

// Seniority orders agents for write access: junior < mid < senior < lead <
// principal. It is a string because that is how it is stored, sent and
// described in every schema; Rank gives the order.
type Seniority string

// Seniority levels, lowest first.
const (
	SeniorityJunior    Seniority = "junior"
	SeniorityMid       Seniority = "mid"
	SenioritySenior    Seniority = "senior"
	SeniorityLead      Seniority = "lead"
	SeniorityPrincipal Seniority = "principal"
)

// Seniorities lists every seniority, lowest first.
var Seniorities = []Seniority{SeniorityJunior, SeniorityMid, SenioritySenior, SeniorityLead, SeniorityPrincipal}

// Rank is s's place in the order, 1 (junior) to 5 (principal); 0 for none.
func (s Seniority) Rank() int { return slices.Index(Seniorities, s) + 1 }

// AtLeast reports whether s is min or above. No seniority is below every level.
func (s Seniority) AtLeast(min Seniority) bool { return s.Rank() >= min.Rank() && s.Rank() > 0 }

// String returns s, or "unknown" when it is not a seniority.
func (s Seniority) String() string {
	if s.Rank() == 0 {
		return "unknown"
	}
	return string(s)
}

// ParseSeniority parses "junior", "mid", "senior", "lead" or "principal", in any case.
func ParseSeniority(s string) (Seniority, error) {
	v := Seniority(strings.ToLower(strings.TrimSpace(s)))
	if v.Rank() > 0 {
		return v, nil
	}
	return "", Errorf(EINVALID, "unknown seniority %q: use one of junior, mid, senior, lead, principal", s)
}

// Autonomy is how freely an agent acts without review. It is recorded with
// every write for audit; it does not by itself grant write access.
type Autonomy string

// Autonomy levels, most restricted first.
const (
	AutonomyLocked     Autonomy = "locked"
	AutonomySupervised Autonomy = "supervised"
	AutonomySemi       Autonomy = "semi"
	AutonomyFull       Autonomy = "full"
)

// ParseAutonomy parses "locked", "supervised", "semi" or "full".
func ParseAutonomy(s string) (Autonomy, error) {
	switch a := Autonomy(strings.ToLower(strings.TrimSpace(s))); a {
	case AutonomyLocked, AutonomySupervised, AutonomySemi, AutonomyFull:
		return a, nil
	}
	return "", Errorf(EINVALID, "unknown autonomy %q: use one of locked, supervised, semi, full", s)
}

// Identity is who is calling. It comes from the server's configuration (stdio)
// or from a bearer token (HTTP), never from tool arguments.
type Identity struct {
	AgentID   string    `json:"agent_id"`
	Seniority Seniority `json:"seniority,omitempty"`
	Autonomy  Autonomy  `json:"autonomy"`
	Human     bool      `json:"is_human"`
}

// Describe names the identity for messages: `agent "bob" (junior)` or `human "alice"`.
func (id Identity) Describe() string {
	if id.Human {
		return `human "` + id.AgentID + `"`
	}
	return `agent "` + id.AgentID + `" (` + id.Seniority.String() + `)`
}

type identityKey struct{}

// WithIdentity returns a context that carries id.
func WithIdentity(ctx context.Context, id Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// IdentityFrom returns the identity carried by ctx. The second result is false
// when none was set, which services must treat as "no access".
func IdentityFrom(ctx context.Context) (Identity, bool) {
	id, ok := ctx.Value(identityKey{}).(Identity)
	return id, ok
}

// RequireIdentity returns the caller's identity or an EFORBIDDEN error.
func RequireIdentity(ctx context.Context) (Identity, error) {
	id, ok := IdentityFrom(ctx)
	if !ok || id.AgentID == "" {
		return Identity{}, Errorf(EFORBIDDEN, "no caller identity: the server was started without an agent id")
	}
	return id, nil
}

// TargetAgent returns the agent whose memories a call is about: the caller,
// when agent is empty or the caller's own id; another agent only for a human
// caller (verb says what the call would do, for the refusal).
func TargetAgent(who Identity, agent, verb string) (string, error) {
	if agent == "" || agent == who.AgentID {
		return who.AgentID, nil
	}
	if !who.Human {
		return "", Errorf(EFORBIDDEN, "only a human may %s another agent; you are %s: leave agent_id out to act on your own memories", verb, who.Describe())
	}
	return agent, CheckID("agent_id", agent)
}

// Clock returns the current time. Services take one so that time travel,
// retention and decay are testable without sleeping.
type Clock func() time.Time

// Now returns the time from c, or the wall clock in UTC when c is nil.
func (c Clock) Now() time.Time {
	if c == nil {
		return time.Now().UTC()
	}
	return c().UTC()
}
