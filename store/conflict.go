package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/internal/text"
)

// Contradictions between an agent's memories (migration 0010). A new
// personal memory's claims (text.ClaimKeys) find the agent's active
// memories in its namespace that say something of the same frame;
// text.Contradicts decides whether they clash. A clash is recorded as a
// conflict; the newer memory supersedes the older when the older is the one
// statement that clashes (nothing else it says is lost) and the newer is at
// least as sure and as authoritative, and otherwise both stand, open for
// review.

// clash is an active memory a write contradicts.
type clash struct {
	older memory.Entry
	how   memory.Clash
}

// findClashes returns the active memories of pool sp (the agent's
// personal memories, or the shared space) in w's namespace that w
// contradicts, by the claims it shares with them. A memory of another time
// (either tells of an event, and they occurred more than episodeWindow
// apart) is not contradicted: both may have been true.
func (s *MemoryService) findClashes(ctx context.Context, tx *Tx, sp pool, w memory.EntryWrite, claims []text.Claim, timed bool, now time.Time) ([]clash, error) {
	if len(claims) == 0 {
		return nil, nil
	}
	// First the memories that state another value of one of w's claims,
	// which nearly every write finds none of: one seek into the primary key
	// per claim (CROSS JOIN keeps the claims outer; joined plainly, the
	// planner scanned every claim), and nothing more to do when none is.
	var pks []int64
	rows, err := tx.query(ctx, `SELECT c.memory_pk FROM json_each(?) j CROSS JOIN memory_claims c
		ON c.agent_id = ? AND c.claim = j.value ->> 0 AND c.value <> j.value ->> 1`, claimList(claims), sp.claimsOwner())
	if err != nil {
		return nil, fmt.Errorf("find contradictions: %w", err)
	}
	for rows.Next() {
		var pk int64
		if err := rows.Scan(&pk); err != nil {
			rows.Close()
			return nil, fmt.Errorf("find contradictions: %w", err)
		}
		pks = append(pks, pk)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, fmt.Errorf("find contradictions: %w", err)
	}
	if len(pks) == 0 {
		return nil, nil
	}
	list, _ := json.Marshal(pks)
	found, err := scanEntries(tx.query(ctx, entryColumns+` FROM memories m WHERE m.pk IN (SELECT CAST(value AS BIGINT) FROM json_each(?1))
		AND m.shared = ?3 AND (?3 = 1 OR m.agent_id = ?2) AND m.forgotten_at IS NULL AND m.archived_at IS NULL AND m.namespace = ?4
		AND (m.expires_at IS NULL OR m.expires_at > ?5)
		ORDER BY m.created_at DESC LIMIT 16`, string(list), sp.agent, sp.shared(), w.Namespace, nanos(now)))
	if err != nil {
		return nil, fmt.Errorf("find contradictions: %w", err)
	}
	var out []clash
	for _, e := range found {
		told, err := sp.asTold(ctx, tx, e)
		if err != nil {
			return nil, err
		}
		if eventful(w, timed, told) && !withinEpisode(w.OccurredAt, e.OccurredAt) {
			continue
		}
		if c, ok := text.Contradicts(e.Content, w.Content); ok {
			out = append(out, clash{older: e, how: ruleClash(c)})
		}
	}
	return out, nil
}

// JudgeThreshold is how sure a model must be of a contradiction for it to
// count (seed 003's NLI threshold).
const JudgeThreshold = 0.85

// judgeNeighbours is how many of the memories nearest a new one by
// keywords the model is asked about.
const judgeNeighbours = 3

// judgedClash is a model's finding about one of the caller's memories.
type judgedClash struct {
	older string
	j     memory.Judgement
}

// judged asks the model, if one is configured, whether w contradicts or
// repeats in other words each of the caller's active memories nearest it
// in its namespace, before the write's transaction (a model is slow; the
// transaction checks again that each is still active). A pair the rules
// decide is left to them; a failing model leaves every pair to the rules.
func (s *MemoryService) judged(ctx context.Context, w memory.EntryWrite) []judgedClash {
	if s.Judge == nil || s.Contradictions == memory.ContradictionsOff && !s.Dedup {
		return nil
	}
	text := w.Content
	if len(text) > memory.MaxQueryBytes/2 {
		text = strings.ToValidUTF8(text[:memory.MaxQueryBytes/2], "")
	}
	hits, err := s.Search(ctx, memory.Query{Text: text, Scope: memory.ScopePersonal, Namespaces: []string{w.Namespace}, Limit: judgeNeighbours})
	if err != nil {
		s.Log.Warn("contradiction judge: no neighbours", "err", err)
		return nil
	}
	var out []judgedClash
	for _, h := range hits {
		var ok bool
		if out, ok = askJudge(ctx, s.Judge, s.Log, h.ID, h.Content, w.Content, out); !ok {
			return out
		}
	}
	return out
}

