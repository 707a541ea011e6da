package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/memory-mcp/memory-mcp/store"
)

// HoldLease takes the data directory's maintenance lease for holder, for d,
// as a maintenance run would: whether it got it, and the lease.
func HoldLease(tb testing.TB, db *store.DB, holder string, d time.Duration) (store.Lease, bool) {
	tb.Helper()
	var l store.Lease
	var ok bool
	err := db.Update(context.Background(), func(tx *store.Tx) (err error) {
		l, ok, err = tx.AcquireLease(context.Background(), store.LeaseMaintenance, holder, d)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return l, ok
}
