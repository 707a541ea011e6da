package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

// This file holds what keeps memory small: archiving and restoring, the
// summaries consolidation makes and what they were made from, listing and
// counting without a query. Every write of a maintenance run is fenced by
// the run's lease (lease.go). The policy (what to consolidate, how, when) is
// the consolidation service's; these are its storage steps.

// Restore brings one of the caller's archived memories back into search,
// exactly as it was: the same id, content, tags, times and vector; a human
// may name another agent whose memory it is. A summary it went into is
// kept (it still says what its sources said). Maintenance measures the
// memory's age from now on, so that the next run does not archive it again.
func (s *MemoryService) Restore(ctx context.Context, agent, id string) (memory.Entry, error) {
	return s.change(ctx, id, func(tx *Tx, who memory.Identity) (memory.Entry, error) {
		owner, err := ownerOf(ctx, tx, who, agent, "restore the memories of")
		if err != nil {
			return memory.Entry{}, err
		}
		e, err := s.ownEntry(ctx, tx, owner, id, "restore")
		if memory.ErrorCode(err) == memory.ENOTFOUND {
			err = memory.Errorf(memory.ENOTFOUND, "no memory of %s with id %q: list_memories with states [consolidated, archived] lists the archived ones",
				owner.AgentID, id)
		}
		if err != nil {
			return e, err
		}
		now := s.db.Now.Now()
		if err := canRestore(e, now); err != nil {
			return e, err
		}
		if err := tx.unarchive(ctx, e.ID, now); err != nil {
			return e, err
		}
		if _, err := tx.exec(ctx, `UPDATE memories SET restored_at = ? WHERE id = ?`, nanos(now), e.ID); err != nil {
			return e, fmt.Errorf("restore %s: %w", e.ID, err)
		}
		return tx.entry(ctx, e.ID)
	})
}

// ownerOf is the identity a call acts on memories as: the caller, or for a
// human caller naming another agent, that agent (with the caller's
// authority), which must have memories.
func ownerOf(ctx context.Context, tx *Tx, who memory.Identity, agent, verb string) (memory.Identity, error) {
	target, err := memory.TargetAgent(who, agent, verb)
	if err != nil || target == who.AgentID {
		return who, err
	}
	if err := tx.CheckAgent(ctx, target); err != nil {
		return who, err
	}
	owner := who
	owner.AgentID = target
	return owner, nil
}

// CheckAgent fails with ENOTFOUND when agent has no personal memory at all,
// in any state: a human naming an agent most likely misspelt it.
func (tx *Tx) CheckAgent(ctx context.Context, agent string) error {
	var n int
	if err := tx.queryRowOnce(ctx, `SELECT count(*) FROM (SELECT 1 FROM memories WHERE agent_id = ? AND shared = 0 LIMIT 1) AS one`,
		agent).Scan(&n); err != nil {
		return fmt.Errorf("look up agent %s: %w", agent, err)
	}
	if n == 0 {
		return memory.Errorf(memory.ENOTFOUND, "agent %q has no memories: check the agent id (list_memories with counts counts an agent's memories)", agent)
	}
	return nil
}

// canRestore says why memory e cannot be restored.
func canRestore(e memory.Entry, now time.Time) error {
	switch {
	case e.ForgottenAt != nil:
		return memory.Errorf(memory.ECONFLICT, "memory %s was forgotten at %s (%s): remember it again instead", e.ID,
			e.ForgottenAt.Format(time.RFC3339), e.ForgetReason)
	case e.ArchivedAt == nil:
		return memory.Errorf(memory.ECONFLICT, "memory %s is not archived: it is in search already", e.ID)
	case e.ArchiveReason == memory.ArchiveMerged:
		// Brought back, it would be a second copy of its merge's words that
		// nothing links to it (an erase of one would leave the other).
		return memory.Errorf(memory.ECONFLICT, "memory %s was merged into %s, which says the same with more tags: recall that one instead",
			e.ID, e.SupersededBy)
	case e.HasExpired(now):
		return memory.Errorf(memory.ECONFLICT, "memory %s expired at %s: remember it again without expires_at to keep it",
			e.ID, e.ExpiresAt.Format(time.RFC3339))
	}
	return nil
}

