package ui

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	memory "github.com/memory-mcp/memory-mcp"
)

type repeatsData struct {
	Agent   string
	All     bool // also those stored after all
	Repeats []memory.Repeat
	Full    bool
}

// repeats lists writes dedup answered "duplicate", newest first, each with
// the words sent beside the memory they were taken to repeat: dedup can be
// wrong, and a curator who sees that it was stores the words after all.
func (h *handler) repeats(r *http.Request) (view, error) {
	q := r.URL.Query()
	d := repeatsData{Agent: strings.TrimSpace(q.Get("agent")), All: q.Get("all") != ""}
	rq := memory.RepeatQuery{AgentID: d.Agent, Open: !d.All, Limit: memory.MaxSearchLimit}
	reps, err := h.svc.Memories.Repeats(r.Context(), rq)
	if err != nil {
		return view{}, err
	}
	d.Repeats, d.Full = reps, len(reps) >= rq.Limit
	return view{Title: "Repeats", Data: d}, nil
}

// storeRepeat stores a repeat's words as its author's own memory, as the
// author would with remember (or publish_memory) and not_a_repeat_of: the
// gates see that call's arguments.
func (h *handler) storeRepeat(r *http.Request) (done, error) {
	id := r.PathValue("id")
	if err := memory.CheckID("id", id); err != nil {
		return done{}, err
	}
	reps, err := h.svc.Memories.Repeats(r.Context(), memory.RepeatQuery{IDs: []string{id}})
	if err != nil {
		return done{}, err
	}
	if len(reps) == 0 {
		return done{}, memory.Errorf(memory.ENOTFOUND, "no repeat %q: the repeats page lists them", id)
	}
	rp := reps[0]
	tool, args := "remember", map[string]any{"content": rp.Content, "namespace": rp.Namespace, "category": string(rp.Category),
		"tags": rp.Tags, "not_a_repeat_of": rp.MemoryID}
	if rp.Tool == "publish_memory" {
		tool, args = "publish_memory", map[string]any{"id": rp.From, "not_a_repeat_of": rp.MemoryID}
	}
	return write(h, r, tool, args, backTo(r, "/repeats"), repeatFlash(rp), func(ctx context.Context) (memory.Remembered, error) {
		return h.svc.Memories.StoreRepeat(ctx, id)
	})
}

// repeatFlash says what became of repeat rp's words.
func repeatFlash(rp memory.Repeat) func(memory.Remembered) string {
	return func(m memory.Remembered) string {
		if m.Outcome == memory.WriteOutcomeDuplicate {
			return fmt.Sprintf("Repeat %s was not stored: its words repeat %s as well (repeat %s).", rp.ID, m.ID, m.RepeatID)
		}
		return fmt.Sprintf("Repeat %s is stored as %s's own memory %s (it had been taken for %s).", rp.ID, m.AgentID, m.ID, rp.MemoryID)
	}
}

func repeatForm(r *http.Request) *retry {
	return &retry{Action: r.URL.Path, Submit: "Store as its own memory", Key: r.PostFormValue(keyField)}
}
