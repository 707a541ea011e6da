package resources

import (
	"context"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
)

// Write-path metrics resource URIs.
const (
	Metrics       = "memory://metrics"
	MetricsPrefix = "memory://metrics/"
)

// DefaultMetricsWindow is the window memory://metrics covers.
const DefaultMetricsWindow = 24 * time.Hour

func registerMetrics(s *server.MCPServer, svc Services) {
	m := svc.Metrics
	s.AddResource(mcp.NewResource(Metrics, "Write metrics",
		mcp.WithResourceDescription("How the writes of the last 24 hours went, as JSON: calls of tools that write, their "+
			"outcomes (stored, duplicate, replayed, rejected), the write acceptance rate and dedup hit rate, refusals by gate "+
			"and code, and each gate's latency (p50, p95, p99). memory://metrics/{window} covers another window, e.g. 1h or 7d."),
		mcp.WithMIMEType("application/json"),
	), handler(svc.Log, func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		w, err := m.WriteMetrics(ctx, DefaultMetricsWindow)
		if err != nil {
			return nil, err
		}
		return jsonContents(Metrics, w)
	}))
	s.AddResourceTemplate(mcp.NewResourceTemplate(MetricsPrefix+"{window}", "Write metrics over a window",
		mcp.WithTemplateDescription("The write metrics of memory://metrics over the window ending now, e.g. 1h, 90m or 7d."),
		mcp.WithTemplateMIMEType("application/json"),
	), handler(svc.Log, func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		d, err := memory.ParseAge("window", arg(req, "window"))
		if err != nil {
			return nil, err
		}
		if d == nil {
			return nil, memory.Errorf(memory.EINVALID, "give a window, e.g. memory://metrics/1h")
		}
		w, err := m.WriteMetrics(ctx, *d)
		if err != nil {
			return nil, err
		}
		return jsonContents(req.Params.URI, w)
	}))
}
