// Package resources is the MCP resource surface: read-only views (core
// policies for a system prompt, fact snapshots, audit histories) rendered from
// the domain services, and notifications when what they show changes.
package resources

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/url"

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
		registerShared(s, svc)
	}
}

// Changed maps a change of kind/ref (from the store's change feed) to the
// resource URIs whose content it changes.
func Changed(kind, ref string) []string {
	switch kind {
	case "fact":
		return []string{PoliciesCore, FactsSnapshot, "memory://facts/" + ref + "/history"}
	case "block":
		return blockChanged(ref)
	case "shared", "pending":
		return sharedChanged(kind, ref)
	}
	return nil
}

// Notify tells subscribed clients that the resources touched by a change
// were updated.
func Notify(s *server.MCPServer, kind, ref string) {
	for _, uri := range Changed(kind, ref) {
		s.SendNotificationToAllClients(mcp.MethodNotificationResourceUpdated, map[string]any{"uri": uri})
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
		if memory.ErrorCode(err) == memory.EINTERNAL {
			log.ErrorContext(ctx, "resource failed", "uri", req.Params.URI, "err", err)
			return nil, errors.New("internal error")
		}
		return nil, err
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
