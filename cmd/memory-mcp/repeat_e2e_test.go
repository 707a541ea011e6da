package main

import (
	"slices"
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
)

type repeatedResult struct {
	ID          string              `json:"id"`
	Outcome     memory.WriteOutcome `json:"outcome"`
	DuplicateOf string              `json:"duplicate_of"`
	RepeatID    string              `json:"repeat_id"`
}

type recallRepeats struct {
	Memories []memory.Entry  `json:"memories"`
	Repeats  []memory.Repeat `json:"repeats"`
}

// A false repeat loses nothing, over MCP: the words of a write answered
// "duplicate" come back with the memory it was taken to repeat, and the
// caller stores them as their own memory (remember, or publish_memory,
// with not_a_repeat_of), as the duplicate answer tells it to.
func TestFalseRepeatRecoveredEndToEnd(t *testing.T) {
	dir := t.TempDir()
	ann := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "ann", "--approval", "off"}})
	var a, b repeatedResult
	ann.ok("remember", map[string]any{"content": "Ann reviews the pull request.", "namespace": "team"}, &a)
	said := map[string]any{"content": "Ann reviews pull requests.", "namespace": "team", "source": "standup"}
	res := ann.call("remember", said)
	decode(t, res, &b)
	if b.Outcome != memory.WriteOutcomeDuplicate || b.DuplicateOf != a.ID || b.RepeatID == "" {
		t.Fatalf("the near repeat = %+v, want a duplicate of %s with a repeat id", b, a.ID)
	}
	if msg := text(res); !strings.Contains(msg, b.RepeatID) || !strings.Contains(msg, `not_a_repeat_of "`+a.ID+`"`) {
		t.Fatalf("the duplicate answer does not say how to store the words: %q", msg)
	}

	// The words come back with the memory they were taken to repeat.
	var rec recallRepeats
	res = ann.call("recall_memory", map[string]any{"ids": []string{a.ID}})
	decode(t, res, &rec)
	if len(rec.Repeats) != 1 || rec.Repeats[0].ID != b.RepeatID || rec.Repeats[0].Content != "Ann reviews pull requests." ||
		rec.Repeats[0].Tier != memory.DedupWords || rec.Repeats[0].MemoryID != a.ID {
		t.Fatalf("recall_memory repeats = %+v", rec.Repeats)
	}
	if !strings.Contains(text(res), memory.Fence("repeat "+b.RepeatID, "Ann reviews pull requests.")) {
		t.Fatalf("recall text does not hold the fenced words: %q", text(res))
	}

	ann.fail("remember", map[string]any{"content": "Ann reviews pull requests.", "not_a_repeat_of": "mem-000000000000"}, "ENOTFOUND", "not_a_repeat_of")
	ann.fail("remember", map[string]any{"content": "Ann reviews pull requests.", "not_a_repeat_of": "two words"}, "EINVALID", "not_a_repeat_of")
	said["not_a_repeat_of"] = a.ID
	var own repeatedResult
	ann.ok("remember", said, &own)
	if own.Outcome != memory.WriteOutcomeStored || own.ID == a.ID {
		t.Fatalf("stored after all = %+v", own)
	}
	var sr searchResult
	ann.ok("search_memory", map[string]any{"query": "pull requests"}, &sr)
	if ids := sr.ids(); !slices.Contains(ids, own.ID) || !slices.Contains(ids, a.ID) {
		t.Fatalf("search finds %v, want %s and %s", ids, a.ID, own.ID)
	}
	ann.ok("recall_memory", map[string]any{"ids": []string{a.ID}}, &rec)
	if rec.Repeats[0].StoredAs != own.ID {
		t.Fatalf("the repeat after storing = %+v, want stored_as %s", rec.Repeats[0], own.ID)
	}
	var pub repeatedResult
	ann.ok("publish_memory", map[string]any{"id": a.ID}, &pub)
	ann.stop()

	// Another agent's publish of the near repeat, across the shared space.
	bob := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "bob", "--approval", "off"}})
	var bobs, dup, shared repeatedResult
	bob.ok("remember", map[string]any{"content": "Ann reviews pull requests.", "namespace": "team"}, &bobs)
	res = bob.call("publish_memory", map[string]any{"id": bobs.ID})
	decode(t, res, &dup)
	if dup.Outcome != memory.WriteOutcomeDuplicate || dup.DuplicateOf != pub.ID || dup.RepeatID == "" ||
		!strings.Contains(text(res), `not_a_repeat_of "`+pub.ID+`"`) {
		t.Fatalf("bob's publish = %+v %q, want a duplicate of %s that says how to share it", dup, text(res), pub.ID)
	}
	bob.ok("recall_memory", map[string]any{"ids": []string{pub.ID}}, &rec)
	if len(rec.Repeats) != 1 || rec.Repeats[0].From != bobs.ID || rec.Repeats[0].Tool != "publish_memory" {
		t.Fatalf("bob's repeats of %s = %+v (ann's must not show)", pub.ID, rec.Repeats)
	}
	bob.ok("publish_memory", map[string]any{"id": bobs.ID, "not_a_repeat_of": pub.ID}, &shared)
	if shared.Outcome != memory.WriteOutcomeStored || shared.ID == pub.ID {
		t.Fatalf("shared after all = %+v", shared)
	}
}
