package store_test

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/memory-mcp/memory-mcp/store"
)

// BenchmarkMigrationSteps times the migration steps that rewrite every
// row, at 20,000 memories (MEMORY_MCP_BENCH_STEP_MEMORIES to change it),
// as they write now (a page of rows a statement, "page") and as they wrote
// before ("row", a statement per row), and reports the rows rewritten per
// second: migration 0048's re-key on both engines (every memory's keys
// wrong before it), and 0044's terms refill on PostgreSQL.
func BenchmarkMigrationSteps(b *testing.B) {
	size := 20_000
	if v := os.Getenv("MEMORY_MCP_BENCH_STEP_MEMORIES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("MEMORY_MCP_BENCH_STEP_MEMORIES: %q is not a number of memories", v)
		}
		size = n
	}
	ctx := context.Background()
	type step struct {
		name    string
		prepare []string // run before each rewrite, untimed
		run     func(context.Context, *store.Tx) error
	}
	rekey := []string{`UPDATE memories SET exact_key = 'old', words_key = 'old', meaning_key = 'old'`}
	refill := []string{`ALTER TABLE memories DISABLE TRIGGER memories_immutable`,
		`ALTER TABLE memories DISABLE TRIGGER memories_terms_once`,
		`ALTER TABLE operation_log DISABLE TRIGGER operation_log_terms_once`}
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			db, _ := e.open(b)
			fillMemories(b, db, size)
			steps := []step{{"rekey/row", rekey, store.RekeyDedupByRow}, {"rekey/page", rekey, store.RekeyDedup}}
			if e.name == "postgres" {
				steps = append(steps, step{"refill/row", refill, store.RefillTermsByRow}, step{"refill/page", refill, store.RefillTerms})
			}
			for _, s := range steps {
				b.Run(s.name, func(b *testing.B) {
					rows := 0
					for b.Loop() {
						err := db.Update(ctx, func(tx *store.Tx) error {
							b.StopTimer()
							for _, q := range s.prepare {
								if _, err := tx.SQL().ExecContext(ctx, q); err != nil {
									return err
								}
							}
							b.StartTimer()
							return s.run(ctx, tx)
						})
						if err != nil {
							b.Fatal(err)
						}
						rows += size
					}
					b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
				})
			}
		})
	}
}
