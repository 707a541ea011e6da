package store

import (
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/internal/text"
)

// Contradictions between organisational facts (seed 003, 12.2.4), found
// by the rules memories are checked by. A write never settles one: a fact
// binds every agent, and which one holds is for someone with write access
// to the category of the one that goes (ResolveConflict retracts it).

// maxFactClashes bounds the facts a new version is compared with.
const maxFactClashes = 16

// checkFact replaces the claims of fact f, whose new version who has just
// written, records an open conflict with each active fact it contradicts,
// and settles the open conflicts of its earlier version that it no longer
// has. A fact marked superseded claims nothing, and its conflicts are
// settled for the other fact.
func (tx *Tx) checkFact(ctx context.Context, who memory.Identity, f memory.Fact, claims []text.Claim, judged []judgedClash, now time.Time) ([]memory.Conflict, error) {
	if _, err := tx.exec(ctx, `DELETE FROM fact_claims WHERE fact_id = ?`, f.ID); err != nil {
		return nil, fmt.Errorf("replace fact claims: %w", err)
	}
	if f.SupersededBy != "" {
		return nil, tx.settleFactConflicts(ctx, who, f.ID, "", fmt.Sprintf("fact %s is marked superseded by %s", f.ID, f.SupersededBy), now)
	}
	if _, err := tx.exec(ctx, `INSERT INTO fact_claims (claim, value, fact_id)
		SELECT value ->> 0, value ->> 1, ? FROM json_each(?) WHERE true ON CONFLICT DO NOTHING`, f.ID, claimList(claims)); err != nil {
		return nil, fmt.Errorf("record fact claims: %w", err)
	}
	var found []memory.Fact
	if len(claims) > 0 {
		// Two steps: the facts claiming a key with another value are usually
		// none, and that answer costs one lookup by index; joined with the
		// snapshot in one statement (and planned from the snapshot, as
		// SQLite chose), it cost two thirds of a publish at a thousand facts.
		ids, err := scanStrings(tx.query(ctx, `SELECT DISTINCT c.fact_id FROM json_each(?) j CROSS JOIN fact_claims c
			ON c.claim = j.value ->> 0 AND c.value <> j.value ->> 1 WHERE c.fact_id <> ?`, claimList(claims), f.ID))
		if err != nil {
			return nil, fmt.Errorf("find contradicting facts: %w", err)
		}
		if found, err = tx.activeFacts(ctx, ids); err != nil {
			return nil, err
		}
	}
	var out []memory.Conflict
	clashing := []string{}
	for _, older := range found {
		c, ok := text.Contradicts(older.Content, f.Content)
		if !ok || older.SupersededBy != "" {
			continue
		}
		conflict, err := tx.recordFactConflict(ctx, who, older, f, ruleClash(c), now)
		if err != nil {
			return nil, err
		}
		clashing = append(clashing, older.ID)
		out = append(out, conflict)
	}
	for _, jc := range judged {
		if !jc.j.Contradicts || slices.Contains(clashing, jc.older) || jc.older == f.ID {
			continue
		}
		older, err := scanFact(tx.queryRow(ctx, snapshotColumns+` FROM snapshot v WHERE v.fact_id = ?`, jc.older), false)
		if errors.Is(err, sql.ErrNoRows) || err == nil && (!older.Active() || older.SupersededBy != "") {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read judged fact: %w", err)
		}
		conflict, err := tx.recordFactConflict(ctx, who, older, f, memory.Clash{Kind: memory.ConflictModel,
			Why: fmt.Sprintf("the model is %.2f sure: %s", jc.j.Score, plain(jc.j.Reason))}, now)
		if err != nil {
			return nil, err
		}
		clashing = append(clashing, older.ID)
		out = append(out, conflict)
	}
	if err := tx.settleStale(ctx, who, f, clashing, now); err != nil {
		return nil, err
	}
	return out, nil
}

