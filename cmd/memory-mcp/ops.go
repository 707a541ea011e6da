package main

import (
	"cmp"
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/tools"
)

// ops is what an operator watches a running server by: /healthz (the
// process serves), /readyz (it can serve MCP: the database answers and it
// is not stopping), /metrics (Prometheus) and an access log line per
// request on stderr.
type ops struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec   // every HTTP request, by route, JSON-RPC method and status
	calls    *prometheus.HistogramVec // tool latency
	errors   *prometheus.CounterVec   // tool errors by code
	writes   *prometheus.CounterVec   // calls of tools that write, by the gates' outcome
	stopping atomic.Bool
}

// rpcMethods are the JSON-RPC methods counted by name; anything else a
// client sends is counted as "other", so that no client can grow the
// metrics without bound.
var rpcMethods = []string{"initialize", "notifications/initialized", "ping", "server/discover", "tools/list", "tools/call",
	"resources/list", "resources/templates/list", "resources/read", "resources/subscribe", "resources/unsubscribe",
	"subscriptions/listen", "prompts/list", "prompts/get", "completion/complete", "logging/setLevel", "notifications/cancelled"}

func newOps() *ops {
	o := &ops{reg: prometheus.NewRegistry()}
	o.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "memory_mcp_http_requests_total",
		Help: "HTTP requests by route, JSON-RPC method (other for unknown ones) and status code."}, []string{"route", "rpc_method", "status"})
	o.calls = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "memory_mcp_tool_duration_seconds",
		Help: "Time a tool call takes in the server, by tool.", Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16)}, []string{"tool"})
	o.errors = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "memory_mcp_tool_errors_total",
		Help: "Tool calls answered with an error, by tool and error code (EINVALID, EFORBIDDEN, ...)."}, []string{"tool", "code"})
	o.writes = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "memory_mcp_writes_total",
		Help: "Calls of tools that write, by tool and the write gates' outcome: applied, or the code that refused or held it (EHELD, ERATELIMIT, ...)."},
		[]string{"tool", "outcome"})
	o.reg.MustRegister(o.requests, o.calls, o.errors, o.writes,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return o
}

// observe adds the gauges read from a running server at each scrape.
func (o *ops) observe(a *app) {
	storeBytes := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "memory_mcp_store_bytes",
		Help: "Size of the store on disk: the database file and its write-ahead log, or the PostgreSQL database."}, func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		n, err := a.db.Size(ctx)
		if err != nil {
			return -1
		}
		return float64(n)
	})
	lag := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "memory_mcp_index_sync_lag_changes",
		Help: "Change feed rows the vector index has not applied yet (the next search applies them)."}, func() float64 {
		return float64(indexLag(a))
	})
	o.reg.MustRegister(storeBytes, lag)
}

// indexLag is how many changes the vector index is behind the feed (0
// without an index).
func indexLag(a *app) int64 {
	if a.memories.Index == nil {
		return 0
	}
	last, err := a.db.LastChange(context.Background())
	if err != nil {
		return -1
	}
	return max(last-a.memories.Index.Applied(), 0)
}

// toolMiddleware times every tool call and counts its errors by code and,
// for tools that write, its outcome. It sees what stdio and HTTP callers
// alike see: the result the tool returned.
func (o *ops) toolMiddleware() server.ToolHandlerMiddleware {
	writes := map[string]bool{}
	for _, name := range tools.WriteTools() {
		writes[name] = true
	}
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		// code is "" for a result that is not an error.
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			start := time.Now()
			res, err := next(ctx, req)
			name := req.Params.Name
			o.calls.WithLabelValues(name).Observe(time.Since(start).Seconds())
			code := ""
			switch {
			case err != nil:
				code = memory.EINTERNAL
			case res != nil && res.IsError:
				code = resultCode(res)
			}
			if code != "" {
				o.errors.WithLabelValues(name, code).Inc()
			}
			if writes[name] {
				o.writes.WithLabelValues(name, cmp.Or(code, "applied")).Inc()
			}
			return res, err
		}
	}
}

// errorCodes are the codes a tool's error result can start with.
var errorCodes = []string{memory.EINVALID, memory.ENOTFOUND, memory.ECONFLICT, memory.EFORBIDDEN, memory.EBUSY,
	memory.ERATELIMIT, memory.EHELD, memory.EINTERNAL}

// resultCode is the code an error result's text starts with ("EINVALID: ..."),
// or EINTERNAL for one that names none.
func resultCode(res *mcp.CallToolResult) string {
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			if code, _, ok := strings.Cut(tc.Text, ":"); ok && slices.Contains(errorCodes, code) {
				return code
			}
		}
	}
	return memory.EINTERNAL
}

// routes adds the operations endpoints to mux. They answer to anyone who
// passes the Host check, without a credential: they say nothing of what is
// stored (a probe must work before a token exists).
func (o *ops) routes(mux *http.ServeMux, a *app) {
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok\n")) })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if o.stopping.Load() {
			http.Error(w, "stopping", http.StatusServiceUnavailable)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if _, err := a.db.LastChange(ctx); err != nil {
			a.log.Warn("not ready", "err", err)
			http.Error(w, "the database does not answer", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ready\n"))
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(o.reg, promhttp.HandlerOpts{}))
}

// statusWriter records what was answered, for the access log and the
// metrics. Flush and the other optional interfaces are reached through
// Unwrap (http.ResponseController), which streams need.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// access logs each request on stderr (structured: method, path, status,
// bytes, duration, remote address, the caller, and the JSON-RPC method and
// tool) and counts it.
func (o *ops) access(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ex := &exchange{}
		sw := &statusWriter{ResponseWriter: w}
		r = r.WithContext(context.WithValue(r.Context(), exchangeKey{}, ex))
		next.ServeHTTP(sw, r)
		status := sw.status
		if status == 0 {
			status = http.StatusOK
		}
		route := r.URL.Path
		if !slices.Contains([]string{"/mcp", "/healthz", "/readyz", "/metrics"}, route) {
			route = "other"
		}
		method := ex.method
		if method != "" && !slices.Contains(rpcMethods, method) {
			method = "other"
		}
		o.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
		if route == "/healthz" || route == "/readyz" || route == "/metrics" {
			return // probes and scrapes would drown the log
		}
		attrs := []any{"method", r.Method, "path", r.URL.Path, "status", status, "bytes", sw.bytes,
			"duration_ms", float64(time.Since(start).Microseconds()) / 1000, "remote", r.RemoteAddr}
		if ex.agent != "" {
			attrs = append(attrs, "agent_id", ex.agent)
		}
		if ex.method != "" {
			attrs = append(attrs, "rpc_method", ex.method)
		}
		if ex.tool != "" {
			attrs = append(attrs, "tool", ex.tool)
		}
		log.Info("http", attrs...)
	})
}
