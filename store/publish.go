package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

// Publishing passes the gates remember passes (migration 0019), over the
// shared space rather than one agent's memories: a copy that repeats an
// active shared memory of its namespace and category, any agent's, stores
// nothing; one that contradicts active shared memories of its namespace is
// stored with each conflict recorded open. A shared memory is its
// publisher's, so no publish by another agent supersedes it, and only a
// human decides such a conflict: keeping one retracts the other from every
// agent, as retract_memory would.

// pool is where a write's repeats and contradictions are looked for: one
// agent's active personal memories (remember), or the shared space, every
// agent's active shared memories (publish).
type pool struct {
	agent string // whose personal memories; "" is the shared space
}

// personalPool is agent's personal memories.
func personalPool(agent string) pool { return pool{agent: agent} }

// sharedPool is every agent's shared memories.
var sharedPool = pool{}

func (sp pool) shared() bool { return sp.agent == "" }

// sharedClaims is the agent id the shared space's claims are kept under in
// memory_claims: no agent's id begins with '*' (memory.CheckID).
const sharedClaims = "*shared"

// claimsOwner is the agent id the pool's claims are kept under.
func (sp pool) claimsOwner() string {
	if sp.shared() {
		return sharedClaims
	}
	return sp.agent
}

// duplicateQuery finds a write's dedup candidates in one statement, each
// tier's by its index (personal: by agent; shared: the partial indexes of
// migration 0019): every write asks, and most find none. The exact tier's
// come first, then the words tier's. CROSS JOIN keeps the index lookups
// outer; asked with IN, the planner walked all of the agent's memories. A
// memory without a meaning key (one of more than one sentence) matches none
// by it; one without an exact or words key, found by its meaning key, sorts
// after the matches of those tiers on both engines (NULLS LAST: PostgreSQL
// sorts NULL first in DESC order, SQLite last). Indexed by pool.shared();
// the personal one takes the agent as its
// last parameter, which the shared one has none of (PostgreSQL refuses a
// parameter a statement never uses: see duplicateArgs).
var duplicateQuery = map[bool]string{false: duplicateSQL("agent_id = ?7", "0"), true: duplicateSQL("shared = 1", "1")}

func duplicateSQL(owner, shared string) string {
	return entryColumns + ` FROM
		(SELECT pk FROM memories WHERE ` + owner + ` AND exact_key = ?1
		 UNION SELECT pk FROM memories WHERE ` + owner + ` AND words_key = ?2
		 UNION SELECT pk FROM memories WHERE ` + owner + ` AND meaning_key = ?3) k
		CROSS JOIN memories m ON m.pk = k.pk
		WHERE m.shared = ` + shared + ` AND m.forgotten_at IS NULL AND m.archived_at IS NULL
		AND m.namespace = ?4 AND m.category = ?5 AND (m.expires_at IS NULL OR m.expires_at > ?6)
		ORDER BY m.exact_key = ?1 DESC NULLS LAST, m.words_key = ?2 DESC NULLS LAST, m.created_at DESC LIMIT 24`
}

// duplicateArgs are duplicateQuery[sp.shared()]'s parameters.
func (sp pool) duplicateArgs(keys dedupKeys, w memory.EntryWrite, now time.Time) []any {
	args := []any{keys.exact, keys.words, nullString(keys.meaning, keys.meaning != ""), w.Namespace, string(w.Category), nanos(now)}
	if !sp.shared() {
		args = append(args, sp.agent)
	}
	return args
}

// asTold returns e as the rules of time read it (eventful): a shared copy
// is written when it is published, so whether it tells of an event, which
// is whether it occurred at another time than it was written, is its
// original's; a personal memory is as it is.
func (sp pool) asTold(ctx context.Context, tx *Tx, e memory.Entry) (memory.Entry, error) {
	if !sp.shared() || e.Provenance == nil || e.Provenance.PublishedFrom == "" {
		return e, nil
	}
	var created int64
	err := tx.queryRow(ctx, `SELECT created_at FROM memories WHERE id = ?`, e.Provenance.PublishedFrom).Scan(&created)
	if errors.Is(err, sql.ErrNoRows) {
		return e, nil
	}
	if err != nil {
		return e, fmt.Errorf("read the original of %s: %w", e.ID, err)
	}
	e.CreatedAt = fromNanos(created)
	return e, nil
}

