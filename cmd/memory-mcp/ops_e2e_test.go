package main

import (
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// get fetches path from the server (no credential) and returns the status and body.
func (h *httpServe) get(t testing.TB, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(strings.TrimSuffix(h.url, "/mcp") + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// metric returns the value of the sample whose line starts with series.
func metric(t testing.TB, body, series string) float64 {
	t.Helper()
	for _, line := range strings.Split(body, "\n") {
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			v, err := strconv.ParseFloat(rest, 64)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return v
		}
	}
	t.Fatalf("no %s in the metrics:\n%s", series, body)
	return 0
}

// TestServeOperations: the probes answer, the metrics count what the
// clients did (calls and their latency per tool, errors per code, writes
// per outcome, the store's size, the index's lag), and each request is one
// structured access log line naming the caller and the tool.
func TestServeOperations(t *testing.T) {
	h := serveHTTPIn(t, "")
	if status, body := h.get(t, "/healthz"); status != 200 || body != "ok\n" {
		t.Fatalf("healthz: %d %q", status, body)
	}
	if status, body := h.get(t, "/readyz"); status != 200 || body != "ready\n" {
		t.Fatalf("readyz: %d %q", status, body)
	}
	p := h.as(t, "--agent-id", "ann", "--seniority", "junior")
	p.ok("remember", map[string]any{"content": "The staging database is called hornet."}, nil)
	p.ok("remember", map[string]any{"content": "Deploys happen on Tuesdays after standup."}, nil)
	p.ok("search_memory", map[string]any{"query": "staging database"}, nil)
	p.fail("publish_fact", map[string]any{"fact_id": "p", "content": "x.", "category": "core_policy"}, "EFORBIDDEN", "junior")
	p.fail("remember", map[string]any{"content": " "}, "EINVALID", "")
	status, body := h.get(t, "/metrics")
	if status != 200 {
		t.Fatalf("metrics: %d", status)
	}
	for series, want := range map[string]float64{
		`memory_mcp_tool_duration_seconds_count{tool="remember"}`:                           3,
		`memory_mcp_tool_duration_seconds_count{tool="search_memory"}`:                      1,
		`memory_mcp_writes_total{outcome="applied",tool="remember"}`:                        2,
		`memory_mcp_writes_total{outcome="EINVALID",tool="remember"}`:                       1,
		`memory_mcp_writes_total{outcome="EFORBIDDEN",tool="publish_fact"}`:                 1,
		`memory_mcp_tool_errors_total{code="EFORBIDDEN",tool="publish_fact"}`:               1,
		`memory_mcp_http_requests_total{route="/mcp",rpc_method="tools/call",status="200"}`: 5,
	} {
		if got := metric(t, body, series); got != want {
			t.Errorf("%s = %v, want %v", series, got, want)
		}
	}
	if got := metric(t, body, "memory_mcp_store_bytes"); got <= 0 {
		t.Errorf("store bytes %v", got)
	}
	if got := metric(t, body, "memory_mcp_index_sync_lag_changes"); got < 0 {
		t.Errorf("index lag %v", got)
	}
	line := regexp.MustCompile(`msg=http method=POST path=/mcp status=200 bytes=\d+ duration_ms=[\d.]+ remote=127\.0\.0\.1:\d+ agent_id=ann rpc_method=tools/call tool=search_memory`)
	if !line.MatchString(h.stderr.String()) {
		t.Errorf("no access log line for the search:\n%s", h.stderr.String())
	}
	// The probes pass the Host check like everything else.
	req, _ := http.NewRequest(http.MethodGet, strings.TrimSuffix(h.url, "/mcp")+"/metrics", nil)
	req.Host = "evil.example.com"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Errorf("metrics for a foreign Host: %d", resp.StatusCode)
	}
}
