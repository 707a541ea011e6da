package promotion

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// Pipeline is the promotion service: it keeps notes in working memory and
// moves them into shared state through interpreter, resolver, validator and
// inputter. It is the only code that writes the shared tables.
type Pipeline struct {
	DB        *store.DB
	Interpret InterpretFunc
	Resolver  Resolver
	// Project is the projector the inputter runs after each ledger write.
	Project store.ProjectFunc
	// Run names this process's run: notes are private to an agent and a run.
	Run string
	// MaxAttempts is how many retry passes a pending item gets before it is
	// marked stale (still listed, retried no more, waiting for a curator).
	MaxAttempts int
	// RetryBatch bounds the pending items retried after each commit.
	RetryBatch int
	// MinConfidence: accepted writes the interpreter is less sure of are ignored.
	MinConfidence float64
	// MaxNoteBytes bounds a note's text.
	MaxNoteBytes int
	// NoteBatch bounds the notes one Promote call takes.
	NoteBatch int
	// InterpreterNeedsContext makes each note's interpretation read the
	// state context first (the LLM interpreter shows it to the model; the
	// rules do not look at it).
	InterpreterNeedsContext bool
	Log                     *slog.Logger
}

// New returns a pipeline over db for run with the offline defaults: the
// rules interpreter, the default resolver and the real projector.
func New(db *store.DB, run string) *Pipeline {
	return &Pipeline{DB: db, Interpret: RulesInterpreter, Resolver: DefaultResolver, Project: store.Project, Run: run,
		MaxAttempts: 5, RetryBatch: 16, MinConfidence: 0.5, MaxNoteBytes: memory.DefaultMaxContentBytes, NoteBatch: 200,
		Log: slog.Default()}
}

var _ memory.PromotionService = (*Pipeline)(nil)

// WriteNote adds a note to the caller's working memory for this run.
func (p *Pipeline) WriteNote(ctx context.Context, w memory.NoteWrite) (memory.Note, error) {
	id, err := memory.RequireIdentity(ctx)
	if err != nil {
		return memory.Note{}, err
	}
	if err := w.Validate(p.MaxNoteBytes); err != nil {
		return memory.Note{}, err
	}
	return p.DB.InsertNote(ctx, memory.Note{Agent: id.AgentID, Autonomy: memory.AuthorOf(id).Autonomy, Run: p.Run,
		Kind: w.Kind, Text: w.Text, TaskID: w.TaskID})
}

// Promote runs up to limit of the caller's unpromoted notes of this run
// through the pipeline, oldest first, each in its own transaction.
func (p *Pipeline) Promote(ctx context.Context, limit int) (memory.PromotionReport, error) {
	id, err := memory.RequireIdentity(ctx)
	if err != nil {
		return memory.PromotionReport{}, err
	}
	if limit, err = memory.CheckLimit(limit, p.NoteBatch, 500); err != nil {
		return memory.PromotionReport{}, err
	}
	notes, total, err := p.DB.UnprocessedNotes(ctx, id.AgentID, p.Run, limit)
	if err != nil {
		return memory.PromotionReport{}, err
	}
	rep := memory.PromotionReport{Outcomes: []memory.Outcome{}, Remaining: total - len(notes)}
	for _, n := range notes {
		out, retried, err := p.promoteNote(ctx, n, p.interpret(ctx, n))
		if err != nil {
			return rep, err
		}
		rep.Outcomes = append(rep.Outcomes, out)
		rep.Retried = append(rep.Retried, retried...)
	}
	return rep, nil
}

// interpret runs the interpreter outside any write transaction (an LLM call
// may take seconds), on a fresh read of the context.
func (p *Pipeline) interpret(ctx context.Context, n memory.Note) Interpretation {
	var c memory.StateContext
	if !p.InterpreterNeedsContext {
		return p.Interpret(ctx, n, c)
	}
	err := p.DB.View(ctx, func(tx *store.Tx) (err error) {
		c, err = tx.LoadContext(ctx, time.Time{})
		return err
	})
	if err != nil {
		p.Log.Warn("read context for the interpreter", "note", n.ID, "err", err)
	}
	return p.Interpret(ctx, n, c)
}

