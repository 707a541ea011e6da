package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	memory "github.com/memory-mcp/memory-mcp"
)

// sharedScope is the scope of shared blocks; personal blocks are scoped by
// their owner's agent id, which can never be "*".
const sharedScope = "*"

// BlockService implements memory.BlockService: core memory blocks, each edit
// a new version in block_versions, written in one immediate transaction. That
// transaction is the compare-and-set: SQLite lets one writer in at a time
// across every process on the file, and the edit reads the current version and
// value inside it, so no edit can be computed from a value another edit has
// already replaced.
type BlockService struct {
	db *DB
	// Defaults are the blocks every agent has from its first use.
	Defaults []memory.BlockSpec
	// Log receives warnings about default blocks (slog.Default when nil).
	Log    *slog.Logger
	seeded sync.Map // agent id -> true once this process made its default blocks
}

// NewBlockService returns a block service with the default blocks.
func NewBlockService(db *DB) *BlockService {
	return &BlockService{db: db, Defaults: memory.DefaultBlocks()}
}

var _ memory.BlockService = (*BlockService)(nil)

// blockRow is a stored block: the domain block plus its row id and scope.
type blockRow struct {
	memory.Block
	id    int64
	scope string
}

// List returns the caller's blocks, then the shared blocks it may read, in the
// order they were made.
func (s *BlockService) List(ctx context.Context) ([]memory.Block, error) {
	id, err := memory.RequireIdentity(ctx)
	if err != nil {
		return nil, err
	}
	out := []memory.Block{}
	err = s.db.View(ctx, func(tx *Tx) error {
		rows, err := visibleBlocks(ctx, tx, id.AgentID)
		for _, r := range rows {
			out = append(out, r.Block)
		}
		return err
	})
	return out, err
}

// Get returns the block labelled label.
func (s *BlockService) Get(ctx context.Context, label string) (memory.Block, error) {
	id, err := memory.RequireIdentity(ctx)
	if err != nil {
		return memory.Block{}, err
	}
	if err := memory.CheckID("label", label); err != nil {
		return memory.Block{}, err
	}
	var out blockRow
	err = s.db.View(ctx, func(tx *Tx) error {
		if out, err = lookup(ctx, tx, id.AgentID, label); err != nil {
			return err
		}
		if out.DeletedAt != nil {
			return deletedError(out, "")
		}
		return nil
	})
	return out.Block, err
}

// Create makes a block owned by the caller: personal, or shared when s.Shared.
// Creating a label whose block was deleted makes it anew as its next version.
func (s *BlockService) Create(ctx context.Context, spec memory.BlockSpec) (memory.Block, error) {
	id, err := s.caller(ctx)
	if err != nil {
		return memory.Block{}, err
	}
	if err := spec.Validate(); err != nil {
		return memory.Block{}, err
	}
	if spec.ReadOnly && !id.Human {
		return memory.Block{}, memory.Errorf(memory.EFORBIDDEN, "only a human operator may create a read-only block; you are %s", id.Describe())
	}
	var out memory.Block
	err = s.db.Update(ctx, func(tx *Tx) error {
		if err := checkBlockCount(ctx, tx, spec.Label, id.AgentID, id.AgentID); err != nil {
			return err
		}
		if err := checkLabelFree(ctx, tx, id.AgentID, spec); err != nil {
			return err
		}
		b, err := s.create(ctx, tx, id, id.AgentID, spec)
		out = b.Block
		return err
	})
	return out, err
}

