// Package ui is the review page for the humans who curate memory-mcp: org
// facts with their history and a point-in-time view, the shared state and
// its ledger, the pending queue, writes held for approval, conflicts,
// writes answered "duplicate" (repeats), every agent's memories and each
// one's story, statistics and block histories. It is plain server-rendered HTML (no
// script at all), built from the same domain services the MCP tools call,
// so that every rule (who may write, what is held, what is private) holds
// here as it does there; each curator action is a POST form that passes the
// write gates under the name of the tool that does the same.
//
// The handler expects the caller's identity in the request's context
// (memory.WithIdentity), put there by the server's authentication in front
// of it: no identity is 401, an identity that is not human is 403.
package ui

import (
	"bytes"
	"crypto/rand"
	"embed"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"

	memory "github.com/memory-mcp/memory-mcp"
)

// Services are the domain services the pages read and act through. A nil
// service leaves its pages out.
type Services struct {
	Facts     memory.FactService
	Promotion memory.PromotionService // shared state, ledger, pending queue
	Approvals memory.ApprovalService
	Memories  memory.MemoryService // conflicts between memories, memory statistics
	Metrics   memory.MetricsService
	Blocks    memory.BlockService
	Erasure   memory.ErasureService // erasing a memory from its page (nil: not offered)
	// Gates stand in front of every curator action, as in front of the
	// tool that does the same (nil: none, as on an MCP server without them).
	Gates memory.WriteGates
	// Run applies an approved held write (what tools.Register returns);
	// required with Approvals.
	Run memory.ToolRunner
	Log *slog.Logger
}

// Options configure the handler.
type Options struct {
	// Prefix is the path the pages are served under; default "/ui".
	Prefix string
	// Key signs the forms' tokens and the messages shown after an action.
	// Empty: a random key per process, so a form rendered by one process
	// is refused by another; servers behind one address share a key (serve
	// keeps it in the database).
	Key []byte
	// Now is the clock the forms' tokens are dated by.
	Now memory.Clock
	// SignIn checks a credential a person pastes into the sign-in page
	// (GET and POST Prefix/signin, served without an identity) and opens a
	// session, whose id the page keeps in SessionCookie for the server's
	// authentication to read. Nil: no sign-in page, for servers whose
	// identity comes otherwise.
	SignIn SignInFunc
	// SignOut ends a session when its person signs out.
	SignOut SignOutFunc
}

//go:embed templates/*.html static/style.css
var files embed.FS

// handler serves the pages.
type handler struct {
	svc     Services
	prefix  string
	key     []byte
	log     *slog.Logger
	mux     *http.ServeMux
	pages   map[string]*template.Template
	nav     []navItem
	origin  *http.CrossOriginProtection
	now     memory.Clock
	signIn  SignInFunc
	signOut SignOutFunc
	open    *http.ServeMux // the pages served without an identity (nil: none)
}

// navItem is one entry of the pages' navigation.
type navItem struct {
	Name, Path string
}

