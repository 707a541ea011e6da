package consolidation

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/memory-mcp/memory-mcp/store"
)

// hold is a run's lease on the data directory's maintenance: one run at a
// time, whichever process starts it. Every write of the run goes through
// write, which renews the lease and checks its token in the write's own
// transaction, so a run that stalled past its lease and was taken over
// stops at its next write instead of racing the run that took over.
type hold struct {
	s     *Service
	mu    sync.Mutex // one write at a time: the run's and keepAlive's
	lease store.Lease
}

// acquire takes the maintenance lease for a run, or returns nil and why
// not: who holds it, and until when.
func (s *Service) acquire(ctx context.Context) (*hold, string, error) {
	var l store.Lease
	var ok bool
	// Taking the lease is not the run's write: a gated call's first write
	// is its first group's.
	err := s.DB.Update(store.WithoutCall(ctx), func(tx *store.Tx) (err error) {
		l, ok, err = tx.AcquireLease(ctx, store.LeaseMaintenance, s.holder(), s.leaseFor())
		return err
	})
	switch {
	case err != nil:
		return nil, "", err
	case !ok:
		return nil, fmt.Sprintf("another maintenance run holds this data directory's lease: %s, since %s, until %s unless it renews it; try again when it is done",
			l.Holder, l.AcquiredAt.Format(time.RFC3339), l.ExpiresAt.Format(time.RFC3339)), nil
	}
	s.log().Debug("maintenance lease acquired", "holder", l.Holder, "token", l.Token, "until", l.ExpiresAt)
	return &hold{s: s, lease: l}, "", nil
}

// write runs fn in one transaction after renewing the lease, which fails
// the transaction if the lease was taken over. It returns how long the
// transaction held the database's write lock.
func (h *hold) write(ctx context.Context, fn func(tx *store.Tx, l store.Lease) error) (time.Duration, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var began time.Time
	var renewed store.Lease
	err := h.s.DB.Update(ctx, func(tx *store.Tx) (err error) {
		began = time.Now()
		if renewed, err = tx.RenewLease(ctx, h.lease, h.s.leaseFor()); err != nil {
			return err
		}
		return fn(tx, renewed)
	})
	held := time.Since(began)
	if err == nil {
		h.lease = renewed
	}
	return held, err
}

// keepAlive renews the lease every third of its length until the returned
// stop is called, so that a run waiting on a slow model (the llm strategy's
// retries can outlast a lease) keeps it between its writes. A renewal that
// fails (the lease was taken over) ends it; the run's next write says so.
func (h *hold) keepAlive(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(h.s.leaseFor() / 3)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if _, err := h.write(store.WithoutCall(ctx), func(*store.Tx, store.Lease) error { return nil }); err != nil {
				if ctx.Err() == nil {
					h.s.log().Warn("maintenance lease not renewed", "err", err)
				}
				return
			}
		}
	}()
	return func() { cancel(); <-done }
}

// release frees the lease (if still held), recording, when the run
// maintained the whole of agent's memories, that it did. It runs even when
// ctx is done (the server is stopping, the caller went away), so that the
// next run need not wait for the lease to expire.
func (h *hold) release(ctx context.Context, agent string, finished bool) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	err := h.s.DB.Update(store.WithoutCall(ctx), func(tx *store.Tx) error {
		if finished {
			if err := tx.FinishRun(ctx, h.lease, agent); err != nil {
				return err
			}
		}
		return tx.ReleaseLease(ctx, h.lease)
	})
	if err != nil {
		// It expires on its own; meanwhile other runs skip or wait.
		h.s.log().Warn("maintenance lease not released", "token", h.lease.Token, "until", h.lease.ExpiresAt, "err", err)
	}
}

func (s *Service) holder() string { return cmp.Or(s.Holder, "consolidation") }

func (s *Service) leaseFor() time.Duration { return cmp.Or(s.Config.Lease, DefaultConfig().Lease) }
