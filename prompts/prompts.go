// Package prompts is the MCP prompt surface (ready-made messages a client can
// place in a conversation) and, as embedded templates, the prompts memory-mcp
// itself sends to an LLM.
package prompts

import (
	"context"
	"errors"
	"log/slog"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
)

// Services are the domain services the prompts read. A nil service leaves its
// prompts unregistered.
type Services struct {
	Facts    memory.FactService
	Memories memory.MemoryService
	Blocks   memory.BlockService
	Log      *slog.Logger
}

// Register adds every prompt whose service is configured to s.
func Register(s *server.MCPServer, svc Services) {
	if svc.Log == nil {
		svc.Log = slog.Default()
	}
	if svc.Facts != nil {
		s.AddPrompt(mcp.NewPrompt("org_policies",
			mcp.WithPromptDescription("The organisation's core policies in force, as a message to place at the start of a conversation."),
		), handler(svc.Log, func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			text, err := memory.CorePoliciesMarkdown(ctx, svc.Facts)
			if err != nil {
				return nil, err
			}
			return mcp.NewGetPromptResult("Core policies in force",
				[]mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(text))}), nil
		}))
	}
	if svc.Memories != nil {
		registerMemories(s, svc)
	}
	if svc.Blocks != nil {
		registerBlocks(s, svc)
	}
}

// Filter offers only the prompts strategy st offers (see memory.Strategy), in
// prompts/list and prompts/get alike.
func Filter(st memory.Strategy) server.PromptFilterFunc {
	return func(ctx context.Context, prompts []mcp.Prompt) []mcp.Prompt {
		out := prompts[:0:0]
		for _, p := range prompts {
			if st.Offers(p.Name) {
				out = append(out, p)
			}
		}
		return out
	}
}

// handler keeps domain error messages and hides internal ones behind a log line.
func handler(log *slog.Logger, fn server.PromptHandlerFunc) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		res, err := fn(ctx, req)
		if err != nil && memory.ErrorCode(err) == memory.EINTERNAL {
			log.ErrorContext(ctx, "prompt failed", "prompt", req.Params.Name, "err", err)
			return nil, errors.New("internal error")
		}
		return res, err
	}
}
