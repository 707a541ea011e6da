package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

// A write answered "duplicate" stores no memory; dedup can be wrong, so the
// words sent are kept as a repeat (migration 0021) that its author can read
// back (recall_memory of the memory it repeated) and store as its own
// memory after all (not_a_repeat_of, or StoreRepeat).

// repeatStampTag names a repeat's stamp encoding.
const repeatStampTag = "repeat/v1"

// repeatStampColumns are a repeat's covered columns: all but stored_as,
// which is set when the words are stored after all.
var repeatStampColumns = []string{"id", "memory_id", "agent_id", "tool", "from_id", "content", "namespace", "category", "tags",
	"confidence", "source", "occurred_at", "expires_at", "tier", "said_at", "author_seniority", "author_autonomy", "author_is_human"}

// repeat is a write answered "duplicate" of memory, as keepRepeat keeps it.
type repeat struct {
	memory, tool, from, tier string
	w                        memory.EntryWrite
	timed                    bool // w was given the time its event occurred
}

// keepRepeat keeps the words of write r, made by who, and returns the
// repeat's id.
func (tx *Tx) keepRepeat(ctx context.Context, who memory.Identity, r repeat, now time.Time) (string, error) {
	id, err := newRepeatID(ctx, tx)
	if err != nil {
		return "", err
	}
	author := memory.AuthorOf(who)
	tags, _ := json.Marshal(r.w.Tags)
	var confidence any
	if r.w.Confidence != nil {
		confidence = *r.w.Confidence
	}
	occurred := sql.NullInt64{}
	if r.timed {
		occurred = nullTime(r.w.OccurredAt)
	}
	values := []any{id, r.memory, who.AgentID, r.tool, nullString(r.from, r.from != ""), r.w.Content, r.w.Namespace,
		string(r.w.Category), string(tags), confidence, nullString(r.w.Source, r.w.Source != ""), occurred, nullTime(r.w.ExpiresAt),
		r.tier, nanos(now), nullString(string(author.Seniority), !author.Human && author.Seniority != ""),
		autonomyArg(author.Autonomy), author.Human}
	stamp, err := tx.db.stamp(repeatStampTag, values...)
	if err != nil {
		return "", err
	}
	_, err = tx.exec(ctx, `INSERT INTO memory_repeats (`+strings.Join(repeatStampColumns, ", ")+`, stamp)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, append(values, stamp)...)
	if err != nil {
		return "", fmt.Errorf("keep repeat: %w", err)
	}
	return id, tx.indexRepeat(ctx, id, r.w.Content, string(tags))
}

// newRepeatID returns an unused id like "rep-3f9a1c7b2d4e".
func newRepeatID(ctx context.Context, tx *Tx) (string, error) {
	return unusedID(ctx, tx, memory.RepeatPrefix, "memory_repeats")
}

// notARepeatOf checks that the memory a write says it does not repeat is
// one the caller may read, or one a repeat of the caller's names (it may
// have been retracted since): an id it could not have been answered with
// is a mistake it is told of, rather than ignored.
func (s *MemoryService) notARepeatOf(ctx context.Context, tx *Tx, who memory.Identity, id string) error {
	if id == "" {
		return nil
	}
	_, err := s.visibleEntry(ctx, tx, who, id)
	if memory.ErrorCode(err) != memory.ENOTFOUND {
		return err
	}
	var answered bool
	if err := tx.queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM memory_repeats WHERE memory_id = ? AND agent_id = ?)`, id, who.AgentID).Scan(&answered); err != nil {
		return fmt.Errorf("find repeats of %s: %w", id, err)
	}
	if !answered {
		return memory.Errorf(memory.ENOTFOUND, "not_a_repeat_of: no memory with id %q that you can read; give the id a duplicate answer named (duplicate_of)", id)
	}
	return nil
}

// storedAfterAll marks the caller's repeats of memory `of` that sent these
// words (as remember, or as the publish of memory from) stored as memory id.
func (tx *Tx) storedAfterAll(ctx context.Context, agent, of, content, from, id string) error {
	_, err := tx.exec(ctx, `UPDATE memory_repeats SET stored_as = ?1 WHERE memory_id = ?2 AND agent_id = ?3 AND stored_as IS NULL
		AND (?5 = '' AND tool = 'remember' AND content = ?4 OR ?5 <> '' AND from_id = ?5)`, id, of, agent, content, from)
	if err != nil {
		return fmt.Errorf("mark repeats stored: %w", err)
	}
	return nil
}

// repeatColumns selects a repeat; scanRepeat reads it with the author's
// fields and what StoreRepeat needs to make the write again.
const repeatColumns = `SELECT id, memory_id, agent_id, tool, coalesce(from_id, ''), content, namespace, category, tags,
	confidence, coalesce(source, ''), occurred_at, expires_at, tier, said_at, coalesce(author_seniority, ''),
	coalesce(author_autonomy, ''), author_is_human, coalesce(stored_as, '') FROM memory_repeats`

// keptRepeat is a repeat with what its write was.
type keptRepeat struct {
	memory.Repeat
	w      memory.EntryWrite
	author memory.Identity
}

