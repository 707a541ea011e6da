// Package gate is the write path's front: every call of a mutating tool
// passes its gates before its service runs, in seed 003's order. The
// idempotency gate returns a repeated call's first result; the rate limit
// and the per-run write budget refuse a caller that writes too fast or too
// much. The service then validates, dedups and commits, and the call's
// outcome goes to the write log, in the write's own transaction when it
// committed one (store.Call).
package gate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// Gates implements memory.WriteGates over one store.
type Gates struct {
	db *store.DB
	// Limits are the rate limits per caller (empty: none).
	Limits memory.RateLimits
	// Budget is how many writes a caller may make in one run (0: no
	// budget); BudgetRun says which run a call falls in.
	Budget    int
	BudgetRun BudgetRun
	// ExemptHumans lets human callers past the rate limits and the budget.
	ExemptHumans bool
	// KeyTTL is how long an idempotency key is kept.
	KeyTTL time.Duration
	// Approval turns the risk-tier gate on: medium-risk writes are queued
	// for review, high-risk ones held for a human's approval (Risk says
	// which are which).
	Approval bool
	Risk     RiskTiers
	// ApprovalTimeout is how long a held write waits for a decision before
	// it expires, unapplied.
	ApprovalTimeout time.Duration
	Log             *slog.Logger
}

// DefaultKeyTTL is how long idempotency keys are kept unless configured.
const DefaultKeyTTL = 24 * time.Hour

// DefaultApprovalTimeout is how long a held write waits for a decision
// unless configured.
const DefaultApprovalTimeout = 24 * time.Hour

// New returns gates over db with no rate limit and no budget (counted per
// process when set), and the risk-tier gate on with the classification
// table as it stands.
func New(db *store.DB) *Gates {
	return &Gates{db: db, KeyTTL: DefaultKeyTTL, Approval: true, Risk: DefaultRiskTiers(),
		ApprovalTimeout: DefaultApprovalTimeout, Log: slog.Default(), BudgetRun: ProcessRun()}
}

var _ memory.WriteGates = (*Gates)(nil)

// Gate names, as the write log records them.
const (
	gateIdempotency = "idempotency"
	gateRateLimit   = "rate_limit"
	gateApproval    = "approval" // the risk tier: applied, queued for review, or held
	gateService     = "service"  // the service's own rules: validation, access, state
)

// Run implements memory.WriteGates.
func (g *Gates) Run(ctx context.Context, c memory.WriteCall, fn func(context.Context) (any, string, error)) (any, string, error) {
	who, err := memory.RequireIdentity(ctx)
	if err != nil {
		return nil, "", err
	}
	now := g.db.Now.Now()
	call := &store.Call{Principal: who.Principal(), Tool: c.Tool, Key: c.Key, KeyTTL: g.KeyTTL, Started: now,
		Gates: map[string]time.Duration{}}
	if c.Key != "" {
		started := time.Now()
		call.ArgsHash = g.argsHash(c)
		res, text, replayed, err := g.repeat(ctx, call, plainArgsHash(c))
		call.Gates[gateIdempotency] = time.Since(started)
		if err != nil || replayed {
			return res, text, g.finish(ctx, call, gateIdempotency, res, text, err, replayed)
		}
	}
	started := time.Now()
	err = g.admit(ctx, who, c.Tool, now)
	call.Gates[gateRateLimit] = time.Since(started)
	if err != nil {
		return nil, "", g.finish(ctx, call, gateRateLimit, nil, "", err, false)
	}
	if err := g.classify(ctx, who, c, call); err != nil {
		return nil, "", g.finish(ctx, call, gateApproval, nil, "", err, false)
	}
	res, text, err := fn(store.WithCall(ctx, call))
	if errors.Is(err, store.ErrKeyTaken) {
		// Another call with this key committed first: this one wrote nothing.
		res, text, err = g.await(ctx, call, plainArgsHash(c))
		return res, text, g.finish(ctx, call, gateIdempotency, res, text, err, err == nil)
	}
	if id, held := call.Held(); held {
		// Whatever the service made of its refused write, the call's answer
		// is that it is held.
		err = g.heldError(call, id)
		return nil, "", g.finish(ctx, call, gateApproval, nil, "", err, false)
	}
	if id := call.Queued(); id != "" && err == nil {
		g.queued(ctx, call, id, res)
		text += "\n(" + string(call.Approval.Tier) + " risk: applied, and queued for a human's review as approval " + id + ")"
	}
	return res, text, g.finish(ctx, call, gateService, res, text, err, false)
}

