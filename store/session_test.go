package store_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

// TestPageSessions: a session is found by its id's hash with the identity
// it signed in; ending it is seen by another handle on the file (another
// process); revoking the token it was opened with marks it revoked; a
// session opened with a credential that is no token of ours (an OAuth
// access token) is never revoked; ended and expired sessions are dropped
// when the next one opens.
func TestPageSessions(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, clk := openDB(t)
		ctx := context.Background()
		hashOf := func(s string) []byte { h := sha256.Sum256([]byte(s)); return h[:] }
		olivia := memory.Identity{AgentID: "olivia", Seniority: memory.SeniorityLead, Autonomy: memory.AutonomySemi, Human: true}
		if _, err := db.AddToken(ctx, memory.Token{ID: "tok-1", CreatedBy: "op", Identity: olivia}, hashOf("token")); err != nil {
			t.Fatal(err)
		}
		expires := clk.Peek().Add(time.Hour)
		for _, s := range []struct{ id, credential string }{{"s1", "token"}, {"s2", "token"}, {"s3", "a jwt"}} {
			if err := db.OpenPageSession(ctx, hashOf(s.id), hashOf(s.credential), olivia, expires); err != nil {
				t.Fatal(err)
			}
		}
		got, err := db.PageSessionByHash(ctx, hashOf("s1"))
		if err != nil || got.Identity != olivia || !got.ExpiresAt.Equal(expires) || got.EndedAt != nil || got.Revoked {
			t.Fatalf("PageSessionByHash = %+v, %v", got, err)
		}
		if _, err := db.PageSessionByHash(ctx, hashOf("never")); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Fatalf("an unknown session: %v", err)
		}
		other := reopen(t, db)
		if err := other.EndPageSession(ctx, hashOf("s1")); err != nil {
			t.Fatal(err)
		}
		if got, _ := db.PageSessionByHash(ctx, hashOf("s1")); got.EndedAt == nil {
			t.Fatal("a session ended by another process reads as live")
		}
		if _, err := db.RevokeToken(ctx, "tok-1", "op"); err != nil {
			t.Fatal(err)
		}
		if got, _ := db.PageSessionByHash(ctx, hashOf("s2")); !got.Revoked {
			t.Fatal("a session whose token was revoked reads as live")
		}
		if got, _ := db.PageSessionByHash(ctx, hashOf("s3")); got.Revoked || got.EndedAt != nil {
			t.Fatalf("the OAuth sign-in after the token's revocation: %+v", got)
		}
		clk.Advance(2 * time.Hour)
		if err := db.OpenPageSession(ctx, hashOf("s4"), hashOf("a jwt"), olivia, clk.Peek().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"s1", "s3"} {
			if _, err := db.PageSessionByHash(ctx, hashOf(id)); memory.ErrorCode(err) != memory.ENOTFOUND {
				t.Errorf("session %s, ended or expired, is still kept (%v)", id, err)
			}
		}
	})
}

// TestSigningKey: the first process to ask makes the key; every other
// handle on the file, and a reopened one, gets the same; another name gets
// another key; the key cannot be changed.
func TestSigningKey(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		ctx := context.Background()
		k1, err := db.SigningKey(ctx, "review-forms")
		if err != nil || len(k1) != 32 {
			t.Fatalf("SigningKey = %x, %v", k1, err)
		}
		other := reopen(t, db)
		if k2, err := other.SigningKey(ctx, "review-forms"); err != nil || !bytes.Equal(k1, k2) {
			t.Fatalf("another process's key %x (%v), want %x", k2, err, k1)
		}
		if k3, _ := other.SigningKey(ctx, "something else"); bytes.Equal(k1, k3) {
			t.Fatal("two names share a key")
		}
		if _, err := db.SQL().Exec(rawSQL(db, `UPDATE signing_keys SET key = ?`), make([]byte, 32)); err == nil || !strings.Contains(err.Error(), "never changes") {
			t.Fatal("a signing key was changed")
		}
	})
}
