package resources

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

func TestChangedNamesTheResourcesAChangeTouches(t *testing.T) {
	allBuckets := []string{StateSummary}
	for _, b := range memory.Buckets {
		allBuckets = append(allBuckets, StatePrefix+string(b))
	}
	for _, tt := range []struct {
		c    memory.Change
		want []string
	}{
		{memory.Change{Kind: memory.ChangeFact, Ref: "policy-jwt"}, []string{PoliciesCore, FactsSnapshot, "memory://facts/policy-jwt/history"}},
		{memory.Change{Kind: memory.ChangeBlock, Ref: "ann/persona"}, []string{BlocksList, BlocksList + "/persona"}},
		{memory.Change{Kind: memory.ChangeBlock, Ref: "*/team:board"}, []string{BlocksList, BlocksList + "/team:board"}},
		{memory.Change{Kind: memory.ChangeState, Ref: memory.StateChangeRef(memory.BucketIssues, "db_timeout")}, []string{StateSummary, StatePrefix + "issues"}},
		{memory.Change{Kind: memory.ChangeState, Ref: memory.StateReplayed}, allBuckets},
		{memory.Change{Kind: memory.ChangePending, Ref: memory.IDRef(7)}, []string{PendingQueue, StateSummary}},
		{memory.Change{Kind: memory.ChangeMemory, Ref: "m1"}, nil},
		{memory.Change{Kind: memory.ChangeNote, Ref: "3"}, nil},
	} {
		if got := changed(tt.c); !slices.Equal(got, tt.want) {
			t.Errorf("changed(%+v) = %v, want %v", tt.c, got, tt.want)
		}
	}
}

// TestVisible: a caller hears of its own personal blocks and of shared
// blocks it may read, never of another agent's personal block or of a
// shared block it may not read.
func TestVisible(t *testing.T) {
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	blocks := store.NewBlockService(db)
	as := func(agent string) context.Context {
		return memory.WithIdentity(context.Background(), memory.Identity{AgentID: agent, Seniority: memory.SeniorityMid})
	}
	for _, spec := range []memory.BlockSpec{
		{Label: "open-board", Description: "Everyone reads it.", Shared: true},
		{Label: "secret", Description: "Only cy reads it.", Shared: true, Readers: []string{"cy"}},
	} {
		if _, err := blocks.Create(as("ann"), spec); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		agent, ref string
		want       bool
	}{
		{"ann", "ann/persona", true},
		{"bob", "ann/persona", false},
		{"bob", "*/open-board", true},
		{"bob", "*/secret", false},
		{"cy", "*/secret", true},
	} {
		c := memory.Change{Kind: memory.ChangeBlock, Ref: tt.ref}
		if got := visible(as(tt.agent), blocks, c); got != tt.want {
			t.Errorf("%s sees %s: %v, want %v", tt.agent, tt.ref, got, tt.want)
		}
	}
	if !visible(as("bob"), blocks, memory.Change{Kind: memory.ChangeFact, Ref: "x"}) {
		t.Error("a fact change is everyone's")
	}
}

// session is a client session as a transport holds one: what it is told
// arrives on its channel.
type session struct {
	id string
	ch chan mcp.JSONRPCNotification
}

func (s *session) Initialize()                                         {}
func (s *session) Initialized() bool                                   { return true }
func (s *session) NotificationChannel() chan<- mcp.JSONRPCNotification { return s.ch }
func (s *session) SessionID() string                                   { return s.id }

// TestNotifyAsEachSubscriber: sessions that subscribed to the same URI as
// different callers hear of a personal block's change only when it is their
// own, whether or not they have an id (an HTTP listen stream has none); a
// session whose subscriptions all ended hears of nothing.
func TestNotifyAsEachSubscriber(t *testing.T) {
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	blocks := store.NewBlockService(db)
	srv := server.NewMCPServer("t", "1")
	subs := NewSubscriptions(&server.Hooks{})
	as := func(agent string, s *session) context.Context {
		ctx := memory.WithIdentity(context.Background(), memory.Identity{AgentID: agent, Seniority: memory.SeniorityMid})
		return srv.WithContext(ctx, s)
	}
	ann, bob, gone := &session{"", make(chan mcp.JSONRPCNotification, 8)}, &session{"", make(chan mcp.JSONRPCNotification, 8)},
		&session{"s3", make(chan mcp.JSONRPCNotification, 8)}
	subs.add(as("ann", ann), []string{BlocksList}, 1)
	subs.add(as("bob", bob), []string{BlocksList, FactsSnapshot}, 1)
	subs.add(as("ann", gone), []string{BlocksList}, 1)
	subs.add(as("ann", gone), []string{BlocksList}, -1)
	subs.notify(context.Background(), blocks, memory.Change{Kind: memory.ChangeBlock, Ref: "ann/persona"})
	subs.notify(context.Background(), blocks, memory.Change{Kind: memory.ChangeFact, Ref: "f"})
	uris := func(s *session) []string {
		var out []string
		for len(s.ch) > 0 {
			n := <-s.ch
			out = append(out, n.Params.AdditionalFields["uri"].(string))
		}
		return out
	}
	if got := uris(ann); !slices.Equal(got, []string{BlocksList}) {
		t.Errorf("ann heard %v", got)
	}
	if got := uris(bob); !slices.Equal(got, []string{FactsSnapshot}) {
		t.Errorf("bob heard %v", got)
	}
	if got := uris(gone); len(got) != 0 {
		t.Errorf("an unsubscribed session heard %v", got)
	}
}

