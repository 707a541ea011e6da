package promotion

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// retryPending is the bounded retry pass that follows every successful
// commit to bucket: the commit changed that bucket's rows, which may have
// given a write waiting on them the information it lacked. Each retryable
// item of the bucket (and only those: an unrelated commit changes nothing
// they depend on) is judged again against the current state; one that
// still cannot commit counts an attempt and turns stale at MaxAttempts. It
// runs inside the committing transaction.
func (p *Pipeline) retryPending(ctx context.Context, tx *store.Tx, bucket memory.Bucket, now time.Time) ([]memory.Outcome, error) {
	items, err := tx.RetryablePending(ctx, bucket, p.RetryBatch)
	if err != nil {
		return nil, err
	}
	var outs []memory.Outcome
	for _, it := range items {
		out, err := p.retry(ctx, tx, it, now)
		if err != nil {
			return outs, err
		}
		outs = append(outs, out)
	}
	return outs, nil
}

func (p *Pipeline) retry(ctx context.Context, tx *store.Tx, it memory.PendingItem, now time.Time) (memory.Outcome, error) {
	w := write{req: it.Request, by: it.Interpreter, kind: it.Kind, raw: it.RawInput, noteID: it.NoteID, noteAt: it.NoteAt,
		pendingID: it.ID, agent: it.Agent, autonomy: it.Autonomy, run: it.Run}
	v, err := p.judge(ctx, tx, w, now)
	if err != nil {
		return memory.Outcome{}, err
	}
	out := v.outcome
	it.UpdatedAt = now
	switch out.Status {
	case memory.OutcomeCommitted:
		if out, err = p.commit(ctx, tx, v); err != nil {
			return out, err
		}
		it.Status = memory.PendingCommitted
		it.Resolution = &memory.PendingResolution{Action: "retry", By: "promotion", At: now, EventID: out.EventID, TargetID: out.TargetID, Reason: out.Reason}
	case memory.OutcomePending:
		it.Attempts++
		it.Reason, it.Candidates = out.Reason, out.Candidates
		it.Stale = it.Attempts >= p.MaxAttempts || v.curator
		if it.Stale && !v.curator {
			out.Reason += fmt.Sprintf("; stale after %d attempts: a curator must bind or drop it", it.Attempts)
		}
	default: // a duplicate now, or no longer valid: leaves the queue, with the reason on record
		it.Status = memory.PendingDropped
		it.Resolution = &memory.PendingResolution{Action: string(out.Status), By: "promotion", At: now, Reason: out.Reason}
	}
	out.PendingID = it.ID
	// The outcome goes to whoever made the commit that triggered the retry,
	// maybe not the note's author: it carries no words of the note.
	out.Candidates = slices.Clone(out.Candidates)
	for i := range out.Candidates {
		out.Candidates[i].Signals = nil
	}
	return out, tx.UpdatePending(ctx, &it)
}

// ListPending returns the open pending items, stale ones included; with
// q.All, also those that left the queue. Notes are private to their author:
// an agent sees the text of its own items only, a human sees all.
func (p *Pipeline) ListPending(ctx context.Context, q memory.PendingQuery) (memory.PendingList, error) {
	id, err := memory.RequireIdentity(ctx)
	if err != nil {
		return memory.PendingList{}, err
	}
	if err := q.Validate(); err != nil {
		return memory.PendingList{}, err
	}
	items, total, err := p.DB.ListPendingBy(ctx, q)
	for i := range items {
		if !id.Human && items[i].Agent != id.AgentID {
			items[i].Redact()
		}
	}
	return memory.PendingList{Pending: items, Total: total}, err
}

// ResolvePending is the curator's action on a pending item: bind it to a
// target, which commits it like any write (ledger first, reference memory
// grows with the note's phrasing), or drop it with a reason. Both are
// recorded on the item; only a human identity may do either.
func (p *Pipeline) ResolvePending(ctx context.Context, d memory.PendingDecision) (memory.CuratorResult, error) {
	id, err := memory.RequireIdentity(ctx)
	if err != nil {
		return memory.CuratorResult{}, err
	}
	if !id.Human {
		return memory.CuratorResult{}, memory.Errorf(memory.EFORBIDDEN, "only a human curator may bind or drop pending items; you are %s", id.Describe())
	}
	if err := d.Validate(); err != nil {
		return memory.CuratorResult{}, err
	}
	var res memory.CuratorResult
	err = p.DB.Update(ctx, func(tx *store.Tx) error {
		res = memory.CuratorResult{}
		it, err := tx.GetPending(ctx, d.PendingID)
		if err != nil {
			return err
		}
		if err := checkOpen(it); err != nil {
			return err
		}
		now := tx.Now()
		if d.DropReason != "" {
			it.Status, it.UpdatedAt = memory.PendingDropped, now
			it.Resolution = &memory.PendingResolution{Action: "drop", By: id.AgentID, At: now, Reason: strings.TrimSpace(d.DropReason)}
			res.Pending = it
			return tx.UpdatePending(ctx, &it)
		}
		return p.bind(ctx, tx, &res, it, d.TargetID, id, now)
	})
	return res, err
}

