package store

import (
	"context"
	"database/sql"

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

// rekeyStatements are one engine's statements for rekeyDedup: set a
// memory's exact, words and meaning keys by pk, and a fact's words key by
// fact id.
type rekeyStatements struct{ memory, fact string }

var (
	sqliteRekey   = rekeyStatements{`UPDATE memories SET exact_key = ?, words_key = ?, meaning_key = ? WHERE pk = ?`, `UPDATE snapshot SET words_key = ? WHERE fact_id = ?`}
	postgresRekey = rekeyStatements{`UPDATE memories SET exact_key = $1, words_key = $2, meaning_key = $3 WHERE pk = $4`, `UPDATE snapshot SET words_key = $1 WHERE fact_id = $2`}
)

// rekeyDedup is migrations 0043's, 0048's and 0050's Go step, on either engine:
// every memory's dedup keys (exact, words, meaning) and every fact's words
// key derived again by the text rules as they now are (0043: case kept
// where it carries meaning, a number's separators, identifiers and -s
// nouns of their own; 0048: paths, units, amounts and code marks; 0050:
// camel case and capitals after a determiner),
// so that a repeat of a memory written before is found as one written
// after would be. Only the rows whose keys changed are written.
func rekeyDedup(ctx context.Context, tx *sql.Tx, st rekeyStatements) error {
	type row struct {
		pk                    int64
		content               string
		exact, words, meaning sql.NullString
	}
	rows, err := tx.QueryContext(ctx, `SELECT pk, content, exact_key, words_key, meaning_key FROM memories`)
	if err != nil {
		return err
	}
	var todo []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.pk, &r.content, &r.exact, &r.words, &r.meaning); err != nil {
			rows.Close()
			return err
		}
		exact, words := text.DedupKeys(r.content)
		meaning := text.MeaningKey(r.content)
		if r.exact.String != exact || r.words.String != words || r.meaning.String != meaning || r.meaning.Valid != (meaning != "") {
			todo = append(todo, row{pk: r.pk, exact: nullString(exact, true), words: nullString(words, true),
				meaning: nullString(meaning, meaning != "")})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, r := range todo {
		if _, err := tx.ExecContext(ctx, st.memory, r.exact, r.words, r.meaning, r.pk); err != nil {
			return err
		}
	}
	type fact struct{ id, content, words string }
	facts, err := tx.QueryContext(ctx, `SELECT fact_id, content, coalesce(words_key, '') FROM snapshot`)
	if err != nil {
		return err
	}
	var stale []fact
	for facts.Next() {
		var f fact
		if err := facts.Scan(&f.id, &f.content, &f.words); err != nil {
			facts.Close()
			return err
		}
		if _, words := text.DedupKeys(f.content); words != f.words {
			stale = append(stale, fact{id: f.id, words: words})
		}
	}
	facts.Close()
	if err := facts.Err(); err != nil {
		return err
	}
	for _, f := range stale {
		if _, err := tx.ExecContext(ctx, st.fact, f.words, f.id); err != nil {
			return err
		}
	}
	return nil
}
