package auth

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

// TestSessions: a session id is looked up on every use and holds only
// while it is neither signed out, revoked nor expired, each refusal saying
// which; an id never opened is refused; any other credential goes to the
// authenticator behind it; a server failure is not a refusal.
func TestSessions(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	olivia := memory.Identity{AgentID: "olivia", Human: true}
	live, liveHash := NewSession()
	ended, endedHash := NewSession()
	revoked, revokedHash := NewSession()
	old, oldHash := NewSession()
	broken, brokenHash := NewSession()
	rows := map[string]memory.PageSession{
		string(liveHash):    {Identity: olivia, ExpiresAt: now.Add(time.Hour)},
		string(endedHash):   {Identity: olivia, ExpiresAt: now.Add(time.Hour), EndedAt: &now},
		string(revokedHash): {Identity: olivia, ExpiresAt: now.Add(time.Hour), Revoked: true},
		string(oldHash):     {Identity: olivia, ExpiresAt: now},
	}
	lookup := func(_ context.Context, hash []byte) (memory.PageSession, error) {
		if string(hash) == string(brokenHash) {
			return memory.PageSession{}, context.DeadlineExceeded
		}
		s, ok := rows[string(hash)]
		if !ok {
			return s, memory.Errorf(memory.ENOTFOUND, "no such session")
		}
		return s, nil
	}
	next := func(_ context.Context, c string) (memory.Identity, error) {
		if c == "mmcp_token" {
			return memory.Identity{AgentID: "by-token"}, nil
		}
		return memory.Identity{}, invalidToken("unknown")
	}
	authn := Sessions(lookup, func() time.Time { return now }, next)
	never, _ := NewSession()
	for _, c := range []struct {
		name, credential, agent, refusal string
	}{
		{"live", live, "olivia", ""},
		{"signed out", ended, "", "signed out"},
		{"revoked", revoked, "", "revoked"},
		{"expired", old, "", "expired"},
		{"never opened", never, "", "not one this server opened"},
		{"a token", "mmcp_token", "by-token", ""},
		{"neither", "junk", "", "unknown"},
	} {
		who, err := authn(context.Background(), c.credential)
		bad, _ := err.(*Error)
		switch {
		case c.refusal == "" && (err != nil || who.AgentID != c.agent):
			t.Errorf("%s: %+v, %v; want %s", c.name, who, err, c.agent)
		case c.refusal != "" && (bad == nil || !strings.Contains(bad.Description, c.refusal)):
			t.Errorf("%s: %+v, %v; want refused for %q", c.name, who, err, c.refusal)
		}
	}
	if _, err := authn(context.Background(), broken); err == nil {
		t.Error("a lookup that failed let the session through")
	} else if _, refused := err.(*Error); refused {
		t.Errorf("a lookup that failed was taken for a refusal: %v", err)
	}
	if !strings.HasPrefix(live, SessionPrefix) || live == never {
		t.Errorf("session ids %q and %q", live, never)
	}
}

// TestExpiry: a JWT's exp is read; a token of ours has none.
func TestExpiry(t *testing.T) {
	enc := base64.RawURLEncoding.EncodeToString
	jwt := enc([]byte(`{"alg":"RS256"}`)) + "." + enc([]byte(`{"exp":1800000000}`)) + ".sig"
	if exp, ok := Expiry(jwt); !ok || exp.Unix() != 1800000000 {
		t.Errorf("Expiry(jwt) = %v, %v", exp, ok)
	}
	tok, _, _ := NewToken()
	if _, ok := Expiry(tok); ok {
		t.Error("a bearer token of ours has an expiry")
	}
}
