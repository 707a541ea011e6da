package ui

import (
	"context"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	memory "github.com/memory-mcp/memory-mcp"
)

// queueRows is the most pending items a page shows, oldest first.
const queueRows = 100

type pendingData struct {
	All   bool
	Items []memory.PendingItem
	Total int
	// The filters, as typed: whose notes, and how old at least.
	Agent, Age string
	Filtered   bool // a filter is set: Total counts what it selects
	Offset     int
	Prev, Next int // offsets of the neighbouring pages; -1 for none
}

// Query is the page's filters as a URL query, without the offset, encoded
// once (see memoriesData.Query).
func (d pendingData) Query() template.URL {
	v := url.Values{}
	if d.All {
		v.Set("all", "1")
	}
	if d.Agent != "" {
		v.Set("agent", d.Agent)
	}
	if d.Age != "" {
		v.Set("age", d.Age)
	}
	return template.URL(v.Encode())
}

// pending shows the pending queue, oldest first, a page at a time: the
// open items, or with all=1 those that left it too; narrowed to one
// agent's notes or to those older than an age. The filters are the
// query's, so they reach every item, however long the queue.
func (h *handler) pending(r *http.Request) (view, error) {
	q := r.URL.Query()
	d := pendingData{All: q.Get("all") == "1", Agent: strings.TrimSpace(q.Get("agent")), Age: strings.TrimSpace(q.Get("age")), Prev: -1, Next: -1}
	age, err := memory.ParseAge("age", d.Age)
	if err != nil {
		return view{}, err
	}
	if d.Offset, err = offset(q.Get("offset")); err != nil {
		return view{}, err
	}
	pq := memory.PendingQuery{All: d.All, Limit: queueRows, Agent: d.Agent, Offset: d.Offset}
	if age != nil {
		pq.NotedBefore = h.now.Now().Add(-*age)
	}
	d.Filtered = d.Agent != "" || age != nil
	l, err := h.svc.Promotion.ListPending(r.Context(), pq)
	if err != nil {
		return view{}, err
	}
	d.Items, d.Total = l.Pending, l.Total
	if d.Offset+len(d.Items) < d.Total {
		d.Next = d.Offset + queueRows
	}
	if d.Offset > 0 {
		d.Prev = max(d.Offset-queueRows, 0)
	}
	return view{Title: "Pending queue", Data: d}, nil
}

// dropPending drops every item ticked with one reason, each as its own
// resolve_pending call through the gates with its own key and record.
func (h *handler) dropPending(r *http.Request) (done, error) {
	reason := posted(r, "drop_reason")
	ids := make([]int64, 0, len(r.PostForm["id"]))
	for _, s := range r.PostForm["id"] {
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil || id < 1 {
			return done{}, memory.Errorf(memory.EINVALID, "%q is not a pending item's id: the queue shows them (1, 2, ...)", s)
		}
		ids = append(ids, id)
	}
	switch {
	case len(ids) == 0:
		return done{}, memory.Errorf(memory.EINVALID, "tick the items to drop: none was ticked")
	case len(ids) > maxBulk:
		return done{}, memory.Errorf(memory.EINVALID, "%d items ticked; drop at most %d at once", len(ids), maxBulk)
	case reason == "":
		return done{}, memory.Errorf(memory.EINVALID, "give one reason to drop the %d items: it is kept on record with each", len(ids))
	}
	key := r.PostFormValue(keyField)
	var ok, failed []string
	for _, id := range ids {
		sid := strconv.FormatInt(id, 10)
		args := map[string]any{"pending_id": id, "drop_reason": reason}
		_, err := gated(h, r, "resolve_pending", keyFor(key, sid), args, pendingFlash, func(ctx context.Context) (memory.CuratorResult, error) {
			return h.svc.Promotion.ResolvePending(ctx, memory.PendingDecision{PendingID: id, DropReason: reason})
		})
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s (%s)", sid, memory.ErrorMessage(err)))
			continue
		}
		ok = append(ok, sid)
	}
	msg := fmt.Sprintf("%d pending item(s) dropped, each recorded on its own", len(ok))
	if len(ok) > 0 {
		msg += ": " + strings.Join(ok, ", ")
	}
	if len(failed) > 0 {
		msg += fmt.Sprintf(". %d not: %s", len(failed), strings.Join(failed, "; "))
	}
	return done{Next: "/pending", Flash: msg + "."}, nil
}

func dropForm(r *http.Request) *retry {
	fields := []field{{Name: "drop_reason", Label: "Reason for dropping", Value: r.PostFormValue("drop_reason"), Long: true}}
	for _, id := range r.PostForm["id"] {
		fields = append(fields, field{Name: "id", Label: "Item", Value: id})
	}
	return &retry{Action: r.URL.Path, Submit: "Drop", Key: r.PostFormValue(keyField), Fields: fields}
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
