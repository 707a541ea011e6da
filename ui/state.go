package ui

import (
	"net/http"
	"strconv"
	"strings"

	memory "github.com/memory-mcp/memory-mcp"
)

// Rows shown of each bucket: a glance at every bucket, or one bucket.
const (
	glanceRows = 10
	bucketRows = 200
	ledgerPage = 50
)

type stateData struct {
	Buckets  []memory.Bucket
	Bucket   memory.Bucket // "" for a glance at every bucket
	Status   string
	Statuses []string
	Groups   []stateGroup
}

// stateGroup is one bucket's rows, newest change first; Full says the
// limit was reached, so there may be more.
type stateGroup struct {
	Bucket memory.Bucket
	Rows   []memory.StateRow
	Full   bool
}

// state shows the shared state: a glance at every bucket, or one bucket's
// rows, by status.
func (h *handler) state(r *http.Request) (view, error) {
	q := r.URL.Query()
	d := stateData{Buckets: memory.Buckets, Status: q.Get("status")}
	sq := memory.StateQuery{Status: d.Status, Limit: glanceRows}
	if b := q.Get("bucket"); b != "" {
		var err error
		if d.Bucket, err = memory.ParseBucket(b); err != nil {
			return view{}, err
		}
		sq.Bucket, sq.Limit, d.Statuses = d.Bucket, bucketRows, d.Bucket.Statuses()
	}
	rows, err := h.svc.Promotion.State(r.Context(), sq)
	if err != nil {
		return view{}, err
	}
	for _, b := range memory.Buckets {
		if d.Bucket != "" && b != d.Bucket {
			continue
		}
		g := stateGroup{Bucket: b}
		for _, row := range rows {
			if row.Bucket == b {
				g.Rows = append(g.Rows, row)
			}
		}
		g.Full = len(g.Rows) == sq.Limit
		d.Groups = append(d.Groups, g)
	}
	return view{Title: "Shared state", Data: d}, nil
}

type ledgerData struct {
	Buckets []memory.Bucket
	Bucket  memory.Bucket
	Target  string
	Before  int64
	Events  []memory.Event
	Older   int64 // the before of the next page; 0: none
}

// ledger shows the ledger newest first, of every bucket, one bucket or one
// row, a page at a time.
func (h *handler) ledger(r *http.Request) (view, error) {
	q := r.URL.Query()
	d := ledgerData{Buckets: memory.Buckets, Target: strings.TrimSpace(q.Get("target"))}
	lq := memory.LedgerQuery{TargetID: d.Target, Limit: ledgerPage}
	if b := q.Get("bucket"); b != "" {
		var err error
		if d.Bucket, err = memory.ParseBucket(b); err != nil {
			return view{}, err
		}
		lq.Bucket = d.Bucket
	}
	if s := q.Get("before"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 {
			return view{}, memory.Errorf(memory.EINVALID, "before %q is not a sequence number of the ledger", s)
		}
		d.Before, lq.Before = n, n
	}
	evs, err := h.svc.Promotion.Ledger(r.Context(), lq)
	if err != nil {
		return view{}, err
	}
	d.Events = evs
	if len(evs) == ledgerPage {
		d.Older = evs[len(evs)-1].Seq
	}
	return view{Title: "Ledger", Data: d}, nil
}
