package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/memory-mcp/memory-mcp/store"
)

// The real parts of a team server that runs as several nodes: a PostgreSQL
// cluster of the test's own (scripts/postgres.sh, so that the test may
// restart it), `memory-mcp serve` processes on it, and Debian's HAProxy
// round-robin in front (scripts/haproxy.sh installs it), configured as
// docs/deployment.md says.

// needCluster skips t unless PostgreSQL's binaries and haproxy are here;
// a run that must cover PostgreSQL (make test and CI set
// MEMORY_MCP_REQUIRE_POSTGRES, CI sets CI) fails instead.
func needCluster(t testing.TB) {
	t.Helper()
	var missing []string
	if _, err := os.Stat("/usr/lib/postgresql/15/bin/initdb"); err != nil {
		missing = append(missing, "PostgreSQL 15 (scripts/postgres.sh installs it)")
	}
	if _, err := exec.LookPath("haproxy"); err != nil {
		missing = append(missing, "haproxy (scripts/haproxy.sh install)")
	}
	if len(missing) == 0 {
		return
	}
	why := "a multi-node test needs " + strings.Join(missing, " and ")
	if os.Getenv("MEMORY_MCP_REQUIRE_POSTGRES") != "" || os.Getenv("CI") != "" {
		t.Fatal(why)
	}
	t.Skip(why)
}

// pgCluster is a PostgreSQL cluster scripts/postgres.sh started for one
// test, stopped and removed when the test ends.
type pgCluster struct {
	url string // as the script printed it
}

func ownPostgres(t testing.TB) *pgCluster {
	t.Helper()
	cmd := exec.Command("../../scripts/postgres.sh", "start")
	cmd.Env = withoutEnv(os.Environ(), "MEMORY_MCP_TEST_POSTGRES") // a cluster of its own, never the shared one
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("start PostgreSQL: %v\n%s", err, stderr.String())
	}
	p := &pgCluster{url: strings.TrimSpace(string(out))}
	t.Cleanup(func() { exec.Command("../../scripts/postgres.sh", "stop", p.url).Run() })
	return p
}

// dsn is the URL the nodes use. The cluster trades durability for speed
// (synchronous_commit off), which a crash of PostgreSQL would show as lost
// commits: the nodes ask for synchronous commits, as a production server
// runs.
func (p *pgCluster) dsn() string { return p.url + "&synchronous_commit=on" }

// restart stops the cluster as a crash would and starts it again.
func (p *pgCluster) restart() error {
	out, err := exec.Command("../../scripts/postgres.sh", "restart", p.url).CombinedOutput()
	if err != nil {
		return fmt.Errorf("restart PostgreSQL: %v\n%s", err, out)
	}
	return nil
}