// Edit applies one edit as a new version, or fails leaving the block as it was.
func (s *BlockService) Edit(ctx context.Context, e memory.BlockEdit) (memory.Block, error) {
	id, err := s.caller(ctx)
	if err != nil {
		return memory.Block{}, err
	}
	if err := e.Validate(); err != nil {
		return memory.Block{}, err
	}
	var out memory.Block
	err = s.db.Update(ctx, func(tx *Tx) error {
		b, err := lookupPath(ctx, tx, id.AgentID, e.Label, e.Path)
		if err != nil {
			return err
		}
		if b.DeletedAt != nil && e.Op != memory.BlockRestore {
			return deletedError(b, e.Path)
		}
		if err := b.CheckWrite(id); err != nil {
			return err
		}
		if err := checkBlockVersion(b.Block, e.ExpectedVersion, e.ExpectedHash, e.Path); err != nil {
			return err
		}
		if e.Op == memory.BlockRestore && b.DeletedAt != nil {
			if err := checkBlockCount(ctx, tx, b.Label, b.Owner, id.AgentID); err != nil {
				return err
			}
		}
		now := s.db.Now.Now()
		next, restoredFrom, err := applyEdit(ctx, tx, b, e, now)
		if err != nil {
			return err
		}
		err = commitBlock(ctx, tx, &next, e.Op, restoredFrom, id, now)
		out = next.Block
		return err
	})
	return out, err
}

// applyEdit computes the block after e from its current state b, and for a
// restore the version it restores.
func applyEdit(ctx context.Context, tx *Tx, b blockRow, e memory.BlockEdit, now time.Time) (blockRow, int, error) {
	next, restoredFrom := b, 0
	switch e.Op {
	case memory.BlockDelete:
		next.DeletedAt = &now
		return next, 0, nil
	case memory.BlockRestore:
		v, err := restorable(ctx, tx, b, e.Version)
		if err != nil {
			return b, 0, err
		}
		next.Value, next.DeletedAt, restoredFrom = v.Value, nil, v.Version
	default:
		value, err := e.Apply(b.Value)
		if err != nil {
			return b, 0, err
		}
		next.Value = value
	}
	if err := memory.CheckBlockLimit(b.Label, b.Value, next.Value, b.Limit); err != nil {
		return b, 0, err
	}
	return next, restoredFrom, nil
}

// History returns up to limit versions of the block, newest first. The
// history of a deleted block can still be read, to pick a version to restore.
func (s *BlockService) History(ctx context.Context, label string, limit int) ([]memory.BlockVersion, error) {
	id, err := memory.RequireIdentity(ctx)
	if err != nil {
		return nil, err
	}
	if err := memory.CheckID("label", label); err != nil {
		return nil, err
	}
	if limit, err = memory.CheckLimit(limit, 50, 1000); err != nil {
		return nil, err
	}
	var out []memory.BlockVersion
	err = s.db.View(ctx, func(tx *Tx) error {
		b, err := lookup(ctx, tx, id.AgentID, label)
		if err != nil {
			return err
		}
		out, err = blockVersions(ctx, tx, b, 0, limit)
		return err
	})
	return out, err
}

// caller returns the identity in ctx, making its default blocks first if
// this process has not: a write must find them. Reads never write, so the
// server seeds its caller's defaults when it starts (Seed).
func (s *BlockService) caller(ctx context.Context) (memory.Identity, error) {
	id, err := memory.RequireIdentity(ctx)
	if err != nil {
		return id, err
	}
	return id, s.seed(ctx, id)
}

// Seed makes the default blocks of the caller in ctx, once per process. A
// default block that exists is left as it is unless its setting changed
// (configureDefault); one that was deleted stays deleted.
func (s *BlockService) Seed(ctx context.Context) error {
	_, err := s.caller(ctx)
	return err
}

func (s *BlockService) seed(ctx context.Context, id memory.Identity) error {
	if _, ok := s.seeded.Load(id.AgentID); ok || len(s.Defaults) == 0 {
		return nil
	}
	// Making the default blocks is not a gated call's write.
	err := s.db.Update(WithoutCall(ctx), func(tx *Tx) error {
		for _, spec := range s.Defaults {
			if err := s.seedOne(ctx, tx, id.AgentID, spec); err != nil {
				return fmt.Errorf("default block %s: %w", spec.Label, err)
			}
		}
		return nil
	})
	if err == nil {
		s.seeded.Store(id.AgentID, true)
	}
	return err
}

