package store_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
)

// TestTokens: a token is found by its hash with the identity it was given,
// listed, revoked once (a second revocation says when the first was), and
// its row can neither be deleted nor given another identity.
func TestTokens(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		ctx := context.Background()
		hash := sha256.Sum256([]byte("secret-1"))
		want := memory.Token{ID: "tok-1", Label: "ci runner", CreatedBy: "olivia",
			Identity: memory.Identity{AgentID: "builder", Seniority: memory.SenioritySenior, Autonomy: memory.AutonomyFull}}
		if _, err := db.AddToken(ctx, want, hash[:]); err != nil {
			t.Fatal(err)
		}
		human := sha256.Sum256([]byte("secret-2"))
		if _, err := db.AddToken(ctx, memory.Token{ID: "tok-2", CreatedBy: "olivia",
			Identity: memory.Identity{AgentID: "olivia", Seniority: memory.SeniorityLead, Autonomy: memory.AutonomySemi, Human: true}}, human[:]); err != nil {
			t.Fatal(err)
		}
		got, err := db.TokenByHash(ctx, hash[:])
		if err != nil || got.ID != "tok-1" || got.Identity != want.Identity || got.Label != "ci runner" || got.RevokedAt != nil || got.CreatedAt.IsZero() {
			t.Fatalf("TokenByHash = %+v, %v", got, err)
		}
		other := sha256.Sum256([]byte("never issued"))
		if _, err := db.TokenByHash(ctx, other[:]); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Fatalf("an unknown hash: %v", err)
		}
		list, err := db.Tokens(ctx)
		if err != nil || len(list) != 2 || list[0].ID != "tok-1" || !list[1].Identity.Human {
			t.Fatalf("Tokens = %+v, %v", list, err)
		}
		if r, err := db.RevokeToken(ctx, "tok-1", "olivia"); err != nil || r.RevokedAt == nil || r.RevokedBy != "olivia" {
			t.Fatalf("RevokeToken = %+v, %v", r, err)
		}
		if got, _ := db.TokenByHash(ctx, hash[:]); got.RevokedAt == nil {
			t.Fatal("a revoked token reads as live")
		}
		if _, err := db.RevokeToken(ctx, "tok-1", "olivia"); memory.ErrorCode(err) != memory.ECONFLICT || !strings.Contains(err.Error(), "already revoked") {
			t.Fatalf("a second revocation: %v", err)
		}
		if _, err := db.RevokeToken(ctx, "tok-9", "olivia"); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Fatalf("revoking an unknown token: %v", err)
		}
		if _, err := db.SQL().Exec(`DELETE FROM auth_tokens WHERE token_id = 'tok-2'`); err == nil || !strings.Contains(err.Error(), "revoked, not deleted") {
			t.Fatalf("delete: %v", err)
		}
		if _, err := db.SQL().Exec(`UPDATE auth_tokens SET is_human = 1 WHERE token_id = 'tok-1'`); err == nil || !strings.Contains(err.Error(), "never changes") {
			t.Fatalf("update of an identity: %v", err)
		}
		if list, _ := db.Tokens(ctx); len(list) != 2 || list[0].Identity.Human {
			t.Fatalf("after refused changes: %+v", list)
		}
		var stored []byte
		db.SQL().QueryRow(`SELECT hash FROM auth_tokens WHERE token_id = 'tok-2'`).Scan(&stored)
		if !bytes.Equal(stored, human[:]) {
			t.Fatalf("stored %x, want the hash", stored)
		}
	})
}

// TestTokenValidate refuses a record the server could not act on.
func TestTokenValidate(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		hash := sha256.Sum256([]byte("x"))
		for _, tt := range []struct {
			tok  memory.Token
			want string
		}{
			{memory.Token{ID: "t", Identity: memory.Identity{AgentID: "", Seniority: memory.SeniorityMid, Autonomy: memory.AutonomySemi}}, "agent_id is empty"},
			{memory.Token{ID: "t", Identity: memory.Identity{AgentID: "a b", Seniority: memory.SeniorityMid, Autonomy: memory.AutonomySemi}}, "may contain only"},
			{memory.Token{ID: "t", Identity: memory.Identity{AgentID: "a", Autonomy: memory.AutonomySemi}}, "no seniority"},
			{memory.Token{ID: "t", Identity: memory.Identity{AgentID: "a", Seniority: memory.SeniorityMid, Autonomy: "wild"}}, "unknown autonomy"},
			{memory.Token{ID: "t", Label: strings.Repeat("x", 201), Identity: memory.Identity{AgentID: "a", Seniority: memory.SeniorityMid, Autonomy: memory.AutonomySemi}}, "label"},
		} {
			if _, err := db.AddToken(context.Background(), tt.tok, hash[:]); memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("AddToken(%+v) = %v, want EINVALID containing %q", tt.tok.Identity, err, tt.want)
			}
		}
	})
}