// promoteNote resolves, validates and commits (or defers) one interpreted
// note, marks it processed with its outcome, and after a successful commit
// retries the pending queue: all in one transaction.
func (p *Pipeline) promoteNote(ctx context.Context, n memory.Note, in Interpretation) (memory.Outcome, []memory.Outcome, error) {
	var out memory.Outcome
	var retried []memory.Outcome
	err := p.DB.Update(ctx, func(tx *store.Tx) error {
		out, retried = memory.Outcome{}, nil
		if prev, done, err := tx.NoteOutcome(ctx, n.ID); err != nil || done {
			out = prev // another pass took the note first: report what it decided
			return err
		}
		now := tx.Now()
		w := write{req: in.Request, by: in.By, hold: in.Hold, kind: n.Kind, raw: n.Text, noteID: n.ID, noteAt: n.CreatedAt,
			agent: n.Agent, autonomy: n.Autonomy, run: n.Run}
		v, err := p.judge(ctx, tx, w, now)
		if err != nil {
			return err
		}
		if out, err = p.settleNote(ctx, tx, w, v, now); err != nil {
			return err
		}
		out.NoteID = n.ID
		if err := tx.MarkNoteProcessed(ctx, n.ID, out, now); err != nil {
			return err
		}
		if out.Status == memory.OutcomeCommitted && out.Applied {
			retried, err = p.retryPending(ctx, tx, out.Bucket, now)
		}
		return err
	})
	return out, retried, err
}

// write is one promotion attempt: the request and where it came from.
type write struct {
	req       memory.WriteRequest
	by        string // interpreter
	hold      string // why only a curator may commit it (see Interpretation.Hold)
	kind      memory.NoteKind
	raw       string
	noteID    int64
	noteAt    time.Time
	pendingID int64
	agent     string          // the note's author, whoever commits the write
	autonomy  memory.Autonomy // the author's, as the note recorded it
	run       string
	curator   string
}

// verdict is what the stages decided: the outcome so far and, for a commit,
// the event to record. curator marks a deferral no retry can settle.
type verdict struct {
	outcome memory.Outcome
	event   *memory.Event
	curator bool
}

// judge runs the validator's structural rules, the gates on untrusted
// sources, the resolver, the validator's target rule, the ledger check and
// the duplicate check. Each decision lands in the verdict's outcome with its
// reason.
func (p *Pipeline) judge(ctx context.Context, tx *store.Tx, w write, now time.Time) (verdict, error) {
	r := w.req
	out := memory.Outcome{Interpreter: w.by, Bucket: r.Bucket, Operation: r.Operation}
	if r.Decision == memory.DecisionIgnore {
		out.Bucket, out.Operation = "", ""
		return settled(out, memory.OutcomeIgnored, "", orDefault(r.Rationale, "the interpreter found nothing to record")), nil
	}
	if v := r.Check(); v != nil {
		return settled(out, memory.OutcomeRejected, v.Rule, v.Message), nil
	}
	if r.Confidence < p.MinConfidence {
		return settled(out, memory.OutcomeIgnored, "", fmt.Sprintf("confidence %.2f is under %.2f", r.Confidence, p.MinConfidence)), nil
	}
	if why := untrusted(w); why != "" {
		return held(out, why), nil
	}
	var c memory.StateContext
	if r.Bucket.Tracked() { // only they have rows to resolve against
		var err error
		if c, err = tx.LoadContext(ctx, w.noteAt.Add(-p.Resolver.GhostWindow), r.Bucket); err != nil {
			return verdict{}, err
		}
	}
	res := p.Resolver.Resolve(Target{Request: r, Context: c, NoteAt: w.noteAt, Note: w.raw})
	out.Candidates, out.TargetID = res.Candidates, res.TargetID
	switch res.Action {
	case Duplicate:
		return settled(out, memory.OutcomeIgnored, "", "duplicate: "+res.Reason), nil
	case Reject:
		return settled(out, memory.OutcomeRejected, res.Rule, res.Reason), nil
	case Defer:
		return p.deferOrDuplicate(ctx, tx, out, r, res)
	}
	r.TargetID = res.TargetID
	if v := r.CheckTarget(); v != nil {
		return settled(out, memory.OutcomeRejected, v.Rule, v.Message), nil
	}
	return p.admit(ctx, tx, w, r, res, out, now)
}