// A server stopped as it starts (SIGTERM during start-up) ends Watch with
// no warning that the change feed is unavailable: the feed did not fail,
// the context ended. A feed that fails while the server runs is still
// reported.
func TestWatchStoppedIsNotAFeedFailure(t *testing.T) {
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "memory.db"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var logs bytes.Buffer
	NewSubscriptions(&server.Hooks{}).Watch(ctx, db, nil, slog.New(slog.NewTextHandler(&logs, nil)), time.Millisecond)
	if logs.Len() != 0 {
		t.Errorf("a stopped watch logged:\n%s", logs.String())
	}
	db.Close()
	NewSubscriptions(&server.Hooks{}).Watch(context.Background(), db, nil, slog.New(slog.NewTextHandler(&logs, nil)), time.Millisecond)
	if !strings.Contains(logs.String(), "change feed unavailable") {
		t.Errorf("a closed feed was not reported; logs:\n%s", logs.String())
	}
}

// records is a slog handler that keeps the messages it is given.
type records struct {
	mu   sync.Mutex
	msgs []string
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *records) WithGroup(string) slog.Handler            { return r }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, rec.Level.String()+" "+rec.Message)
	return nil
}

func (r *records) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.msgs)
}

// TestWatchLogsAnOutageOnce: while PostgreSQL is down the change feed
// fails at every tick (twice a second on a server); the log has one line
// when the outage starts, at most one reminder a minute while it lasts,
// and one line when the feed reads again, not a line per retry. The
// database is a cluster of the test's own that it shuts down and starts;
// the clock is the test's, which counts the retries it is asked for.
func TestWatchLogsAnOutageOnce(t *testing.T) {
	c := storetest.OwnPostgres(t)
	db, err := store.OpenPostgres(context.Background(), c.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mu sync.Mutex
	now, asked := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), 0
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); asked++; return now }
	// waitAsked waits until the watch has asked the time n more times.
	waitAsked := func(n int) {
		t.Helper()
		mu.Lock()
		want := asked + n
		mu.Unlock()
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
			mu.Lock()
			done := asked >= want
			mu.Unlock()
			if done {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the watch did not retry %d times in a minute", n)
			}
		}
	}
	subs := NewSubscriptions(&server.Hooks{})
	subs.now = clock
	logs := &records{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		subs.Watch(ctx, db, nil, slog.New(logs), 5*time.Millisecond)
	}()
	defer func() { cancel(); <-done }()

	waitAsked(3)
	if got := logs.all(); len(got) != 0 {
		t.Fatalf("a working feed logged %q", got)
	}
	c.Down()
	waitAsked(30)
	if got := logs.all(); len(got) != 1 || !strings.Contains(got[0], "WARN change feed unreadable") {
		t.Fatalf("30 retries into an outage the log has %q, want one line saying the feed is unreadable", got)
	}
	mu.Lock()
	now = now.Add(61 * time.Second)
	mu.Unlock()
	waitAsked(30)
	if got := logs.all(); len(got) != 2 || !strings.Contains(got[1], "WARN change feed still unreadable") {
		t.Fatalf("a minute into the outage the log has %q, want one reminder", got)
	}
	c.Up()
	for deadline := time.Now().Add(time.Minute); len(logs.all()) < 3 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
	}
	waitAsked(10)
	if got := logs.all(); len(got) != 3 || !strings.Contains(got[2], "INFO change feed readable again") {
		t.Fatalf("after the outage the log has %q, want one line saying the feed reads again", got)
	}
}
