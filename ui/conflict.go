package ui

import (
	"context"
	"fmt"
	"net/http"

	memory "github.com/memory-mcp/memory-mcp"
)

type conflictsData struct {
	Resolution  string // as asked: a resolution, or all
	Resolutions []memory.ConflictResolution
	Agent       string
	Conflicts   []memory.Conflict
	Full        bool
}

// conflicts lists contradictions between memories, newest first, each with
// both memories: every agent's, or one agent's.
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
	if d.Conflicts, err = h.svc.Memories.Conflicts(r.Context(), cq); err != nil {
		return view{}, err
	}
	d.Full = len(d.Conflicts) == memory.MaxSearchLimit
	return view{Title: "Conflicts", Data: d}, nil
}

// resolveConflict decides a conflict as resolve_conflict would.
func (h *handler) resolveConflict(r *http.Request) (done, error) {
	id, keepArg, reason := r.PathValue("id"), posted(r, "keep"), posted(r, "reason")
	keep, err := memory.ParseKeep(keepArg)
	if err != nil {
		return done{}, err
	}
	args := map[string]any{"id": id, "keep": keepArg}
	if reason != "" {
		args["reason"] = reason
	}
	res, err := h.write(r, "resolve_conflict", args, func(ctx context.Context) (any, string, error) {
		c, err := h.svc.Memories.ResolveConflict(ctx, id, keep, reason)
		return c, conflictFlash(c), err
	})
	if err != nil {
		return done{}, err
	}
	c, err := result[memory.Conflict](res)
	if err != nil {
		return done{}, err
	}
	return done{Next: "/conflicts", Flash: conflictFlash(c)}, nil
}

func conflictFlash(c memory.Conflict) string {
	switch c.Resolution {
	case memory.ConflictNewerWins:
		return fmt.Sprintf("Conflict %s decided: %s holds, %s is superseded (kept, recallable).", c.ID, c.NewerID, c.OlderID)
	case memory.ConflictOlderWins:
		return fmt.Sprintf("Conflict %s decided: %s holds, %s is superseded (kept, recallable).", c.ID, c.OlderID, c.NewerID)
	}
	return fmt.Sprintf("Conflict %s decided: both %s and %s hold.", c.ID, c.OlderID, c.NewerID)
}

func conflictForm(r *http.Request) *retry {
	return &retry{Action: r.URL.Path, Submit: "Decide", Key: r.PostFormValue(keyField), Fields: []field{
		{Name: "keep", Label: "Keep", Value: posted(r, "keep"), Choices: []string{"newer", "older", "both"}},
		{Name: "reason", Label: "Reason", Value: r.PostFormValue("reason"), Long: true},
	}}
}