// askJudge asks judge about a pair the rules leave undecided (neither a
// clash nor the same words) and adds what the model is sure of to out. It
// reports false when the model failed: the rules decide the rest.
func askJudge(ctx context.Context, judge memory.ContradictionJudge, log *slog.Logger, id, older, newer string, out []judgedClash) ([]judgedClash, bool) {
	_, a := text.DedupKeys(older)
	_, b := text.DedupKeys(newer)
	if _, clash := text.Contradicts(older, newer); clash || a == b {
		return out, true
	}
	j, err := judge(ctx, older, newer)
	if err != nil {
		log.Warn("the model's judgement failed; the rules decide", "ref", id, "err", err)
		return out, false
	}
	if (j.Contradicts || j.Same) && j.Score >= JudgeThreshold {
		out = append(out, judgedClash{older: id, j: j})
	}
	return out, true
}

// addJudged adds to clashes the model's findings whose memory is still one
// of the agent's active memories in w's namespace and not clashing by the
// rules already.
func (s *MemoryService) addJudged(ctx context.Context, tx *Tx, agent string, w memory.EntryWrite, clashes []clash, judged []judgedClash, now time.Time) ([]clash, error) {
	for _, jc := range judged {
		if !jc.j.Contradicts || slices.ContainsFunc(clashes, func(c clash) bool { return c.older.ID == jc.older }) {
			continue
		}
		e, err := getEntry(ctx, tx, jc.older)
		if err != nil {
			return nil, err
		}
		if e.AgentID != agent || e.Shared || !e.Active() || e.HasExpired(now) || e.Namespace != w.Namespace {
			continue
		}
		clashes = append(clashes, clash{older: e, how: memory.Clash{Kind: memory.ConflictModel,
			Why: fmt.Sprintf("the model is %.2f sure: %s", jc.j.Score, plain(jc.j.Reason)), Whole: text.OneStatement(e.Content)}})
	}
	return clashes, nil
}

// plain is a model's words as one line of printable text.
func plain(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
}

// eventful reports whether w or e tells of an event: an episode, or a
// memory given the time it occurred.
func eventful(w memory.EntryWrite, timed bool, e memory.Entry) bool {
	return timed || !e.OccurredAt.Equal(e.CreatedAt) || w.Category == memory.CategoryEpisodic || e.Category == memory.CategoryEpisodic
}

func withinEpisode(a, b time.Time) bool {
	d := a.Sub(b)
	return d <= episodeWindow && d >= -episodeWindow
}

// wins reports whether newer, written by author, replaces older, which it
// contradicts as c says: only when older is the one statement that
// clashes, the newer is at least as sure, lasts as long (a passing state
// must not hide a lasting one past its expiry) and, over a human's memory,
// is written by a human too.
func wins(c memory.Clash, older memory.Entry, newer memory.EntryWrite, author memory.Author) bool {
	lasts := newer.ExpiresAt.IsZero() || older.ExpiresAt != nil && !newer.ExpiresAt.Before(*older.ExpiresAt)
	return c.Whole && lasts && newer.ConfidenceOr() >= older.Confidence &&
		(author.Human || older.Provenance == nil || !older.Provenance.Author.Human)
}

// ruleClash is what the text rules found, as the domain records it.
func ruleClash(c text.Clash) memory.Clash {
	return memory.Clash{Kind: memory.ConflictKind(c.Kind), Slot: c.Slot, Older: c.Older, Newer: c.Newer, Whole: c.Whole}
}

// claimList is claims as a JSON list of [key, value] pairs.
func claimList(claims []text.Claim) string {
	pairs := make([][2]int64, len(claims))
	for i, c := range claims {
		pairs[i] = [2]int64{c.Key, c.Value}
	}
	b, _ := json.Marshal(pairs)
	return string(b)
}

