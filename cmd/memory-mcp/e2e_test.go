package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The end-to-end tests build the real binary once and drive it over stdio with
// the official go-sdk client, an MCP implementation independent of the server's.

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds memory-mcp into a temporary directory shared by the test run.
func binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "memory-mcp-e2e")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "memory-mcp")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// proc is one memory-mcp server (a process, or run in this one) and the
// client session talking to it.
type proc struct {
	t      testing.TB
	cs     *mcp.ClientSession
	spec   *surface // what the server declared, and the methods the client sent
	stderr *bytes.Buffer
	errw   *lockedWriter // the writer filling stderr, whose lock guards it
	halt   func()        // ends the session and the server; see stop
}

// options configure a started server.
type options struct {
	dataDir string
	args    []string // extra flags after "stdio"
	env     []string
	client  *mcp.ClientOptions
	// protocol is the revision the client asks for; empty: the newest.
	protocol string
}

// start runs memory-mcp stdio on dataDir (a fresh temp dir when empty) with
// extra flags as a real process and connects a client. The process is
// stopped at test cleanup. Use it for what needs a process (stdio itself,
// several processes, crashes); startIn serves the rest.
func start(t testing.TB, o options) *proc {
	t.Helper()
	if o.dataDir == "" {
		o.dataDir = t.TempDir()
	}
	args := append([]string{"stdio", "--data-dir", o.dataDir}, o.args...)
	cmd := exec.Command(binary(t), args...)
	// A clean environment: no user config file, no API keys leaking in.
	cmd.Env = append(cleanEnv(t, o.dataDir), o.env...)
	stderr := &bytes.Buffer{}
	errw := &lockedWriter{w: stderr}
	cmd.Stderr = errw
	// Closing the session closes the process's stdin and waits for it to exit.
	return connectClient(t, o, &mcp.CommandTransport{Command: cmd}, stderr, errw, nil)
}

// startIn runs memory-mcp stdio in this process (see serveIn) and connects
// a client. It starts in milliseconds where start needs a process;
// behaviour tests use it.
func startIn(t testing.TB, o options) *proc {
	t.Helper()
	out, in, stderr, errw, stop := serveIn(t, o)
	return connectClient(t, o, &mcp.IOTransport{Reader: out, Writer: in}, stderr, errw, stop)
}

// startAtOnce starts server i of several that run at once on one data
// directory: the first in this process, where the race detector sees it,
// and the others as processes, since only one server may run in this
// process at a time.
func startAtOnce(t testing.TB, i int, o options) *proc {
	t.Helper()
	if i == 0 {
		return startIn(t, o)
	}
	return start(t, o)
}

// inProcess is held while a server runs in this process: mcp-go keeps one
// stdio session per process (its notification queue, client info, log
// level), so two servers in one process would share it. A test that needs a
// second server at the same time runs it as a process, with start.
var inProcess sync.Mutex

// serveIn runs memory-mcp stdio in this process, over pipes, exactly as main
// runs it (run with its arguments, environment and standard streams), and
// returns the client's ends of its stdout and stdin. stop closes the
// server's stdin and waits for run to return, so that another server may
// run in this process; it runs at cleanup if it has not run before.
func serveIn(t testing.TB, o options) (out io.ReadCloser, in io.WriteCloser, stderr *bytes.Buffer, errw *lockedWriter, stop func()) {
	t.Helper()
	if !inProcess.TryLock() {
		t.Fatal("a server already runs in this process: stop it first, or start the second one with start (a process)")
	}
	if o.dataDir == "" {
		o.dataDir = t.TempDir()
	}
	args := append([]string{"stdio", "--data-dir", o.dataDir}, o.args...)
	env := map[string]string{}
	for _, kv := range append(cleanEnv(t, o.dataDir), o.env...) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	stderr = &bytes.Buffer{}
	errw = &lockedWriter{w: stderr}
	done := make(chan error, 1)
	go func() {
		err := run(context.Background(), args, func(k string) string { return env[k] }, serverIn, serverOut, errw)
		serverOut.CloseWithError(io.EOF)
		serverIn.Close()
		done <- err
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			clientOut.Close()
			go io.Copy(io.Discard, clientIn) // an answer still being written must not block the server
			select {
			case err := <-done:
				inProcess.Unlock()
				if err != nil {
					t.Errorf("run: %v\nstderr:\n%s", err, errw.String())
				}
			case <-time.After(30 * time.Second):
				// The server still runs: the slot stays taken, so that the
				// next in-process server fails loudly instead of sharing it.
				t.Errorf("the server did not stop after its stdin closed\nstderr:\n%s", errw.String())
			}
		})
	}
	// Registered before any client exists, so that it runs (last) even when
	// connecting fails: the server's stdin closes and run is waited for.
	t.Cleanup(stop)
	return clientIn, clientOut, stderr, errw, stop
}

