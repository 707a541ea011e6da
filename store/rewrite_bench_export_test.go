package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/memory-mcp/memory-mcp/internal/text"
)

// RekeyDedupByRow and RefillTermsByRow are the steps as they were before
// they wrote a page of rows a statement (a statement per row, every row
// read before the first is written), kept for BenchmarkMigrationSteps to
// time beside the steps.
func RekeyDedupByRow(ctx context.Context, tx *Tx) error {
	st := rowRekey{`UPDATE memories SET exact_key = ?, words_key = ?, meaning_key = ? WHERE pk = ?`, `UPDATE snapshot SET words_key = ? WHERE fact_id = ?`}
	if tx.db.postgres {
		st = rowRekey{`UPDATE memories SET exact_key = $1, words_key = $2, meaning_key = $3 WHERE pk = $4`, `UPDATE snapshot SET words_key = $1 WHERE fact_id = $2`}
	}
	return rekeyDedupByRow(ctx, tx.sql, st)
}

// RefillTermsByRow: see RekeyDedupByRow.
func RefillTermsByRow(ctx context.Context, tx *Tx) error { return refillTermsByRow(ctx, tx.sql) }

// rowRekey were rekeyDedup's statements per engine, a row each.
type rowRekey struct{ memory, fact string }

func rekeyDedupByRow(ctx context.Context, tx *sql.Tx, st rowRekey) error {
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

func refillTermsByRow(ctx context.Context, t *sql.Tx) error {
	type row struct {
		key                    int64
		content, tags, filters string
	}
	read := func(q string) ([]row, error) {
		rows, err := t.QueryContext(ctx, q)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.key, &r.content, &r.tags, &r.filters); err != nil {
				return nil, err
			}
			out = append(out, r)
		}
		return out, rows.Err()
	}
	memories, err := read(`SELECT pk, content, tags, filters FROM memories ORDER BY pk`)
	if err != nil {
		return fmt.Errorf("refill terms: %w", err)
	}
	for _, r := range memories {
		var tags []string
		if err := json.Unmarshal([]byte(r.tags), &tags); err != nil {
			return fmt.Errorf("refill terms: tags of memory %d: %w", r.key, err)
		}
		if _, err := t.ExecContext(ctx, `UPDATE memories SET terms = $1::tsvector, length = $2 WHERE pk = $3`,
			postgresTerms(r.filters, r.content, r.tags), indexedLength(r.content, tags), r.key); err != nil {
			return fmt.Errorf("refill terms: %w", err)
		}
	}
	if err := fillRepeatTermsByRow(ctx, t); err != nil {
		return err
	}
	facts, err := read(`SELECT id, content, tags, '' FROM operation_log WHERE operation_type = 'PUBLISH' ORDER BY id`)
	if err != nil {
		return fmt.Errorf("refill terms: %w", err)
	}
	for _, r := range facts {
		if _, err := t.ExecContext(ctx, `UPDATE operation_log SET terms = $1::tsvector WHERE id = $2`, postgresTerms("", r.content, r.tags), r.key); err != nil {
			return fmt.Errorf("refill terms: %w", err)
		}
	}
	return guardTerms(ctx, t)
}
func fillRepeatTermsByRow(ctx context.Context, t *sql.Tx) error {
	type row struct {
		pk            int64
		content, tags string
	}
	rows, err := t.QueryContext(ctx, `SELECT pk, content, tags FROM memory_repeats WHERE terms IS NULL ORDER BY pk`)
	if err != nil {
		return fmt.Errorf("fill repeat terms: %w", err)
	}
	var todo []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.pk, &r.content, &r.tags); err != nil {
			rows.Close()
			return err
		}
		todo = append(todo, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, r := range todo {
		if _, err := t.ExecContext(ctx, `UPDATE memory_repeats SET terms = $1::tsvector WHERE pk = $2`, postgresTerms("", r.content, r.tags), r.pk); err != nil {
			return fmt.Errorf("fill repeat terms: %w", err)
		}
	}
	return nil
}