// New returns the review page's handler. It serves the paths under
// o.Prefix as they arrive: mount it at the prefix without stripping it
// (mux.Handle("/ui/", authenticate(ui.New(...)))).
func New(svc Services, o Options) http.Handler {
	h := &handler{svc: svc, prefix: strings.TrimSuffix(o.Prefix, "/"), key: o.Key, log: svc.Log,
		mux: http.NewServeMux(), pages: map[string]*template.Template{}, origin: http.NewCrossOriginProtection(), now: o.Now, signIn: o.SignIn, signOut: o.SignOut}
	if h.prefix == "" {
		h.prefix = "/ui"
	}
	if !strings.HasPrefix(h.prefix, "/") {
		panic("ui: the prefix must start with /: " + h.prefix)
	}
	if len(h.key) == 0 {
		h.key = make([]byte, 32)
		rand.Read(h.key)
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	if svc.Approvals != nil && svc.Run == nil {
		panic("ui: Approvals needs Run, to apply an approved held write")
	}
	h.routes()
	return h
}

// routes registers each configured service's pages and actions.
func (h *handler) routes() {
	h.page("GET /{$}", "overview.html", h.overview)
	h.mux.Handle("GET "+h.prefix, http.RedirectHandler(h.prefix+"/", http.StatusMovedPermanently))
	h.mux.HandleFunc("GET "+h.prefix+"/style.css", h.style)
	if h.svc.Facts != nil {
		h.section("Facts", "/facts")
		h.page("GET /facts", "facts.html", h.facts)
		h.page("GET /facts/{id}", "fact.html", h.fact)
	}
	if h.svc.Promotion != nil {
		h.section("Shared state", "/state")
		h.section("Ledger", "/ledger")
		h.section("Pending", "/pending")
		h.page("GET /state", "state.html", h.state)
		h.page("GET /ledger", "ledger.html", h.ledger)
		h.page("GET /pending", "pending.html", h.pending)
		h.action("POST /pending/{id}/bind", action{form: pendingForm(true),
			do: h.resolvePending("target_id", "give the id of the row to bind pending item %d to")})
		h.action("POST /pending/{id}/drop", action{form: pendingForm(false),
			do: h.resolvePending("drop_reason", "give a reason to drop pending item %d: it is kept on record")})
		h.action("POST /pending/drop", action{form: dropForm, do: h.dropPending})
	}
	if h.svc.Approvals != nil {
		h.section("Approvals", "/approvals")
		h.page("GET /approvals", "approvals.html", h.approvals)
		h.action("POST /approvals/{id}/decide", action{form: approvalForm, do: h.decideApproval})
		h.action("POST /approvals/decide", action{form: bulkForm, do: h.decideApprovals})
		h.action("POST /approvals/rule/{rule}/review", action{form: ruleForm, do: h.markRule})
	}
	if h.svc.Memories != nil || h.svc.Facts != nil {
		h.section("Conflicts", "/conflicts")
		h.page("GET /conflicts", "conflicts.html", h.conflicts)
		h.action("POST /conflicts/{id}/resolve", action{form: conflictForm, do: h.resolveConflict})
	}
	if h.svc.Memories != nil {
		h.section("Agents", "/agents")
		h.page("GET /agents", "agents.html", h.agents)
		h.section("Memories", "/memories")
		h.page("GET /memories", "memories.html", h.memories)
		h.page("GET /memories/{id}", "memory.html", h.memory)
		h.action("POST /memories/{id}/forget", action{form: forgetForm, do: h.forgetMemory})
		h.action("POST /memories/{id}/restore", action{form: restoreForm, do: h.restoreMemory})
		h.action("POST /memories/{id}/retract", action{form: retractForm, do: h.retractMemory})
		if h.svc.Erasure != nil {
			h.page("GET /memories/{id}/erase", "erase.html", h.confirmErase)
			h.action("POST /memories/{id}/erase", action{form: eraseForm, do: h.eraseMemory})
		}
		h.section("Repeats", "/repeats")
		h.page("GET /repeats", "repeats.html", h.repeats)
		h.action("POST /repeats/{id}/store", action{form: repeatForm, do: h.storeRepeat})
	}
	if h.svc.Metrics != nil || h.svc.Memories != nil {
		h.section("Statistics", "/stats")
		h.page("GET /stats", "stats.html", h.stats)
	}
	if h.svc.Blocks != nil {
		h.section("Blocks", "/blocks")
		h.page("GET /blocks", "blocks.html", h.blocks)
		h.page("GET /blocks/{label}", "block.html", h.block)
	}
	if h.signIn != nil {
		h.open = h.signinRoutes()
		h.mux.HandleFunc("POST "+h.prefix+"/signout", h.signout)
	}
	h.template("error.html")
}

func (h *handler) section(name, path string) {
	h.nav = append(h.nav, navItem{Name: name, Path: h.prefix + path})
}

// ServeHTTP admits human identities only, then serves the page asked for;
// the sign-in page, which is how a person comes to have one, admits anyone.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	// No script runs on these pages, and memory text is never markup: the
	// policy makes an escaping mistake inert rather than exploitable.
	hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "+
		"frame-ancestors 'none'; base-uri 'none'")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "same-origin")
	hd.Set("Cache-Control", "no-store")
	if h.open != nil && r.URL.Path == h.prefix+"/signin" {
		h.open.ServeHTTP(w, r)
		return
	}
	id, ok := memory.IdentityFrom(r.Context())
	if !ok || id.AgentID == "" {
		hd.Set("WWW-Authenticate", `Bearer realm="memory-mcp"`)
		h.fail(w, r, http.StatusUnauthorized, "No identity came with this request: sign in to review memory.")
		return
	}
	if !id.Human {
		h.fail(w, r, http.StatusForbidden, "The review page is for human curators; you are "+id.Describe()+".")
		return
	}
	h.mux.ServeHTTP(w, r)
}

