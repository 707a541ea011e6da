package store

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"strings"

	"github.com/ncruces/go-sqlite3"

	memory "github.com/memory-mcp/memory-mcp"
)

// storyWrites bounds the write log lines a memory's story shows.
const storyWrites = 100

// Story reads what is recorded about memory id: the memory in any state
// with its provenance and sources, its stamp's verdict, what it replaced
// and the write log's lines that name it. A human may read any memory's;
// an agent only its own and the live shared ones, as recall_memory.
func (s *MemoryService) Story(ctx context.Context, id string) (memory.MemoryStory, error) {
	who, err := memory.RequireIdentity(ctx)
	if err != nil {
		return memory.MemoryStory{}, err
	}
	if err := memory.CheckID("id", id); err != nil {
		return memory.MemoryStory{}, err
	}
	var out memory.MemoryStory
	err = s.db.View(ctx, func(tx *Tx) error {
		e, err := s.storyEntry(ctx, tx, who, id)
		if err != nil {
			return err
		}
		if err := addProvenance(ctx, tx, &e); err != nil {
			return err
		}
		if err := tx.addSources(ctx, []*memory.Entry{&e}); err != nil {
			return err
		}
		out.Entry = e
		if out.Replaced, err = scanEntries(tx.query(ctx, entryColumns+` FROM memories m WHERE m.superseded_by = ?
			ORDER BY m.created_at, m.id`, id)); err != nil {
			return fmt.Errorf("read what %s replaced: %w", id, err)
		}
		out.Writes, err = scanWriteLog(tx.query(ctx, `SELECT at, principal, tool, outcome, gate, reason, ref, latency_ns, gates
			FROM write_log WHERE ref = ? ORDER BY at DESC, id DESC LIMIT ?`, id, storyWrites))
		return err
	})
	if err != nil {
		return out, err
	}
	out.Stamp, err = s.db.stampVerdict(ctx, id)
	return out, err
}

// storyEntry loads memory id for who: any memory for a human.
func (s *MemoryService) storyEntry(ctx context.Context, tx *Tx, who memory.Identity, id string) (memory.Entry, error) {
	if !who.Human {
		return s.visibleEntry(ctx, tx, who, id)
	}
	e, err := getEntry(ctx, tx, id)
	if memory.ErrorCode(err) == memory.ENOTFOUND {
		return e, memory.Errorf(memory.ENOTFOUND, "no memory with id %q: it was never stored, or was erased", id)
	}
	if err != nil {
		return e, err
	}
	e.Expired = e.HasExpired(s.db.Now.Now())
	return e, nil
}

// stampVerdict checks memory id's provenance stamp as Verify checks every
// row's.
func (db *DB) stampVerdict(ctx context.Context, id string) (string, error) {
	if db.provenanceKey == nil {
		return memory.StampNoKey, nil
	}
	if db.postgres {
		return memory.StampUnchecked, nil // its rows come through database/sql, not the statement canonRow reads
	}
	complete, err := db.complete(ctx)
	if err != nil {
		return "", err
	}
	verdict := ""
	m := hmac.New(sha256.New, db.provenanceKey)
	q := `SELECT id, stamp, ` + strings.Join(memoryStampColumns, ", ") + ` FROM memories WHERE id = ?`
	err = db.scanAll(ctx, q, []any{id}, func(row *rawRow) error {
		switch {
		case row.st.ColumnType(1) == sqlite3.NULL && !complete:
			verdict = memory.StampUnstamped
		case hmac.Equal(macSum(m, canonRow(nil, memoryStampTag, row.st, 2), nil), row.st.ColumnRawBlob(1)):
			verdict = memory.StampValid
		default:
			verdict = memory.StampMismatched
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("check the stamp of %s: %w", id, err)
	}
	return verdict, nil
}