// activeFacts reads the active facts among ids, the most recently changed
// first, at most maxFactClashes of them.
func (tx *Tx) activeFacts(ctx context.Context, ids []string) ([]memory.Fact, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := tx.query(ctx, snapshotColumns+` FROM snapshot v WHERE v.fact_id IN (SELECT value FROM json_each(?))
		AND v.retracted_at IS NULL ORDER BY v.updated_at DESC LIMIT ?`, jsonList(ids), maxFactClashes)
	if err != nil {
		return nil, fmt.Errorf("find contradicting facts: %w", err)
	}
	return scanFacts(rows, false)
}

// settleStale settles the open conflicts of fact f's earlier version that
// its new version no longer has, each tested again against the other fact
// by the rules (not only among the facts the claims lookup brought, which
// it bounds). A model's finding is left open: only the model, or someone
// deciding, can say it is gone.
func (tx *Tx) settleStale(ctx context.Context, who memory.Identity, f memory.Fact, clashing []string, now time.Time) error {
	rows, err := tx.query(ctx, factConflictColumns+` WHERE c.resolution = 'open' AND c.kind <> 'model' AND (c.older_id = ?1 OR c.newer_id = ?1)`, f.ID)
	if err != nil {
		return fmt.Errorf("read fact conflicts: %w", err)
	}
	var open []memory.Conflict
	for rows.Next() {
		c, err := scanFactConflict(rows)
		if err != nil {
			rows.Close()
			return err
		}
		open = append(open, c)
	}
	// rows.Err, not only Close: a read PostgreSQL aborted (a serialization
	// failure) ends the loop early, and the transaction must end with it.
	if err := rows.Err(); err != nil {
		rows.Close()
		return fmt.Errorf("read fact conflicts: %w", err)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for _, c := range open {
		other := c.OlderID
		if other == f.ID {
			other = c.NewerID
		}
		if slices.Contains(clashing, other) {
			continue
		}
		o, err := scanFact(tx.queryRow(ctx, snapshotColumns+` FROM snapshot v WHERE v.fact_id = ?`, other), false)
		if err != nil {
			return fmt.Errorf("read fact %s: %w", other, err)
		}
		if _, still := text.Contradicts(o.Content, f.Content); still && o.Active() {
			continue
		}
		if _, err := tx.exec(ctx, `UPDATE fact_conflicts SET resolution = 'both_hold', resolved_at = ?, resolved_by = ?, reason = ?
			WHERE id = ?`, nanos(now), who.Principal(), fmt.Sprintf("fact %s version %d no longer contradicts it", f.ID, f.Version), c.ID); err != nil {
			return fmt.Errorf("settle fact conflict: %w", err)
		}
	}
	return nil
}

// recordFactConflict records that fact newer, just written, contradicts
// fact older, open, and returns it with both facts. A pair has one
// conflict, whichever of the two was written last, and keeps the
// orientation it was found in (a decision to keep the newer names the same
// fact however often either is republished): a clash found again brings
// its versions and values up to date and reopens it, unless someone
// decided both hold of the same two values.
func (tx *Tx) recordFactConflict(ctx context.Context, who memory.Identity, older, newer memory.Fact, c memory.Clash, now time.Time) (memory.Conflict, error) {
	prev, err := scanFactConflict(tx.queryRow(ctx, factConflictColumns+` WHERE (c.older_id = ?1 AND c.newer_id = ?2)
		OR (c.older_id = ?2 AND c.newer_id = ?1)`, older.ID, newer.ID))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		id, err := newConflictID(memory.FactConflictPrefix)
		if err != nil {
			return memory.Conflict{}, err
		}
		_, err = tx.exec(ctx, `INSERT INTO fact_conflicts (id, older_id, older_version, newer_id, newer_version, kind, slot,
			older_value, newer_value, resolution, detected_at, detected_by, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?, ?)`,
			id, older.ID, older.Version, newer.ID, newer.Version, c.Kind, nullString(c.Slot, c.Slot != ""),
			nullString(c.Older, c.Older != ""), nullString(c.Newer, c.Newer != ""), nanos(now), who.Principal(), nullString(c.Why, c.Why != ""))
		if err != nil {
			return memory.Conflict{}, fmt.Errorf("record fact conflict: %w", err)
		}
		prev.ID = id
	case err != nil:
		return memory.Conflict{}, fmt.Errorf("read fact conflict: %w", err)
	default:
		if prev.OlderID != older.ID { // found the other way round: the row's orientation stays
			older, newer = newer, older
			c.Older, c.Newer = c.Newer, c.Older
		}
		same := prev.Kind == c.Kind && prev.Slot == c.Slot && prev.OlderValue == c.Older && prev.NewerValue == c.Newer
		reopen := !(prev.Resolution == memory.ConflictBothHold && prev.Decided && same)
		_, err = tx.exec(ctx, `UPDATE fact_conflicts SET older_version = ?, newer_version = ?, kind = ?,
			slot = ?, older_value = ?, newer_value = ?, detected_at = ?, detected_by = ?,
			resolution = CASE WHEN ?9 = 1 THEN 'open' ELSE resolution END,
			resolved_at = CASE WHEN ?9 = 1 THEN NULL ELSE resolved_at END,
			resolved_by = CASE WHEN ?9 = 1 THEN NULL ELSE resolved_by END,
			decided = CASE WHEN ?9 = 1 THEN 0 ELSE decided END,
			reason = CASE WHEN ?9 = 1 THEN ?11 ELSE reason END WHERE id = ?10`,
			older.Version, newer.Version, c.Kind, nullString(c.Slot, c.Slot != ""),
			nullString(c.Older, c.Older != ""), nullString(c.Newer, c.Newer != ""), nanos(now), who.Principal(), reopen, prev.ID,
			nullString(c.Why, c.Why != ""))
		if err != nil {
			return memory.Conflict{}, fmt.Errorf("record fact conflict: %w", err)
		}
	}
	return tx.factConflict(ctx, prev.ID)
}

