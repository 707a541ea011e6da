package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/memory-mcp/memory-mcp/store"
)

// BenchmarkProvenanceVerify fills a database with 100k memories of about
// 150 bytes (as written before stamps, in one transaction), then times
// stamping them all (verify --trust-unstamped) and verifying them all
// (verify), and prints both.
func BenchmarkProvenanceVerify(b *testing.B) {
	const n = 100_000
	for range b.N {
		db, err := store.Open(context.Background(), filepath.Join(b.TempDir(), store.FileName))
		if err != nil {
			b.Fatal(err)
		}
		tx, err := db.SQL().Begin()
		if err != nil {
			b.Fatal(err)
		}
		for i := range n {
			_, err := tx.Exec(`INSERT INTO memories (id, agent_id, namespace, category, content, tags, confidence, shared,
				created_at, updated_at, occurred_at, source, author_seniority, author_autonomy, filters)
				VALUES (?, ?, 'default', 'episodic', ?, '["bench","provenance"]', 0.8, 0, ?, ?, ?, 'bench', 'mid', 'semi', '')`,
				fmt.Sprintf("mem-%012d", i), fmt.Sprintf("agent-%d", i%10),
				fmt.Sprintf("Memory %d: the deploy of service %d moved to Thursday after the review; the on-call lead signed off at 14:%02d.", i, i%97, i%60),
				int64(i), int64(i), int64(i))
			if err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		if err := db.UseProvenanceKey(context.Background(), provKey); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		start := time.Now()
		stamped, err := db.TrustUnstamped(context.Background())
		stamping := time.Since(start)
		if err != nil || stamped["memories"] != n {
			b.Fatalf("stamped %v, %v", stamped, err)
		}
		start = time.Now()
		rep, err := db.Verify(context.Background())
		verifying := time.Since(start)
		b.StopTimer()
		if err != nil || rep.Tables[0].Valid != n {
			b.Fatalf("verify: %+v, %v", rep.Tables, err)
		}
		fmt.Printf("provenance memories=%d verify=%s (%.0f rows/s) trust-unstamped=%s (%.0f rows/s)\n", n,
			verifying.Round(time.Millisecond), n/verifying.Seconds(), stamping.Round(time.Millisecond), n/stamping.Seconds())
		db.Close()
	}
}
