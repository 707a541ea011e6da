package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/auth"
	"github.com/memory-mcp/memory-mcp/consolidation"
	"github.com/memory-mcp/memory-mcp/gate"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/ui"
)

// serveHTTP serves MCP over streamable HTTP at /mcp until ctx ends: the
// same tools, resources and prompts as stdio, each request acting as the
// caller its credential names. It then stops taking requests, ends the
// notification streams, and waits (up to shutdown-timeout) for the requests
// in flight, so that a write under way commits and is answered.
func serveHTTP(ctx context.Context, cfg *Config, stderr io.Writer) error {
	if err := checkServe(cfg.Serve); err != nil {
		return err
	}
	logger := newLogger(cfg, stderr)
	o := newOps()
	a, err := openApp(ctx, cfg, logger, server.WithToolHandlerMiddleware(o.toolMiddleware()))
	if err != nil {
		return err
	}
	defer a.Close()
	a.consolidation.Holder = holderName("serve") // for whoever waits on its lease
	// Nodes start and stop at will: the team's write budget is a day's,
	// counted across every node on the database.
	a.gates.BudgetRun = gate.DailyRun
	o.observe(a)
	h, err := newHTTPServer(ctx, a, o)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Serve.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Serve.Addr, err)
	}
	h.allowListener(ln.Addr())
	scheme := "http"
	if cfg.Serve.TLSCert != "" {
		scheme = "https"
	}
	logger.Info("serving MCP over HTTP", "url", scheme+"://"+ln.Addr().String()+"/mcp", "auth", cfg.Serve.Auth,
		"data_dir", cfg.DataDir, "version", buildVersion())

	bg, cancel := context.WithCancel(ctx)
	defer cancel()
	var watching sync.WaitGroup
	watching.Go(func() { a.subs.Watch(a.context(bg), a.db, a.blocks, logger, 500*time.Millisecond) })
	// The team server maintains every agent that has memories, whatever
	// identity it was started with (the image's default is no human): its
	// agents have no server of their own, so the operator's settings
	// (retention, cap, strategy, model endpoint) are the ones that apply.
	// Nodes on one database run each agent once between them, under the
	// maintenance lease.
	if cfg.Consolidation.Interval > 0 {
		logger.Info("consolidation scheduled for every agent", "interval", cfg.Consolidation.Interval, "lease", cfg.Consolidation.Lease)
		watching.Go(func() { a.consolidation.Schedule(bg, consolidation.Operator) })
	}
	if cfg.FineTune.Every > 0 {
		watching.Go(func() { scheduleFineTune(bg, cfg, a.db, logger, consolidation.Operator) })
	}
	if cfg.Backup.Dir != "" {
		watching.Go(func() { scheduleBackup(bg, cfg, a.db, logger) })
	}
	defer func() { // the watcher and the scheduler use the database: they stop before the deferred Close
		cancel()
		watching.Wait()
	}()

	served := make(chan error, 1)
	go func() {
		if cfg.Serve.TLSCert != "" {
			served <- h.srv.ServeTLS(ln, cfg.Serve.TLSCert, cfg.Serve.TLSKey)
		} else {
			served <- h.srv.Serve(ln)
		}
	}()
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	return h.shutdown(logger, cfg.Serve.ShutdownTimeout)
}

// checkServe refuses a configuration that would serve what it should not.
func checkServe(s ServeConfig) error {
	if (s.TLSCert == "") != (s.TLSKey == "") {
		return errors.New("serve: set both tls-cert and tls-key, or neither")
	}
	if s.Auth == authNone && !loopback(s.Addr) {
		return fmt.Errorf("serve: auth none serves the configured identity to whoever connects, so it listens only on a loopback "+
			"address (127.0.0.1, [::1], localhost), not %q: use auth token (memory-mcp token add) to serve a network", s.Addr)
	}
	return nil
}

// loopback reports whether addr (host:port) listens only on the loopback
// interface. An empty host listens on every interface.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// httpServer is the HTTP side of a running server: the routes and the
// net/http server, and the streams to end when it stops.
type httpServer struct {
	srv     *http.Server
	mcp     *server.StreamableHTTPServer
	streams *streams
	guard   *auth.Guard
	ops     *ops
}

