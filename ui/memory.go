package ui

import (
	"context"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

// memoriesPage is how many memories a listing or a search shows at once.
const memoriesPage = 50

type memoriesData struct {
	Agent  string // whose personal memories; "" with Shared or before one is named
	Shared bool   // the shared space
	Text   string // a search's words ("" lists)
	// Archived: a search reads archived memories too, as search_memory's
	// include_archived.
	Archived   bool
	State      memory.MemoryState // listed
	Category   string
	Namespace  string
	States     []stateCount
	Categories []memory.Category
	Hits       []memory.Hit // a search's
	Memories   []memory.Entry
	Total      int
	Offset     int
	Prev       int // offset of the page before; -1 for none
	// Before is the page's key (older than the memory created then with
	// id BeforeID); Older the next page's, "" at the end.
	Before   time.Time
	BeforeID string
	Older    string
	// Newest links back to the first page (the page is a later one).
	Newest bool
}

// stateCount is how many memories (under the page's filters) are in a
// state.
type stateCount struct {
	State memory.MemoryState
	N     int
}

// Chosen says whose memories the page shows.
func (d memoriesData) Chosen() bool { return d.Agent != "" || d.Shared }

// Query is the page's filters as a URL query, without the state and the
// page: its state links add their own. It is encoded here, so that the
// template puts it into a link as it is (escaped again, its = and & would
// become part of one value, and the link lose every filter).
func (d memoriesData) Query() template.URL { return template.URL(d.values().Encode()) }

// StateQuery is Query with the page's state: its paging links'.
func (d memoriesData) StateQuery() template.URL {
	v := d.values()
	v.Set("state", string(d.State))
	return template.URL(v.Encode())
}

func (d memoriesData) values() url.Values {
	v := url.Values{}
	if d.Shared {
		v.Set("shared", "1")
	} else {
		v.Set("agent", d.Agent)
	}
	for k, s := range map[string]string{"q": d.Text, "category": d.Category, "namespace": d.Namespace} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if d.Archived {
		v.Set("archived", "1")
	}
	return v
}

// memories shows one agent's personal memories, or the shared space:
// searched with search_memory's ranking when words are given, else listed
// by state, newest first, a page at a time; with each state's count under
// the same filters. The filters are the URL's, so a view can be linked.
func (h *handler) memories(r *http.Request) (view, error) {
	q := r.URL.Query()
	d := memoriesData{Agent: strings.TrimSpace(q.Get("agent")), Shared: q.Get("shared") != "", Text: strings.TrimSpace(q.Get("q")),
		Archived: q.Get("archived") != "", State: memory.MemoryState(strings.TrimSpace(q.Get("state"))),
		Category: strings.TrimSpace(q.Get("category")), Namespace: strings.TrimSpace(q.Get("namespace")),
		Categories: memory.Categories, Prev: -1}
	if d.Shared {
		d.Agent = ""
	}
	if !d.Chosen() {
		return view{Title: "Memories", Data: d}, nil
	}
	if d.State == "" {
		d.State = memory.StateActive
	}
	var err error
	if d.Offset, err = offset(q.Get("offset")); err != nil {
		return view{}, err
	}
	if d.Before, d.BeforeID, err = cursor(q.Get("before")); err != nil {
		return view{}, err
	}
	// One more than a page says whether there is an older one.
	lq := memory.ListQuery{AgentID: d.Agent, Shared: d.Shared, States: []memory.MemoryState{d.State}, Offset: d.Offset,
		Limit: memoriesPage + 1, Before: d.Before, BeforeID: d.BeforeID}
	if d.Category != "" {
		lq.Categories = []memory.Category{memory.Category(d.Category)}
	}
	if d.Namespace != "" {
		lq.Namespaces = []string{d.Namespace}
	}
	if d.States, err = h.stateCounts(r.Context(), lq); err != nil {
		return view{}, err
	}
	if d.Text != "" {
		d.Hits, err = h.search(r.Context(), d, lq)
		return view{Title: d.title(), Data: d}, err
	}
	page, err := h.svc.Memories.List(r.Context(), lq)
	if err != nil {
		return view{}, err
	}
	d.Memories, d.Total = page.Memories, page.Total
	if len(d.Memories) > memoriesPage {
		d.Memories = d.Memories[:memoriesPage]
		last := d.Memories[len(d.Memories)-1]
		d.Older = last.CreatedAt.UTC().Format(time.RFC3339Nano) + " " + last.ID
	}
	if d.Offset > 0 && d.BeforeID == "" {
		d.Prev = max(d.Offset-memoriesPage, 0)
	}
	d.Newest = d.BeforeID != "" || d.Offset > 0
	return view{Title: d.title(), Data: d}, nil
}

// cursor reads a page's key, "<created_at RFC 3339> <id>" as the older
// link writes it; "" is the first page.
func cursor(s string) (time.Time, string, error) {
	if s == "" {
		return time.Time{}, "", nil
	}
	at, id, ok := strings.Cut(s, " ")
	t, err := time.Parse(time.RFC3339Nano, at)
	// The store keeps times as nanoseconds since 1970: a time they cannot
	// hold (before 1678, after 2262) would wrap around and key another page.
	if !ok || err != nil || !time.Unix(0, t.UnixNano()).Equal(t) || memory.CheckID("before", id) != nil {
		return time.Time{}, "", memory.Errorf(memory.EINVALID, "before %q is not a page's key: follow the page's older link", s)
	}
	return t, id, nil
}

func (d memoriesData) title() string {
	if d.Shared {
		return "Shared memories"
	}
	return "Memories of " + d.Agent
}

// stateCounts counts the memories in each state under lq's other filters,
// from the counts the database keeps (a count per state through the
// listing took 4 s at 100k memories, a grouped scan 0.2-0.5 s).
func (h *handler) stateCounts(ctx context.Context, lq memory.ListQuery) ([]stateCount, error) {
	c, err := h.svc.Memories.Counts(ctx, lq)
	if err != nil {
		return nil, err
	}
	out := make([]stateCount, 0, len(memory.MemoryStates))
	for _, state := range memory.MemoryStates {
		out = append(out, stateCount{State: state, N: c.Of(state)})
	}
	return out, nil
}

// search ranks the memories against the page's words as the agent's own
// search_memory would (for the shared space, as any agent's search of it).
func (h *handler) search(ctx context.Context, d memoriesData, lq memory.ListQuery) ([]memory.Hit, error) {
	sq := memory.Query{Text: d.Text, Scope: memory.ScopePersonal, AgentID: d.Agent, Categories: lq.Categories,
		Namespaces: lq.Namespaces, Limit: memoriesPage, IncludeArchived: d.Archived}
	if d.Shared {
		sq.Scope, sq.AgentID = memory.ScopeShared, ""
	}
	return h.svc.Memories.Search(ctx, sq)
}

type memoryData struct {
	memory.MemoryStory
	State     memory.MemoryState
	Repeats   []memory.Repeat
	Conflicts []memory.Conflict
	// Back is the page's own path, where its actions come back to.
	Back string
	// Erase: erasing is offered.
	Erase bool
}

// Retractable says whether retract_memory would withdraw a shared copy:
// the memory is one, still in the shared space, or has one.
func (d memoryData) Retractable() bool {
	if d.Entry.Shared {
		return d.Entry.ForgottenAt == nil
	}
	return d.Entry.Provenance.SharedAs != ""
}

// Restorable says whether restore_memory would bring the memory back.
func (d memoryData) Restorable() bool {
	return d.Entry.ArchivedAt != nil && d.Entry.ForgottenAt == nil && d.Entry.ArchiveReason != memory.ArchiveMerged && !d.Entry.Expired
}

// memory tells one memory's whole story: what it says and who wrote it,
// whether its stamp holds, what dedup folded into it, what it replaced or
// what replaced it, its summary or its sources, its conflicts and the
// write log's lines about it; with what a curator may do about it.
func (h *handler) memory(r *http.Request) (view, error) {
	d, err := h.readMemory(r.Context(), r.PathValue("id"))
	if err != nil {
		return view{}, err
	}
	d.Back = "/memories/" + d.Entry.ID
	return view{Title: "Memory " + d.Entry.ID, Data: d}, nil
}

func (h *handler) readMemory(ctx context.Context, id string) (memoryData, error) {
	if err := memory.CheckID("id", id); err != nil {
		return memoryData{}, err
	}
	st, err := h.svc.Memories.Story(ctx, id)
	if err != nil {
		return memoryData{}, err
	}
	d := memoryData{MemoryStory: st, State: memory.StateOf(st.Entry, h.now.Now()), Erase: h.svc.Erasure != nil}
	if d.Repeats, err = h.svc.Memories.Repeats(ctx, memory.RepeatQuery{MemoryIDs: []string{id}, Limit: memory.MaxSearchLimit}); err != nil {
		return d, err
	}
	d.Conflicts, err = h.svc.Memories.Conflicts(ctx, memory.ConflictQuery{MemoryID: id, Resolutions: memory.ConflictResolutions,
		Limit: memory.MaxSearchLimit})
	return d, err
}

// forgetMemory forgets a memory as its agent's forget would, recorded as
// the curator's.
func (h *handler) forgetMemory(r *http.Request) (done, error) {
	id, reason := r.PathValue("id"), posted(r, "reason")
	d, err := h.readMemory(r.Context(), id)
	if err != nil {
		return done{}, err
	}
	args := map[string]any{"id": id}
	if reason != "" {
		args["reason"] = reason
	}
	return write(h, r, "forget", args, "/memories/"+id, func(e memory.Entry) string {
		return fmt.Sprintf("Memory %s of %s is forgotten: out of every search, kept with the reason.", e.ID, e.AgentID)
	}, func(ctx context.Context) (memory.Entry, error) {
		return h.svc.Memories.ForgetOf(ctx, d.Entry.AgentID, id, reason)
	})
}

// retractMemory withdraws a shared copy from the shared space as its
// publisher's retract_memory would, recorded as the curator's: named by
// the copy's id, or by the personal memory it was published from.
func (h *handler) retractMemory(r *http.Request) (done, error) {
	id := r.PathValue("id")
	d, err := h.readMemory(r.Context(), id)
	if err != nil {
		return done{}, err
	}
	args := map[string]any{"id": id, "agent_id": d.Entry.AgentID}
	return write(h, r, "retract_memory", args, "/memories/"+id, func(e memory.Entry) string {
		return fmt.Sprintf("Shared memory %s of %s is retracted: out of every agent's search, kept for audit.", e.ID, e.AgentID)
	}, func(ctx context.Context) (memory.Entry, error) {
		return h.svc.Memories.RetractOf(ctx, d.Entry.AgentID, id)
	})
}

// restoreMemory brings an archived memory back as restore_memory would.
func (h *handler) restoreMemory(r *http.Request) (done, error) {
	id := r.PathValue("id")
	d, err := h.readMemory(r.Context(), id)
	if err != nil {
		return done{}, err
	}
	args := map[string]any{"id": id, "agent_id": d.Entry.AgentID}
	return write(h, r, "restore_memory", args, "/memories/"+id, func(e memory.Entry) string {
		return fmt.Sprintf("Memory %s of %s is restored: back in search as it was archived.", e.ID, e.AgentID)
	}, func(ctx context.Context) (memory.Entry, error) {
		return h.svc.Memories.Restore(ctx, d.Entry.AgentID, id)
	})
}

type eraseData struct {
	memoryData
	Report memory.ErasureReport // what an erase would remove (a dry run)
}

// confirmErase shows what erasing a memory would remove, counted by a dry
// run, and asks again: an erase cannot be undone.
func (h *handler) confirmErase(r *http.Request) (view, error) {
	d, err := h.readMemory(r.Context(), r.PathValue("id"))
	if err != nil {
		return view{}, err
	}
	rep, err := h.svc.Erasure.Erase(r.Context(), memory.ErasureRequest{IDs: []string{d.Entry.ID}, Reason: "dry run", DryRun: true})
	if err != nil {
		return view{}, err
	}
	d.Back = "/memories/" + d.Entry.ID
	return view{Title: "Erase memory " + d.Entry.ID + "?", Data: eraseData{memoryData: d, Report: rep}}, nil
}

// eraseMemory erases a memory for good, as erase with its id would, once
// the curator typed its id again.
func (h *handler) eraseMemory(r *http.Request) (done, error) {
	id, reason := r.PathValue("id"), posted(r, "reason")
	if err := memory.CheckID("id", id); err != nil {
		return done{}, err
	}
	if posted(r, "confirm") != id {
		return done{}, memory.Errorf(memory.EINVALID, "type the memory's id, %s, to confirm the erase: it cannot be undone", id)
	}
	st, err := h.svc.Memories.Story(r.Context(), id)
	if err != nil {
		return done{}, err
	}
	next := "/memories?shared=1"
	if !st.Entry.Shared {
		next = "/memories?agent=" + url.QueryEscape(st.Entry.AgentID)
	}
	args := map[string]any{"ids": []string{id}, "reason": reason}
	return write(h, r, "erase", args, next, func(rep memory.ErasureReport) string {
		return fmt.Sprintf("Memory %s is erased: %d row(s) removed for good (audit row %d).", id, rep.Total(), rep.Erasure)
	}, func(ctx context.Context) (memory.ErasureReport, error) {
		return h.svc.Erasure.Erase(ctx, memory.ErasureRequest{IDs: []string{id}, Reason: reason})
	})
}

func forgetForm(r *http.Request) *retry {
	return &retry{Action: r.URL.Path, Submit: "Forget", Key: r.PostFormValue(keyField), Fields: []field{
		{Name: "reason", Label: "Reason", Value: r.PostFormValue("reason"), Long: true}}}
}

func retractForm(r *http.Request) *retry {
	return &retry{Action: r.URL.Path, Submit: "Retract from the shared space", Key: r.PostFormValue(keyField)}
}

func restoreForm(r *http.Request) *retry {
	return &retry{Action: r.URL.Path, Submit: "Restore", Key: r.PostFormValue(keyField)}
}

func eraseForm(r *http.Request) *retry {
	return &retry{Action: r.URL.Path, Submit: "Erase for good", Key: r.PostFormValue(keyField), Fields: []field{
		{Name: "confirm", Label: "The memory's id, to confirm", Value: posted(r, "confirm")},
		{Name: "reason", Label: "Reason (kept in the audit; do not quote what you erase)", Value: r.PostFormValue("reason"), Long: true}}}
}

// backTo is where an action shared with another page returns: the memory
// page it was sent from (the form's back field), or def.
func backTo(r *http.Request, def string) string {
	id, ok := strings.CutPrefix(posted(r, "back"), "/memories/")
	if !ok || memory.CheckID("back", id) != nil {
		return def
	}
	return "/memories/" + id
}

type agentsData struct {
	Agents []memory.AgentMemories
	Shared int // memories in the shared space, every publisher's
}

// agents lists every agent that has kept memories, with how many of its
// own and of its shared copies are in search, each leading to its
// memories; and the shared space with its total.
func (h *handler) agents(r *http.Request) (view, error) {
	as, err := h.svc.Memories.Agents(r.Context())
	if err != nil {
		return view{}, err
	}
	d := agentsData{Agents: as}
	for _, a := range as {
		d.Shared += a.Shared
	}
	return view{Title: "Agents", Data: d}, nil
}