// admit finishes a write the resolver placed: a target whose last event
// failed to project waits (so that replay, which applies that event, gives
// the same state), a duplicate is ignored, and a new row gets an id no row
// or event has used.
func (p *Pipeline) admit(ctx context.Context, tx *store.Tx, w write, r memory.WriteRequest, res Resolution, out memory.Outcome, now time.Time) (verdict, error) {
	if r.TargetID != "" && !res.Derived && r.Operation != memory.OpAppend {
		ev, stuck, err := tx.UnappliedEvent(ctx, r.Bucket, r.TargetID)
		if err != nil {
			return verdict{}, err
		}
		if stuck {
			return settled(out, memory.OutcomePending, "", fmt.Sprintf("event %s for %s %s is recorded but not applied (%s): it waits until memory-mcp replay applies it",
				ev.EventID, r.Bucket, r.TargetID, ev.ProjectionError)), nil
		}
	}
	if why, err := duplicateOf(ctx, tx, r); err != nil || why != "" {
		return settled(out, memory.OutcomeIgnored, "", "duplicate: "+why), err
	}
	if why, err := statedIDTaken(ctx, tx, r, res, w.raw); err != nil || why != "" {
		return held(out, why), err
	}
	var err error
	if r.TargetID, err = p.assignID(ctx, tx, r, res); err != nil {
		return verdict{}, err
	}
	out.TargetID = r.TargetID
	out.Status, out.Reason = memory.OutcomeCommitted, res.Reason
	return verdict{outcome: out, event: p.event(w, r, res, now)}, nil
}

// untrusted says why a write comes from a source that may not change shared
// state on its own ("" when it may): tool output, which is not the agent's
// word, may add results and learnings and nothing else; a model's proposal
// the note does not support (the interpreter's hold) waits for a curator.
func untrusted(w write) string {
	switch {
	case w.hold != "":
		return w.hold + ": a curator must bind or drop it"
	case w.kind == memory.NoteToolResult && !(w.req.Operation == memory.OpAppend && !w.req.Bucket.Tracked()):
		return fmt.Sprintf("tool output may add results and learnings only, not %s/%s: a curator must bind or drop it "+
			"(or say what it means in a note of your own)", w.req.Bucket, w.req.Operation)
	}
	return ""
}

func held(out memory.Outcome, why string) verdict {
	v := settled(out, memory.OutcomePending, "", why)
	v.curator = true
	return v
}