func newHTTPServer(ctx context.Context, a *app, o *ops) (*httpServer, error) {
	cfg := a.cfg.Serve
	au, err := authenticate(ctx, a)
	if err != nil {
		return nil, err
	}
	h := &httpServer{streams: newStreams(), ops: o}
	h.guard = auth.NewGuard(cfg.AllowedHosts, cfg.AllowedOrigins)
	sess := newSessions()
	h.mcp = server.NewStreamableHTTPServer(a.server,
		server.WithEndpointPath("/mcp"),
		server.WithSessionIdManagerResolver(sess),
		server.WithSessionIdleTTL(cfg.SessionIdle),
		server.WithHeartbeatInterval(30*time.Second),
		server.WithStreamableHTTPLogger(a.log),
		// The guard below checks Host and Origin against the allow list for
		// every request, whatever connection it came on.
		server.WithDisableLocalhostProtection(true),
	)
	mux := http.NewServeMux()
	// Pages on the allowed origins may call /mcp, and read the metadata
	// that says where to get a token for it, from a browser (CORS); the
	// review page is same-origin only.
	mux.Handle("/mcp", h.guard.WrapCORS(au.protect(caller(a, rpc(cfg.MaxRequestBytes, h.streams, sess, h.mcp)))))
	key, err := a.db.SigningKey(ctx, "review-forms") // shared: a form rendered by one node is sent to another
	if err != nil {
		return nil, err
	}
	page := reviewPage(a, key, au.signIn(a.db, cfg.ReviewSession), au.signOut(a.db))
	if au.authn != nil {
		mux.Handle("/ui/signin", h.guard.Wrap(page)) // where a person gets a credential: served without one
	}
	mux.Handle("/ui/", h.guard.Wrap(au.protectPages(a.db, "/ui/signin", caller(a, page))))
	if cfg.Auth == authOAuth {
		path, meta := resourceMetadata(cfg.OAuth)
		mux.Handle(path, h.guard.WrapCORS(meta))
	}
	probes := http.NewServeMux()
	o.routes(probes, a)
	mux.Handle("/healthz", h.guard.Wrap(probes))
	mux.Handle("/readyz", h.guard.Wrap(probes))
	mux.Handle("/metrics", h.guard.Wrap(probes))
	h.srv = &http.Server{
		Handler:           o.access(a.log, mux),
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		ReadTimeout:       cfg.ReadTimeout,
		WriteTimeout:      cfg.WriteTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(a.log.Handler(), slog.LevelWarn),
	}
	return h, nil
}

// allowListener adds the address the server listens on to the hosts it
// serves, once the port is known (addr :0 picks one).
func (h *httpServer) allowListener(addr net.Addr) {
	if h.guard.Derived() {
		h.guard.AllowListener(addr.String())
	}
}

// authentication is how serve decides who calls: a credential checked by
// authn, or (auth none) every request as one identity.
type authentication struct {
	authn   auth.AuthenticateFunc // nil: every request is as
	as      memory.Identity
	ch      auth.Challenge
	recheck time.Duration
	log     func(msg string, args ...any)
}

// authenticate returns the configured authentication.
func authenticate(ctx context.Context, a *app) (authentication, error) {
	cfg := a.cfg.Serve
	au := authentication{as: a.cfg.Identity, recheck: cfg.Recheck, log: func(msg string, args ...any) { a.log.Error(msg, args...) }}
	switch cfg.Auth {
	case authNone:
		return au, nil
	case authToken:
		au.authn = auth.Tokens(a.db.TokenByHash)
		au.ch = auth.Challenge{Realm: "memory-mcp"}
		return au, nil
	case authOAuth:
		claims, err := auth.ParseClaimMap(cfg.OAuth.Claims)
		if err != nil {
			return au, fmt.Errorf("serve: oauth-claims: %w", err)
		}
		au.authn, err = auth.JWT(ctx, auth.OAuth{Issuer: cfg.OAuth.Issuer, Audience: cfg.OAuth.Audience, JWKSURL: cfg.OAuth.JWKSURL,
			Claims: claims, Scopes: cfg.OAuth.Scopes})
		if err != nil {
			return au, fmt.Errorf("serve: %w", err)
		}
		au.ch = auth.Challenge{Realm: "memory-mcp", ResourceMetadata: resourceMetadataURL(cfg.OAuth), Scopes: cfg.OAuth.Scopes}
		return au, nil
	}
	return au, fmt.Errorf("serve: unknown auth %q", cfg.Auth)
}

// protect puts the caller's identity in each request's context, and
// refuses a request without a credential that holds.
func (au authentication) protect(next http.Handler) http.Handler {
	if au.authn == nil {
		return auth.As(au.as, next)
	}
	return auth.Require(au.authn, au.ch, au.recheck, au.log, next)
}