// addClaims keeps the claims of the agent's memory pk, a row a statement:
// a statement that may write several rows keeps a statement journal, and
// opening one makes the full-text index write out at once what it holds
// for the commit.
func (tx *Tx) addClaims(ctx context.Context, agent string, pk int64, claims []text.Claim) error {
	for _, c := range claims {
		if _, err := tx.exec(ctx, `INSERT INTO memory_claims (agent_id, claim, value, memory_pk) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
			agent, c.Key, c.Value, pk); err != nil {
			return fmt.Errorf("record claims: %w", err)
		}
	}
	return nil
}

// recordConflict records that newer contradicts older, as resolution says,
// and carries it out: newer_wins supersedes older.
func (tx *Tx) recordConflict(ctx context.Context, who memory.Identity, agent, older, newer string, c memory.Clash, res memory.ConflictResolution, reason string, now time.Time) (memory.Conflict, error) {
	return tx.addConflict(ctx, "cf_", who, agent, older, newer, c, res, reason, now)
}

// addConflict is recordConflict with the new conflict's id beginning with
// prefix (memory.SharedConflictPrefix between shared memories).
func (tx *Tx) addConflict(ctx context.Context, prefix string, who memory.Identity, agent, older, newer string, c memory.Clash, res memory.ConflictResolution, reason string, now time.Time) (memory.Conflict, error) {
	id, err := newConflictID(prefix)
	if err != nil {
		return memory.Conflict{}, err
	}
	var resolvedAt any
	var resolvedBy sql.NullString
	if res != memory.ConflictOpen {
		resolvedAt, resolvedBy = nanos(now), nullString(who.Principal(), true)
	}
	why := nullString(cmp.Or(reason, c.Why), reason != "" || c.Why != "")
	// The pair may have a conflict already (found open, now stated): a
	// decision replaces its resolution, an open finding leaves it.
	_, err = tx.exec(ctx, `INSERT INTO memory_conflicts (id, agent_id, older_id, newer_id, kind, slot, older_value, newer_value,
		resolution, detected_at, detected_by, resolved_at, resolved_by, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (older_id, newer_id) DO UPDATE SET resolution = excluded.resolution, resolved_at = excluded.resolved_at,
		resolved_by = excluded.resolved_by, reason = excluded.reason WHERE excluded.resolution <> 'open'`,
		id, agent, older, newer, c.Kind, nullString(c.Slot, c.Slot != ""), nullString(c.Older, c.Older != ""),
		nullString(c.Newer, c.Newer != ""), res, nanos(now), who.Principal(), resolvedAt, resolvedBy, why)
	if err != nil {
		return memory.Conflict{}, fmt.Errorf("record conflict: %w", err)
	}
	if res == memory.ConflictNewerWins {
		if err := tx.supersede(ctx, agent, older, newer, now); err != nil {
			return memory.Conflict{}, err
		}
	}
	return tx.conflictOf(ctx, older, newer)
}

// supersede archives the agent's active memory older as superseded by
// newer.
func (tx *Tx) supersede(ctx context.Context, agent, older, newer string, now time.Time) error {
	return tx.replace(ctx, agent, older, newer, memory.ArchiveSuperseded, now)
}

// replace archives the agent's active memory older for reason (superseded
// or merged), pointing at newer.
func (tx *Tx) replace(ctx context.Context, agent, older, newer string, reason memory.ArchiveReason, now time.Time) error {
	res, err := tx.exec(ctx, `UPDATE memories SET archived_at = ?1, archive_reason = ?5, archived_by = ?2,
		superseded_by = ?3 WHERE id = ?4 AND agent_id = ?2 AND shared = 0 AND `+activeSQL, nanos(now), agent, newer, older, reason)
	if err != nil {
		return fmt.Errorf("supersede %s: %w", older, err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return memory.Errorf(memory.ECONFLICT, "memory %s is no longer an active memory of %s: it cannot be superseded", older, agent)
	}
	return tx.RecordChange(ctx, memory.ChangeMemory, older, now)
}

// release brings memory id back into search if it was superseded by by.
func (tx *Tx) release(ctx context.Context, id, by string, now time.Time) error {
	e, err := getEntry(ctx, tx, id)
	if err != nil {
		return err
	}
	if e.ArchiveReason != memory.ArchiveSuperseded || e.SupersededBy != by {
		return nil
	}
	return tx.unarchive(ctx, id, now)
}

const conflictColumns = `SELECT c.id, c.agent_id, c.older_id, c.newer_id, c.kind, c.slot, c.older_value, c.newer_value,
	c.resolution, c.detected_at, c.detected_by, c.resolved_at, c.resolved_by, c.reason FROM memory_conflicts c`

func scanConflict(row interface{ Scan(...any) error }) (memory.Conflict, error) {
	var c memory.Conflict
	var slot, ov, nv, by, reason sql.NullString
	var detected int64
	var resolved sql.NullInt64
	c.Subject = memory.ConflictOfMemories
	err := row.Scan(&c.ID, &c.AgentID, &c.OlderID, &c.NewerID, &c.Kind, &slot, &ov, &nv, &c.Resolution, &detected,
		&c.DetectedBy, &resolved, &by, &reason)
	c.Slot, c.OlderValue, c.NewerValue, c.ResolvedBy, c.Reason = slot.String, ov.String, nv.String, by.String, reason.String
	c.DetectedAt, c.ResolvedAt = fromNanos(detected), fromNullNanos(resolved)
	return c, err
}

func (tx *Tx) conflictOf(ctx context.Context, older, newer string) (memory.Conflict, error) {
	c, err := scanConflict(tx.queryRow(ctx, conflictColumns+` WHERE c.older_id = ? AND c.newer_id = ?`, older, newer))
	if err != nil {
		return c, fmt.Errorf("read conflict: %w", err)
	}
	return c, nil
}

// withMemories fills each conflict's two memories.
func (tx *Tx) withMemories(ctx context.Context, cs []memory.Conflict) error {
	for i := range cs {
		older, err := getEntry(ctx, tx, cs[i].OlderID)
		if err != nil {
			return err
		}
		newer, err := getEntry(ctx, tx, cs[i].NewerID)
		if err != nil {
			return err
		}
		cs[i].Older, cs[i].Newer = &older, &newer
	}
	return nil
}

func (tx *Tx) withMemoriesOf(ctx context.Context, c memory.Conflict) (memory.Conflict, error) {
	cs := []memory.Conflict{c}
	err := tx.withMemories(ctx, cs)
	return cs[0], err
}

// Conflicts lists contradictions between an agent's memories, newest
// first: the caller's, or for a human the agent named, or every agent's.
func (s *MemoryService) Conflicts(ctx context.Context, q memory.ConflictQuery) ([]memory.Conflict, error) {
	who, err := memory.RequireIdentity(ctx)
	if err != nil {
		return nil, err
	}
	if err := q.Check(); err != nil {
		return nil, err
	}
	var out []memory.Conflict
	err = s.db.View(ctx, func(tx *Tx) error {
		where, args := "true", []any{}
		if q.AgentID != "" || !who.Human {
			owner, err := ownerOf(ctx, tx, who, q.AgentID, "list the conflicts of")
			if err != nil {
				return err
			}
			// An agent's conflicts, and those a publish by another agent
			// found with the agent's shared memory.
			where, args = `(c.agent_id = ?1 OR c.older_id IN (SELECT id FROM memories WHERE agent_id = ?1 AND shared = 1))`, append(args, owner.AgentID)
		}
		if q.MemoryID != "" {
			where, args = where+` AND (c.older_id = ? OR c.newer_id = ?)`, append(args, q.MemoryID, q.MemoryID)
		}
		res := make([]string, len(q.Resolutions))
		for i, r := range q.Resolutions {
			res[i] = string(r)
		}
		rows, err := tx.query(ctx, conflictColumns+` WHERE `+where+` AND c.resolution IN (SELECT value FROM json_each(?))
			ORDER BY c.detected_at DESC, c.id LIMIT ?`, append(args, jsonList(res), q.Limit)...)
		if err != nil {
			return fmt.Errorf("list conflicts: %w", err)
		}
		defer rows.Close()
		out = []memory.Conflict{}
		for rows.Next() {
			c, err := scanConflict(rows)
			if err != nil {
				return err
			}
			out = append(out, c)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if err := tx.withMemories(ctx, out); err != nil {
			return err
		}
		if !who.Human {
			// Another agent's shared memory that recall no longer shows
			// (retracted, expired) is not shown here either.
			now := s.db.Now.Now()
			out = slices.DeleteFunc(out, func(c memory.Conflict) bool {
				for _, e := range []*memory.Entry{c.Older, c.Newer} {
					if e.AgentID != who.AgentID && (!e.Active() || e.HasExpired(now)) {
						return true
					}
				}
				return false
			})
		}
		return nil
	})
	return out, err
}

// decider checks a decision of a conflict and returns who decides.
func decider(ctx context.Context, keep memory.ConflictResolution, reason string) (memory.Identity, error) {
	who, err := memory.RequireIdentity(ctx)
	if err != nil {
		return who, err
	}
	if keep == memory.ConflictOpen || keep == "" {
		return who, memory.Errorf(memory.EINVALID, "keep newer, older or both")
	}
	return who, memory.CheckText("reason", reason, memory.MaxSourceLen)
}

// ResolveConflict decides conflict id: the memory not kept is superseded
// by the other, and a kept memory that was superseded by the other comes
// back; keeping both brings back either. Deciding again as it stands
// changes nothing. A forgotten memory cannot be kept.
func (s *MemoryService) ResolveConflict(ctx context.Context, id string, keep memory.ConflictResolution, reason string) (memory.Conflict, error) {
	who, err := decider(ctx, keep, reason)
	if err != nil {
		return memory.Conflict{}, err
	}
	var out memory.Conflict
	err = s.db.Update(ctx, func(tx *Tx) error {
		c, err := scanConflict(tx.queryRow(ctx, conflictColumns+` WHERE c.id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) || err == nil && !who.Human && !memory.IsSharedConflict(c.ID) && c.AgentID != who.AgentID {
			return conflictNotFound(id)
		}
		if err != nil {
			return fmt.Errorf("read conflict: %w", err)
		}
		if memory.IsSharedConflict(c.ID) {
			out, err = s.resolveShared(ctx, tx, who, c, keep, reason)
			return err
		}
		if c.Resolution == keep {
			out, err = tx.withMemoriesOf(ctx, c)
			return err
		}
		now := s.db.Now.Now()
		// Bring back whichever was superseded by the other, then supersede
		// the one not kept.
		if err := tx.release(ctx, c.OlderID, c.NewerID, now); err != nil {
			return err
		}
		if err := tx.release(ctx, c.NewerID, c.OlderID, now); err != nil {
			return err
		}
		for _, mid := range []string{c.OlderID, c.NewerID} {
			e, err := getEntry(ctx, tx, mid)
			if err != nil {
				return err
			}
			if e.ForgottenAt != nil {
				return memory.Errorf(memory.ECONFLICT, "memory %s was forgotten (%s): nothing to decide between; remember it again to restate it", mid, e.ForgetReason)
			}
		}
		switch keep {
		case memory.ConflictNewerWins:
			err = tx.supersede(ctx, c.AgentID, c.OlderID, c.NewerID, now)
		case memory.ConflictOlderWins:
			err = tx.supersede(ctx, c.AgentID, c.NewerID, c.OlderID, now)
		}
		if err != nil {
			if memory.ErrorCode(err) == memory.ECONFLICT {
				err = memory.Errorf(memory.ECONFLICT, "the memory not kept is archived for another reason (list_memories shows why): restore_memory it first, or keep both")
			}
			return err
		}
		out, err = tx.decide(ctx, who, c, keep, reason, now)
		return err
	})
	if err != nil {
		return memory.Conflict{}, err
	}
	return out, nil
}