// argsHashPurpose keeps the idempotency gate's hashes apart from every
// other use of the provenance key.
const argsHashPurpose = "memory-mcp idempotency args v1"

// argsHash identifies a call's tool and arguments, so that a key sent again
// with other arguments is told apart from a repeat. It is keyed (an HMAC
// under the data directory's provenance key): the store keeps it for the
// key's lifetime, and a plain hash of an erase's arguments would let
// anyone with the file confirm a guessed text it erased.
func (g *Gates) argsHash(c memory.WriteCall) string {
	return g.db.KeyedHash(argsHashPurpose, []byte(c.Tool), c.Args)
}

// plainArgsHash is the unkeyed SHA-256 earlier builds kept as a key's
// args_hash. A key they wrote still replays for its lifetime: comparing a
// call's arguments with that hash tells nothing the hash did not, and no
// key is written with it any more.
func plainArgsHash(c memory.WriteCall) string {
	h := sha256.New()
	h.Write([]byte(c.Tool))
	h.Write([]byte{0})
	h.Write(c.Args)
	return hex.EncodeToString(h.Sum(nil))
}

// sameArgs reports whether rec was made by a call of call's tool and
// arguments, under either hash (plain, the one of call's arguments a key
// written by an earlier build holds). A key with the plain hash is taken
// on as it is stored, so that the statements finishing the call find it.
func sameArgs(rec store.KeyRecord, call *store.Call, plain string) bool {
	if rec.ArgsHash == call.ArgsHash {
		return true
	}
	if rec.ArgsHash != plain {
		return false
	}
	call.ArgsHash = plain
	return true
}

// repeat is the idempotency gate: it returns the first result of a call
// repeating call's key and arguments (replayed true), refuses the key sent
// with other arguments, and lets a new key through; plain is the hash of
// the arguments as earlier builds kept it (see sameArgs).
func (g *Gates) repeat(ctx context.Context, call *store.Call, plain string) (any, string, bool, error) {
	if err := memory.CheckIdempotencyKey(call.Key); err != nil {
		return nil, "", false, err
	}
	rec, ok, err := g.db.LookupKey(ctx, call.Principal, call.Key)
	if err != nil || !ok {
		return nil, "", false, err
	}
	if !sameArgs(rec, call, plain) {
		what := "other arguments"
		if rec.Tool != call.Tool {
			what = "tool " + rec.Tool
		}
		return nil, "", false, errors.Join(memory.Errorf(memory.ECONFLICT, "idempotency_key %q was used at %s for a call of %s: a key names one write; send a new key for a new write, or the first call's arguments to repeat it",
			call.Key, rec.CreatedAt.Format(time.RFC3339), what), memory.ErrKeyReused)
	}
	if rec.Err != nil && rec.Err.Code == memory.EHELD {
		// Held: the same answer until a human decides (or the deadline
		// passes), then the decision's.
		if rec, err = g.decided(ctx, call, rec); err != nil {
			return nil, "", false, err
		}
		if rec.Err != nil {
			return nil, "", true, rec.Err
		}
	}
	if rec.Err != nil {
		// The first call failed after it wrote: a repeat gets its error.
		return nil, "", false, rec.Err
	}
	if rec.Result == nil {
		if call.Started.Sub(rec.CreatedAt) >= unfinishedAfter {
			return nil, "", false, g.unfinished(call, rec)
		}
		// The first call committed and may be about to record its result.
		res, text, err := g.await(ctx, call, plain)
		return res, text, err == nil, err
	}
	return json.RawMessage(rec.Result), rec.Text, true, nil
}

// unfinishedAfter is how long a call that committed its write may take to
// record its result before a repeat is told it never will.
const unfinishedAfter = 2 * time.Minute

// unfinished explains a key whose call committed a write but has no result:
// it is still running, or the server stopped before it finished.
func (g *Gates) unfinished(call *store.Call, rec store.KeyRecord) error {
	at := rec.CreatedAt.Format(time.RFC3339)
	if call.Started.Sub(rec.CreatedAt) < unfinishedAfter {
		return memory.Errorf(memory.EBUSY, "the call with idempotency_key %q is still running (its write committed at %s): retry in a few seconds for its result", call.Key, at)
	}
	what := "what it wrote"
	if rec.Ref != "" {
		what = rec.Ref
	}
	return memory.Errorf(memory.ECONFLICT, "the call with idempotency_key %q committed its write at %s, but its result was never recorded (the server stopped, or the call is still running): the write is in the store, so do not repeat it; read %s instead", call.Key, at, what)
}

