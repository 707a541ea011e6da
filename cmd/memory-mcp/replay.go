package main

import (
	"context"
	"fmt"
	"io"

	"github.com/memory-mcp/memory-mcp/store"
)

// replay rebuilds every shared table from the events_memory ledger and says
// whether the result differs from what the tables held, and which events
// changed from failed to applied (or back). Events whose projection failed
// before are applied now if they can be.
func replay(ctx context.Context, cfg *Config, stdout io.Writer) error {
	db, _, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	before, err := db.DumpState(ctx)
	if err != nil {
		return err
	}
	rep, err := db.Replay(ctx, store.Project)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	after, err := db.DumpState(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "replayed %d events from the ledger: %d applied, %d failed\n", rep.Events, rep.Applied, rep.Failed)
	for _, ev := range rep.Flipped {
		was, now := "failed", "applied"
		if !ev.Applied {
			was, now = now, "failed: "+ev.ProjectionError
		}
		fmt.Fprintf(stdout, "event %d (%s) %s/%s %s: %s before, now %s\n", ev.Seq, ev.EventID, ev.Bucket, ev.Operation, ev.TargetID, was, now)
	}
	if before == after {
		fmt.Fprintln(stdout, "shared state is identical to the ledger's projection")
	} else {
		fmt.Fprintln(stdout, "shared state changed: it now matches the ledger's projection")
	}
	if rep.Failed > 0 {
		return fmt.Errorf("%d events still fail to project; see projection_error in events_memory", rep.Failed)
	}
	return nil
}
