package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"

	"github.com/memory-mcp/memory-mcp/internal/text"
)

// fillMeaningKeys gives the memories written before the semantic tier
// their meaning keys, so that a paraphrase of one of them is found.
func fillMeaningKeys(ctx context.Context, tx *Tx) error {
	type row struct {
		pk      int64
		content string
	}
	todo, err := collect(ctx, tx, `SELECT pk, content FROM memories`, func(rows *sql.Rows, r *row) error {
		return rows.Scan(&r.pk, &r.content)
	})
	if err != nil {
		return err
	}
	for _, r := range todo {
		key := text.MeaningKey(r.content)
		if key == "" {
			continue
		}
		if _, err := tx.sql.ExecContext(ctx, `UPDATE memories SET meaning_key = ? WHERE pk = ?`, key, r.pk); err != nil {
			return err
		}
	}
	return nil
}

// rekeyTexts is migration 0022's Go step: every memory's dedup keys and
// claims, and every fact's words key and (active facts) claims, derived
// again by the text rules as they now are, so that a memory written before
// is found as a repeat, or a contradiction, as one written after would be.
func rekeyTexts(ctx context.Context, tx *Tx) error {
	has := func(q string, want int) (bool, error) {
		var n int
		err := tx.sql.QueryRowContext(ctx, q).Scan(&n)
		return n == want, err
	}
	claims, err := has(`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'memory_claims'`, 1)
	if err != nil {
		return err
	}
	keys, err := has(`SELECT count(*) FROM pragma_table_info('memories') WHERE name IN ('exact_key', 'meaning_key')`, 2)
	if err != nil {
		return err
	}
	if claims && keys {
		// 0009, 0010 and 0018 came before it (when one comes after, it
		// keys what it adds by the rules as they are then).
		if _, err := tx.sql.ExecContext(ctx, `DELETE FROM memory_claims`); err != nil {
			return err
		}
		if err := keyMemories(ctx, tx, "1"); err != nil {
			return err
		}
	}
	facts, err := has(`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'fact_claims'`, 1)
	if err != nil || !facts {
		return err
	}
	if _, err := tx.sql.ExecContext(ctx, `DELETE FROM fact_claims`); err != nil {
		return err
	}
	return fillFactKeys(ctx, tx)
}

// keyMemories sets the dedup keys of the memories where cond holds (SQL)
// and records their claims, a shared copy's as the shared space's.
func keyMemories(ctx context.Context, tx *Tx, cond string) error {
	type row struct {
		pk             int64
		agent, content string
		shared         bool
	}
	todo, err := collect(ctx, tx, `SELECT pk, agent_id, content, shared FROM memories WHERE `+cond, func(rows *sql.Rows, r *row) error {
		return rows.Scan(&r.pk, &r.agent, &r.content, &r.shared)
	})
	if err != nil {
		return err
	}
	for _, r := range todo {
		k := keysOf(r.content, false)
		// Not tx.exec: its statements are prepared for the database, which
		// does not see a migration's changes until it commits.
		if _, err := tx.sql.ExecContext(ctx, `UPDATE memories SET exact_key = ?, words_key = ?, meaning_key = ? WHERE pk = ?`,
			k.exact, k.words, nullString(k.meaning, k.meaning != ""), r.pk); err != nil {
			return err
		}
		agent := r.agent
		if r.shared {
			agent = sharedClaims
		}
		if _, err := tx.sql.ExecContext(ctx, `INSERT OR IGNORE INTO memory_claims (agent_id, claim, value, memory_pk)
			SELECT ?1, value ->> 0, value ->> 1, ?2 FROM json_each(?3)`, agent, r.pk, claimList(k.claims)); err != nil {
			return err
		}
	}
	return nil
}

// rekeyStatements adapt rekeyDedup's statements, written with SQLite's
// placeholders, to one engine.
type rekeyStatements struct{ bind func(string) string }

var (
	sqliteRekey   = rekeyStatements{func(q string) string { return q }}
	postgresRekey = rekeyStatements{rebindParams}
)

// rekeyDedup is migrations 0043's, 0048's and 0050's Go step, on either
// engine: every memory's dedup keys (exact, words, meaning) and every
// fact's words key derived again by the text rules as they now are (0043:
// case kept where it carries meaning, a number's separators, identifiers
// and -s nouns of their own; 0048: paths, units, amounts and code marks;
// 0050: camel case, capitals after a determiner, a question's mark,
// "been", contractions), so that a repeat of a memory written before is
// found as one written after would be. Only the rows whose keys changed are written, a page of
// rows a statement (rowRewrite).
func rekeyDedup(ctx context.Context, tx *sql.Tx, st rekeyStatements) error {
	if err := memoryKeys.run(ctx, tx, st.bind, math.MinInt64); err != nil {
		return fmt.Errorf("rekey memories: %w", err)
	}
	if err := factKeys.run(ctx, tx, st.bind, ""); err != nil {
		return fmt.Errorf("rekey facts: %w", err)
	}
	return nil
}

// memoryKeys is rekeyDedup's rewrite of the memories' keys.
var memoryKeys = rowRewrite[int64]{
	read:    `SELECT pk, content, exact_key, words_key, meaning_key FROM memories WHERE pk > ? ORDER BY pk LIMIT ?`,
	table:   "memories",
	key:     "pk",
	columns: []string{"exact_key text", "words_key text", "meaning_key text"},
	rewrite: func(rows *sql.Rows) (int64, []any, error) {
		var pk int64
		var content string
		var e, w, m sql.NullString
		if err := rows.Scan(&pk, &content, &e, &w, &m); err != nil {
			return 0, nil, err
		}
		exact, words := text.DedupKeys(content)
		meaning := text.MeaningKey(content)
		if e.String == exact && w.String == words && m.String == meaning && m.Valid == (meaning != "") {
			return pk, nil, nil
		}
		return pk, []any{exact, words, nullString(meaning, meaning != "")}, nil
	},
}

// factKeys is rekeyDedup's rewrite of the facts' words keys. A fact id
// is never empty (memory.CheckID), so the first page, after "", starts at
// the first fact.
var factKeys = rowRewrite[string]{
	read:    `SELECT fact_id, content, coalesce(words_key, '') FROM snapshot WHERE fact_id > ? ORDER BY fact_id LIMIT ?`,
	table:   "snapshot",
	key:     "fact_id",
	columns: []string{"words_key text"},
	rewrite: func(rows *sql.Rows) (string, []any, error) {
		var id, content, old string
		if err := rows.Scan(&id, &content, &old); err != nil {
			return "", nil, err
		}
		if _, words := text.DedupKeys(content); words != old {
			return id, []any{words}, nil
		}
		return id, nil, nil
	},
}
