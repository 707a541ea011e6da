package ui

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	memory "github.com/memory-mcp/memory-mcp"
)

type conflictsData struct {
	Resolution  string // as asked: a resolution, or all
	Resolutions []memory.ConflictResolution
	Subject     memory.ConflictSubject // "" for both
	Agent       string
	Conflicts   []memory.Conflict
	Full        bool
}

// conflicts lists contradictions, newest first, each with both sides:
// between memories (every agent's, or one agent's) and between facts.
func (h *handler) conflicts(r *http.Request) (view, error) {
	q := r.URL.Query()
	d := conflictsData{Resolution: q.Get("resolution"), Resolutions: memory.ConflictResolutions, Agent: q.Get("agent")}
	if d.Resolution == "" {
		d.Resolution = string(memory.ConflictOpen)
	}
	cq := memory.ConflictQuery{AgentID: d.Agent, Limit: memory.MaxSearchLimit}
	var err error
	if cq.Resolutions, err = memory.ParseConflictResolutions([]string{d.Resolution}); err != nil {
		return view{}, err
	}
	if d.Subject, err = memory.ParseConflictSubject(q.Get("subject")); err != nil {
		return view{}, err
	}
	cq.Subject = d.Subject
	if d.Subject != memory.ConflictOfFacts && h.svc.Memories != nil {
		cs, err := h.svc.Memories.Conflicts(r.Context(), cq)
		if err != nil {
			return view{}, err
		}
		d.Conflicts = cs
	}
	if d.Subject != memory.ConflictOfMemories && d.Agent == "" && h.svc.Facts != nil {
		cs, err := h.svc.Facts.Conflicts(r.Context(), cq)
		if err != nil {
			return view{}, err
		}
		d.Conflicts = append(d.Conflicts, cs...)
	}
	slices.SortStableFunc(d.Conflicts, func(a, b memory.Conflict) int { return b.DetectedAt.Compare(a.DetectedAt) })
	d.Full = len(d.Conflicts) >= cq.Limit
	d.Conflicts = d.Conflicts[:min(len(d.Conflicts), cq.Limit)]
	return view{Title: "Conflicts", Data: d}, nil
}

// resolveConflict decides a conflict as resolve_conflict would: between
// memories, the one not kept is superseded; between facts, retracted.
func (h *handler) resolveConflict(r *http.Request) (done, error) {
	id, keepArg, reason := r.PathValue("id"), posted(r, "keep"), posted(r, "reason")
	keep, err := memory.ParseKeep(keepArg)
	if err != nil {
		return done{}, err
	}
	resolve := h.resolver(id)
	if resolve == nil {
		return done{}, memory.Errorf(memory.ENOTFOUND, "no conflict %q: the conflicts page lists them", id)
	}
	args := map[string]any{"id": id, "keep": keepArg}
	if reason != "" {
		args["reason"] = reason
	}
	return write(h, r, "resolve_conflict", args, backTo(r, "/conflicts"), conflictFlash, func(ctx context.Context) (memory.Conflict, error) {
		return resolve(ctx, id, keep, reason)
	})
}

// resolver is the service that decides conflict id, or nil.
func (h *handler) resolver(id string) func(context.Context, string, memory.ConflictResolution, string) (memory.Conflict, error) {
	switch {
	case memory.IsFactConflict(id) && h.svc.Facts != nil:
		return h.svc.Facts.ResolveConflict
	case !memory.IsFactConflict(id) && h.svc.Memories != nil:
		return h.svc.Memories.ResolveConflict
	}
	return nil
}

func conflictFlash(c memory.Conflict) string {
	lost := "is superseded (kept, recallable)"
	if c.Subject == memory.ConflictOfFacts {
		lost = "is retracted (publishing it again restores it)"
	}
	switch c.Resolution {
	case memory.ConflictNewerWins:
		return fmt.Sprintf("Conflict %s decided: %s holds, %s %s.", c.ID, c.NewerID, c.OlderID, lost)
	case memory.ConflictOlderWins:
		return fmt.Sprintf("Conflict %s decided: %s holds, %s %s.", c.ID, c.OlderID, c.NewerID, lost)
	}
	return fmt.Sprintf("Conflict %s decided: both %s and %s hold.", c.ID, c.OlderID, c.NewerID)
}

func conflictForm(r *http.Request) *retry {
	return &retry{Action: r.URL.Path, Submit: "Decide", Key: r.PostFormValue(keyField), Fields: []field{
		{Name: "keep", Label: "Keep", Value: posted(r, "keep"), Choices: []string{"newer", "older", "both"}},
		{Name: "reason", Label: "Reason", Value: r.PostFormValue("reason"), Long: true},
	}}
}