func scanRepeat(row interface{ Scan(...any) error }) (keptRepeat, error) {
	var r keptRepeat
	var tags, seniority, autonomy string
	var confidence sql.NullFloat64
	var occurred, expires sql.NullInt64
	var said int64
	err := row.Scan(&r.ID, &r.MemoryID, &r.AgentID, &r.Tool, &r.From, &r.Content, &r.Namespace, &r.Category, &tags,
		&confidence, &r.w.Source, &occurred, &expires, &r.Tier, &said, &seniority, &autonomy, &r.author.Human, &r.StoredAs)
	if err != nil {
		return r, err
	}
	r.Tags, r.SaidAt = decodeTags(tags), fromNanos(said)
	r.w.Namespace, r.w.Category, r.w.Content, r.w.Tags = r.Namespace, r.Category, r.Content, r.Tags
	if confidence.Valid {
		r.w.Confidence = &confidence.Float64
	}
	if occurred.Valid {
		r.w.OccurredAt = fromNanos(occurred.Int64)
	}
	if expires.Valid {
		r.w.ExpiresAt = fromNanos(expires.Int64)
	}
	r.author.AgentID, r.author.Autonomy = r.AgentID, memory.Autonomy(autonomy)
	r.author.Seniority, _ = memory.ParseSeniority(seniority)
	return r, nil
}

// Repeats lists writes answered "duplicate", newest first: the caller's
// own, or for a human any agent's (q.AgentID narrows).
func (s *MemoryService) Repeats(ctx context.Context, q memory.RepeatQuery) ([]memory.Repeat, error) {
	who, err := memory.RequireIdentity(ctx)
	if err != nil {
		return nil, err
	}
	if err := q.Validate(); err != nil {
		return nil, err
	}
	agent := q.AgentID
	if !who.Human {
		agent = who.AgentID
	}
	out := []memory.Repeat{}
	err = s.db.View(ctx, func(tx *Tx) error {
		rows, err := tx.queryOnce(ctx, repeatColumns+` WHERE (?1 = '' OR agent_id = ?1)
			AND (CAST(?2 AS TEXT) IS NULL OR memory_id IN (SELECT value FROM json_each(?2))) AND (?3 = 0 OR stored_as IS NULL)
			AND (CAST(?5 AS TEXT) IS NULL OR id IN (SELECT value FROM json_each(?5)))
			ORDER BY said_at DESC, pk DESC LIMIT ?4`, agent, nullString(jsonList(q.MemoryIDs), q.MemoryIDs != nil), q.Open, q.Limit,
			nullString(jsonList(q.IDs), q.IDs != nil))
		if err != nil {
			return fmt.Errorf("list repeats: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			r, err := scanRepeat(rows)
			if err != nil {
				return fmt.Errorf("read repeat: %w", err)
			}
			out = append(out, r.Repeat)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		return keptOf(ctx, tx, out)
	})
	return out, err
}

// keptOf fills each repeat's memory as it is now (nil when it is gone).
func keptOf(ctx context.Context, tx *Tx, reps []memory.Repeat) error {
	for i := range reps {
		e, err := getEntry(ctx, tx, reps[i].MemoryID)
		if memory.ErrorCode(err) == memory.ENOTFOUND {
			continue
		}
		if err != nil {
			return err
		}
		reps[i].Kept = &e
	}
	return nil
}

// StoreRepeat stores repeat id's words as their own memory after all, as
// its author's (a human may store any agent's repeat; an agent its own),
// made again as it was (remember's arguments, or the publish of the same
// memory) with not_a_repeat_of its memory: every gate but that dedup
// answer runs, so it may still be answered a repeat of another memory.
func (s *MemoryService) StoreRepeat(ctx context.Context, id string) (memory.Remembered, error) {
	who, err := memory.RequireIdentity(ctx)
	if err != nil {
		return memory.Remembered{}, err
	}
	if err := memory.CheckID("id", id); err != nil {
		return memory.Remembered{}, err
	}
	var r keptRepeat
	err = s.db.View(ctx, func(tx *Tx) error {
		var err error
		r, err = scanRepeat(tx.queryRow(ctx, repeatColumns+` WHERE id = ?`, id))
		return err
	})
	if errors.Is(err, sql.ErrNoRows) || err == nil && !who.Human && r.AgentID != who.AgentID {
		return memory.Remembered{}, memory.Errorf(memory.ENOTFOUND, "no repeat with id %q: search_memory with the ids of the memory a write repeated lists its repeats", id)
	}
	if err != nil {
		return memory.Remembered{}, fmt.Errorf("load repeat %s: %w", id, err)
	}
	if r.StoredAs != "" {
		return memory.Remembered{}, memory.Errorf(memory.ECONFLICT, "repeat %s was already stored as memory %s", id, r.StoredAs)
	}
	// The memory is its author's, whoever asks: the words are theirs.
	ctx = memory.WithIdentity(ctx, r.author)
	if r.Tool == "publish_memory" {
		p, err := s.PublishEntry(ctx, memory.PublishWrite{ID: r.From, NotARepeatOf: r.MemoryID})
		return memory.Remembered{Entry: p.Entry, Outcome: p.Outcome, Tier: p.Tier, RepeatID: p.RepeatID, Conflicts: p.Conflicts}, err
	}
	w := r.w
	w.NotARepeatOf = r.MemoryID
	return s.Remember(ctx, w)
}