// publish is Publish's write: the caller's memory id, checked, then
// counted as a repeat of the shared memory it repeats, or copied to the
// shared space with the conflicts the copy has there recorded open.
func (s *MemoryService) publish(ctx context.Context, tx *Tx, who memory.Identity, p memory.PublishWrite) (memory.MemoryPublished, error) {
	now := s.db.Now.Now()
	e, err := s.publishable(ctx, tx, who, p.ID, now)
	if err != nil {
		return memory.MemoryPublished{}, err
	}
	if err := s.notARepeatOf(ctx, tx, who, p.NotARepeatOf); err != nil {
		return memory.MemoryPublished{}, err
	}
	w, keys := sharedWrite(e)
	w.NotARepeatOf = p.NotARepeatOf
	if s.Dedup {
		started := time.Now()
		dup, tier, _, found, err := s.findDuplicate(ctx, tx, sharedPool, memory.AuthorOf(who), w, keys, now)
		CallFrom(ctx).spent("dedup", time.Since(started))
		if err != nil {
			return memory.MemoryPublished{}, err
		}
		if found {
			// Counted as remember counts a repeat, seen once more, but with
			// the copy's own confidence: the copy is its publisher's, and so
			// is how sure it is. The repeat is recorded, so that the
			// statement stays shared if its publisher retracts it (handOn).
			sent := w
			confidence := dup.Confidence
			w.Confidence = &confidence
			r, err := s.repeated(ctx, tx, dup, w, tier, now)
			if err != nil {
				return memory.MemoryPublished{}, err
			}
			if _, err := tx.exec(ctx, `INSERT INTO shared_repeats (copy_id, memory_id) VALUES (?, ?) ON CONFLICT DO NOTHING`, dup.ID, e.ID); err != nil {
				return memory.MemoryPublished{}, fmt.Errorf("record repeat: %w", err)
			}
			// The copy's words are its original's, which stays; the repeat
			// keeps them as they were, beside the memory they repeat.
			rep := repeat{memory: dup.ID, tool: "publish_memory", from: e.ID, tier: tier, w: sent, timed: keys.timed}
			rid, err := tx.keepRepeat(ctx, who, rep, now)
			if err != nil {
				return memory.MemoryPublished{}, err
			}
			return memory.MemoryPublished{Entry: r.Entry, Outcome: r.Outcome, Tier: r.Tier, RepeatID: rid}, nil
		}
	}
	var clashes []clash
	if s.Contradictions != memory.ContradictionsOff {
		started := time.Now()
		clashes, err = s.findClashes(ctx, tx, sharedPool, w, keys.claims, keys.timed, now)
		CallFrom(ctx).spent("contradiction", time.Since(started))
		if err != nil {
			return memory.MemoryPublished{}, err
		}
	}
	sid, err := s.copyToShared(ctx, tx, who, e, keys, now)
	if err != nil {
		return memory.MemoryPublished{}, err
	}
	if p.NotARepeatOf != "" {
		if err := tx.storedAfterAll(ctx, who.AgentID, p.NotARepeatOf, "", e.ID, sid); err != nil {
			return memory.MemoryPublished{}, err
		}
	}
	out := memory.MemoryPublished{Outcome: memory.WriteOutcomeStored}
	for _, k := range clashes {
		c, err := tx.addConflict(ctx, memory.SharedConflictPrefix, who, who.AgentID, k.older.ID, sid, k.how, memory.ConflictOpen, "", now)
		if err != nil {
			return out, err
		}
		out.Conflicts = append(out.Conflicts, c)
	}
	out.Entry, err = getEntry(ctx, tx, sid)
	return out, err
}