// seedOne makes or reconfigures one default block for agent. Either way
// the author is the configuration, not the agent whose call ran it.
func (s *BlockService) seedOne(ctx context.Context, tx *Tx, agent string, spec memory.BlockSpec) error {
	scope, owner := agent, agent
	if spec.Shared {
		// A shared default belongs to no agent; with no writers named, every agent may edit it.
		scope, owner = sharedScope, ""
		if len(spec.Writers) == 0 {
			spec.Writers = []string{memory.AnyAgent}
		}
	}
	b, found, err := loadBlock(ctx, tx, scope, spec.Label)
	if err != nil {
		return err
	}
	if !found {
		if err := s.warnHidden(ctx, tx, agent, spec); err != nil {
			return err
		}
		_, err := s.create(ctx, tx, memory.ConfigIdentity, owner, spec)
		return err
	}
	if b.DeletedAt != nil {
		return nil
	}
	return s.configureDefault(ctx, tx, b, spec)
}

// configureDefault makes the block follow its setting, as one configure
// version, when the setting differs from the block: description, limit,
// read_only, and for a shared default its writers and readers. The value of
// an editable default is only where it starts; a read-only default's value
// is kept by the setting, and is set when the block becomes read-only or the
// setting's value changed since configuration last wrote it, so that a
// human's edit in between survives restarts with the same setting.
func (s *BlockService) configureDefault(ctx context.Context, tx *Tx, b blockRow, spec memory.BlockSpec) error {
	next := b
	next.Description, next.Limit, next.ReadOnly = spec.Description, spec.Limit, spec.ReadOnly
	if spec.Shared {
		next.Writers, next.Readers = emptyNil(spec.Writers), emptyNil(spec.Readers)
	}
	if spec.ReadOnly {
		last, ok, err := configuredValue(ctx, tx, b)
		if err != nil {
			return err
		}
		if !b.ReadOnly || !ok || last != spec.Value {
			next.Value = spec.Value
		}
	}
	if sameSetting(b.Block, next.Block) {
		return nil
	}
	return commitBlock(ctx, tx, &next, memory.BlockConfigure, 0, memory.ConfigIdentity, s.db.Now.Now())
}

func sameSetting(a, b memory.Block) bool {
	return a.Description == b.Description && a.Limit == b.Limit && a.ReadOnly == b.ReadOnly && a.Value == b.Value &&
		slices.Equal(a.Writers, b.Writers) && slices.Equal(a.Readers, b.Readers)
}

// configuredValue returns the value the configuration last wrote to b, if
// it ever did (it made the block, or configured it).
func configuredValue(ctx context.Context, tx *Tx, b blockRow) (string, bool, error) {
	var v string
	err := tx.queryRowOnce(ctx, `SELECT value FROM block_versions WHERE block_id = ? AND author_agent_id = ?
		ORDER BY version DESC LIMIT 1`, b.id, memory.ConfigAgent).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("configured value of block %s: %w", b.Label, err)
	}
	return v, true, nil
}

// create inserts a block owned by owner, or makes a deleted one anew.
func (s *BlockService) create(ctx context.Context, tx *Tx, id memory.Identity, owner string, spec memory.BlockSpec) (blockRow, error) {
	scope := owner
	if spec.Shared {
		scope = sharedScope
	}
	b, found, err := loadBlock(ctx, tx, scope, spec.Label)
	if err != nil {
		return b, err
	}
	if found && b.DeletedAt == nil && spec.Path != "" {
		return b, memory.Errorf(memory.ECONFLICT, "File %s already exists (version %d): edit it with str_replace or insert, or choose another path", spec.Path, b.Version)
	}
	if found && b.DeletedAt == nil {
		return b, memory.Errorf(memory.ECONFLICT, "block %s already exists (version %d): edit it with memory_block_append, memory_block_replace or memory_block_rethink, or choose another label",
			spec.Label, b.Version)
	}
	if found && b.Owner != owner {
		return b, memory.Errorf(memory.EFORBIDDEN, "shared block %s was deleted; only its owner may create it again, but memory_block_restore can bring back one of its versions", spec.Label)
	}
	if !found {
		b = blockRow{scope: scope, Block: memory.Block{BlockSummary: memory.BlockSummary{Label: spec.Label, Owner: owner, Shared: spec.Shared}}}
	}
	b.Description, b.Value, b.Limit, b.ReadOnly = spec.Description, spec.Value, spec.Limit, spec.ReadOnly
	b.Writers, b.Readers, b.DeletedAt = spec.Writers, spec.Readers, nil
	err = commitBlock(ctx, tx, &b, memory.BlockCreate, 0, id, s.db.Now.Now())
	return b, err
}

