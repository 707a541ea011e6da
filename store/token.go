package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

const tokenColumns = `SELECT token_id, agent_id, seniority, autonomy, is_human, label, created_at, created_by, revoked_at, coalesce(revoked_by, '')
	FROM auth_tokens`

// AddToken stores t under hash, the SHA-256 of the token it records, stamped
// with the database clock, and returns it as stored.
func (db *DB) AddToken(ctx context.Context, t memory.Token, hash []byte) (memory.Token, error) {
	if err := t.Validate(); err != nil {
		return memory.Token{}, err
	}
	t.CreatedAt, t.RevokedAt, t.RevokedBy = db.Now.Now(), nil, ""
	err := db.Update(ctx, func(tx *Tx) error {
		_, err := tx.exec(ctx, `INSERT INTO auth_tokens (token_id, hash, agent_id, seniority, autonomy, is_human, label, created_at, created_by)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, t.ID, hash, t.Identity.AgentID, string(t.Identity.Seniority), string(t.Identity.Autonomy),
			t.Identity.Human, t.Label, nanos(t.CreatedAt), t.CreatedBy)
		if err != nil {
			return fmt.Errorf("insert token: %w", err)
		}
		return nil
	})
	return t, err
}

// TokenByHash returns the token whose hash is hash, revoked or not; ENOTFOUND
// when there is none. It runs on every authenticated request, on the read
// pool.
func (db *DB) TokenByHash(ctx context.Context, hash []byte) (memory.Token, error) {
	var t memory.Token
	err := db.View(ctx, func(tx *Tx) error {
		rows, err := tx.query(ctx, tokenColumns+` WHERE hash = ?`, hash)
		if err != nil {
			return fmt.Errorf("read token: %w", err)
		}
		ts, err := scanTokens(rows)
		if err != nil {
			return err
		}
		if len(ts) == 0 {
			return memory.Errorf(memory.ENOTFOUND, "no such token")
		}
		t = ts[0]
		return nil
	})
	return t, err
}

// Tokens lists every token, oldest first, revoked ones too.
func (db *DB) Tokens(ctx context.Context) ([]memory.Token, error) {
	var out []memory.Token
	err := db.View(ctx, func(tx *Tx) error {
		rows, err := tx.query(ctx, tokenColumns+` ORDER BY created_at, token_id`)
		if err != nil {
			return fmt.Errorf("list tokens: %w", err)
		}
		out, err = scanTokens(rows)
		return err
	})
	return out, err
}

// RevokeToken revokes token id as by, and returns it. A token revoked before
// stays revoked as it was (ECONFLICT says when, and by whom).
func (db *DB) RevokeToken(ctx context.Context, id, by string) (memory.Token, error) {
	var t memory.Token
	err := db.Update(ctx, func(tx *Tx) error {
		rows, err := tx.query(ctx, tokenColumns+` WHERE token_id = ?`, id)
		if err != nil {
			return fmt.Errorf("read token: %w", err)
		}
		ts, err := scanTokens(rows)
		switch {
		case err != nil:
			return err
		case len(ts) == 0:
			return memory.Errorf(memory.ENOTFOUND, "no token %q: `memory-mcp token list` shows the ids", id)
		case ts[0].RevokedAt != nil:
			return memory.Errorf(memory.ECONFLICT, "token %q was already revoked at %s by %s", id,
				ts[0].RevokedAt.Format(time.RFC3339), ts[0].RevokedBy)
		}
		t = ts[0]
		now := tx.Now()
		t.RevokedAt, t.RevokedBy = &now, by
		if _, err := tx.exec(ctx, `UPDATE auth_tokens SET revoked_at = ?, revoked_by = ? WHERE token_id = ?`, nanos(now), by, id); err != nil {
			return fmt.Errorf("revoke token: %w", err)
		}
		return nil
	})
	return t, err
}

func scanTokens(rows *sql.Rows) ([]memory.Token, error) {
	defer rows.Close()
	var out []memory.Token
	for rows.Next() {
		var t memory.Token
		var seniority, autonomy string
		var created int64
		var revoked sql.NullInt64
		if err := rows.Scan(&t.ID, &t.Identity.AgentID, &seniority, &autonomy, &t.Identity.Human, &t.Label, &created, &t.CreatedBy,
			&revoked, &t.RevokedBy); err != nil {
			return nil, fmt.Errorf("scan token: %w", err)
		}
		t.Identity.Seniority, t.Identity.Autonomy = memory.Seniority(seniority), memory.Autonomy(autonomy)
		t.CreatedAt, t.RevokedAt = fromNanos(created), fromNullNanos(revoked)
		out = append(out, t)
	}
	return out, errors.Join(rows.Err(), rows.Close())
}
