package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/internal/text"
)

// FactService implements memory.FactService over the operation log and snapshot.
type FactService struct {
	db *DB
	// Access decides who may write which category.
	Access memory.WriteAccess
	// MaxContentBytes bounds a fact's content.
	MaxContentBytes int
	// Judge, if set, is asked whether a new version contradicts the
	// active facts nearest it by keywords that the rules do not decide.
	Judge memory.ContradictionJudge
	Log   *slog.Logger
}

// NewFactService returns a fact service with the default access rules and limits.
func NewFactService(db *DB) *FactService {
	return &FactService{db: db, Access: memory.DefaultWriteAccess(), MaxContentBytes: memory.DefaultMaxContentBytes, Log: slog.Default()}
}

var _ memory.FactService = (*FactService)(nil)

// factState is the snapshot row a write is checked against.
type factState struct {
	exists      bool
	version     int
	category    memory.FactCategory
	retractedAt sql.NullInt64
	createdAt   int64
	updatedAt   int64
}

// Publish appends a PUBLISH operation and upserts the snapshot in one
// transaction, after two of the write gates: dedup (a new fact that an
// active fact of its category already says is not stored; republishing a
// fact as it stands stores no new version) and the contradiction check
// (the active facts the new version contradicts are recorded as open
// conflicts, and the conflicts of its earlier version that no longer
// clash are settled).
func (s *FactService) Publish(ctx context.Context, w memory.FactWrite) (memory.FactPublished, error) {
	id, err := memory.RequireIdentity(ctx)
	if err != nil {
		return memory.FactPublished{}, err
	}
	if err := w.Validate(s.MaxContentBytes); err != nil {
		return memory.FactPublished{}, err
	}
	if err := s.Access.Check(id, w.Category); err != nil {
		return memory.FactPublished{}, err
	}
	_, words := text.DedupKeys(w.Content)
	claims := text.ClaimKeys(w.Content)
	var judged []judgedClash
	if s.Judge != nil && !s.standsAs(ctx, w) { // a model is slow: not asked about a write that changes nothing
		judged = s.judged(ctx, w)
	}
	var out memory.FactPublished
	err = s.db.Update(ctx, func(tx *Tx) error {
		// PostgreSQL may run this again: what a run that rolled back
		// found (unchanged, a duplicate, its conflicts) is not this run's.
		out = memory.FactPublished{Outcome: memory.WriteOutcomeStored}
		f := memory.Fact{ID: w.FactID, Content: w.Content, Category: w.Category, Tags: w.Tags, Author: memory.AuthorOf(id)}
		if f.ID == "" {
			if f.ID, err = s.newFactID(ctx, tx, w.Content); err != nil {
				return err
			}
			if err := memory.CheckSupersededBy(f.ID, w.Tags); err != nil {
				return err
			}
		}
		st, err := s.loadFactState(ctx, tx, f.ID)
		if err != nil {
			return err
		}
		if call := CallFrom(ctx); call != nil && call.Subject != nil && call.Subject.FactCategory != st.category &&
			st.category == memory.FactCorePolicy {
			// Only a change that would have classified the call higher
			// matters: another process making the fact meanwhile, in another
			// category, is a race publish_fact settles by versions.
			return memory.Errorf(memory.ECONFLICT, "fact %s became a core policy while this call was being classified: send it again", f.ID)
		}
		if st.exists && st.category != w.Category {
			// Moving a fact out of a guarded category is a write to that category.
			if err := s.Access.Check(id, st.category); err != nil {
				return err
			}
		}
		if err := checkExpected(f.ID, st, w.ExpectedVersion); err != nil {
			return err
		}
		if done, err := s.repeat(ctx, tx, w, st, f.ID, words, judged, &out); done || err != nil {
			return err
		}
		now := s.db.Now.Now()
		f.Version, f.UpdatedAt = st.version+1, stamp(now, st)
		f.CreatedAt = f.UpdatedAt
		if st.exists {
			f.CreatedAt = fromNanos(st.createdAt)
		}
		opID, err := s.appendOp(ctx, tx, memory.FactOpPublish, f, "")
		if err != nil {
			return err
		}
		_, err = tx.exec(ctx, `INSERT INTO snapshot
			(fact_id, content, category, tags, created_at, updated_at, retracted_at, version, content_op,
			 author_agent_id, author_seniority, author_autonomy, author_is_human, words_key)
			VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULL, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
			ON CONFLICT (fact_id) DO UPDATE SET
				content = excluded.content, category = excluded.category, tags = excluded.tags,
				updated_at = excluded.updated_at, retracted_at = NULL, version = excluded.version,
				content_op = excluded.content_op, author_agent_id = excluded.author_agent_id,
				author_seniority = excluded.author_seniority, author_autonomy = excluded.author_autonomy,
				author_is_human = excluded.author_is_human, words_key = excluded.words_key`,
			append(append([]any{f.ID, f.Content, f.Category, encodeTags(f.Tags), nanos(f.CreatedAt), nanos(f.UpdatedAt), f.Version, opID},
				authorArgs(f.Author)...), words)...)
		if err != nil {
			return fmt.Errorf("upsert snapshot: %w", err)
		}
		f.MarkSuperseded()
		started := time.Now()
		conflicts, err := tx.checkFact(ctx, id, f, claims, judged, now)
		// What someone decided both hold of is not news to the writer.
		out.Conflicts = slices.DeleteFunc(conflicts, func(c memory.Conflict) bool { return c.Resolution != memory.ConflictOpen })
		CallFrom(ctx).spent("contradiction", time.Since(started))
		if err != nil {
			return err
		}
		out.Fact = f
		return tx.RecordChange(ctx, memory.ChangeFact, f.ID, f.UpdatedAt)
	})
	if err != nil {
		return memory.FactPublished{}, err
	}
	return out, nil
}

