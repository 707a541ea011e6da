package finetune

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// leaseName names the lease of a fine-tuning run: one at a time in a data
// directory, whichever process starts it. Two runs would share the staging
// table, each clearing and overwriting the other's vectors, and the first
// to deploy would swap in a mix of both adapters' under its own id.
const leaseName = "finetune"

// leaseFor is how long a run holds the lease without renewing it; a run
// renews it every third of that while it lasts, so a crashed run frees the
// data directory within it.
const leaseFor = 5 * time.Minute

// fenceKey carries a run's lease in its context, for the run's writes to
// check (store's Fence fields).
type fenceKey struct{}

// fence is the lease of the run ctx belongs to (the zero Lease outside one).
func fence(ctx context.Context) store.Lease {
	l, _ := ctx.Value(fenceKey{}).(store.Lease)
	return l
}

// hold takes the fine-tuning lease for the run, renewing it until the
// returned release is called, and returns ctx carrying it: every write of
// the run checks it in its own transaction, so a run that stalled past its
// lease and was taken over writes nothing more. EBUSY names whoever holds it.
func (s *Service) hold(run context.Context) (fenced context.Context, release func(), err error) {
	ctx := store.WithoutCall(run) // bookkeeping: it claims no idempotency key
	host, _ := os.Hostname()
	holder := fmt.Sprintf("memory-mcp finetune on %s, process %d", host, os.Getpid())
	var l store.Lease
	var ok bool
	err = s.DB.Update(ctx, func(tx *store.Tx) error {
		if l, ok, err = tx.AcquireLease(ctx, leaseName, holder, leaseFor); err != nil || ok || !gone(l.Holder, host) {
			return err
		}
		// Its holder was killed on this machine: nothing will renew or
		// release it, and nothing of its run was deployed (a deployment is
		// one transaction).
		l, ok, err = tx.TakeOverLease(ctx, l, holder, leaseFor)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		return nil, nil, memory.Errorf(memory.EBUSY, "another fine-tuning run holds this data directory: %s, since %s, until %s unless it renews it; try again when it is done",
			l.Holder, l.AcquiredAt.Format(time.RFC3339), l.ExpiresAt.Format(time.RFC3339))
	}
	fenced = context.WithValue(run, fenceKey{}, l)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(leaseFor / 3)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if err := s.DB.Update(ctx, func(tx *store.Tx) (err error) { l, err = tx.RenewLease(ctx, l, leaseFor); return err }); err != nil {
					s.Log.Warn("fine-tuning lease not renewed", "err", err)
				}
			}
		}
	}()
	return fenced, func() {
		close(stop)
		<-done
		ctx := context.WithoutCancel(ctx)
		if err := s.DB.Update(ctx, func(tx *store.Tx) error { return tx.ReleaseLease(ctx, l) }); err != nil {
			s.Log.Warn("fine-tuning lease not released: it frees itself when it expires", "err", err, "expires", l.ExpiresAt)
		}
	}, nil
}

// gone reports whether holder names a process on this host that no longer
// runs.
func gone(holder, host string) bool {
	var h string
	var pid int
	if _, err := fmt.Sscanf(holder, "memory-mcp finetune on %s process %d", &h, &pid); err != nil || strings.TrimSuffix(h, ",") != host {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return true // Windows: no such process
	}
	if runtime.GOOS == "windows" {
		return false // it exists; Windows signals nothing but a kill
	}
	return errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone)
}
