package finetune

import (
	"context"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

// Schedule retrains until ctx is done: every check it looks whether every
// memories have arrived since the last run (Due) and, if so, runs the
// pipeline as the command would, as the operator as, deploying only what
// passes the gate. A run in another process counts as the last run too, so
// the processes on a data directory do not all retrain at once.
func (s *Service) Schedule(ctx context.Context, as memory.Identity, every int, check time.Duration) {
	if every <= 0 || check <= 0 {
		return
	}
	ctx = memory.WithIdentity(ctx, as)
	t := time.NewTimer(check)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.runDue(ctx, every)
		t.Reset(check)
	}
}

func (s *Service) runDue(ctx context.Context, every int) {
	due, err := s.Due(ctx, every)
	if err != nil || !due {
		if err != nil {
			s.Log.Error("scheduled fine-tuning: look whether a retrain is due", "err", err)
		}
		return
	}
	rep, err := s.FineTune(ctx, memory.FineTuneRequest{})
	if err != nil {
		s.Log.Error("scheduled fine-tuning failed; the embedder in force is unchanged", "err", err)
		return
	}
	s.Log.Info("scheduled fine-tuning", "outcome", rep.Outcome, "embedder", rep.After, "gate", rep.Gate)
}
