package memory

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// The change feed is how processes on one data directory learn of each
// other's writes: every write adds a row to it in its own transaction, and
// each process tails it to keep its vector index current and to tell
// subscribed clients which resources changed. A row is a kind and a ref;
// this file is the whole contract between the writers and the readers.

// ChangeKind is what a change is about.
type ChangeKind string

// Change kinds, each with the form of its ref.
const (
	ChangeFact    ChangeKind = "fact"    // ref: the fact id
	ChangeMemory  ChangeKind = "memory"  // ref: the memory id
	ChangeBlock   ChangeKind = "block"   // ref: BlockChangeRef
	ChangeNote    ChangeKind = "note"    // ref: the note id
	ChangeState   ChangeKind = "shared"  // ref: StateChangeRef, or StateReplayed
	ChangePending ChangeKind = "pending" // ref: the pending item id
	// ChangeErase: an erase or gc deleted rows for good (ref: its audit
	// row's number). The feed's rows that named what went are deleted with
	// it, so a reader drops from what it keeps whatever no longer exists.
	ChangeErase ChangeKind = "erase"
	// ChangeEmbedder: a fine-tuned adapter was deployed or rolled back (ref:
	// the ID of the embedder now in force over its base, see
	// AdaptedEmbedderID). Every stored vector of that base was swapped in
	// the same transaction, so a reader embedding with the base switches to
	// the embedder in force and reloads its vectors.
	ChangeEmbedder ChangeKind = "embedder"
)

// StateReplayed is the ref of a replay, which rebuilt every bucket.
const StateReplayed = "replay"

// Change is one row of the change feed: something of kind named ref changed
// in the transaction that wrote seq.
type Change struct {
	Seq  int64
	Kind ChangeKind
	Ref  string
	At   time.Time
}

// ChangeFeed reads the change feed.
type ChangeFeed interface {
	// LastChange returns the newest sequence number (0 when none).
	LastChange(ctx context.Context) (int64, error)
	// ChangesSince returns up to limit changes after seq, oldest first.
	ChangesSince(ctx context.Context, seq int64, limit int) ([]Change, error)
}

// StateChangeRef is the ref of a change to row id of bucket b: "<bucket>/<id>".
func StateChangeRef(b Bucket, id string) string { return string(b) + "/" + id }

// ParseStateChangeRef splits a StateChangeRef; ok is false for StateReplayed.
func ParseStateChangeRef(ref string) (b Bucket, id string, ok bool) {
	bucket, id, ok := strings.Cut(ref, "/")
	return Bucket(bucket), id, ok
}

// IDRef is the ref of a change to a row with a numeric id (a note, a pending item).
func IDRef(id int64) string { return strconv.FormatInt(id, 10) }

// BlockChangeRef is the change-feed ref of a change to block b:
// "<owner>/<label>" for a personal block and "*/<label>" for a shared one,
// so that a personal block's change can be routed to its owner alone.
// Neither agent ids nor labels contain '/' (CheckID).
func BlockChangeRef(b Block) string {
	scope := b.Owner
	if b.Shared {
		scope = AnyAgent
	}
	return scope + "/" + b.Label
}

// ParseBlockChangeRef splits a BlockChangeRef into the scope (the owner's
// agent id, or "*" for a shared block) and the label.
func ParseBlockChangeRef(ref string) (scope, label string) {
	scope, label, _ = strings.Cut(ref, "/")
	return scope, label
}