// await waits a little for the call that took call's key to record its
// result, and returns it (plain as for repeat).
func (g *Gates) await(ctx context.Context, call *store.Call, plain string) (any, string, error) {
	for wait := 10 * time.Millisecond; ; wait *= 2 {
		rec, ok, err := g.db.LookupKey(ctx, call.Principal, call.Key)
		switch {
		case err != nil:
			return nil, "", err
		case !ok:
			return nil, "", memory.Errorf(memory.EBUSY, "another call with idempotency_key %q ran at the same time; retry", call.Key)
		case !sameArgs(rec, call, plain):
			return nil, "", errors.Join(memory.Errorf(memory.ECONFLICT, "idempotency_key %q was taken at the same time by a call with other arguments: send a new key for a new write", call.Key), memory.ErrKeyReused)
		case rec.Err != nil:
			return nil, "", rec.Err
		case rec.Result != nil:
			return json.RawMessage(rec.Result), rec.Text, nil
		case wait > 2*time.Second:
			return nil, "", g.unfinished(call, rec)
		}
		select {
		case <-ctx.Done():
			return nil, "", ctx.Err()
		case <-time.After(wait):
		}
	}
}

// finish records how call ended and returns err; gate is the gate that
// decided. A failure to record is logged, never returned: the call's own
// result stands.
func (g *Gates) finish(ctx context.Context, call *store.Call, gate string, res any, text string, err error, replayed bool) error {
	e := store.Ending{Gate: gate, Err: err, Text: text}
	_, held := call.Held()
	switch {
	case held:
		e.Outcome = memory.WriteOutcomeHeld
	case replayed:
		e.Outcome = memory.WriteOutcomeReplayed
	case err != nil:
		e.Outcome = memory.WriteOutcomeRejected
	case !call.Committed():
		e.Outcome = memory.WriteOutcomeUnchanged
	case call.Key != "":
		if b, jerr := json.Marshal(res); jerr == nil {
			e.Result = b
		}
	default:
		return nil // its line went with its write
	}
	if rerr := g.db.FinishCall(ctx, call, e); rerr != nil {
		g.Log.ErrorContext(ctx, "write log", "tool", call.Tool, "err", rerr)
	}
	return err
}

// WriteMetrics implements memory.MetricsService.
func (g *Gates) WriteMetrics(ctx context.Context, window time.Duration) (memory.WriteMetrics, error) {
	if window <= 0 {
		return memory.WriteMetrics{}, memory.Errorf(memory.EINVALID, "the metrics window must be positive, e.g. 24h")
	}
	principal := metricsScope(ctx)
	until := g.db.Now.Now()
	since := until.Add(-window)
	recs, err := g.db.WriteLog(ctx, since, principal)
	if err != nil {
		return memory.WriteMetrics{}, err
	}
	m := memory.SummariseWrites(recs, since, until)
	m.Scope = "all callers"
	if principal != "" {
		m.Scope = principal
	}
	return m, nil
}

// metricsScope is whose calls the metrics count: an agent sees its own
// ("agent:..."); a human, and the stats command (which has the data
// directory's file), see every caller's ("").
func metricsScope(ctx context.Context) string {
	if who, ok := memory.IdentityFrom(ctx); ok && !who.Human {
		return who.Principal()
	}
	return ""
}

// WriteTrend implements memory.MetricsService: the write log read once,
// summarised per step.
func (g *Gates) WriteTrend(ctx context.Context, q memory.TrendQuery) ([]memory.WriteMetrics, error) {
	if err := q.Check(); err != nil {
		return nil, err
	}
	principal := metricsScope(ctx)
	recs, err := g.db.WriteLog(ctx, q.Since(), principal)
	if err != nil {
		return nil, err
	}
	per := make([][]memory.WriteRecord, q.Steps)
	for _, r := range recs {
		if i := q.StepOf(r.At); i >= 0 && i < q.Steps {
			per[i] = append(per[i], r)
		}
	}
	out := make([]memory.WriteMetrics, q.Steps)
	for i := range out {
		since := q.Since().Add(time.Duration(i) * q.Step)
		out[i] = memory.SummariseWrites(per[i], since, since.Add(q.Step))
		out[i].Scope = "all callers"
		if principal != "" {
			out[i].Scope = principal
		}
	}
	return out, nil
}

var _ memory.MetricsService = (*Gates)(nil)
