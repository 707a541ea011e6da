package store

import "context"

// RekeyDedup runs migrations 0043's and 0048's Go step in tx.
func RekeyDedup(ctx context.Context, tx *Tx) error {
	st := sqliteRekey
	if tx.db.postgres {
		st = postgresRekey
	}
	return rekeyDedup(ctx, tx.sql, st)
}

// RefillTerms runs migration 0044's PostgreSQL Go step in tx, which sets
// back the guards on terms and length that 0044's SQL lifts.
func RefillTerms(ctx context.Context, tx *Tx) error { return refillTerms(ctx, tx.sql) }

// PostgresTerms is the tsvector text the store writes as a row's terms.
var PostgresTerms = postgresTerms

// IndexedLength is the length the store writes for a memory.
var IndexedLength = indexedLength

// SetRewriteBatch makes migration steps read and write n rows a
// statement, for a test, and returns the undo.
func SetRewriteBatch(n int) func() {
	old := rewriteBatch
	rewriteBatch = n
	return func() { rewriteBatch = old }
}