// standsAs reports whether w names an active fact that already stands as
// w would write it (the transaction checks again).
func (s *FactService) standsAs(ctx context.Context, w memory.FactWrite) bool {
	if w.FactID == "" {
		return false
	}
	f, err := s.Get(ctx, w.FactID)
	return err == nil && f.Active() && f.Content == w.Content && f.Category == w.Category && slices.Equal(f.Tags, w.Tags)
}

// repeat settles a publish that says nothing new, and reports whether it
// did: a fact republished as it stands (content, category and tags) is
// unchanged, and a fact not active (new, or retracted) whose words an
// active fact of the category already says is a duplicate of that one. An
// active fact rewritten to say what another says is not: its author may be
// settling a conflict between them.
func (s *FactService) repeat(ctx context.Context, tx *Tx, w memory.FactWrite, st factState, id, words string, judged []judgedClash, out *memory.FactPublished) (bool, error) {
	if st.exists && !st.retractedAt.Valid {
		f, err := s.getFact(ctx, tx, id)
		if err != nil || f.Content != w.Content || f.Category != w.Category || !slices.Equal(f.Tags, w.Tags) {
			return false, err
		}
		out.Fact, out.Outcome = f, memory.WriteOutcomeUnchanged
		if call := CallFrom(ctx); call != nil {
			call.Outcome, call.Reason, call.Ref = memory.WriteOutcomeUnchanged, "same", f.ID
		}
		return true, nil
	}
	started := time.Now()
	rows, err := tx.query(ctx, snapshotColumns+` FROM snapshot v WHERE v.words_key = ? AND v.category = ?
		AND v.retracted_at IS NULL AND v.fact_id <> ? ORDER BY v.updated_at DESC LIMIT 8`, words, w.Category, id)
	if err != nil {
		return false, fmt.Errorf("find duplicate fact: %w", err)
	}
	same, err := scanFacts(rows, false)
	CallFrom(ctx).spent("dedup", time.Since(started))
	if err != nil {
		return false, fmt.Errorf("find duplicate fact: %w", err)
	}
	// A fact marked superseded says what no longer holds: saying it again
	// restates it, and is stored.
	// The words key folds case; "Pay Bill" is not "pay bill" (as for
	// memories, text.NamesAgree).
	same = slices.DeleteFunc(same, func(f memory.Fact) bool {
		return f.SupersededBy != "" || !text.NamesAgree(f.Content, w.Content)
	})
	var dup memory.Fact
	tier := memory.DedupWords
	if len(same) > 0 {
		dup = same[0]
	} else {
		// The semantic tier: an active fact of the category the model
		// judged says the same in other words.
		if dup, err = judgedFact(ctx, tx, w, judged); err != nil || dup.ID == "" {
			return false, err
		}
		tier = memory.DedupModel
	}
	out.Fact, out.Outcome = dup, memory.WriteOutcomeDuplicate
	if call := CallFrom(ctx); call != nil {
		call.Outcome, call.Reason, call.Ref = memory.WriteOutcomeDuplicate, tier, dup.ID
	}
	return true, nil
}