func withoutEnv(env []string, name string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// freePort is a loopback port nothing listens on now.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// node is one `memory-mcp serve` process on a fixed port, started again
// on the same port after it is killed (the balancer names it by address).
type node struct {
	name string
	addr string // 127.0.0.1:port
	dir  string // its data directory (the memory is in PostgreSQL)
	env  []string
	args []string
	log  string // its stderr, appended to across restarts

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
}

// start runs the node and waits until it answers /readyz.
func (n *node) start(ctx context.Context) error {
	f, err := os.OpenFile(n.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.Command(binPath, append([]string{"serve", "--data-dir", n.dir, "--addr", n.addr}, n.args...)...)
	cmd.Env = n.env
	cmd.Stderr = f
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	n.mu.Lock()
	n.cmd, n.done = cmd, done
	n.mu.Unlock()
	for {
		select {
		case <-done:
			return fmt.Errorf("%s exited while starting: %v", n.name, cmd.ProcessState)
		case <-ctx.Done():
			return fmt.Errorf("%s did not become ready: %v", n.name, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
		if ready(n.addr) {
			return nil
		}
	}
}

// startRetrying starts the node until it comes up (a start fails while
// PostgreSQL restarts), for up to a minute.
func (n *node) startRetrying() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		err := n.start(ctx)
		if err == nil || ctx.Err() != nil {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// kill sends SIGKILL and waits for the process to be gone.
func (n *node) kill() {
	n.mu.Lock()
	cmd, done := n.cmd, n.done
	n.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Signal(syscall.SIGKILL)
	<-done
}

func (n *node) url() string { return "http://" + n.addr + "/mcp" }

// tail is the end of the node's log, for a failure's message.
func (n *node) tail() string {
	b, _ := os.ReadFile(n.log)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// errors are the first n lines of the node's log at level WARN or ERROR.
func (n *node) errors(max int) string {
	b, _ := os.ReadFile(n.log)
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if len(out) < max && (strings.Contains(line, "level=ERROR") || strings.Contains(line, "level=WARN")) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

func ready(addr string) bool {
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// cluster is PostgreSQL, nodes on it and the balancer in front.
type cluster struct {
	t     testing.TB
	pg    *pgCluster
	nodes []*node
	lb    *exec.Cmd
	lbURL string
	env   []string // every node's and command's: the one provenance key
	key   []byte   // that key
	home  string   // logs and the balancer's configuration
}

// newCluster starts PostgreSQL and n nodes, each with args, and the
// balancer over them.
func newCluster(t testing.TB, n int, args ...string) *cluster {
	t.Helper()
	c := newDatabase(t)
	c.startNodes(n, args...)
	c.startBalancer()
	return c
}

// newDatabase starts PostgreSQL alone: nodes and the balancer come later.
func newDatabase(t testing.TB) *cluster {
	t.Helper()
	needCluster(t)
	binary(t)
	c := &cluster{t: t, pg: ownPostgres(t), home: t.TempDir(), key: make([]byte, store.ProvenanceKeySize)}
	rand.Read(c.key)
	// Every node stamps rows with the same key: a row one node wrote must
	// verify on every other.
	c.env = append(homeEnv(c.home), "MEMORY_MCP_PROVENANCE_KEY="+hex.EncodeToString(c.key), "MEMORY_MCP_DATABASE="+c.pg.dsn())
	t.Cleanup(func() {
		for _, nd := range c.nodes {
			nd.kill()
		}
	})
	return c
}

// startNodes starts n more nodes with args and waits until they are ready.
func (c *cluster) startNodes(n int, args ...string) {
	c.t.Helper()
	var started []*node
	for range n {
		i := len(c.nodes) + 1
		nd := &node{name: fmt.Sprintf("node%d", i), addr: fmt.Sprintf("127.0.0.1:%d", freePort(c.t)),
			dir: c.t.TempDir(), env: c.env, args: args, log: filepath.Join(c.home, fmt.Sprintf("node%d.log", i))}
		c.nodes = append(c.nodes, nd)
		started = append(started, nd)
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i, nd := range started {
		// The first node of a cluster applies the schema; the others start
		// beside each other once it is there.
		if i == 0 {
			errs[0] = nd.startRetrying()
			continue
		}
		wg.Go(func() { errs[i] = nd.startRetrying() })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			c.t.Fatalf("%v\n%s", err, started[i].tail())
		}
	}
}

// haproxyConfig is the balancer's configuration over backends (host:port):
// round robin, each node checked on /readyz every 500 ms and taken out at
// its first failed check, a request whose connection a node refused sent
// to another. docs/deployment.md shows the same configuration.
func haproxyConfig(listen string, backends []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `global
    maxconn 2000

defaults
    mode http
    timeout connect 2s
    timeout client 90s
    timeout server 90s
    retries 3
    option redispatch

frontend mcp
    bind %s
    default_backend nodes

backend nodes
    balance roundrobin
    option httpchk
    http-check send meth GET uri /readyz ver HTTP/1.1 hdr Host 127.0.0.1
    http-check expect status 200
    default-server check inter 500ms fall 1 rise 2
`, listen)
	for i, addr := range backends {
		fmt.Fprintf(&b, "    server node%d %s\n", i+1, addr)
	}
	return b.String()
}

func (c *cluster) startBalancer() {
	c.t.Helper()
	listen := fmt.Sprintf("127.0.0.1:%d", freePort(c.t))
	var backends []string
	for _, nd := range c.nodes {
		backends = append(backends, nd.addr)
	}
	cfg := filepath.Join(c.home, "haproxy.cfg")
	if err := os.WriteFile(cfg, []byte(haproxyConfig(listen, backends)), 0o600); err != nil {
		c.t.Fatal(err)
	}
	cmd := exec.Command("haproxy", "-db", "-f", cfg) // -db: in the foreground
	logw := &lockedWriter{w: &bytes.Buffer{}}
	cmd.Stdout, cmd.Stderr = logw, logw
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	c.lb, c.lbURL = cmd, "http://"+listen+"/mcp"
	for deadline := time.Now().Add(20 * time.Second); !ready(listen); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			c.t.Fatalf("haproxy did not serve on %s\n%s", listen, logw.String())
		}
	}
}

// cli runs a memory-mcp command against the cluster's database and returns
// its stdout.
func (c *cluster) cli(args ...string) (string, error) {
	cmd := exec.Command(binPath, args...)
	cmd.Env = c.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("memory-mcp %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out), nil
}

// tokens makes one agent token for each of n agents named prefix-0...
func (c *cluster) tokens(prefix string, n int) []string {
	c.t.Helper()
	var out []string
	for i := range n {
		tok, err := c.cli("token", "add", "--agent-id", fmt.Sprintf("%s-%d", prefix, i), "--seniority", "mid")
		if err != nil {
			c.t.Fatal(err)
		}
		out = append(out, strings.TrimSpace(tok))
	}
	return out
}