// checkLabelFree keeps a label meaning one block to everyone who can see
// it. An agent's own block comes first when it looks a label up, so a
// personal block may not take the label of a shared block its owner can see,
// and a shared block may not take a label that anyone's own block uses (it
// would be hidden from them). A shared block the caller cannot see is never
// named: the refusal reads as for a label personal blocks use, and counts
// nobody; a personal block may take its label, since the caller would never
// see the shared one anyway.
func checkLabelFree(ctx context.Context, tx *Tx, agent string, spec memory.BlockSpec) error {
	shared, found, err := loadBlock(ctx, tx, sharedScope, spec.Label)
	if err != nil {
		return err
	}
	visible := found && shared.VisibleTo(agent)
	if !spec.Shared {
		if visible {
			return memory.Errorf(memory.ECONFLICT, "block %s already exists: it is a shared block (owner %s, version %d); edit it, or choose another label for a personal block",
				spec.Label, shared.OwnerName(), shared.Version)
		}
		return nil
	}
	// A visible shared block is left to create, which names it; a hidden one
	// is refused exactly like a label personal blocks use.
	taken := found && !visible
	if !taken {
		err = tx.queryRowOnce(ctx, `SELECT EXISTS (SELECT 1 FROM blocks WHERE label = ? AND scope != ?)`, spec.Label, sharedScope).Scan(&taken)
		if err != nil {
			return fmt.Errorf("check label %s: %w", spec.Label, err)
		}
	}
	if taken {
		return memory.Errorf(memory.ECONFLICT, "label %s is taken: a shared block needs a label that no other block uses; choose another, e.g. team-%s",
			spec.Label, spec.Label)
	}
	return nil
}

// warnHidden tells the operator when a default block about to be made will
// hide, or be hidden by, a block of the same label: the settings of the
// processes on this data directory disagree, or an agent took the label
// before the default existed. The personal block wins for its owner, so a
// shared block never stands in for a personal default.
func (s *BlockService) warnHidden(ctx context.Context, tx *Tx, agent string, spec memory.BlockSpec) error {
	if !spec.Shared {
		b, found, err := loadBlock(ctx, tx, sharedScope, spec.Label)
		if found && b.VisibleTo(agent) {
			s.log().WarnContext(ctx, "personal default block hides a shared block", "label", spec.Label, "agent", agent, "shared_owner", b.OwnerName())
		}
		return err
	}
	rows, err := tx.queryOnce(ctx, `SELECT scope FROM blocks WHERE label = ? AND scope != ? ORDER BY scope`, spec.Label, sharedScope)
	if err != nil {
		return fmt.Errorf("check label %s: %w", spec.Label, err)
	}
	defer rows.Close()
	var agents []string
	for rows.Next() {
		var a string
		if err := rows.Scan(&a); err != nil {
			return err
		}
		agents = append(agents, a)
	}
	if len(agents) > 0 {
		s.log().WarnContext(ctx, "shared default block is hidden by personal blocks", "label", spec.Label, "agents", strings.Join(agents, ","))
	}
	return rows.Err()
}

func (s *BlockService) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}