func checkOpen(it memory.PendingItem) error {
	if it.Status == memory.PendingOpen {
		return nil
	}
	what := it.Status
	if r := it.Resolution; r != nil {
		what += " by " + r.By + " at " + r.At.Format(time.RFC3339)
		if r.EventID != "" {
			what += " (event " + r.EventID + ")"
		}
	}
	return memory.Errorf(memory.ECONFLICT, "pending item %d was already %s", it.ID, what)
}

// bind commits a pending item's write against the target a curator chose.
func (p *Pipeline) bind(ctx context.Context, tx *store.Tx, res *memory.CuratorResult, it memory.PendingItem, target string, id memory.Identity, now time.Time) error {
	r := it.Request
	r.TargetID = target
	if v := r.Check(); v != nil {
		return memory.Errorf(memory.EINVALID, "binding pending item %d to %s breaks rule %s: %s", it.ID, target, v.Rule, v.Message)
	}
	if v := r.CheckTarget(); v != nil {
		return memory.Errorf(memory.EINVALID, "binding pending item %d: %s", it.ID, v.Message)
	}
	if err := checkBindable(ctx, tx, r); err != nil {
		return err
	}
	w := write{req: r, by: it.Interpreter, kind: it.Kind, raw: it.RawInput, noteID: it.NoteID, noteAt: it.NoteAt, pendingID: it.ID,
		agent: it.Agent, autonomy: it.Autonomy, run: it.Run, curator: id.AgentID}
	how := Resolution{Action: Bind, TargetID: target, Candidates: it.Candidates, Reason: "bound by curator " + id.Describe()}
	v := verdict{outcome: memory.Outcome{Status: memory.OutcomeCommitted, PendingID: it.ID, Bucket: r.Bucket, Operation: r.Operation,
		TargetID: target, Reason: how.Reason, Interpreter: it.Interpreter}, event: p.event(w, r, how, now)}
	out, err := p.commit(ctx, tx, v)
	if err != nil {
		return err
	}
	it.Status, it.UpdatedAt = memory.PendingCommitted, now
	it.Resolution = &memory.PendingResolution{Action: "bind", By: id.AgentID, At: now, EventID: out.EventID, TargetID: target}
	if err := tx.UpdatePending(ctx, &it); err != nil {
		return err
	}
	res.Pending, res.Outcome = it, &out
	if out.Applied {
		res.Retried, err = p.retryPending(ctx, tx, r.Bucket, now)
	}
	return err
}

// checkBindable requires a lifecycle target to exist and be live, with a
// message that lists the candidates when it is not, and an append's target
// to be new.
func checkBindable(ctx context.Context, tx *store.Tx, r memory.WriteRequest) error {
	if r.Operation == memory.OpAppend && r.Bucket.Keyed() {
		taken, err := tx.IDTaken(ctx, r.Bucket, r.TargetID)
		if err != nil || !taken {
			return err
		}
		noun := strings.TrimSuffix(string(r.Bucket), "s")
		return memory.Errorf(memory.ECONFLICT, "%s %s already exists (or did), and %ss are append-only: bind the item to a new id", noun, r.TargetID, noun)
	}
	if !r.Operation.Lifecycle() {
		return nil
	}
	row, ok, err := tx.StateRow(ctx, r.Bucket, r.TargetID)
	switch {
	case err != nil:
		return err
	case ok && row.Live():
		return nil
	case ok:
		return memory.Errorf(memory.ECONFLICT, "%s %s is already %s; drop the pending item instead", r.Bucket, r.TargetID, row.Status)
	}
	c, err := tx.LoadContext(ctx, time.Time{})
	if err != nil {
		return err
	}
	var ids []string
	for _, row := range c.In(r.Bucket) {
		ids = append(ids, row.ID)
	}
	return memory.Errorf(memory.ENOTFOUND, "no %s %s; the %ss are: %s", r.Bucket.Noun(), r.TargetID, r.Bucket.Noun(), orDefault(strings.Join(ids, ", "), "none"))
}