// sharedWrite is personal memory e as the write its shared copy would be,
// for dedup and the contradiction check, with its keys. It tells of an
// event when it occurred at another time than it was written.
func sharedWrite(e memory.Entry) (memory.EntryWrite, dedupKeys) {
	confidence := e.Confidence
	w := memory.EntryWrite{Namespace: e.Namespace, Category: e.Category, Content: e.Content, Tags: e.Tags,
		Confidence: &confidence, Source: e.Source, OccurredAt: e.OccurredAt}
	if e.ExpiresAt != nil {
		w.ExpiresAt = *e.ExpiresAt
	}
	return w, keysOf(e.Content, !e.OccurredAt.Equal(e.CreatedAt))
}

// copyToShared writes the shared copy of personal memory e, with its dedup
// keys and claims, and returns its id.
func (s *MemoryService) copyToShared(ctx context.Context, tx *Tx, who memory.Identity, e memory.Entry, keys dedupKeys, now time.Time) (string, error) {
	sid, err := newMemoryID(ctx, tx)
	if err != nil {
		return "", err
	}
	publisher := autonomyArg(memory.AuthorOf(who).Autonomy)
	stamp, err := tx.copyStamp(ctx, e.ID, sid, nanos(now), publisher)
	if err != nil {
		return "", err
	}
	pk, err := tx.insertID(ctx, "pk", `INSERT INTO memories
		(id, agent_id, namespace, category, content, tags, confidence, source, shared, created_at, updated_at,
		 occurred_at, expires_at, author_seniority, author_autonomy, author_is_human, published_from, published_at,
		 published_autonomy, embedding, embedder, filters, length, stamp, exact_key, words_key, meaning_key)
		SELECT ?1, agent_id, namespace, category, content, tags, confidence, source, 1, ?2, ?2,
		 occurred_at, expires_at, author_seniority, author_autonomy, author_is_human, id, ?2, ?5, embedding, embedder, ?4, length, ?6,
		 ?7, ?8, ?9
		FROM memories WHERE id = ?3`, sid, nanos(now), e.ID, filterTokens(e.AgentID, true, e.Namespace, e.Category, e.Tags),
		publisher, stamp, keys.exact, keys.words, nullString(keys.meaning, keys.meaning != ""))
	if err != nil {
		return "", fmt.Errorf("publish memory: %w", err)
	}
	if err := tx.indexMemory(ctx, pk, e.Content, encodeTags(e.Tags), filterTokens(e.AgentID, true, e.Namespace, e.Category, e.Tags)); err != nil {
		return "", err
	}
	if err := tx.addClaims(ctx, sharedClaims, pk, keys.claims); err != nil {
		return "", err
	}
	if err := tx.RecordChange(ctx, memory.ChangeMemory, sid, now); err != nil {
		return "", err
	}
	if call := CallFrom(ctx); call != nil {
		call.Ref = sid
	}
	return sid, nil
}