// judgedFact returns the active fact of w's category the model judged
// says what w says, if any.
func judgedFact(ctx context.Context, tx *Tx, w memory.FactWrite, judged []judgedClash) (memory.Fact, error) {
	for _, jc := range judged {
		if !jc.j.Same || jc.older == w.FactID {
			continue
		}
		f, err := scanFact(tx.queryRow(ctx, snapshotColumns+` FROM snapshot v WHERE v.fact_id = ?`, jc.older), false)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return memory.Fact{}, fmt.Errorf("read judged fact: %w", err)
		}
		if f.Active() && f.Category == w.Category && f.SupersededBy == "" {
			return f, nil
		}
	}
	return memory.Fact{}, nil
}

// Retract appends a RETRACT operation and marks the snapshot row retracted;
// the open conflicts of the fact are settled in favour of the other fact.
func (s *FactService) Retract(ctx context.Context, r memory.FactRetract) (memory.Fact, error) {
	id, err := memory.RequireIdentity(ctx)
	if err != nil {
		return memory.Fact{}, err
	}
	if err := memory.CheckID("fact_id", r.FactID); err != nil {
		return memory.Fact{}, err
	}
	if err := memory.CheckReason("reason", r.Reason); err != nil {
		return memory.Fact{}, err
	}
	var f memory.Fact
	err = s.db.Update(ctx, func(tx *Tx) error {
		f, err = s.retract(ctx, tx, id, r)
		return err
	})
	return f, err
}

func (s *FactService) retract(ctx context.Context, tx *Tx, id memory.Identity, r memory.FactRetract) (memory.Fact, error) {
	st, err := s.loadFactState(ctx, tx, r.FactID)
	if err != nil {
		return memory.Fact{}, err
	}
	if !st.exists {
		return memory.Fact{}, notFound(r.FactID)
	}
	if err := s.Access.Check(id, st.category); err != nil {
		return memory.Fact{}, err
	}
	if err := checkExpected(r.FactID, st, r.ExpectedVersion); err != nil {
		return memory.Fact{}, err
	}
	if st.retractedAt.Valid {
		return memory.Fact{}, memory.Errorf(memory.ECONFLICT, "fact %s is already retracted (version %d, at %s); publish it again to reactivate it",
			r.FactID, st.version, fromNanos(st.retractedAt.Int64).Format(time.RFC3339))
	}
	f, err := s.getFact(ctx, tx, r.FactID)
	if err != nil {
		return memory.Fact{}, err
	}
	at := stamp(s.db.Now.Now(), st)
	f.Version, f.UpdatedAt, f.RetractedAt, f.Author = st.version+1, at, &at, memory.AuthorOf(id)
	if _, err := s.appendOp(ctx, tx, memory.FactOpRetract, f, r.Reason); err != nil {
		return memory.Fact{}, err
	}
	_, err = tx.exec(ctx, `UPDATE snapshot SET retracted_at = ?1, updated_at = ?1, version = ?2,
		author_agent_id = ?3, author_seniority = ?4, author_autonomy = ?5, author_is_human = ?6 WHERE fact_id = ?7`,
		append(append([]any{nanos(at), f.Version}, authorArgs(f.Author)...), r.FactID)...)
	if err != nil {
		return memory.Fact{}, fmt.Errorf("retract snapshot: %w", err)
	}
	if err := tx.factRetracted(ctx, id, r.FactID, at); err != nil {
		return memory.Fact{}, err
	}
	return f, tx.RecordChange(ctx, memory.ChangeFact, r.FactID, at)
}

