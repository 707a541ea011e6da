// Package resources is the MCP resource surface: read-only views (core
// policies for a system prompt, fact snapshots, audit histories) rendered from
// the domain services, and notifications when what they show changes.
package resources

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/url"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
)

// Services are the domain services the resources read. A nil service leaves
// its resources unregistered.
type Services struct {
	Facts     memory.FactService
	Blocks    memory.BlockService
	Promotion memory.PromotionService
	Metrics   memory.MetricsService
	Log       *slog.Logger
}

// Register adds every resource whose service is configured to s.
func Register(s *server.MCPServer, svc Services) {
	if svc.Log == nil {
		svc.Log = slog.Default()
	}
	if svc.Facts != nil {
		registerFacts(s, svc)
	}
	if svc.Blocks != nil {
		registerBlocks(s, svc)
	}
	if svc.Promotion != nil {
		registerState(s, svc)
	}
	if svc.Metrics != nil {
		registerMetrics(s, svc)
	}
}

// changed maps a change from the feed to the resource URIs whose content it
// changes.
func changed(c memory.Change) []string {
	switch c.Kind {
	case memory.ChangeFact:
		return []string{PoliciesCore, FactsSnapshot, "memory://facts/" + c.Ref + "/history"}
	case memory.ChangeBlock:
		return blockChanged(c.Ref)
	case memory.ChangeState, memory.ChangePending:
		return stateChanged(c)
	}
	return nil
}

// Subscriptions remembers which sessions subscribed to which resource URIs,
// and as whom, so that an update reaches only the sessions that asked for it
// and whose caller may know of it. Clients subscribe with
// resources/subscribe (protocol versions up to 2025-11-25) or by holding a
// subscriptions/listen stream open (2026-07-28).
//
// Sessions are held by value, not by id: over HTTP a 2026-07-28 listen
// stream is served by a session of its own that has no id and that the
// server does not register, so it can be told of a change only directly.
type Subscriptions struct {
	mu       sync.Mutex
	sessions map[server.ClientSession]*subscriber
	now      func() time.Time // the clock Watch times an outage of the feed by
}

// subscriber is one session's subscriptions: the caller who made them (on
// stdio every session's caller is the configured one; over HTTP it is the
// caller the request authenticated) and the URIs, each with its count of
// open subscriptions.
type subscriber struct {
	who  memory.Identity
	uris map[string]int
}

// NewSubscriptions returns a subscription registry and installs the hooks
// that keep it current on h (pass h to the server with server.WithHooks).
func NewSubscriptions(h *server.Hooks) *Subscriptions {
	subs := &Subscriptions{sessions: map[server.ClientSession]*subscriber{}, now: time.Now}
	h.AddAfterSubscribe(func(ctx context.Context, _ any, req *mcp.SubscribeRequest, _ *mcp.EmptyResult) {
		subs.add(ctx, []string{req.Params.URI}, 1)
	})
	h.AddAfterUnsubscribe(func(ctx context.Context, _ any, req *mcp.UnsubscribeRequest, _ *mcp.EmptyResult) {
		subs.add(ctx, []string{req.Params.URI}, -1)
	})
	h.AddBeforeSubscriptionsListen(func(ctx context.Context, _ any, req *mcp.SubscriptionsListenRequest) {
		subs.add(ctx, req.Params.Notifications.ResourceSubscriptions, 1)
	})
	h.AddAfterSubscriptionsListen(func(ctx context.Context, _ any, req *mcp.SubscriptionsListenRequest, _ *mcp.SubscriptionsListenResult) {
		subs.add(ctx, req.Params.Notifications.ResourceSubscriptions, -1)
	})
	h.AddOnUnregisterSession(func(_ context.Context, session server.ClientSession) {
		subs.mu.Lock()
		defer subs.mu.Unlock()
		delete(subs.sessions, session)
	})
	return subs
}

// add counts n more (or, negative, fewer) subscriptions of the calling
// session to uris, made by the caller in ctx. A session whose last
// subscription ends is forgotten.
func (subs *Subscriptions) add(ctx context.Context, uris []string, n int) {
	session := server.ClientSessionFromContext(ctx)
	if session == nil {
		return
	}
	subs.mu.Lock()
	defer subs.mu.Unlock()
	sub := subs.sessions[session]
	if sub == nil {
		sub = &subscriber{uris: map[string]int{}}
		subs.sessions[session] = sub
	}
	if who, ok := memory.IdentityFrom(ctx); ok && n > 0 {
		sub.who = who
	}
	for _, uri := range uris {
		if sub.uris[uri] += n; sub.uris[uri] <= 0 {
			delete(sub.uris, uri)
		}
	}
	if len(sub.uris) == 0 {
		delete(subs.sessions, session)
	}
}