func conflictNotFound(id string) error {
	return memory.Errorf(memory.ENOTFOUND, "no conflict %q among your memories: list_conflicts lists them", id)
}

// decide records the decision keep on conflict c, and returns it as it now
// stands with its memories.
func (tx *Tx) decide(ctx context.Context, who memory.Identity, c memory.Conflict, keep memory.ConflictResolution, reason string, now time.Time) (memory.Conflict, error) {
	if _, err := tx.exec(ctx, `UPDATE memory_conflicts SET resolution = ?, resolved_at = ?, resolved_by = ?, reason = ? WHERE id = ?`,
		keep, nanos(now), who.Principal(), nullString(reason, reason != ""), c.ID); err != nil {
		return c, fmt.Errorf("resolve conflict: %w", err)
	}
	c, err := tx.conflictOf(ctx, c.OlderID, c.NewerID)
	if err != nil {
		return c, err
	}
	return tx.withMemoriesOf(ctx, c)
}

// widenArchiveReasons is migration 0010's Go step: 'superseded' and
// 'merged' join the
// archive reasons the memories table's CHECK accepts (SQLite documents
// rewriting the schema text as the way to relax a constraint, the stored
// rows being unaffected), and the claims of the memories already stored
// are filled in.
func widenArchiveReasons(ctx context.Context, tx *Tx) error {
	const from, to = `'expired'))`, `'expired', 'superseded', 'merged'))`
	var version int64
	if err := tx.sql.QueryRowContext(ctx, `PRAGMA schema_version`).Scan(&version); err != nil {
		return err
	}
	for _, q := range []string{`PRAGMA writable_schema = ON`,
		`UPDATE sqlite_schema SET sql = replace(sql, '` + strings.ReplaceAll(from, "'", "''") + `', '` + strings.ReplaceAll(to, "'", "''") + `')
		WHERE type = 'table' AND name = 'memories'`,
		`PRAGMA schema_version = ` + strconv.FormatInt(version+1, 10),
		`PRAGMA writable_schema = OFF`} {
		if _, err := tx.sql.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("widen archive reasons: %w", err)
		}
	}
	var schema string
	if err := tx.sql.QueryRowContext(ctx, `SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'memories'`).Scan(&schema); err != nil {
		return err
	}
	if !strings.Contains(schema, to) {
		return fmt.Errorf("widen archive reasons: the memories table's CHECK was not as expected")
	}
	return fillClaims(ctx, tx)
}

