package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

// OpenPageSession records a review-page sign-in: the session's id hash
// (the SHA-256 of the id the browser keeps), the hash of the credential it
// was opened with (so that revoking that token ends it), the identity it
// signs in and when it expires. Sessions that ended or expired are dropped
// in the same transaction, so the table holds the live ones and a few.
func (db *DB) OpenPageSession(ctx context.Context, idHash, credentialHash []byte, who memory.Identity, expires time.Time) error {
	return db.Update(WithoutCall(ctx), func(tx *Tx) error {
		now := nanos(tx.Now())
		if _, err := tx.exec(ctx, `DELETE FROM page_sessions WHERE expires_at <= ? OR ended_at IS NOT NULL`, now); err != nil {
			return fmt.Errorf("drop ended sessions: %w", err)
		}
		_, err := tx.exec(ctx, `INSERT INTO page_sessions (id_hash, credential_hash, agent_id, seniority, autonomy, is_human, created_at, expires_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, idHash, credentialHash, who.AgentID, string(who.Seniority), string(who.Autonomy), who.Human,
			now, nanos(expires))
		if err != nil {
			return fmt.Errorf("open session: %w", err)
		}
		return nil
	})
}

// PageSessionByHash returns the session whose id hash is idHash, ended,
// expired or revoked too (the caller decides, and says which); ENOTFOUND
// when there is none. It runs on every request of a signed-in page, on the
// read pool.
func (db *DB) PageSessionByHash(ctx context.Context, idHash []byte) (memory.PageSession, error) {
	var s memory.PageSession
	err := db.View(ctx, func(tx *Tx) error {
		var seniority, autonomy string
		var created, expires int64
		var ended sql.NullInt64
		err := tx.queryRow(ctx, `SELECT s.agent_id, s.seniority, s.autonomy, s.is_human, s.created_at, s.expires_at, s.ended_at,
			t.revoked_at IS NOT NULL
			FROM page_sessions s LEFT JOIN auth_tokens t ON t.hash = s.credential_hash WHERE s.id_hash = ?`, idHash).
			Scan(&s.Identity.AgentID, &seniority, &autonomy, &s.Identity.Human, &created, &expires, &ended, &s.Revoked)
		if errors.Is(err, sql.ErrNoRows) {
			return memory.Errorf(memory.ENOTFOUND, "no such session")
		}
		if err != nil {
			return fmt.Errorf("read session: %w", err)
		}
		s.Identity.Seniority, s.Identity.Autonomy = memory.Seniority(seniority), memory.Autonomy(autonomy)
		s.CreatedAt, s.ExpiresAt, s.EndedAt = fromNanos(created), fromNanos(expires), fromNullNanos(ended)
		return nil
	})
	return s, err
}

// EndPageSession ends the session whose id hash is idHash (its person
// signed out), for every process at its next request. Ending one that
// ended, expired or never was changes nothing.
func (db *DB) EndPageSession(ctx context.Context, idHash []byte) error {
	return db.Update(WithoutCall(ctx), func(tx *Tx) error {
		if _, err := tx.exec(ctx, `UPDATE page_sessions SET ended_at = ? WHERE id_hash = ? AND ended_at IS NULL`, nanos(tx.Now()), idHash); err != nil {
			return fmt.Errorf("end session: %w", err)
		}
		return nil
	})
}

// SigningKey returns the database's key named name, making it (32 random
// bytes) the first time any process asks: every process on the database
// signs with the same key, and a restart keeps it.
func (db *DB) SigningKey(ctx context.Context, name string) ([]byte, error) {
	var key []byte
	err := db.Update(WithoutCall(ctx), func(tx *Tx) error {
		fresh := make([]byte, 32)
		rand.Read(fresh)
		if _, err := tx.exec(ctx, `INSERT INTO signing_keys (name, key, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING`,
			name, fresh, nanos(tx.Now())); err != nil {
			return fmt.Errorf("make signing key %s: %w", name, err)
		}
		if err := tx.queryRow(ctx, `SELECT key FROM signing_keys WHERE name = ?`, name).Scan(&key); err != nil {
			return fmt.Errorf("read signing key %s: %w", name, err)
		}
		return nil
	})
	return key, err
}