// Watch tails feed until ctx ends and tells the sessions subscribed to a
// resource a change touches that it was updated. The feed holds the writes
// of every process on the data directory, so subscribers hear of those too.
// A session hears only of changes its caller (the identity that subscribed)
// may know of: a personal block's change reaches its owner alone, a shared
// block's those who may read it.
func (subs *Subscriptions) Watch(ctx context.Context, feed memory.ChangeFeed, blocks memory.BlockService, log *slog.Logger, every time.Duration) {
	if log == nil {
		log = slog.Default()
	}
	seq, err := feed.LastChange(ctx)
	if err != nil {
		if ctx.Err() == nil { // a server stopped as it started is not a feed that failed
			log.Warn("change feed unavailable: subscribers will not be told of changes", "err", err)
		}
		return
	}
	// A feed that can tell when a change committed (PostgreSQL's
	// notifications) wakes the loop at once; the tick still reads the feed,
	// so a lost wake-up only delays a notice.
	var wake <-chan struct{}
	if w, ok := feed.(interface {
		Wake(context.Context) <-chan struct{}
	}); ok {
		wake = w.Wake(ctx)
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	down := outage{log: log}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-wake:
		}
		changes, err := feed.ChangesSince(ctx, seq, 1000)
		if err != nil {
			if ctx.Err() == nil {
				down.fail(subs.now(), err)
			}
			continue
		}
		down.end(subs.now())
		for _, c := range changes {
			subs.notify(ctx, blocks, c)
			seq = c.Seq
		}
	}
}

// outage keeps the log of a feed that fails at every tick (twice a second
// on a server whose database is down) to a line when the failure starts,
// a reminder a minute while it lasts, and a line when it ends.
type outage struct {
	log         *slog.Logger
	since, told time.Time // zero while the feed reads
}

func (o *outage) fail(now time.Time, err error) {
	switch {
	case o.since.IsZero():
		o.since, o.told = now, now
		o.log.Warn("change feed unreadable: subscribers hear of changes once it reads again; retrying", "err", err)
	case now.Sub(o.told) >= time.Minute:
		o.told = now
		o.log.Warn("change feed still unreadable", "since", o.since, "err", err)
	}
}

func (o *outage) end(now time.Time) {
	if !o.since.IsZero() {
		o.log.Info("change feed readable again", "after", now.Sub(o.since))
		o.since = time.Time{}
	}
}

// visible reports whether the caller in ctx may know of change c.
func visible(ctx context.Context, blocks memory.BlockService, c memory.Change) bool {
	if c.Kind != memory.ChangeBlock || blocks == nil {
		return true
	}
	scope, label := memory.ParseBlockChangeRef(c.Ref)
	if scope != memory.AnyAgent { // a personal block
		id, _ := memory.IdentityFrom(ctx)
		return scope == id.AgentID
	}
	_, err := blocks.Get(ctx, label) // any failure keeps the change unheard, not told to a reader it may not reach
	return err == nil
}

// notify tells the sessions subscribed to a resource that c touches, whose
// caller may know of c, that it was updated.
func (subs *Subscriptions) notify(ctx context.Context, blocks memory.BlockService, c memory.Change) {
	changed := changed(c)
	if len(changed) == 0 {
		return
	}
	type send struct {
		session server.ClientSession
		who     memory.Identity
		uri     string
	}
	subs.mu.Lock()
	var sends []send
	for session, sub := range subs.sessions {
		for _, uri := range changed {
			if sub.uris[uri] > 0 {
				sends = append(sends, send{session, sub.who, uri})
			}
		}
	}
	subs.mu.Unlock()
	seen := map[memory.Identity]bool{} // whether each caller may know of c, asked once
	for _, s := range sends {
		may, asked := seen[s.who]
		if !asked {
			may = visible(memory.WithIdentity(ctx, s.who), blocks, c)
			seen[s.who] = may
		}
		if may {
			tell(s.session, s.uri)
		}
	}
}

// tell queues notifications/resources/updated for uri on session, as the
// server's own sends do: a streamable HTTP session is asked to answer as a
// stream, and a session whose queue is full misses the update rather than
// holding up every other subscriber.
func tell(session server.ClientSession, uri string) {
	if s, ok := session.(server.SessionWithStreamableHTTPConfig); ok {
		s.UpgradeToSSEWhenReceiveNotification()
	}
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
		Method: mcp.MethodNotificationResourceUpdated,
		Params: mcp.NotificationParams{AdditionalFields: map[string]any{"uri": uri}},
	}}
	select {
	case session.NotificationChannel() <- n:
	default:
	}
}

// handler adapts a rendering function to a resource handler, keeping domain
// error messages and hiding internal ones behind a log line.
// The result is an unnamed func type so it serves resources and templates alike.
func handler(log *slog.Logger, render readFunc) readFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		out, err := render(ctx, req)
		if err == nil {
			return out, nil
		}
		public, internal := memory.Public(err)
		if internal {
			log.ErrorContext(ctx, "resource failed", "uri", req.Params.URI, "err", err)
		}
		return nil, public
	}
}

type readFunc = func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error)

// arg returns template variable name, which mcp-go delivers as []string,
// percent-decoded (clients may encode ':' in a time as %3A).
func arg(req mcp.ReadResourceRequest, name string) string {
	var v string
	switch a := req.Params.Arguments[name].(type) {
	case []string:
		if len(a) > 0 {
			v = a[0]
		}
	case string:
		v = a
	}
	if u, err := url.PathUnescape(v); err == nil {
		return u
	}
	return v
}

func jsonContents(uri string, v any) ([]mcp.ResourceContents, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "application/json", Text: string(b)}}, nil
}

func markdownContents(uri, text string) []mcp.ResourceContents {
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "text/markdown", Text: text}}
}