// appendOp appends one operation on f (at f.Version, f.UpdatedAt, by f.Author)
// to the log and returns its row id. A RETRACT row carries no content.
func (s *FactService) appendOp(ctx context.Context, tx *Tx, op string, f memory.Fact, reason string) (int64, error) {
	var content any
	if op == memory.FactOpPublish {
		content = f.Content
	}
	args := append([]any{uuid.NewString(), f.ID, op, content, f.Category, encodeTags(f.Tags), nanos(f.UpdatedAt), f.Version,
		nullString(reason, reason != "")}, authorArgs(f.Author)...)
	stamp, err := s.db.stamp(factOpStampTag, args...)
	if err != nil {
		return 0, err
	}
	var id int64
	err = tx.queryRow(ctx, `INSERT INTO operation_log
		(operation_id, fact_id, operation_type, content, category, tags, timestamp, version, reason,
		 author_agent_id, author_seniority, author_autonomy, author_is_human, stamp)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, append(args, stamp)...).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("append %s: %w", op, err)
	}
	if op == memory.FactOpPublish {
		return id, tx.indexFact(ctx, id, f.Content, encodeTags(f.Tags))
	}
	return id, nil
}

// authorArgs are the four author columns, in table order.
func authorArgs(a memory.Author) []any {
	return []any{a.AgentID, nullString(string(a.Seniority), !a.Human && a.Seniority != ""),
		nullString(string(a.Autonomy), a.Autonomy != ""), a.Human}
}

// scanAuthor returns Scan destinations for the four author columns (in
// authorArgs' order) and a func that decodes them into a once Scan is done.
func scanAuthor(a *memory.Author) (dest []any, done func()) {
	var sen, aut sql.NullString
	return []any{&a.AgentID, &sen, &aut, &a.Human}, func() {
		a.Seniority, _ = memory.ParseSeniority(sen.String)
		a.Autonomy = memory.Autonomy(aut.String)
	}
}

// Get returns the fact's current snapshot row, retracted or not.
func (s *FactService) Get(ctx context.Context, id string) (memory.Fact, error) {
	if err := memory.CheckID("fact_id", id); err != nil {
		return memory.Fact{}, err
	}
	var out memory.Fact
	err := s.db.View(ctx, func(tx *Tx) (err error) {
		out, err = s.getFact(ctx, tx, id)
		return err
	})
	return out, err
}

// History returns every operation on the fact, oldest first.
func (s *FactService) History(ctx context.Context, id string) ([]memory.FactOperation, error) {
	if err := memory.CheckID("fact_id", id); err != nil {
		return nil, err
	}
	var ops []memory.FactOperation
	err := s.db.View(ctx, func(tx *Tx) (err error) {
		ops, err = s.history(ctx, tx, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(ops) == 0 {
		return nil, notFound(id)
	}
	return ops, nil
}

func (s *FactService) history(ctx context.Context, tx *Tx, id string) ([]memory.FactOperation, error) {
	rows, err := tx.query(ctx, `SELECT operation_id, fact_id, operation_type, content, category, tags,
		author_agent_id, author_seniority, author_autonomy, author_is_human, timestamp, version, reason
		FROM operation_log WHERE fact_id = ? ORDER BY version`, id)
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	defer rows.Close()
	var ops []memory.FactOperation
	for rows.Next() {
		var op memory.FactOperation
		var content, reason sql.NullString
		var tags string
		var ts int64
		author, decodeAuthor := scanAuthor(&op.Author)
		if err := rows.Scan(slices.Concat([]any{&op.OperationID, &op.FactID, &op.Type, &content, &op.Category, &tags},
			author, []any{&ts, &op.Version, &reason})...); err != nil {
			return nil, err
		}
		decodeAuthor()
		if content.Valid {
			op.Content = &content.String
		}
		op.Tags = decodeTags(tags)
		op.Timestamp = fromNanos(ts)
		op.Reason = reason.String
		ops = append(ops, op)
	}
	return ops, rows.Err()
}

// Query finds active facts by text (ranked by BM25), category and tags, in the
// current snapshot or, with AsOf set, as they stood at that time.
func (s *FactService) Query(ctx context.Context, q memory.FactQuery) ([]memory.Fact, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	var match string
	if strings.TrimSpace(q.Text) != "" {
		if match = MatchAny(q.Text); match == "" {
			return nil, memory.Errorf(memory.EINVALID, "query %q has no words to search for", q.Text)
		}
	}
	b := factSelect(q.AsOf)
	if match != "" {
		if err := s.matchText(ctx, b, q.Text, match); err != nil {
			return nil, err
		}
	}
	if len(q.Categories) > 0 {
		b.where("v.category IN ("+placeholders(len(q.Categories))+")", anySlice(q.Categories)...)
	}
	for _, t := range q.Tags {
		b.where("EXISTS (SELECT 1 FROM json_each(v.tags) WHERE value = ?)", t)
	}
	if match == "" {
		b.order = "v.updated_at DESC, v.fact_id "
	}
	b.limit = q.Limit
	return b.run(ctx, s.db)
}

// List returns a page of active facts in category c, oldest first, with the total.
func (s *FactService) List(ctx context.Context, c memory.FactCategory, offset, limit int) (memory.FactPage, error) {
	if _, err := memory.ParseFactCategory(string(c)); err != nil {
		return memory.FactPage{}, err
	}
	limit, err := memory.CheckLimit(limit, 50, 500)
	if err != nil {
		return memory.FactPage{}, err
	}
	if offset < 0 {
		return memory.FactPage{}, memory.Errorf(memory.EINVALID, "offset %d is negative", offset)
	}
	page := memory.FactPage{Offset: offset, Facts: []memory.Fact{}}
	err = s.db.View(ctx, func(tx *Tx) error {
		err := tx.queryRow(ctx, `SELECT count(*) FROM snapshot WHERE category = ? AND retracted_at IS NULL`, c).Scan(&page.Total)
		if err != nil {
			return err
		}
		rows, err := tx.query(ctx, snapshotColumns+` FROM snapshot v
			WHERE v.category = ? AND v.retracted_at IS NULL ORDER BY v.created_at, v.fact_id LIMIT ? OFFSET ?`, c, limit, offset)
		if err != nil {
			return err
		}
		page.Facts, err = scanFacts(rows, false)
		return err
	})
	return page, err
}

// SnapshotAt returns every fact that was active at t, as it stood then; a zero
// t returns the current snapshot.
func (s *FactService) SnapshotAt(ctx context.Context, t time.Time) ([]memory.Fact, error) {
	b := factSelect(t)
	b.order = "v.fact_id "
	return b.run(ctx, s.db)
}

// snapshotColumns selects a memory.Fact from an alias v shaped like snapshot.
const snapshotColumns = `SELECT v.fact_id, v.content, v.category, v.tags, v.created_at, v.updated_at, v.retracted_at,
	v.version, v.author_agent_id, v.author_seniority, v.author_autonomy, v.author_is_human`

// factQuery builds a read over the facts active at a time.
type factQuery struct {
	from  string
	args  []any
	conds []string
	order string
	limit int
	// score is the expression of a match's score, read as the last column,
	// with its arguments (before those of from and conds).
	score     string
	scoreArgs []any
}

// factSelect reads the facts active at t as a view v; a zero t means now, read
// straight from the snapshot. For a past time it picks, per fact, the newest
// log row at or before t and keeps the fact if that row is a PUBLISH.
func factSelect(t time.Time) *factQuery {
	b := &factQuery{}
	if t.IsZero() {
		b.from = `(SELECT * FROM snapshot WHERE retracted_at IS NULL) v`
	} else {
		// Per fact, the newest version at or before t, found from the
		// (fact_id, timestamp, version) index alone, then joined to its row.
		// The first operation's time is the fact's creation time.
		b.from = `(SELECT l.fact_id, l.content, l.category, l.tags, m.created_at, l.timestamp AS updated_at,
				NULL AS retracted_at, l.version, l.author_agent_id, l.author_seniority, l.author_autonomy,
				l.author_is_human, l.id AS content_op
			FROM (SELECT fact_id, max(version) AS version, min(timestamp) AS created_at
				FROM operation_log WHERE timestamp <= ? GROUP BY fact_id) m
			JOIN operation_log l ON l.fact_id = m.fact_id AND l.version = m.version
			WHERE l.operation_type = 'PUBLISH') v`
		b.args = []any{nanos(t)}
	}
	return b
}

// matchText narrows b to the facts whose content at the time read matches
// the text (match is its FTS5 expression), ranked by BM25 (FTS5's bm25(),
// or the same scores over the terms column on PostgreSQL), best first.
func (s *FactService) matchText(ctx context.Context, b *factQuery, text, match string) error {
	if s.db.postgres {
		return s.postgresMatch(ctx, b, textWords(text))
	}
	// Drive from the full-text match: each hit is a log row, whose fact
	// is then looked up by primary key and kept only if that row is the
	// fact's content at the time read.
	b.from = `fact_fts JOIN operation_log hit ON hit.id = fact_fts.rowid JOIN ` + b.from +
		` ON v.fact_id = hit.fact_id AND v.content_op = hit.id`
	b.where("fact_fts MATCH ?", match)
	b.score, b.order = "-bm25(fact_fts)", "bm25(fact_fts), v.fact_id "
	return nil
}

func (b *factQuery) where(cond string, args ...any) {
	b.conds = append(b.conds, cond)
	b.args = append(b.args, args...)
}

// run executes the read as one statement (one consistent snapshot).
func (b *factQuery) run(ctx context.Context, db *DB) ([]memory.Fact, error) {
	q := snapshotColumns
	if b.score != "" {
		q += ", " + b.score
	}
	q += " FROM " + b.from
	if len(b.conds) > 0 {
		q += " WHERE " + strings.Join(b.conds, " AND ")
	}
	q += " ORDER BY " + b.order
	args := append(slices.Clone(b.scoreArgs), b.args...)
	if b.limit > 0 {
		q += " LIMIT ?"
		args = append(args, b.limit)
	}
	out := []memory.Fact{}
	err := db.scanAll(ctx, q, args, func(row *rawRow) error {
		f, err := scanFact(row, b.score != "")
		out = append(out, f)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("query facts: %w", err)
	}
	return out, nil
}

func scanFacts(rows *sql.Rows, score bool) ([]memory.Fact, error) {
	defer rows.Close()
	out := []memory.Fact{}
	for rows.Next() {
		f, err := scanFact(rows, score)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

func scanFact(row interface{ Scan(...any) error }, score bool) (memory.Fact, error) {
	var f memory.Fact
	var category, tags string
	var created, updated int64
	var retracted sql.NullInt64
	author, decodeAuthor := scanAuthor(&f.Author)
	dest := append([]any{&f.ID, &f.Content, &category, &tags, &created, &updated, &retracted, &f.Version}, author...)
	if score {
		dest = append(dest, &f.Score)
	}
	if err := row.Scan(dest...); err != nil {
		return f, err
	}
	f.Category, f.Tags = memory.FactCategory(category), decodeTags(tags)
	f.CreatedAt, f.UpdatedAt, f.RetractedAt = fromNanos(created), fromNanos(updated), fromNullNanos(retracted)
	decodeAuthor()
	f.MarkSuperseded()
	return f, nil
}

func (s *FactService) getFact(ctx context.Context, tx *Tx, id string) (memory.Fact, error) {
	f, err := scanFact(tx.queryRow(ctx, snapshotColumns+` FROM snapshot v WHERE v.fact_id = ?`, id), false)
	if errors.Is(err, sql.ErrNoRows) {
		return f, notFound(id)
	}
	return f, err
}

func (s *FactService) loadFactState(ctx context.Context, tx *Tx, id string) (factState, error) {
	st := factState{exists: true}
	err := tx.queryRow(ctx, `SELECT version, category, retracted_at, created_at, updated_at FROM snapshot WHERE fact_id = ?`, id).
		Scan(&st.version, &st.category, &st.retractedAt, &st.createdAt, &st.updatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return factState{}, nil
	}
	if err != nil {
		return st, fmt.Errorf("load fact %s: %w", id, err)
	}
	return st, nil
}

// checkExpected enforces compare-and-set when the caller sent expected_version.
func checkExpected(id string, st factState, expected *int) error {
	if expected == nil || *expected == st.version {
		return nil
	}
	if !st.exists {
		return memory.Errorf(memory.ECONFLICT, "fact %s does not exist yet, you sent expected_version %d: send 0 (or omit it) to create it", id, *expected)
	}
	return memory.Errorf(memory.ECONFLICT, "fact %s is at version %d, you sent expected_version %d: read it again with query_facts (id) and retry",
		id, st.version, *expected)
}

// stamp keeps timestamps non-decreasing per fact even if the clock steps back.
func stamp(now time.Time, st factState) time.Time {
	if st.exists && nanos(now) <= st.updatedAt {
		return fromNanos(st.updatedAt + 1)
	}
	return now
}

func notFound(id string) error {
	return memory.Errorf(memory.ENOTFOUND, "no fact with id %q; query_facts lists the facts that exist", id)
}

// newFactID derives a readable id from the first words of the content plus a
// random suffix: "use-jwt-for-service-auth-3f9a1c".
func (s *FactService) newFactID(ctx context.Context, tx *Tx, content string) (string, error) {
	words := textWords(content)
	var slug string
	for _, w := range words {
		if len(slug)+len(w) > 40 || !isASCIIWord(w) {
			break
		}
		slug += w + "-"
	}
	if slug == "" {
		slug = "fact-"
	}
	for {
		id := slug + factIDSuffix()
		var n int
		if err := tx.queryRow(ctx, `SELECT count(*) FROM snapshot WHERE fact_id = ?`, id).Scan(&n); err != nil {
			return "", err
		}
		if n == 0 {
			return id, nil
		}
	}
}

// factIDSuffix makes the random end of a derived fact id; tests fix it.
var factIDSuffix = func() string {
	var b [3]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func isASCIIWord(w string) bool {
	for _, r := range w {
		if r > 127 {
			return false
		}
	}
	return true
}

func encodeTags(tags []string) string {
	if len(tags) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(tags)
	return string(b)
}

func decodeTags(s string) []string {
	tags := []string{}
	if s != "[]" {
		json.Unmarshal([]byte(s), &tags)
	}
	return tags
}

func nullString(s string, valid bool) sql.NullString { return sql.NullString{String: s, Valid: valid} }

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// valuesRows is the rows of a multi-row VALUES list: row, a parenthesised
// tuple of placeholders, n times. A batch of rows in one statement is one
// round trip to PostgreSQL where a statement per row was one per row.
func valuesRows(row string, n int) string {
	return strings.TrimSuffix(strings.Repeat(row+", ", n), ", ")
}

func anySlice[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}
