package main

import (
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
