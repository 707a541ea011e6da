package store

import (
	"context"

	memory "github.com/memory-mcp/memory-mcp"
)

// The memory tool's operations on blocks that the block tools do not have:
// a lookup by path, which must find the block in the path's area, and a
// rename.

// lookupPath is lookup for an edit asked by memory tool path ("" for the
// block tools): a label found in the other area than the path's, or not at
// all, is the reference's "does not exist".
func lookupPath(ctx context.Context, tx *Tx, agent, label, path string) (blockRow, error) {
	b, err := lookup(ctx, tx, agent, label)
	if path == "" {
		return b, err
	}
	p, perr := memory.ParseMemoryPath("path", path)
	if perr != nil {
		return b, perr
	}
	if memory.ErrorCode(err) == memory.ENOTFOUND || err == nil && b.Shared != p.Shared {
		return blockRow{}, memory.PathNotFound(path)
	}
	return b, err
}

// Rename moves a block to another path: one transaction deletes it at the
// old label (a version like any other, restorable there) and creates it at
// the new one with the same value, description, limit and flags. Only who
// may edit the block may move it, and a shared block only its owner (or a
// human), since the moved block is the mover's.
func (s *BlockService) Rename(ctx context.Context, r memory.BlockRename) (memory.Block, error) {
	id, err := s.caller(ctx)
	if err != nil {
		return memory.Block{}, err
	}
	if err := checkRename(r); err != nil {
		return memory.Block{}, err
	}
	var out memory.Block
	err = s.db.Update(ctx, func(tx *Tx) error {
		b, err := lookupPath(ctx, tx, id.AgentID, r.From.Label, r.From.Path)
		if err != nil {
			return err
		}
		if b.DeletedAt != nil {
			return deletedError(b, r.From.Path)
		}
		if err := b.CheckWrite(id); err != nil {
			return err
		}
		if b.Shared && b.Owner != id.AgentID && !id.Human {
			return memory.Errorf(memory.EFORBIDDEN, "%s is a shared block owned by %s: only its owner may move it; edit it in place instead", r.From.Path, b.OwnerName())
		}
		if err := checkBlockVersion(b.Block, r.ExpectedVersion, r.ExpectedHash, r.From.Path); err != nil {
			return err
		}
		if err := checkDestination(ctx, tx, id.AgentID, r.To); err != nil {
			return err
		}
		now := s.db.Now.Now()
		old := b
		old.DeletedAt = &now
		if err := commitBlock(ctx, tx, &old, memory.BlockDelete, 0, id, now); err != nil {
			return err
		}
		spec := memory.BlockSpec{Label: r.To.Label, Description: b.Description, Value: b.Value, Limit: b.Limit,
			ReadOnly: b.ReadOnly, Shared: r.To.Shared, Path: r.To.Path}
		if b.Shared && r.To.Shared {
			spec.Writers, spec.Readers = b.Writers, b.Readers
		}
		if err := checkBlockCount(ctx, tx, spec.Label, id.AgentID, id.AgentID); err != nil {
			return err
		}
		if err := checkLabelFree(ctx, tx, id.AgentID, spec); err != nil {
			return err
		}
		nb, err := s.create(ctx, tx, id, id.AgentID, spec)
		out = nb.Block
		return err
	})
	return out, err
}

func checkRename(r memory.BlockRename) error {
	switch {
	case r.From.IsDir():
		return memory.Errorf(memory.EINVALID, "%s is a directory that always exists: rename the files in it one at a time", r.From.Path)
	case r.To.IsDir():
		return memory.Errorf(memory.EINVALID, "The destination %s already exists", r.To.Path)
	case r.From.Label == r.To.Label && r.From.Shared == r.To.Shared:
		return memory.Errorf(memory.EINVALID, "old_path and new_path are the same file: nothing would change")
	case r.ExpectedVersion != nil && *r.ExpectedVersion < 1:
		return memory.Errorf(memory.EINVALID, "expected_version %d is not a version: blocks start at version 1", *r.ExpectedVersion)
	case r.ExpectedHash != "":
		return memory.CheckExpectedHash(r.ExpectedHash)
	}
	return nil
}

// checkDestination refuses a rename onto a file the caller can see.
func checkDestination(ctx context.Context, tx *Tx, agent string, to memory.MemoryPath) error {
	scope := agent
	if to.Shared {
		scope = sharedScope
	}
	b, found, err := loadBlock(ctx, tx, scope, to.Label)
	if err != nil {
		return err
	}
	if found && b.DeletedAt == nil && b.VisibleTo(agent) {
		return memory.Errorf(memory.ECONFLICT, "The destination %s already exists", to.Path)
	}
	return nil
}