// refillClaims is migration 0023's Go step: the claims of every memory
// (personal ones under their agent, shared copies under sharedClaims) and
// of every active fact, hashed again by the rules as they are now, after
// the migration's SQL deleted the ones the earlier rules hashed.
func refillClaims(ctx context.Context, tx *Tx) error {
	has := func(table string) (bool, error) {
		var n int
		err := tx.sql.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, table).Scan(&n)
		return n > 0, err
	}
	if ok, err := has("memory_claims"); err != nil || ok {
		if err != nil {
			return err
		}
		if _, err := tx.sql.ExecContext(ctx, `DELETE FROM memory_claims`); err != nil {
			return err
		}
		if err := fillClaims(ctx, tx); err != nil {
			return err
		}
		type row struct {
			pk      int64
			content string
		}
		shared, err := collect(ctx, tx, `SELECT pk, content FROM memories WHERE shared = 1`, func(rows *sql.Rows, r *row) error {
			return rows.Scan(&r.pk, &r.content)
		})
		if err != nil {
			return err
		}
		for _, r := range shared {
			if _, err := tx.sql.ExecContext(ctx, `INSERT OR IGNORE INTO memory_claims (agent_id, claim, value, memory_pk)
				SELECT ?1, value ->> 0, value ->> 1, ?2 FROM json_each(?3)`, sharedClaims, r.pk, claimList(text.ClaimKeys(r.content))); err != nil {
				return err
			}
		}
	}
	ok, err := has("fact_claims")
	if err != nil || !ok {
		return err
	}
	if _, err := tx.sql.ExecContext(ctx, `DELETE FROM fact_claims`); err != nil {
		return err
	}
	type fact struct{ id, content string }
	facts, err := collect(ctx, tx, `SELECT fact_id, content FROM snapshot WHERE retracted_at IS NULL`, func(rows *sql.Rows, f *fact) error {
		return rows.Scan(&f.id, &f.content)
	})
	if err != nil {
		return err
	}
	for _, f := range facts {
		if _, err := tx.sql.ExecContext(ctx, `INSERT OR IGNORE INTO fact_claims (claim, value, fact_id)
			SELECT value ->> 0, value ->> 1, ? FROM json_each(?)`, f.id, claimList(text.ClaimKeys(f.content))); err != nil {
			return err
		}
	}
	return nil
}

// fillClaims records the claims of every personal memory.
func fillClaims(ctx context.Context, tx *Tx) error {
	type row struct {
		pk             int64
		agent, content string
	}
	todo, err := collect(ctx, tx, `SELECT pk, agent_id, content FROM memories WHERE shared = 0`, func(rows *sql.Rows, r *row) error {
		return rows.Scan(&r.pk, &r.agent, &r.content)
	})
	if err != nil {
		return err
	}
	for _, r := range todo {
		// Not tx.exec: its statements are prepared for the database, which
		// does not see this migration's tables until it commits.
		if _, err := tx.sql.ExecContext(ctx, `INSERT OR IGNORE INTO memory_claims (agent_id, claim, value, memory_pk)
			SELECT ?1, value ->> 0, value ->> 1, ?2 FROM json_each(?3)`, r.agent, r.pk, claimList(text.ClaimKeys(r.content))); err != nil {
			return err
		}
	}
	return nil
}
