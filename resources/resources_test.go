package resources

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

func TestChangedNamesTheResourcesAChangeTouches(t *testing.T) {
	allBuckets := []string{StateSummary}
	for _, b := range memory.Buckets {
		allBuckets = append(allBuckets, StatePrefix+string(b))
	}
	for _, tt := range []struct {
		c    memory.Change
		want []string
	}{
		{memory.Change{Kind: memory.ChangeFact, Ref: "policy-jwt"}, []string{PoliciesCore, FactsSnapshot, "memory://facts/policy-jwt/history"}},
		{memory.Change{Kind: memory.ChangeBlock, Ref: "ann/persona"}, []string{BlocksList, BlocksList + "/persona"}},
		{memory.Change{Kind: memory.ChangeBlock, Ref: "*/team:board"}, []string{BlocksList, BlocksList + "/team:board"}},
		{memory.Change{Kind: memory.ChangeState, Ref: memory.StateChangeRef(memory.BucketIssues, "db_timeout")}, []string{StateSummary, StatePrefix + "issues"}},
		{memory.Change{Kind: memory.ChangeState, Ref: memory.StateReplayed}, allBuckets},
		{memory.Change{Kind: memory.ChangePending, Ref: memory.IDRef(7)}, []string{PendingQueue, StateSummary}},
		{memory.Change{Kind: memory.ChangeMemory, Ref: "m1"}, nil},
		{memory.Change{Kind: memory.ChangeNote, Ref: "3"}, nil},
	} {
		if got := changed(tt.c); !slices.Equal(got, tt.want) {
			t.Errorf("changed(%+v) = %v, want %v", tt.c, got, tt.want)
		}
	}
}

// TestVisible: a caller hears of its own personal blocks and of shared
// blocks it may read, never of another agent's personal block or of a
// shared block it may not read.
func TestVisible(t *testing.T) {
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	blocks := store.NewBlockService(db)
	as := func(agent string) context.Context {
		return memory.WithIdentity(context.Background(), memory.Identity{AgentID: agent, Seniority: memory.SeniorityMid})
	}
	for _, spec := range []memory.BlockSpec{
		{Label: "open-board", Description: "Everyone reads it.", Shared: true},
		{Label: "secret", Description: "Only cy reads it.", Shared: true, Readers: []string{"cy"}},
	} {
		if _, err := blocks.Create(as("ann"), spec); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		agent, ref string
		want       bool
	}{
		{"ann", "ann/persona", true},
		{"bob", "ann/persona", false},
		{"bob", "*/open-board", true},
		{"bob", "*/secret", false},
		{"cy", "*/secret", true},
	} {
		c := memory.Change{Kind: memory.ChangeBlock, Ref: tt.ref}
		if got := visible(as(tt.agent), blocks, c); got != tt.want {
			t.Errorf("%s sees %s: %v, want %v", tt.agent, tt.ref, got, tt.want)
		}
	}
	if !visible(as("bob"), blocks, memory.Change{Kind: memory.ChangeFact, Ref: "x"}) {
		t.Error("a fact change is everyone's")
	}
}
