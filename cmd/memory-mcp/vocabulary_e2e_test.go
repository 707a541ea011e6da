package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestOneVocabulary: stored text is content and memory ids are ids in every
// tool, with the old names still taken for a release (giving both is
// refused); forgetting several ids forgets all or none; the shared scope
// holds what the caller published; a required category is asked for by
// name; a settled conflict is named so that list_conflicts finds it; and a
// search's relevance compares across queries.
func TestOneVocabulary(t *testing.T) {
	s := startIn(t, options{args: []string{"--agent-id", "ann"}})
	s.ok("write_note", map[string]any{"content": "learned: the cache lives on NFS"}, nil)
	s.ok("write_note", map[string]any{"text": "learned: the old name still works"}, nil)
	s.fail("write_note", map[string]any{"text": "a", "content": "b"}, "EINVALID", "give content only: text is its old name")

	var a, b struct{ ID string }
	s.ok("remember", map[string]any{"content": "The build cache lives on NFS."}, &a)
	s.ok("remember", map[string]any{"content": "The deploy key rotates monthly."}, &b)
	s.fail("forget", map[string]any{"ids": []string{a.ID, "mem_nope"}}, "ENOTFOUND", "mem_nope")
	var found searchResult
	s.ok("search_memory", map[string]any{"query": "build cache NFS"}, &found)
	if len(found.Results) != 1 {
		t.Fatalf("a forget that failed on one id forgot the other: %+v", found)
	}
	s.fail("forget", map[string]any{"id": a.ID, "ids": []string{a.ID}}, "EINVALID", "give ids only: id is its old name")
	var forgot struct{ Memories []struct{ ID string } }
	s.ok("forget", map[string]any{"ids": []string{a.ID, b.ID}, "reason": "moved"}, &forgot)
	if len(forgot.Memories) != 2 || forgot.Memories[0].ID != a.ID || forgot.Memories[1].ID != b.ID {
		t.Fatalf("forget of two ids = %+v", forgot)
	}

	s.fail("list_facts", map[string]any{}, "EINVALID", "category is required: give one of core_policy, adr")

	var c struct{ ID string }
	s.ok("remember", map[string]any{"content": "The release train leaves on Monday."}, &c)
	var pub struct{ ID string }
	s.ok("publish_memory", map[string]any{"id": c.ID}, &pub)
	s.ok("search_memory", map[string]any{"query": "release train", "scope": "shared"}, &found)
	if len(found.Results) != 1 || found.Results[0].ID != pub.ID || found.Results[0].Relevance != 1 {
		t.Fatalf("the publisher's shared search = %+v, want its shared copy %s at relevance 1", found, pub.ID)
	}
	res := s.call("remember", map[string]any{"content": "The release train leaves on Thursday."})
	var settled struct {
		Conflicts []struct{ ID, Resolution string }
	}
	decode(t, res, &settled)
	if len(settled.Conflicts) != 1 || settled.Conflicts[0].Resolution != "newer_wins" ||
		!strings.Contains(text(res), "conflict "+settled.Conflicts[0].ID+" is settled newer_wins") ||
		!strings.Contains(text(res), `resolutions ["newer_wins"]`) {
		t.Fatalf("remember that settled a conflict: %s %+v", text(res), settled)
	}
	var listed struct{ Conflicts []struct{ ID string } }
	s.ok("list_conflicts", map[string]any{"resolutions": []string{"newer_wins"}}, &listed)
	if len(listed.Conflicts) != 1 || listed.Conflicts[0].ID != settled.Conflicts[0].ID {
		t.Fatalf("list_conflicts as the answer says = %+v, want %s", listed, settled.Conflicts[0].ID)
	}
}

// TestBlockToolsTakeContent: the memory_block_* tools take stored text as
// content, as every other tool does; text and value, their old names, are
// taken for a release, listed in no schema, and refused beside content.
func TestBlockToolsTakeContent(t *testing.T) {
	s := startIn(t, options{args: []string{"--agent-id", "ann", "--block-tools"}})
	res, err := s.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if !strings.HasPrefix(tool.Name, "memory_block_") {
			continue
		}
		b, _ := json.Marshal(tool.InputSchema)
		var sch struct{ Properties map[string]any }
		json.Unmarshal(b, &sch)
		for _, old := range []string{"text", "value"} {
			if sch.Properties[old] != nil {
				t.Errorf("%s lists %s, content's old name", tool.Name, old)
			}
		}
	}
	type block struct {
		Block struct {
			Value   string
			Version int
		}
	}
	var b block
	s.ok("memory_block_create", map[string]any{"label": "a", "description": "A.", "content": "one"}, &b)
	s.ok("memory_block_create", map[string]any{"label": "b", "description": "B.", "value": "old name"}, &b)
	if b.Block.Value != "old name" {
		t.Errorf("memory_block_create with value: %+v", b)
	}
	s.ok("memory_block_append", map[string]any{"label": "a", "content": "two"}, &b)
	s.ok("memory_block_append", map[string]any{"label": "a", "text": "three"}, &b)
	s.ok("memory_block_insert", map[string]any{"label": "a", "after_line": 0, "content": "zero"}, &b)
	s.ok("memory_block_insert", map[string]any{"label": "a", "after_line": 0, "text": "start"}, &b)
	if b.Block.Value != "start\nzero\none\ntwo\nthree" {
		t.Errorf("block a after appends and inserts under both names = %q", b.Block.Value)
	}
	s.ok("memory_block_rethink", map[string]any{"label": "a", "content": "new", "expected_version": b.Block.Version}, &b)
	s.ok("memory_block_rethink", map[string]any{"label": "a", "value": "newer", "expected_version": b.Block.Version}, &b)
	if b.Block.Value != "newer" {
		t.Errorf("block a after rethinks under both names = %q", b.Block.Value)
	}
	for tool, args := range map[string]map[string]any{
		"memory_block_create":  {"label": "c", "description": "C.", "content": "x", "value": "y"},
		"memory_block_append":  {"label": "a", "content": "x", "text": "y"},
		"memory_block_insert":  {"label": "a", "after_line": 0, "content": "x", "text": "y"},
		"memory_block_rethink": {"label": "a", "content": "x", "value": "y", "expected_version": b.Block.Version},
	} {
		s.fail(tool, args, "EINVALID", "give content only")
	}
}