// checkBlockCount refuses one more live block for owner once it owns
// MaxBlocks. Every path that makes a block live (create, create anew, a
// restore that undeletes) passes through it; blocks made by configuration
// (owner "") are bounded by the configuration instead.
func checkBlockCount(ctx context.Context, tx *Tx, label, owner, caller string) error {
	if owner == "" {
		return nil
	}
	var n int
	if err := tx.queryRowOnce(ctx, `SELECT count(*) FROM blocks WHERE owner = ? AND deleted_at IS NULL`, owner).Scan(&n); err != nil {
		return fmt.Errorf("count blocks: %w", err)
	}
	if n < memory.MaxBlocks {
		return nil
	}
	if owner != caller {
		return memory.Errorf(memory.EINVALID, "block %s counts against its owner %s, who owns %d blocks; the limit is %d: ask %s to delete a block first",
			label, owner, n, memory.MaxBlocks, owner)
	}
	return memory.Errorf(memory.EINVALID, "you own %d blocks; the limit is %d: fold related blocks together and delete the rest with memory_block_delete",
		n, memory.MaxBlocks)
}

// checkBlockVersion enforces compare-and-set when the caller sent
// expected_version or expected_hash. path is the memory tool path the edit
// names ("" for the block tools), which the message names instead.
func checkBlockVersion(b memory.Block, expected *int, hash, path string) error {
	what, reread := "block "+b.Label, "read it again with memory_block_read and redo your edit on the current value"
	if path != "" {
		what, reread = path, "view it again and redo your edit on the current text"
	}
	if hash != "" {
		if have := memory.BlockHash(b.Value); !strings.HasPrefix(have, strings.ToLower(hash)) {
			return memory.Errorf(memory.ECONFLICT, "%s has content hash %s (version %d), you sent expected_hash %s: it was edited (by %s) since you read it; %s",
				what, have[:16], b.Version, hash, b.UpdatedBy, reread)
		}
	}
	if expected == nil || *expected == b.Version {
		return nil
	}
	if *expected > b.Version {
		return memory.Errorf(memory.EINVALID, "%s is at version %d, you sent expected_version %d: there is no such version yet; "+
			"send the version a read shows", what, b.Version, *expected)
	}
	return memory.Errorf(memory.ECONFLICT, "%s is at version %d, you sent expected_version %d: it was edited (by %s) since you read it; %s",
		what, b.Version, *expected, b.UpdatedBy, reread)
}

// restorable returns version v of b, if it is one that can be brought back.
func restorable(ctx context.Context, tx *Tx, b blockRow, v int) (memory.BlockVersion, error) {
	if v > b.Version {
		return memory.BlockVersion{}, memory.Errorf(memory.ENOTFOUND, "block %s has versions 1 to %d; there is no version %d", b.Label, b.Version, v)
	}
	if v == b.Version && b.DeletedAt == nil {
		return memory.BlockVersion{}, memory.Errorf(memory.EINVALID, "block %s is already at version %d: restore an earlier version (memory_block_history lists them)", b.Label, v)
	}
	vs, err := blockVersions(ctx, tx, b, v, 1)
	if err != nil {
		return memory.BlockVersion{}, err
	}
	if len(vs) == 0 {
		return memory.BlockVersion{}, fmt.Errorf("block %s: version %d missing from history", b.Label, v)
	}
	if vs[0].Deleted {
		return vs[0], memory.Errorf(memory.EINVALID, "version %d of block %s is its deletion; restore version %d, the value it deleted", v, b.Label, v-1)
	}
	return vs[0], nil
}