// judged asks the model, if one is configured, whether w contradicts or
// says in other words each of the active facts nearest it by keywords,
// before the write's
// transaction (which checks again that each is still active). A pair the
// rules decide is left to them; a failing model leaves every pair to the
// rules.
func (s *FactService) judged(ctx context.Context, w memory.FactWrite) []judgedClash {
	if s.Judge == nil {
		return nil
	}
	text := w.Content
	if len(text) > memory.MaxQueryBytes/2 {
		text = strings.ToValidUTF8(text[:memory.MaxQueryBytes/2], "")
	}
	near, err := s.Query(ctx, memory.FactQuery{Text: text, Limit: judgeNeighbours + 1})
	if err != nil {
		s.Log.Warn("contradiction judge: no neighbouring facts", "err", err)
		return nil
	}
	var out []judgedClash
	asked := 0
	for _, f := range near {
		if f.ID == w.FactID || f.SupersededBy != "" || asked == judgeNeighbours {
			continue
		}
		asked++
		var ok bool
		if out, ok = askJudge(ctx, s.Judge, s.Log, f.ID, f.Content, w.Content, out); !ok {
			return out
		}
	}
	return out
}

// factRetracted drops the claims of retracted fact id and settles its open
// conflicts for the other fact.
func (tx *Tx) factRetracted(ctx context.Context, who memory.Identity, id string, now time.Time) error {
	if _, err := tx.exec(ctx, `DELETE FROM fact_claims WHERE fact_id = ?`, id); err != nil {
		return fmt.Errorf("drop fact claims: %w", err)
	}
	return tx.settleFactConflicts(ctx, who, id, "", fmt.Sprintf("fact %s was retracted", id), now)
}

