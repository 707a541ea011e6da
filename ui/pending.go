package ui

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	memory "github.com/memory-mcp/memory-mcp"
)

// queueRows is the most pending items a page shows, oldest first.
const queueRows = 100

type pendingData struct {
	All   bool
	Items []memory.PendingItem
	Total int
}

// pending shows the pending queue, oldest first: the open items, or with
// all=1 those that left it too.
func (h *handler) pending(r *http.Request) (view, error) {
	d := pendingData{All: r.URL.Query().Get("all") == "1"}
	l, err := h.svc.Promotion.ListPending(r.Context(), memory.PendingQuery{All: d.All, Limit: queueRows})
	if err != nil {
		return view{}, err
	}
	d.Items, d.Total = l.Pending, l.Total
	return view{Title: "Pending queue", Data: d}, nil
}

// resolvePending resolves a pending item as resolve_pending would, with
// the form's field: target_id binds it to that row (which commits its
// write), drop_reason drops it with the reason on record.
func (h *handler) resolvePending(field, missing string) func(r *http.Request) (done, error) {
	return func(r *http.Request) (done, error) {
		id, err := pendingID(r)
		if err != nil {
			return done{}, err
		}
		v := posted(r, field)
		if v == "" {
			return done{}, memory.Errorf(memory.EINVALID, missing, id)
		}
		d := memory.PendingDecision{PendingID: id}
		if field == "target_id" {
			d.TargetID = v
		} else {
			d.DropReason = v
		}
		args := map[string]any{"pending_id": id, field: v}
		return write(h, r, "resolve_pending", args, "/pending", pendingFlash, func(ctx context.Context) (memory.CuratorResult, error) {
			return h.svc.Promotion.ResolvePending(ctx, d)
		})
	}
}

func pendingFlash(cr memory.CuratorResult) string {
	p := cr.Pending
	if p.Resolution == nil {
		return fmt.Sprintf("Pending item %d is %s.", p.ID, p.Status)
	}
	switch res := p.Resolution; {
	case res.Action == "drop":
		return fmt.Sprintf("Pending item %d dropped.", p.ID)
	case cr.Outcome != nil:
		msg := fmt.Sprintf("Pending item %d bound to %s: %s", p.ID, res.TargetID, cr.Outcome.Summary())
		if n := len(cr.Retried); n > 0 {
			msg += fmt.Sprintf(" (%d more pending item(s) retried after it)", n)
		}
		return msg
	}
	return fmt.Sprintf("Pending item %d: %s.", p.ID, p.Status)
}

// pendingForm gives back a pending item's form as it was sent.
func pendingForm(bind bool) func(r *http.Request) *retry {
	return func(r *http.Request) *retry {
		f := &retry{Action: r.URL.Path, Key: r.PostFormValue(keyField)}
		if bind {
			f.Submit = "Bind"
			f.Fields = []field{{Name: "target_id", Label: "Bind to row", Value: posted(r, "target_id")}}
		} else {
			f.Submit = "Drop"
			f.Fields = []field{{Name: "drop_reason", Label: "Reason for dropping", Value: r.PostFormValue("drop_reason"), Long: true}}
		}
		return f
	}
}

func pendingID(r *http.Request) (int64, error) {
	s := r.PathValue("id")
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id < 1 {
		return 0, memory.Errorf(memory.EINVALID, "%q is not a pending item's id: the queue shows them (1, 2, ...)", s)
	}
	return id, nil
}