// view is what a page handler renders: its title and its data, or an error.
type view struct {
	Title string
	Data  any
}

// page registers a GET page: fn returns the view, or an error shown with
// its status.
func (h *handler) page(pattern, file string, fn func(r *http.Request) (view, error)) {
	method, path, _ := strings.Cut(pattern, " ")
	t := h.template(file)
	h.mux.HandleFunc(method+" "+h.prefix+path, func(w http.ResponseWriter, r *http.Request) {
		v, err := fn(r)
		if err != nil {
			h.failErr(w, r, err)
			return
		}
		h.render(w, r, http.StatusOK, t, v)
	})
}

// template parses file with the layout and the shared forms.
func (h *handler) template(file string) *template.Template {
	t := template.Must(template.New(file).Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/forms.html", "templates/"+file))
	h.pages[file] = t
	return t
}

// frame is what the layout renders around every page.
type frame struct {
	Title  string
	Prefix string
	Nav    []navItem
	Path   string
	Who    memory.Identity
	Flash  string
	CSRF   string
	Data   any
	// SignOut offers the sign-out button (there is a sign-in page).
	SignOut bool
}

// render executes t into a buffer first, so that a failing template never
// leaves half a page with a success status, and shows every invisible
// character of what it rendered (visible). A page that succeeds shows, and
// clears, the message an action left.
func (h *handler) render(w http.ResponseWriter, r *http.Request, status int, t *template.Template, v view) {
	id, _ := memory.IdentityFrom(r.Context())
	var flash string
	if status == http.StatusOK {
		flash = h.takeFlash(w, r, id)
	}
	f := frame{Title: v.Title, Prefix: h.prefix, Nav: h.nav, Path: r.URL.Path, Who: id, Flash: flash,
		CSRF: h.token(id, h.day()), Data: v.Data, SignOut: h.signIn != nil}
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, "layout", f); err != nil {
		h.log.ErrorContext(r.Context(), "review page", "path", r.URL.Path, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	// Stored text is spread over most of a page's fields; marking the
	// invisible characters of the whole page leaves none of them out. The
	// templates hold none of their own, so only stored text changes.
	io.WriteString(w, visible(b.String()))
}

// failure is the error page's data: what went wrong and, after a refused
// action, the form again as it was sent, so that nothing typed is lost.
type failure struct {
	Status  int
	Code    string
	Message string
	Retry   *retry
}

// fail renders the error page.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	h.failWith(w, r, failure{Status: status, Message: msg})
}

func (h *handler) failWith(w http.ResponseWriter, r *http.Request, f failure) {
	title := http.StatusText(f.Status)
	h.render(w, r, f.Status, h.pages["error.html"], view{Title: title, Data: f})
}

// failErr renders err: a domain error with its code's status and its own
// message, anything else as an internal error, logged here once.
func (h *handler) failErr(w http.ResponseWriter, r *http.Request, err error) {
	h.failWith(w, r, h.failureOf(r, err))
}

func (h *handler) failureOf(r *http.Request, err error) failure {
	public, internal := memory.Public(err)
	if internal {
		h.log.ErrorContext(r.Context(), "review page", "path", r.URL.Path, "err", err)
	}
	return failure{Status: statusOf(public.Code), Code: public.Code, Message: public.Message}
}

// statusOf maps an error code to the HTTP status that says the same.
func statusOf(code string) int {
	switch code {
	case memory.EINVALID:
		return http.StatusBadRequest
	case memory.ENOTFOUND:
		return http.StatusNotFound
	case memory.ECONFLICT, memory.EHELD:
		return http.StatusConflict
	case memory.EFORBIDDEN:
		return http.StatusForbidden
	case memory.ERATELIMIT:
		return http.StatusTooManyRequests
	case memory.EBUSY:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

func (h *handler) style(w http.ResponseWriter, r *http.Request) {
	b, err := fs.ReadFile(files, "static/style.css")
	if err != nil {
		h.failErr(w, r, fmt.Errorf("read style: %w", err))
		return
	}
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "private, max-age=300")
	w.Write(b)
}