// settleFactConflicts settles the open conflicts of fact id (all of them,
// or only conflict cid) for the other fact: id lost.
func (tx *Tx) settleFactConflicts(ctx context.Context, who memory.Identity, id, cid, reason string, now time.Time) error {
	_, err := tx.exec(ctx, `UPDATE fact_conflicts SET resolution = CASE WHEN older_id = ?1 THEN 'newer_wins' ELSE 'older_wins' END,
		resolved_at = ?2, resolved_by = ?3, reason = ?4
		WHERE resolution = 'open' AND (older_id = ?1 OR newer_id = ?1) AND (?5 = '' OR id = ?5)`,
		id, nanos(now), who.Principal(), reason, cid)
	if err != nil {
		return fmt.Errorf("settle fact conflicts: %w", err)
	}
	return nil
}

const factConflictColumns = `SELECT c.id, c.older_id, c.older_version, c.newer_id, c.newer_version, c.kind, c.slot,
	c.older_value, c.newer_value, c.resolution, c.detected_at, c.detected_by, c.resolved_at, c.resolved_by, c.reason, c.decided
	FROM fact_conflicts c`

func scanFactConflict(row interface{ Scan(...any) error }) (memory.Conflict, error) {
	c := memory.Conflict{Subject: memory.ConflictOfFacts}
	var slot, ov, nv, by, reason sql.NullString
	var detected int64
	var resolved sql.NullInt64
	err := row.Scan(&c.ID, &c.OlderID, &c.OlderVersion, &c.NewerID, &c.NewerVersion, &c.Kind, &slot, &ov, &nv,
		&c.Resolution, &detected, &c.DetectedBy, &resolved, &by, &reason, &c.Decided)
	c.Slot, c.OlderValue, c.NewerValue, c.ResolvedBy, c.Reason = slot.String, ov.String, nv.String, by.String, reason.String
	c.DetectedAt, c.ResolvedAt = fromNanos(detected), fromNullNanos(resolved)
	return c, err
}

