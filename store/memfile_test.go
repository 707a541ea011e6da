package store_test

import (
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

func mustPath(t *testing.T, p string) memory.MemoryPath {
	t.Helper()
	mp, err := memory.ParseMemoryPath("path", p)
	if err != nil {
		t.Fatal(err)
	}
	return mp
}

// TestBlockRename: a rename is one write that deletes the block at the old
// label (restorable there) and creates it at the new one; it refuses an
// existing destination, a stale expected version or hash, and a shared
// block another agent owns.
func TestBlockRename(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		blocks := store.NewBlockService(db)
		if _, err := blocks.Create(as(ann), memory.BlockSpec{Label: "draft", Description: "A draft.", Value: "v1 text", Limit: 300}); err != nil {
			t.Fatal(err)
		}
		stale := 0
		if _, err := blocks.Rename(as(ann), memory.BlockRename{From: mustPath(t, "/memories/draft"), To: mustPath(t, "/memories/final"), ExpectedVersion: new(stale + 9)}); memory.ErrorCode(err) != memory.EINVALID {
			t.Fatalf("a version that does not exist yet: %v", err)
		}
		if _, err := blocks.Rename(as(ann), memory.BlockRename{From: mustPath(t, "/memories/draft"), To: mustPath(t, "/memories/final"), ExpectedHash: "00000000"}); memory.ErrorCode(err) != memory.ECONFLICT {
			t.Fatalf("a stale hash: %v", err)
		}
		b, err := blocks.Rename(as(ann), memory.BlockRename{From: mustPath(t, "/memories/draft"), To: mustPath(t, "/memories/docs/final"),
			ExpectedHash: memory.BlockHash("v1 text")[:12]})
		if err != nil || b.Label != "docs:final" || b.Value != "v1 text" || b.Limit != 300 || b.Description != "A draft." {
			t.Fatalf("renamed = %+v, %v", b, err)
		}
		if _, err := blocks.Get(as(ann), "draft"); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Fatalf("the old label is still there: %v", err)
		}
		if vs, err := blocks.History(as(ann), "draft", 0); err != nil || len(vs) != 2 || vs[0].Op != memory.BlockDelete {
			t.Fatalf("old label's history = %+v, %v", vs, err)
		}
		if _, err := blocks.Create(as(ann), memory.BlockSpec{Label: "other", Description: "x"}); err != nil {
			t.Fatal(err)
		}
		if _, err := blocks.Rename(as(ann), memory.BlockRename{From: mustPath(t, "/memories/other"), To: mustPath(t, "/memories/docs/final")}); memory.ErrorCode(err) != memory.ECONFLICT || err.Error() != "ECONFLICT: The destination /memories/docs/final already exists" {
			t.Fatalf("onto an existing file: %v", err)
		}
		if _, err := blocks.Rename(as(ann), memory.BlockRename{From: mustPath(t, "/memories/nothing"), To: mustPath(t, "/memories/x")}); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Fatalf("a missing file: %v", err)
		}
		// A shared block another agent owns may be edited by its writers, not moved.
		if _, err := blocks.Create(as(bob), memory.BlockSpec{Label: "team", Description: "Team.", Shared: true, Writers: []string{"*"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := blocks.Rename(as(ann), memory.BlockRename{From: mustPath(t, "/memories/shared/team"), To: mustPath(t, "/memories/shared/team2")}); memory.ErrorCode(err) != memory.EFORBIDDEN {
			t.Fatalf("moving another's shared block: %v", err)
		}
		// The path's area must match the block's.
		if _, err := blocks.Edit(as(ann), memory.BlockEdit{Label: "team", Path: "/memories/team", Op: memory.BlockDelete}); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Fatalf("a shared block by a personal path: %v", err)
		}
	})
}