// protectPages is protect for the review page, which people reach from a
// browser: their session may come in the cookie the sign-in page set, and a
// browser without one that holds is sent to signin. /mcp never reads the
// cookie (a page on another site could make the browser send it there),
// and a session id is no credential there either.
func (au authentication) protectPages(db *store.DB, signin string, next http.Handler) http.Handler {
	if au.authn == nil {
		return au.protect(next)
	}
	page := au
	page.ch.SignIn = signin
	page.authn = auth.Sessions(db.PageSessionByHash, db.Now, au.authn)
	return auth.FromCookie(ui.SessionCookie, page.protect(next))
}

// signIn checks a credential pasted into the review page's sign-in form
// as protect checks a request's, its refusal told as a domain error, and
// opens a session in the database for a human's, lasting ttl (an OAuth
// access token's session no longer than the token). Nil: no sign-in, under
// auth none.
func (au authentication) signIn(db *store.DB, ttl time.Duration) ui.SignInFunc {
	if au.authn == nil {
		return nil
	}
	return func(ctx context.Context, credential string) (memory.Identity, ui.Session, error) {
		who, err := au.authn(ctx, credential)
		if bad, ok := errors.AsType[*auth.Error](err); ok {
			if bad.Status == http.StatusForbidden {
				return who, ui.Session{}, memory.Errorf(memory.EFORBIDDEN, "%s", bad.Description)
			}
			return who, ui.Session{}, memory.Errorf(memory.EINVALID, "%s", bad.Description)
		}
		if err != nil || !who.Human { // the page refuses an agent; it gets no session
			return who, ui.Session{}, err
		}
		expires := db.Now.Now().Add(ttl)
		if exp, ok := auth.Expiry(credential); ok && exp.Before(expires) {
			expires = exp
		}
		id, hash := auth.NewSession()
		if err := db.OpenPageSession(ctx, hash, auth.HashToken(credential), who, expires); err != nil {
			return who, ui.Session{}, err
		}
		return who, ui.Session{ID: id, Expires: expires}, nil
	}
}

// signOut ends a review-page session in the database (nil: no sign-in).
func (au authentication) signOut(db *store.DB) ui.SignOutFunc {
	if au.authn == nil {
		return nil
	}
	return func(ctx context.Context, id string) error { return db.EndPageSession(ctx, auth.HashToken(id)) }
}

// resource is the server's identifier as OAuth clients name it.
func (o OAuthConfig) resource() string { return cmp.Or(o.Resource, o.Audience) }

// resourceMetadataURL is where the protected-resource metadata (RFC 9728)
// of o's resource is served: the well-known path before the resource's own
// path, on the resource's origin.
func resourceMetadataURL(o OAuthConfig) string {
	u, err := url.Parse(o.resource())
	if err != nil || u.Host == "" {
		return server.ProtectedResourceMetadataPath(o.resource())
	}
	return u.Scheme + "://" + u.Host + server.ProtectedResourceMetadataPath(o.resource())
}

// resourceMetadata serves the protected-resource metadata (RFC 9728) that
// tells an OAuth client which authorization server issues tokens for this
// server.
func resourceMetadata(o OAuthConfig) (string, http.Handler) {
	return server.ProtectedResourceMetadataPath(o.resource()), server.NewProtectedResourceMetadataHandler(server.ProtectedResourceMetadataConfig{
		Resource: o.resource(), AuthorizationServers: []string{o.Issuer}, ScopesSupported: o.Scopes,
		BearerMethodsSupported: []string{"header"}, ResourceName: "memory-mcp"})
}

// caller names the authenticated caller in the access log, and makes its
// default core memory blocks the first time it is seen, as stdio makes its
// caller's when it starts (reads never write). A failure only delays them to
// the caller's first block edit.
func caller(a *app, next http.Handler) http.Handler {
	var seeded sync.Map // agent id -> struct{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if who, ok := memory.IdentityFrom(r.Context()); ok {
			exchangeFrom(r.Context()).agent = who.AgentID
			if _, done := seeded.LoadOrStore(who.AgentID, struct{}{}); !done {
				if err := a.blocks.Seed(r.Context()); err != nil {
					seeded.Delete(who.AgentID)
					a.log.Warn("default core memory blocks not made yet", "agent_id", who.AgentID, "err", err)
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// shutdown stops the server: no new connections, the notification streams
// ended (they would otherwise hold the server until the timeout), and the
// requests in flight finished within timeout.
func (h *httpServer) shutdown(log *slog.Logger, timeout time.Duration) error {
	log.Info("stopping: finishing the requests in flight", "timeout", timeout)
	h.ops.stopping.Store(true)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- h.srv.Shutdown(ctx) }()
	h.streams.end()
	h.mcp.CloseSessions(ctx)
	if err := <-done; err != nil {
		return fmt.Errorf("stop serving: %w", err)
	}
	log.Info("stopped")
	return nil
}