// factConflict reads conflict id with its two facts as they stand.
func (tx *Tx) factConflict(ctx context.Context, id string) (memory.Conflict, error) {
	c, err := scanFactConflict(tx.queryRow(ctx, factConflictColumns+` WHERE c.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return c, memory.Errorf(memory.ENOTFOUND, "no conflict %q between facts: list_conflicts lists them", id)
	}
	if err != nil {
		return c, fmt.Errorf("read fact conflict: %w", err)
	}
	return c, tx.withFacts(ctx, &c)
}

func (tx *Tx) withFacts(ctx context.Context, c *memory.Conflict) error {
	for _, f := range []struct {
		id  string
		dst **memory.Fact
	}{{c.OlderID, &c.OlderFact}, {c.NewerID, &c.NewerFact}} {
		fact, err := scanFact(tx.queryRow(ctx, snapshotColumns+` FROM snapshot v WHERE v.fact_id = ?`, f.id), false)
		if err != nil {
			return fmt.Errorf("read fact %s of conflict %s: %w", f.id, c.ID, err)
		}
		*f.dst = &fact
	}
	return nil
}

// Conflicts lists contradictions between facts, newest first. Facts are
// every agent's to read, and so are their conflicts.
func (s *FactService) Conflicts(ctx context.Context, q memory.ConflictQuery) ([]memory.Conflict, error) {
	if _, err := memory.RequireIdentity(ctx); err != nil {
		return nil, err
	}
	if err := q.Check(); err != nil {
		return nil, err
	}
	out := []memory.Conflict{}
	err := s.db.View(ctx, func(tx *Tx) error {
		rows, err := tx.query(ctx, factConflictColumns+` WHERE c.resolution IN (SELECT value FROM json_each(?))
			ORDER BY c.detected_at DESC, c.id LIMIT ?`, jsonList(q.Resolutions), q.Limit)
		if err != nil {
			return fmt.Errorf("list fact conflicts: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			c, err := scanFactConflict(rows)
			if err != nil {
				return err
			}
			out = append(out, c)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		for i := range out {
			if err := tx.withFacts(ctx, &out[i]); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// ResolveConflict decides conflict id between two facts: keeping one
// retracts the other (the caller needs write access to its category, and
// the reason names the conflict); keeping both records that they do not
// contradict each other (the caller needs write access to both
// categories). A retraction is not undone by deciding again: publishing
// the fact again does that, and reopens the conflict if they still clash.
func (s *FactService) ResolveConflict(ctx context.Context, id string, keep memory.ConflictResolution, reason string) (memory.Conflict, error) {
	who, err := decider(ctx, keep, reason)
	if err != nil {
		return memory.Conflict{}, err
	}
	var out memory.Conflict
	err = s.db.Update(ctx, func(tx *Tx) error {
		c, err := tx.factConflict(ctx, id)
		if err != nil {
			return err
		}
		if c.Resolution == keep {
			out = c
			return nil
		}
		if c.Resolution == memory.ConflictNewerWins || c.Resolution == memory.ConflictOlderWins {
			lost := map[memory.ConflictResolution]string{memory.ConflictNewerWins: c.OlderID, memory.ConflictOlderWins: c.NewerID}[c.Resolution]
			return memory.Errorf(memory.ECONFLICT, "conflict %s was decided %s and fact %s is retracted: publish it again to restore it (which reopens the conflict if they still clash)",
				id, c.Resolution, lost)
		}
		for _, f := range []*memory.Fact{c.OlderFact, c.NewerFact} {
			if !f.Active() {
				return memory.Errorf(memory.ECONFLICT, "fact %s is retracted: nothing to decide between", f.ID)
			}
		}
		now := s.db.Now.Now()
		why := cmp.Or(reason, "kept both")
		switch keep {
		case memory.ConflictNewerWins, memory.ConflictOlderWins:
			lost, won := c.OlderFact, c.NewerFact
			if keep == memory.ConflictOlderWins {
				lost, won = won, lost
			}
			why = cmp.Or(reason, "contradicts "+won.ID)
			if _, err := s.retract(ctx, tx, who, memory.FactRetract{FactID: lost.ID,
				Reason: fmt.Sprintf("conflict %s: %s", id, why)}); err != nil {
				return err
			}
		default:
			for _, f := range []*memory.Fact{c.OlderFact, c.NewerFact} {
				if err := s.Access.Check(who, f.Category); err != nil {
					return err
				}
			}
		}
		if _, err := tx.exec(ctx, `UPDATE fact_conflicts SET resolution = ?, resolved_at = ?, resolved_by = ?, reason = ?, decided = 1 WHERE id = ?`,
			keep, nanos(now), who.Principal(), why, id); err != nil {
			return fmt.Errorf("resolve fact conflict: %w", err)
		}
		out, err = tx.factConflict(ctx, id)
		return err
	})
	return out, err
}

// newConflictID returns a new conflict id with prefix.
func newConflictID(prefix string) (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("conflict id: %w", err)
	}
	return prefix + hex.EncodeToString(b[:]), nil
}

// fillFactKeys is migration 0014's Go step: the words key of every fact and
// the claims of every active one. The conflicts already standing among
// them are found when one of them next changes (republishing a fact as it
// stands changes nothing and checks nothing).
func fillFactKeys(ctx context.Context, tx *Tx) error {
	type row struct {
		id, content string
		active      bool
	}
	todo, err := collect(ctx, tx, `SELECT fact_id, content, retracted_at IS NULL FROM snapshot`, func(rows *sql.Rows, r *row) error {
		return rows.Scan(&r.id, &r.content, &r.active)
	})
	if err != nil {
		return err
	}
	for _, r := range todo {
		_, words := text.DedupKeys(r.content)
		if _, err := tx.sql.ExecContext(ctx, `UPDATE snapshot SET words_key = ? WHERE fact_id = ?`, words, r.id); err != nil {
			return err
		}
		if !r.active {
			continue
		}
		if _, err := tx.sql.ExecContext(ctx, `INSERT OR IGNORE INTO fact_claims (claim, value, fact_id)
			SELECT value ->> 0, value ->> 1, ? FROM json_each(?)`, r.id, claimList(text.ClaimKeys(r.content))); err != nil {
			return err
		}
	}
	return nil
}