func settled(out memory.Outcome, status memory.OutcomeStatus, rule, reason string) verdict {
	out.Status, out.Rule, out.Reason = status, rule, reason
	return verdict{outcome: out}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// deferOrDuplicate: a lifecycle write naming a row that exists but is
// already closed is a duplicate; anything else the resolver could not bind
// waits in the pending queue (for a curator, when no retry can settle it).
func (p *Pipeline) deferOrDuplicate(ctx context.Context, tx *store.Tx, out memory.Outcome, r memory.WriteRequest, res Resolution) (verdict, error) {
	if res.TargetID != "" && r.Operation.Lifecycle() && !res.Curator {
		row, ok, err := tx.StateRow(ctx, r.Bucket, res.TargetID)
		if err != nil {
			return verdict{}, err
		}
		if ok && !row.Live() {
			return settled(out, memory.OutcomeIgnored, "", fmt.Sprintf("duplicate: %s %s is already %s (event %s)", r.Bucket, row.ID, row.Status, row.EventID)), nil
		}
	}
	if res.Curator {
		return held(out, res.Reason), nil
	}
	return settled(out, memory.OutcomePending, "", res.Reason), nil
}

// statedIDTaken says why a write may not have the id its note states ("" when
// it may), when a row or ledger event of the bucket already has that id. A
// decision is append-only, so a new one cannot replace the old one; and it
// may not quietly take another id either, since a later "superseded: <id>"
// would then retire the old decision, not the one the author named. An
// issue or constraint whose note only ends with the id ("... (fetch_user)")
// may be naming a code identifier, not the row: it does not rewrite or reopen
// that row unless the note leads with the id ("issue: fetch_user: ..."). No
// retry changes either, so a curator decides.
func statedIDTaken(ctx context.Context, tx *store.Tx, r memory.WriteRequest, res Resolution, note string) (string, error) {
	appends := r.Operation == memory.OpAppend && r.Bucket.Keyed()
	upserts := r.Operation == memory.OpUpsert && r.Bucket.Tracked() && endsWithStatedID(note, r.TargetID)
	if res.Derived || r.TargetID == "" || !appends && !upserts {
		return "", nil
	}
	taken, err := tx.IDTaken(ctx, r.Bucket, r.TargetID)
	if err != nil || !taken {
		return "", err
	}
	row, ok, err := tx.StateRow(ctx, r.Bucket, r.TargetID)
	if err != nil {
		return "", err
	}
	noun := strings.TrimSuffix(string(r.Bucket), "s") // issue, constraint, decision: live or not; also the note form
	if upserts {
		return fmt.Sprintf("the note ends with (%s), the id of an existing %s: to change or reopen that %s, lead with its id (%s: %s: <text>); "+
			"to record a new %s, give it an id of its own", r.TargetID, noun, noun, noun, r.TargetID, noun), nil
	}
	advice := fmt.Sprintf("State the new %s with an id of its own", noun)
	if ok && row.Live() {
		advice = fmt.Sprintf("To replace it, write \"superseded: %s\" and state the new %s with an id of its own", r.TargetID, noun)
	}
	return fmt.Sprintf("%s %s already exists (or did): %ss are append-only, so a new one cannot take its id. %s; a curator may bind this one to a new id",
		noun, r.TargetID, noun, advice), nil
}

// assignID gives a new row an id that no row and no ledger event of its
// bucket has used, by suffixing _2, _3, ...: ids derived from text, and
// appends (which always make a new row; an id the note states is free by
// now, see statedIDTaken). A derived id never merges two rows, and never
// reopens a closed one. Other writes keep their target.
func (p *Pipeline) assignID(ctx context.Context, tx *store.Tx, r memory.WriteRequest, res Resolution) (string, error) {
	if !res.Derived && (r.Operation != memory.OpAppend || !r.Bucket.Keyed()) {
		return r.TargetID, nil
	}
	base := r.TargetID
	for i := 1; ; i++ {
		id := base
		if i > 1 {
			suffix := "_" + strconv.Itoa(i)
			id = base[:min(len(base), memory.MaxTargetIDLen-len(suffix))] + suffix
		}
		taken, err := tx.IDTaken(ctx, r.Bucket, id)
		if err != nil || !taken {
			return id, err
		}
	}
}

// duplicateOf says why r would change nothing that is not already there
// ("" when it would): the same text in a live row of the bucket, the same
// plan, the same task state. Identical and near-identical writes (equal
// memory.TextKey) are duplicates and create no rows.
func duplicateOf(ctx context.Context, tx *store.Tx, r memory.WriteRequest) (string, error) {
	switch r.Bucket {
	case memory.BucketPlan, memory.BucketTaskState:
		row, ok, err := tx.StateRow(ctx, r.Bucket, r.TargetID)
		if err != nil || !ok {
			return "", err
		}
		if memory.TextKey(row.Text) == memory.TextKey(r.Payload.Text) && memory.TextKey(row.State) == memory.TextKey(r.Payload.State) {
			return fmt.Sprintf("%s %s already says this (version %d)", r.Bucket, row.ID, row.Version), nil
		}
		return "", nil
	}
	if r.Operation.Lifecycle() {
		return "", nil
	}
	row, ok, err := tx.FindByTextKey(ctx, r.Bucket, memory.TextKey(r.Payload.Text), r.Payload.TaskID)
	if err != nil || !ok || !row.Live() {
		return "", err
	}
	return fmt.Sprintf("%s %s already says this (event %s)", r.Bucket, row.ID, row.EventID), nil
}

// event builds the ledger row for a commit, with the provenance and the
// resolver's reasoning in its source_ref.
func (p *Pipeline) event(w write, r memory.WriteRequest, res Resolution, now time.Time) *memory.Event {
	ref := memory.SourceRef{NoteID: w.noteID, NoteAt: w.noteAt, PendingID: w.pendingID, CandidateMatches: res.Candidates,
		ResolutionReason: res.Reason, ReferenceText: r.ReferenceText, CandidateAliases: r.CandidateAliases,
		Interpreter: w.by, Confidence: r.Confidence, Rationale: r.Rationale, Curator: w.curator}
	if ref.CandidateMatches == nil {
		ref.CandidateMatches = []memory.Candidate{}
	}
	if res.Action == Bind {
		ref.MatchedTargetID = r.TargetID
	}
	return &memory.Event{Bucket: r.Bucket, Operation: r.Operation, TargetID: r.TargetID, Payload: r.Payload,
		RawInput: w.raw, SourceRef: ref, Agent: w.agent, Autonomy: w.autonomy, Run: w.run, CreatedAt: now}
}

// commit is the inputter: the ledger row first, then the projection.
func (p *Pipeline) commit(ctx context.Context, tx *store.Tx, v verdict) (memory.Outcome, error) {
	out := v.outcome
	if err := tx.AppendEvent(ctx, v.event, p.Project); err != nil {
		return out, err
	}
	out.EventID, out.Applied, out.ProjectionError = v.event.EventID, v.event.Applied, v.event.ProjectionError
	if !v.event.Applied {
		p.Log.Warn("projection failed; the event is recorded and replay will apply it",
			"event", v.event.EventID, "bucket", v.event.Bucket, "target", v.event.TargetID, "err", v.event.ProjectionError)
	}
	return out, nil
}

// settleNote carries out a note's verdict: commit it, or queue it (unless
// the same write already waits), or leave it as ignored or rejected.
func (p *Pipeline) settleNote(ctx context.Context, tx *store.Tx, w write, v verdict, now time.Time) (memory.Outcome, error) {
	switch v.outcome.Status {
	case memory.OutcomeCommitted:
		return p.commit(ctx, tx, v)
	case memory.OutcomePending:
		return p.enqueue(ctx, tx, w, v, now)
	}
	return v.outcome, nil
}

func (p *Pipeline) enqueue(ctx context.Context, tx *store.Tx, w write, v verdict, now time.Time) (memory.Outcome, error) {
	out := v.outcome
	same, err := tx.OpenPendingWith(ctx, w.req.Fingerprint())
	if err != nil {
		return out, err
	}
	if same != 0 {
		out.Status, out.PendingID = memory.OutcomeIgnored, same
		out.Reason = fmt.Sprintf("duplicate: the same write already waits as pending item %d (%s)", same, out.Reason)
		return out, nil
	}
	item := memory.PendingItem{Request: w.req, RawInput: w.raw, NoteID: w.noteID, Agent: w.agent, Autonomy: w.autonomy, Run: w.run,
		Interpreter: w.by, Reason: out.Reason, Candidates: out.Candidates, NoteAt: w.noteAt, CreatedAt: now, UpdatedAt: now,
		Kind: w.kind, Stale: v.curator}
	if err := tx.InsertPending(ctx, &item); err != nil {
		return out, err
	}
	out.PendingID = item.ID
	return out, nil
}

// State returns rows of the shared state by bucket and status.
func (p *Pipeline) State(ctx context.Context, q memory.StateQuery) ([]memory.StateRow, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	return p.DB.State(ctx, q)
}

// Ledger returns ledger events, newest first, to a human: every event
// carries the raw text of the note it came from, which is private to the
// note's author.
func (p *Pipeline) Ledger(ctx context.Context, q memory.LedgerQuery) ([]memory.Event, error) {
	id, err := memory.RequireIdentity(ctx)
	if err != nil {
		return nil, err
	}
	if !id.Human {
		return nil, memory.Errorf(memory.EFORBIDDEN, "only a human may read the ledger: its events carry the text of every agent's notes; "+
			"you are %s: read the shared state instead", id.Describe())
	}
	if err := q.Validate(); err != nil {
		return nil, err
	}
	return p.DB.Ledger(ctx, q)
}

// Summary returns the compact current belief.
func (p *Pipeline) Summary(ctx context.Context) (memory.StateSummary, error) {
	return p.DB.Summary(ctx)
}