// cleanEnv is the environment a test server runs in: home and configuration
// inside its data directory, so that no user config file is read.
// On the PostgreSQL pass it names the directory's database too (databaseFor).
func cleanEnv(t testing.TB, dir string) []string {
	t.Helper()
	env := homeEnv(dir)
	if u := databaseFor(t, dir); u != "" {
		env = append(env, "MEMORY_MCP_DATABASE="+u)
	}
	return env
}

// homeEnv is cleanEnv without a database: for a test that names the
// databases its processes use itself (copy, several nodes on one).
func homeEnv(dir string) []string {
	return []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "PATH=" + os.Getenv("PATH")}
}

// connectClient connects the go-sdk client through the checking wire (see
// wire_test.go) and has it learn what the server declares. stopServer, if
// not nil, stops the server once the session is closed.
func connectClient(t testing.TB, o options, tr mcp.Transport, stderr *bytes.Buffer, errw *lockedWriter, stopServer func()) *proc {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, o.client)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var so *mcp.ClientSessionOptions
	if o.protocol != "" {
		so = &mcp.ClientSessionOptions{ProtocolVersion: o.protocol}
	}
	spec := newSurface()
	cs, err := client.Connect(ctx, &wire{inner: tr, t: t, spec: spec}, so)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, errw.String())
	}
	s := &proc{t: t, cs: cs, spec: spec, stderr: stderr, errw: errw}
	s.halt = sync.OnceFunc(func() {
		cs.Close()
		if stopServer != nil {
			stopServer()
		}
	})
	t.Cleanup(s.stop)
	t.Cleanup(func() { logServerErrors(t, errw) })
	if err := declared(ctx, cs); err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, errw.String())
	}
	return s
}

// logServerErrors logs the errors a server logged, once its test failed:
// an internal error's cause is in the server's log, not in the result.
func logServerErrors(t testing.TB, errw *lockedWriter) {
	if !t.Failed() {
		return
	}
	var errs []string
	for line := range strings.Lines(errw.String()) {
		if strings.Contains(line, "level=ERROR") {
			errs = append(errs, line)
		}
	}
	if len(errs) > 0 {
		t.Logf("the server logged:\n%s", strings.Join(errs, ""))
	}
}

// stop ends the session and stops the server now rather than at cleanup:
// an in-process server must stop before the next one starts.
func (s *proc) stop() { s.halt() }

// in returns a copy of s that reports failures to t, for subtests.
func (s *proc) in(t testing.TB) *proc {
	c := *s
	c.t = t
	return &c
}

type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.String()
}

// call invokes a tool and returns its result, failing the test on a protocol
// error (a tool error is a result, not a protocol error).
func (s *proc) call(name string, args map[string]any) *mcp.CallToolResult {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		s.t.Fatalf("%s: protocol error: %v", name, err)
	}
	return res
}

// ok calls a tool that must succeed and decodes its structured result into out.
func (s *proc) ok(name string, args map[string]any, out any) {
	s.t.Helper()
	res := s.call(name, args)
	if res.IsError {
		s.t.Fatalf("%s(%v) failed: %s", name, args, text(res))
	}
	if out != nil {
		decode(s.t, res, out)
	}
}

// decode decodes a tool result's structured content into out, zeroing it first.
func decode(t testing.TB, res *mcp.CallToolResult, out any) {
	t.Helper()
	reflect.ValueOf(out).Elem().SetZero()
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("decode structured result %s: %v", b, err)
	}
}

// fail calls a tool that must fail with code and a message containing want.
func (s *proc) fail(name string, args map[string]any, code, want string) {
	s.t.Helper()
	res := s.call(name, args)
	msg := text(res)
	if !res.IsError || !strings.HasPrefix(msg, code+": ") || !strings.Contains(msg, want) {
		s.t.Fatalf("%s(%v) = %q (isError %v), want %s error containing %q", name, args, msg, res.IsError, code, want)
	}
}

// read reads a resource and returns its text.
func (s *proc) read(uri string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, c := range res.Contents {
		b.WriteString(c.Text)
	}
	return b.String(), nil
}

// text joins the text content of a tool result.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