// entry loads memory id with what it was made from.
func (tx *Tx) entry(ctx context.Context, id string) (memory.Entry, error) {
	e, err := getEntry(ctx, tx, id)
	if err != nil {
		return e, err
	}
	return e, tx.addSources(ctx, []*memory.Entry{&e})
}

// addSources fills the sources of the summaries among es, in one query.
func (tx *Tx) addSources(ctx context.Context, es []*memory.Entry) error {
	if len(es) == 0 {
		return nil
	}
	ids := make([]string, len(es))
	byID := make(map[string][]*memory.Entry, len(es))
	for i, e := range es {
		ids[i] = e.ID
		byID[e.ID] = append(byID[e.ID], e)
	}
	list, _ := json.Marshal(ids)
	rows, err := tx.query(ctx, `SELECT summary_id, source_id FROM memory_sources
		WHERE summary_id IN (SELECT value FROM json_each(?)) ORDER BY summary_id, position`, string(list))
	if err != nil {
		return fmt.Errorf("read sources: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var summary, source string
		if err := rows.Scan(&summary, &source); err != nil {
			return err
		}
		for _, e := range byID[summary] {
			e.Sources = append(e.Sources, source)
		}
	}
	return rows.Err()
}

// stateSQL is the condition on alias m for each state, its ? the time it
// is asked at; see memory.StateOf.
var stateSQL = map[memory.MemoryState]string{
	memory.StateForgotten:    `m.forgotten_at IS NOT NULL`,
	memory.StateExpired:      `m.forgotten_at IS NULL AND (m.archive_reason = 'expired' OR m.expires_at <= ?)`,
	memory.StateConsolidated: `m.forgotten_at IS NULL AND m.archive_reason = 'consolidated' AND (m.expires_at IS NULL OR m.expires_at > ?)`,
	memory.StateArchived:     `m.forgotten_at IS NULL AND m.archive_reason IN ('retention', 'over_cap') AND (m.expires_at IS NULL OR m.expires_at > ?)`,
	memory.StateSuperseded:   `m.forgotten_at IS NULL AND m.archive_reason IN ('superseded', 'merged') AND (m.expires_at IS NULL OR m.expires_at > ?)`,
	memory.StateActive:       `m.forgotten_at IS NULL AND m.archived_at IS NULL AND (m.expires_at IS NULL OR m.expires_at > ?)`,
}

// List pages through the caller's personal memories in the states asked,
// newest first, with the total; a human may name another agent. With
// q.Shared it pages through the shared space instead, which every agent
// reads.
func (s *MemoryService) List(ctx context.Context, q memory.ListQuery) (memory.EntryPage, error) {
	who, err := memory.RequireIdentity(ctx)
	if err != nil {
		return memory.EntryPage{}, err
	}
	if err := q.Validate(); err != nil {
		return memory.EntryPage{}, err
	}
	page := memory.EntryPage{Memories: []memory.Entry{}, Offset: q.Offset}
	err = s.db.View(ctx, func(tx *Tx) error {
		if !q.Shared {
			owner, err := ownerOf(ctx, tx, who, q.AgentID, "list the memories of")
			if err != nil {
				return err
			}
			page.AgentID = owner.AgentID
		}
		now := s.db.Now.Now()
		where, args := listWhere(page.AgentID, q, now)
		// The total from the counts the database keeps, unless tags filter
		// (memory_counts has none): counting the rows took 0.2-0.5 s at
		// 100k memories.
		if len(q.Tags) > 0 {
			if err := tx.queryRowOnce(ctx, `SELECT count(*) FROM memories m WHERE `+where, args...).Scan(&page.Total); err != nil {
				return fmt.Errorf("count memories: %w", err)
			}
		} else {
			per, err := tx.countStates(ctx, page.AgentID, q.Shared, q.Categories, q.Namespaces, now)
			if err != nil {
				return err
			}
			for _, c := range per {
				for _, st := range q.States {
					page.Total += c.Of(st)
				}
			}
		}
		if page.Total == 0 {
			// None by the kept counts, which answer without walking the
			// listing (asking every entry of the agent whether it matches,
			// from the index alone, made such a page 17-80 ms at 100k
			// memories, against 1 ms). Counts that drifted (rows an import
			// or a hand left uncounted, a count edited) must still not
			// show an empty page where memories are: the space's newest
			// entries are asked whether one matches, and if one does the
			// rows are listed and counted. Drift that hides only older
			// memories is left to verify, which reports every count.
			drifted, err := tx.newestMatch(ctx, page.AgentID, q.Shared, where, args)
			if err != nil || !drifted {
				return err
			}
			if err := tx.queryRowOnce(ctx, `SELECT count(*) FROM memories m WHERE `+where, args...).Scan(&page.Total); err != nil {
				return fmt.Errorf("count memories: %w", err)
			}
			s.Log.Warn("the memory counts the database keeps say none where memories are; memory-mcp verify lists the counts that differ",
				"agent", page.AgentID, "shared", q.Shared, "states", q.States, "memories", page.Total)
		}
		if q.BeforeID != "" {
			// A row value, which both engines read as one range of the
			// listing: written as created_at < ? OR (created_at = ? AND
			// id < ?), SQLite answered each side apart and sorted what
			// both found, every older row (170 ms at 100k memories).
			where += ` AND (m.created_at, m.id) < (?, ?)`
			args = append(args, nanos(q.Before), q.BeforeID)
		}
		// Newest first, ties by id, walked backwards along memories_listing
		// (or memories_shared_listing), which holds every column filtered on.
		page.Memories, err = scanEntries(tx.queryOnce(ctx, entryColumns+` FROM memories m WHERE `+where+
			` ORDER BY m.created_at DESC, m.id DESC LIMIT ? OFFSET ?`, append(args, q.Limit, q.Offset)...))
		if err != nil {
			return fmt.Errorf("list memories: %w", err)
		}
		for i := range page.Memories {
			page.Memories[i].Expired = page.Memories[i].HasExpired(s.db.Now.Now())
		}
		ptrs := make([]*memory.Entry, len(page.Memories))
		for i := range page.Memories {
			ptrs[i] = &page.Memories[i]
		}
		return tx.addSources(ctx, ptrs)
	})
	return page, err
}

// driftProbe is how many of a space's newest memories newestMatch reads
// (well under a millisecond from the index at 100k memories).
const driftProbe = 1000

// newestMatch reports whether one of the driftProbe newest memories of
// the space (an agent's personal memories, or with shared the shared
// space) matches where, a listing's condition without tags; it reads
// memories_listing or memories_shared_listing alone, which hold every
// column such a condition names.
func (tx *Tx) newestMatch(ctx context.Context, agent string, shared bool, where string, args []any) (bool, error) {
	space, spaceArgs := spaceWhere(agent, shared, nil, nil)
	var found bool
	err := tx.queryRowOnce(ctx, `SELECT EXISTS (SELECT 1 FROM (SELECT m.agent_id, m.shared, m.created_at, m.id, m.forgotten_at,
		m.archived_at, m.archive_reason, m.expires_at, m.category, m.namespace FROM memories m WHERE `+space+`
		ORDER BY m.created_at DESC, m.id DESC LIMIT ?) m WHERE `+where+`)`, append(append(spaceArgs, driftProbe), args...)...).Scan(&found)
	if err != nil {
		return false, fmt.Errorf("list memories: %w", err)
	}
	return found, nil
}

// listWhere renders q as a condition on alias m with its arguments.
func listWhere(agent string, q memory.ListQuery, now time.Time) (string, []any) {
	conds, args := []string{"m.agent_id = ?", "m.shared = 0"}, []any{agent}
	if q.Shared {
		conds, args = []string{"m.shared = 1"}, nil
	}
	var states []string
	for _, st := range q.States {
		states = append(states, "("+stateSQL[st]+")")
		for range strings.Count(stateSQL[st], "?") {
			args = append(args, nanos(now))
		}
	}
	conds = append(conds, "("+strings.Join(states, " OR ")+")")
	if len(q.Categories) > 0 {
		conds = append(conds, "m.category IN (SELECT value FROM json_each(?))")
		args = append(args, jsonList(q.Categories))
	}
	if len(q.Namespaces) > 0 {
		conds = append(conds, "m.namespace IN (SELECT value FROM json_each(?))")
		args = append(args, jsonList(q.Namespaces))
	}
	if len(q.Tags) > 0 {
		conds = append(conds, "(SELECT count(DISTINCT value) FROM json_each(m.tags) WHERE value IN (SELECT value FROM json_each(?))) = ?")
		args = append(args, jsonList(q.Tags), len(q.Tags))
	}
	return strings.Join(conds, " AND "), args
}

func jsonList[T ~string](xs []T) string {
	b, _ := json.Marshal(xs)
	return string(b)
}

// Stats counts an agent's personal memories per category and state: the
// caller's own, or, for a human caller, those of the agent named.
func (s *MemoryService) Stats(ctx context.Context, agent string) (memory.MemoryStats, error) {
	who, err := memory.RequireIdentity(ctx)
	if err != nil {
		return memory.MemoryStats{}, err
	}
	out := memory.MemoryStats{Categories: []memory.CategoryStats{}}
	now := s.db.Now.Now()
	per := map[memory.Category]*memory.StateCounts{}
	err = s.db.View(ctx, func(tx *Tx) error {
		owner, err := ownerOf(ctx, tx, who, agent, "count the memories of")
		if err != nil {
			return err
		}
		agent, out.AgentID = owner.AgentID, owner.AgentID
		// The counts the database keeps (memory_counts), then the active
		// summaries among them (the ids memory_sources names). Counting
		// the rows, or asking each memory whether it is a summary, read
		// all of the agent's rows (0.3 s at 100k).
		if per, err = tx.countStates(ctx, agent, false, nil, nil, now); err != nil {
			return err
		}
		for _, c := range per {
			for _, st := range memory.MemoryStates {
				out.Total.AddN(st, c.Of(st))
			}
		}
		summaries, err := tx.queryOnce(ctx, `SELECT m.category, count(*) FROM memories m
			WHERE m.id IN (SELECT DISTINCT summary_id FROM memory_sources) AND m.agent_id = ? AND m.shared = 0 AND `+
			stateSQL[memory.StateActive]+` GROUP BY 1`, agent, nanos(now))
		if err != nil {
			return fmt.Errorf("count summaries: %w", err)
		}
		defer summaries.Close()
		for summaries.Next() {
			var cat memory.Category
			var n int
			if err := summaries.Scan(&cat, &n); err != nil {
				return err
			}
			if per[cat] != nil {
				per[cat].Summaries += n
				out.Total.Summaries += n
			}
		}
		return summaries.Err()
	})
	for _, c := range memory.Categories {
		if n := per[c]; n != nil {
			out.Categories = append(out.Categories, memory.CategoryStats{Category: c, StateCounts: *n})
		}
	}
	return out, err
}

// Summary is a consolidated memory to store: what it says and what it was
// made from. Its sources must be the agent's active personal memories; they
// are archived into it in the same transaction.
type Summary struct {
	Agent      string
	Author     memory.Author
	Namespace  string
	Category   memory.Category
	Content    string
	Tags       []string
	Confidence float64 // the lowest of the sources': a summary never raises trust
	Source     string  // how it was made ("consolidation (dual_mode)")
	OccurredAt time.Time
	Vector     []float32 // nil: stored without one (found by keyword)
	Embedder   string
	Sources    []string
	// Lease is the run's: the write checks it is still held (the fence).
	Lease Lease
}

// Consolidate stores summary s and archives its sources into it, and says
// so in the change feed: one storage step, so that a run killed at any
// point leaves every source either active or archived into a summary that
// lists it. A source that is no longer active (forgotten, archived, or
// someone else's) fails the step, and so does a lease taken over; nothing
// of it is written.
func (tx *Tx) Consolidate(ctx context.Context, s Summary) (memory.Entry, error) {
	now := tx.Now()
	if len(s.Sources) == 0 {
		return memory.Entry{}, errors.New("consolidate: a summary needs sources")
	}
	if err := tx.CheckLease(ctx, s.Lease); err != nil {
		return memory.Entry{}, err
	}
	id, err := newMemoryID(ctx, tx)
	if err != nil {
		return memory.Entry{}, err
	}
	tags, _ := json.Marshal(nonNil(s.Tags))
	var vec any
	if s.Vector != nil {
		vec = encodeVector(s.Vector)
	}
	source := nullString(s.Source, s.Source != "")
	seniority := nullString(string(s.Author.Seniority), !s.Author.Human && s.Author.Seniority != "")
	stamp, err := tx.db.stamp(memoryStampTag, id, s.Agent, s.Namespace, s.Category, s.Content, string(tags), source, false,
		nil, nil, nil, nanos(now), nanos(s.OccurredAt), nil, seniority, autonomyArg(s.Author.Autonomy), s.Author.Human)
	if err != nil {
		return memory.Entry{}, err
	}
	pk, err := tx.insertID(ctx, "pk", `INSERT INTO memories
		(id, agent_id, namespace, category, content, tags, confidence, source, created_at, updated_at,
		 occurred_at, author_seniority, author_autonomy, author_is_human, embedding, embedder, filters, length, stamp)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		id, s.Agent, s.Namespace, s.Category, s.Content, string(tags), s.Confidence, source,
		nanos(now), nanos(now), nanos(s.OccurredAt),
		seniority, autonomyArg(s.Author.Autonomy), s.Author.Human,
		vec, nullString(s.Embedder, s.Embedder != "" && vec != nil), filterTokens(s.Agent, false, s.Namespace, s.Category, s.Tags),
		indexedLength(s.Content, s.Tags), stamp)
	if err != nil {
		return memory.Entry{}, fmt.Errorf("insert summary: %w", err)
	}
	if err := tx.indexMemory(ctx, pk, s.Content, string(tags), filterTokens(s.Agent, false, s.Namespace, s.Category, s.Tags)); err != nil {
		return memory.Entry{}, err
	}
	for i, src := range s.Sources {
		if err := tx.archiveInto(ctx, s.Agent, src, id, i, now); err != nil {
			return memory.Entry{}, err
		}
	}
	if err := tx.RecordChange(ctx, memory.ChangeMemory, id, now); err != nil {
		return memory.Entry{}, err
	}
	return tx.entry(ctx, id)
}

// archiveInto archives active personal memory src of agent into summary.
func (tx *Tx) archiveInto(ctx context.Context, agent, src, summary string, position int, now time.Time) error {
	res, err := tx.exec(ctx, `UPDATE memories SET archived_at = ?1, archive_reason = 'consolidated', archived_by = ?2,
		consolidated_into = ?3 WHERE id = ?4 AND agent_id = ?2 AND shared = 0 AND `+activeSQL,
		nanos(now), agent, summary, src)
	if err != nil {
		return fmt.Errorf("archive %s: %w", src, err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return memory.Errorf(memory.ECONFLICT, "memory %s is no longer an active memory of %s: it changed since the run read it", src, agent)
	}
	if _, err := tx.exec(ctx, `INSERT INTO memory_sources (summary_id, position, source_id) VALUES (?, ?, ?)`, summary, position, src); err != nil {
		return fmt.Errorf("record source %s: %w", src, err)
	}
	return tx.RecordChange(ctx, memory.ChangeMemory, src, now)
}

// Archive archives the agent's active personal memories ids for reason
// (retention, the cap, expiry) for the run holding lease l. It returns how
// many it archived: a memory that is no longer active is passed over.
func (tx *Tx) Archive(ctx context.Context, l Lease, agent string, ids []string, reason memory.ArchiveReason) (int, error) {
	if err := tx.CheckLease(ctx, l); err != nil {
		return 0, err
	}
	now, n := tx.Now(), 0
	for _, id := range ids {
		res, err := tx.exec(ctx, `UPDATE memories SET archived_at = ?1, archive_reason = ?2, archived_by = ?3
			WHERE id = ?4 AND agent_id = ?3 AND `+activeSQL, nanos(now), reason, agent, id)
		if err != nil {
			return n, fmt.Errorf("archive %s: %w", id, err)
		}
		if k, _ := res.RowsAffected(); k == 1 {
			n++
			if err := tx.RecordChange(ctx, memory.ChangeMemory, id, now); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// forgetSummaries keeps summaries true when memory id is forgotten: a
// live summary made from it says what is no longer remembered, so it is
// forgotten too (by who, with the reason), and every summary forgotten so,
// or id itself if it is one, gives its remaining sources back to search,
// where the next consolidation groups them again as they are now.
func (tx *Tx) forgetSummaries(ctx context.Context, who memory.Identity, id string, now time.Time) error {
	summaries, err := scanStrings(tx.queryOnce(ctx, `SELECT m.id FROM memory_sources s JOIN memories m ON m.id = s.summary_id
		WHERE s.source_id = ? AND m.forgotten_at IS NULL`, id))
	if err != nil {
		return fmt.Errorf("read summaries of %s: %w", id, err)
	}
	for _, sum := range summaries {
		_, err := tx.exec(ctx, `UPDATE memories SET forgotten_at = ?1, updated_at = ?1, forgotten_by = ?2, forget_reason = ?3,
			forgotten_autonomy = ?5 WHERE id = ?4`, nanos(now), who.AgentID,
			"one of its sources, "+id+", was forgotten: its other sources are back in search, to be consolidated again",
			sum, autonomyArg(memory.AuthorOf(who).Autonomy))
		if err != nil {
			return fmt.Errorf("forget summary %s: %w", sum, err)
		}
		if err := tx.RecordChange(ctx, memory.ChangeMemory, sum, now); err != nil {
			return err
		}
	}
	for _, sum := range append(summaries, id) {
		back, err := scanStrings(tx.queryOnce(ctx, `SELECT id FROM memories WHERE consolidated_into = ? AND archive_reason = 'consolidated'
			AND forgotten_at IS NULL`, sum))
		if err != nil {
			return fmt.Errorf("read sources of %s: %w", sum, err)
		}
		for _, src := range back {
			if err := tx.unarchive(ctx, src, now); err != nil {
				return err
			}
		}
	}
	return nil
}

// CandidateQuery selects an agent's active personal memories for a run.
type CandidateQuery struct {
	Agent         string
	Namespaces    []string
	Categories    []memory.Category
	WrittenBefore time.Time // only memories written (or restored) before it; zero: all
}

// Candidates reads the active personal memories q selects, by namespace,
// category and time (occurred, then written); a restored memory's age
// counts from its restoring. Summaries are left out: a memory is summarised
// once, and its summary is what search finds. So are memories with an
// expiry (they go when they expire, and a summary must not keep them
// longer) and task records (distillation), which stay whole as the
// context they are.
func (tx *Tx) Candidates(ctx context.Context, q CandidateQuery) ([]memory.Entry, error) {
	where := `m.agent_id = ? AND m.shared = 0 AND m.forgotten_at IS NULL AND m.archived_at IS NULL AND m.expires_at IS NULL
		AND NOT EXISTS (SELECT 1 FROM memory_sources WHERE summary_id = m.id)
		AND NOT EXISTS (SELECT 1 FROM json_each(m.tags) WHERE value = ?)`
	args := []any{q.Agent, memory.DistillationTag}
	if !q.WrittenBefore.IsZero() {
		where, args = where+" AND coalesce(m.restored_at, m.created_at) < ?", append(args, nanos(q.WrittenBefore))
	}
	if len(q.Namespaces) > 0 {
		where, args = where+" AND m.namespace IN (SELECT value FROM json_each(?))", append(args, jsonList(q.Namespaces))
	}
	if len(q.Categories) > 0 {
		where, args = where+" AND m.category IN (SELECT value FROM json_each(?))", append(args, jsonList(q.Categories))
	}
	out, err := scanEntries(tx.queryOnce(ctx, entryColumns+` FROM memories m WHERE `+where+`
		ORDER BY m.namespace, m.category, m.occurred_at, m.created_at, m.id`, args...))
	if err != nil {
		return nil, fmt.Errorf("read candidates: %w", err)
	}
	return out, nil
}

// unarchive brings archived memory id back into search as it was. Neither
// archiving nor this touches updated_at: the memory itself never changed.
func (tx *Tx) unarchive(ctx context.Context, id string, now time.Time) error {
	if _, err := tx.exec(ctx, `UPDATE memories SET archived_at = NULL, archive_reason = NULL, archived_by = NULL,
		consolidated_into = NULL, superseded_by = NULL WHERE id = ?`, id); err != nil {
		return fmt.Errorf("bring back %s: %w", id, err)
	}
	return tx.RecordChange(ctx, memory.ChangeMemory, id, now)
}

// EachActive calls fn with the content of each of the agent's active
// personal memories (in search: neither forgotten, archived nor expired).
func (tx *Tx) EachActive(ctx context.Context, agent string, fn func(content string)) error {
	rows, err := tx.queryOnce(ctx, `SELECT content FROM memories WHERE agent_id = ? AND shared = 0 AND `+activeSQL+`
		AND (expires_at IS NULL OR expires_at > ?)`, agent, nanos(tx.Now()))
	if err != nil {
		return fmt.Errorf("read active memories: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var content string
		if err := rows.Scan(&content); err != nil {
			return err
		}
		fn(content)
	}
	return rows.Err()
}

// Retirement selects an agent's active memories for retention to archive,
// at most Limit (every one when Limit is negative), in the order they should go: personal ones, and for
// expiry the agent's shared copies too.
type Retirement struct {
	Agent string
	Limit int
	// Exactly one of the following.
	Expired       bool            // past their expires_at, soonest expired first
	Category      memory.Category // with WrittenBefore: written before it, oldest first
	LowestValue   bool            // the least valuable: lowest confidence, then oldest
	WrittenBefore time.Time
}

// Retirements returns the ids r selects.
func (tx *Tx) Retirements(ctx context.Context, r Retirement) ([]string, error) {
	where, args, order := "agent_id = ? AND "+activeSQL, []any{r.Agent}, ""
	switch {
	case r.Expired: // the agent's shared copies too: they leave the indexes
		where, args, order = where+" AND expires_at <= ?", append(args, nanos(tx.Now())), "expires_at, id"
	case r.Category != "":
		where, args, order = where+` AND shared = 0 AND category = ? AND coalesce(restored_at, created_at) < ?
			AND (expires_at IS NULL OR expires_at > ?)`,
			append(args, r.Category, nanos(r.WrittenBefore), nanos(tx.Now())), "created_at, id"
	case r.LowestValue:
		// Summaries and what its owner restored go last: archiving a
		// summary takes its whole group out of search.
		where, args, order = where+" AND shared = 0 AND (expires_at IS NULL OR expires_at > ?)", append(args, nanos(tx.Now())),
			`restored_at IS NOT NULL, EXISTS (SELECT 1 FROM memory_sources WHERE summary_id = memories.id),
			confidence, occurred_at, created_at, id`
	default:
		return nil, errors.New("retirements: say which memories")
	}
	q := `SELECT id FROM memories WHERE ` + where + ` ORDER BY ` + order
	if r.Limit >= 0 { // PostgreSQL takes no negative LIMIT for "all"
		q, args = q+` LIMIT ?`, append(args, r.Limit)
	}
	ids, err := scanStrings(tx.queryOnce(ctx, q, args...))
	if err != nil {
		return nil, fmt.Errorf("select memories to archive: %w", err)
	}
	return ids, nil
}

// ActiveCount counts the agent's active personal memories (in search:
// neither forgotten, archived nor expired).
func (tx *Tx) ActiveCount(ctx context.Context, agent string) (int, error) {
	var n int
	err := tx.queryRowOnce(ctx, `SELECT count(*) FROM memories WHERE agent_id = ? AND shared = 0 AND `+activeSQL+`
		AND (expires_at IS NULL OR expires_at > ?)`, agent, nanos(tx.Now())).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count active memories: %w", err)
	}
	return n, nil
}
