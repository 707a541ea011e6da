package ui

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

// factsPage is a page of facts by category, or a search (words, a point in
// time, or both).
const factsPage = 50

// searchLimit is the most facts a search or a point-in-time view shows: the
// service's own bound on a query.
const searchLimit = 100

type factsData struct {
	Categories []memory.FactCategory
	Category   memory.FactCategory // "" in a search over every category
	Text       string
	AsOf       string    // as typed
	At         time.Time // zero: now
	Search     bool
	Facts      []memory.Fact
	Total      int
	Offset     int
	Prev, Next int // offsets of the neighbouring pages; -1 for none
	Limit      int
}

// facts lists the active facts of a category a page at a time, or, given
// words or a time, the facts matching them as they stood then.
func (h *handler) facts(r *http.Request) (view, error) {
	q := r.URL.Query()
	d := factsData{Categories: memory.FactCategories, Text: strings.TrimSpace(q.Get("q")), AsOf: strings.TrimSpace(q.Get("as_of")),
		Prev: -1, Next: -1}
	var err error
	if c := q.Get("category"); c != "" {
		if d.Category, err = memory.ParseFactCategory(c); err != nil {
			return view{}, err
		}
	}
	if d.At, err = parseWhen("as_of", d.AsOf); err != nil {
		return view{}, err
	}
	if d.Search = d.Text != "" || !d.At.IsZero(); d.Search {
		fq := memory.FactQuery{Text: d.Text, AsOf: d.At, Limit: searchLimit}
		if d.Category != "" {
			fq.Categories = []memory.FactCategory{d.Category}
		}
		d.Facts, err = h.svc.Facts.Query(r.Context(), fq)
		d.Total, d.Limit = len(d.Facts), searchLimit
		return view{Title: "Facts", Data: d}, err
	}
	if d.Category == "" {
		d.Category = memory.FactCategories[0]
	}
	if d.Offset, err = offset(q.Get("offset")); err != nil {
		return view{}, err
	}
	page, err := h.svc.Facts.List(r.Context(), d.Category, d.Offset, factsPage)
	if err != nil {
		return view{}, err
	}
	d.Facts, d.Total, d.Limit = page.Facts, page.Total, factsPage
	if d.Offset > 0 {
		d.Prev = max(d.Offset-factsPage, 0)
	}
	if d.Offset+len(d.Facts) < d.Total {
		d.Next = d.Offset + factsPage
	}
	return view{Title: "Facts", Data: d}, nil
}

type factData struct {
	Fact    memory.Fact
	History []memory.FactOperation // newest first
	AsOf    string
	At      time.Time
	// Then is the operation in force at At: nil when the fact did not
	// exist yet (or no time was asked).
	Then *memory.FactOperation
}

// fact shows one fact, every operation on it, and how it stood at a time.
func (h *handler) fact(r *http.Request) (view, error) {
	id := r.PathValue("id")
	f, err := h.svc.Facts.Get(r.Context(), id)
	if err != nil {
		return view{}, err
	}
	ops, err := h.svc.Facts.History(r.Context(), id)
	if err != nil {
		return view{}, err
	}
	d := factData{Fact: f, AsOf: strings.TrimSpace(r.URL.Query().Get("as_of"))}
	if d.At, err = parseWhen("as_of", d.AsOf); err != nil {
		return view{}, err
	}
	// The log is in version order; the state at a time is its last
	// operation at or before that time.
	for _, op := range ops {
		if !d.At.IsZero() && !op.Timestamp.After(d.At) {
			d.Then = &op
		}
	}
	d.History = slices.Clone(ops)
	slices.Reverse(d.History)
	return view{Title: "Fact " + f.ID, Data: d}, nil
}

// whenLayouts are the forms a time may be given in: what a browser's
// date-time field sends (read as UTC), and RFC 3339.
var whenLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02"}

// parseWhen reads a time; empty is the zero time (now).
func parseWhen(field, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, l := range whenLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, memory.Errorf(memory.EINVALID, "%s %q is not a time: use 2026-03-01T09:30 (UTC) or RFC 3339 with a zone", field, s)
}

// offset reads a page's offset; empty is 0.
func offset(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, memory.Errorf(memory.EINVALID, "offset %q is not a whole number of 0 or more", s)
	}
	return n, nil
}