// commitBlock writes b as its next version: the blocks row (guarded by the
// version it was read at) and its history row, and records the change.
func commitBlock(ctx context.Context, tx *Tx, b *blockRow, op memory.BlockOp, restoredFrom int, id memory.Identity, now time.Time) error {
	prev := b.Version
	if nanos(now) <= nanos(b.UpdatedAt) {
		now = b.UpdatedAt.Add(time.Nanosecond) // keep times increasing per block even if the clock steps back
	}
	b.Version, b.UpdatedAt, b.UpdatedBy = prev+1, now, id.AgentID
	if b.DeletedAt != nil {
		b.DeletedAt = &now
	}
	if prev == 0 {
		b.CreatedAt = now
	}
	b.Chars = utf8.RuneCountInString(b.Value)
	if err := upsertBlock(ctx, tx, b, prev); err != nil {
		return err
	}
	args := append([]any{b.id, b.Version, op, b.Value, b.Description, b.Limit, b.DeletedAt != nil,
		sql.NullInt64{Int64: int64(restoredFrom), Valid: restoredFrom > 0}, nanos(now)}, authorArgs(memory.AuthorOf(id))...)
	stamp, err := tx.db.stamp(blockVersionStampTag, args...)
	if err != nil {
		return err
	}
	_, err = tx.execOnce(ctx, `INSERT INTO block_versions (block_id, version, op, value, description, char_limit,
		deleted, restored_from, at, author_agent_id, author_seniority, author_autonomy, author_is_human, stamp)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, append(args, stamp)...)
	if err != nil {
		return fmt.Errorf("append block version: %w", err)
	}
	return tx.RecordChange(ctx, memory.ChangeBlock, memory.BlockChangeRef(b.Block), now)
}

// upsertBlock inserts a new block (prev 0) or moves an existing one from
// version prev to b.Version, failing if another write got there first.
func upsertBlock(ctx context.Context, tx *Tx, b *blockRow, prev int) error {
	writers, _ := json.Marshal(nonNil(b.Writers))
	readers, _ := json.Marshal(nonNil(b.Readers))
	var deleted sql.NullInt64
	if b.DeletedAt != nil {
		deleted = sql.NullInt64{Int64: nanos(*b.DeletedAt), Valid: true}
	}
	if prev == 0 {
		err := tx.queryRowOnce(ctx, `INSERT INTO blocks (scope, label, description, value, char_limit, read_only, owner,
			writers, readers, version, created_at, updated_at, updated_by, deleted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			RETURNING id`,
			b.scope, b.Label, b.Description, b.Value, b.Limit, b.ReadOnly, b.Owner, string(writers), string(readers),
			b.Version, nanos(b.CreatedAt), nanos(b.UpdatedAt), b.UpdatedBy, deleted).Scan(&b.id)
		if err != nil {
			return fmt.Errorf("insert block: %w", err)
		}
		return nil
	}
	res, err := tx.execOnce(ctx, `UPDATE blocks SET description = ?, value = ?, char_limit = ?, read_only = ?, writers = ?,
		readers = ?, version = ?, updated_at = ?, updated_by = ?, deleted_at = ? WHERE id = ? AND version = ?`,
		b.Description, b.Value, b.Limit, b.ReadOnly, string(writers), string(readers), b.Version, nanos(b.UpdatedAt),
		b.UpdatedBy, deleted, b.id, prev)
	if err != nil {
		return fmt.Errorf("update block: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("update block %s from version %d: %d rows changed (%v)", b.Label, prev, n, err)
	}
	return nil
}

const blockColumns = `SELECT id, scope, label, description, value, char_limit, read_only, owner, writers, readers,
	version, created_at, updated_at, updated_by, deleted_at FROM blocks`

func scanBlock(row interface{ Scan(...any) error }) (blockRow, error) {
	var b blockRow
	var writers, readers string
	var created, updated int64
	var deleted sql.NullInt64
	err := row.Scan(&b.id, &b.scope, &b.Label, &b.Description, &b.Value, &b.Limit, &b.ReadOnly, &b.Owner, &writers, &readers,
		&b.Version, &created, &updated, &b.UpdatedBy, &deleted)
	if err != nil {
		return b, err
	}
	b.Shared = b.scope == sharedScope
	b.Writers, b.Readers = emptyNil(decodeTags(writers)), emptyNil(decodeTags(readers))
	b.CreatedAt, b.UpdatedAt, b.DeletedAt = fromNanos(created), fromNanos(updated), fromNullNanos(deleted)
	b.Chars = utf8.RuneCountInString(b.Value)
	return b, nil
}

// loadBlock reads the block at (scope, label), deleted or not.
func loadBlock(ctx context.Context, tx *Tx, scope, label string) (blockRow, bool, error) {
	b, err := scanBlock(tx.queryRowOnce(ctx, blockColumns+` WHERE scope = ? AND label = ?`, scope, label))
	if errors.Is(err, sql.ErrNoRows) {
		return b, false, nil
	}
	if err != nil {
		return b, false, fmt.Errorf("load block %s: %w", label, err)
	}
	return b, true, nil
}

// lookup finds the block labelled label that agent may read, deleted or not:
// its own, or a shared one.
func lookup(ctx context.Context, tx *Tx, agent, label string) (blockRow, error) {
	for _, scope := range []string{agent, sharedScope} {
		b, found, err := loadBlock(ctx, tx, scope, label)
		if err != nil {
			return b, err
		}
		if found && b.VisibleTo(agent) {
			return b, nil
		}
	}
	rows, err := visibleBlocks(ctx, tx, agent)
	if err != nil {
		return blockRow{}, err
	}
	labels := make([]string, len(rows))
	for i, r := range rows {
		labels[i] = r.Label
	}
	have := "you have no blocks"
	if len(labels) > 0 {
		have = "your blocks are " + strings.Join(labels, ", ")
	}
	return blockRow{}, memory.Errorf(memory.ENOTFOUND, "no block labelled %q: %s (memory_block_create makes a new one)", label, have)
}

// visibleBlocks returns the live blocks agent may read: its own, then shared
// ones.
func visibleBlocks(ctx context.Context, tx *Tx, agent string) ([]blockRow, error) {
	// A shared block whose label the agent uses for a block of its own is
	// hidden from it, as lookup finds its own first.
	rows, err := tx.queryOnce(ctx, blockColumns+` WHERE deleted_at IS NULL AND (scope = ? OR
		(scope = ? AND label NOT IN (SELECT label FROM blocks WHERE scope = ?))) ORDER BY scope = ?, id`,
		agent, sharedScope, agent, sharedScope)
	if err != nil {
		return nil, fmt.Errorf("list blocks: %w", err)
	}
	defer rows.Close()
	var out []blockRow
	for rows.Next() {
		b, err := scanBlock(rows)
		if err != nil {
			return nil, err
		}
		if b.VisibleTo(agent) {
			out = append(out, b)
		}
	}
	return out, rows.Err()
}

// blockVersions returns up to limit versions of b, newest first; a non-zero
// only selects that one version.
func blockVersions(ctx context.Context, tx *Tx, b blockRow, only, limit int) ([]memory.BlockVersion, error) {
	rows, err := tx.queryOnce(ctx, `SELECT version, op, value, description, char_limit, deleted, restored_from, at,
		author_agent_id, author_seniority, author_autonomy, author_is_human
		FROM block_versions WHERE block_id = ? AND (? = 0 OR version = ?) ORDER BY version DESC LIMIT ?`, b.id, only, only, limit)
	if err != nil {
		return nil, fmt.Errorf("read block history: %w", err)
	}
	defer rows.Close()
	out := []memory.BlockVersion{}
	for rows.Next() {
		v := memory.BlockVersion{Label: b.Label}
		var restored sql.NullInt64
		var at int64
		author, decodeAuthor := scanAuthor(&v.Author)
		if err := rows.Scan(append([]any{&v.Version, &v.Op, &v.Value, &v.Description, &v.Limit, &v.Deleted, &restored, &at},
			author...)...); err != nil {
			return nil, err
		}
		decodeAuthor()
		v.RestoredFrom, v.At = int(restored.Int64), fromNanos(at)
		out = append(out, v)
	}
	return out, rows.Err()
}

func deletedError(b blockRow, path string) error {
	if path != "" {
		return memory.Errorf(memory.ENOTFOUND, "The path %s does not exist. Please provide a valid path. (It was deleted at version %d by %s; "+
			"the history command lists its versions and restore with version %d brings it back.)", path, b.Version, b.UpdatedBy, b.Version-1)
	}
	return memory.Errorf(memory.ENOTFOUND, "block %s was deleted (version %d, by %s at %s): memory_block_restore with version %d brings it back",
		b.Label, b.Version, b.UpdatedBy, b.DeletedAt.Format(time.RFC3339), b.Version-1)
}

func emptyNil(xs []string) []string {
	if len(xs) == 0 {
		return nil
	}
	return xs
}