// resolveShared decides conflict c between shared memories, for a human
// only: keeping one retracts the other from the shared space (kept for
// audit, as retract_memory keeps it); keeping both retracts neither. A
// retraction is not undone by deciding again (publishing the memory again
// is the undo), so a retracted memory cannot be kept.
func (s *MemoryService) resolveShared(ctx context.Context, tx *Tx, who memory.Identity, c memory.Conflict, keep memory.ConflictResolution, reason string) (memory.Conflict, error) {
	c, err := tx.withMemoriesOf(ctx, c)
	if err != nil {
		return c, err
	}
	if !who.Human {
		if c.Older.AgentID != who.AgentID && c.Newer.AgentID != who.AgentID {
			return memory.Conflict{}, conflictNotFound(c.ID)
		}
		return memory.Conflict{}, memory.Errorf(memory.EFORBIDDEN, "conflict %s is between shared memories (of agents %q and %q): only a human decides it, "+
			"since keeping one retracts the other from every agent; retract_memory withdraws your own", c.ID, c.Older.AgentID, c.Newer.AgentID)
	}
	if c.Resolution == keep {
		return c, nil
	}
	drop := map[memory.ConflictResolution]*memory.Entry{memory.ConflictNewerWins: c.Older, memory.ConflictOlderWins: c.Newer}[keep]
	for _, e := range []*memory.Entry{c.Older, c.Newer} {
		if e.ForgottenAt != nil && e != drop {
			return memory.Conflict{}, memory.Errorf(memory.ECONFLICT, "shared memory %s was retracted (%s): it cannot be kept; publish it again to restate it",
				e.ID, e.ForgetReason)
		}
	}
	now := s.db.Now.Now()
	if drop != nil && drop.ForgottenAt == nil {
		why := fmt.Sprintf("retracted from the shared space: conflict %s decided by %s", c.ID, who.Principal())
		if _, err := s.softDelete(ctx, tx, who, drop.ID, why); err != nil {
			return memory.Conflict{}, err
		}
		if _, err := tx.exec(ctx, `DELETE FROM shared_repeats WHERE copy_id = ?`, drop.ID); err != nil {
			return memory.Conflict{}, err
		}
	}
	return tx.decide(ctx, who, c, keep, reason, now)
}

// fillSharedKeys is migration 0019's Go step: the dedup keys and claims of
// the shared copies published before publishing kept them.
func fillSharedKeys(ctx context.Context, tx *Tx) error {
	return keyMemories(ctx, tx, "shared = 1")
}

// handOn keeps what shared copy id said in the shared space after its
// publisher retracted it, when other agents' publishes of it were answered
// "duplicate": the earliest of those memories still active and unshared is
// copied to the shared space as its own publisher's, and the other repeats
// now repeat that copy. A copy a human's decision of a conflict retracted
// is not handed on: its statement was judged, not withdrawn.
func (s *MemoryService) handOn(ctx context.Context, tx *Tx, id string, now time.Time) error {
	var next string
	err := tx.queryRow(ctx, `SELECT r.memory_id FROM shared_repeats r JOIN memories m ON m.id = r.memory_id
		WHERE r.copy_id = ? AND m.shared = 0 AND m.forgotten_at IS NULL AND m.archived_at IS NULL
		AND (m.expires_at IS NULL OR m.expires_at > ?)
		AND NOT EXISTS (SELECT 1 FROM memories c WHERE c.published_from = m.id AND c.forgotten_at IS NULL)
		ORDER BY m.created_at, m.id LIMIT 1`, id, nanos(now)).Scan(&next)
	if errors.Is(err, sql.ErrNoRows) {
		_, err = tx.exec(ctx, `DELETE FROM shared_repeats WHERE copy_id = ?`, id)
		return err
	}
	if err != nil {
		return fmt.Errorf("find a repeat of %s: %w", id, err)
	}
	e, err := getEntry(ctx, tx, next)
	if err != nil {
		return err
	}
	if call := CallFrom(ctx); call != nil {
		// The call's line in the write log names what it retracted.
		ref := call.Ref
		defer func() { call.Ref = ref }()
	}
	owner := memory.Identity{AgentID: e.AgentID}
	if e.Provenance != nil {
		owner.Seniority, owner.Autonomy, owner.Human = e.Provenance.Author.Seniority, e.Provenance.Author.Autonomy, e.Provenance.Author.Human
	}
	_, keys := sharedWrite(e)
	sid, err := s.copyToShared(ctx, tx, owner, e, keys, now)
	if err != nil {
		return err
	}
	if _, err := tx.exec(ctx, `UPDATE shared_repeats SET copy_id = ? WHERE copy_id = ? AND memory_id <> ?`, sid, id, next); err != nil {
		return fmt.Errorf("move repeats: %w", err)
	}
	_, err = tx.exec(ctx, `DELETE FROM shared_repeats WHERE copy_id = ?`, id)
	return err
}
