// Package prompts is the MCP prompt surface: ready-made messages a client can
// place in a conversation. (The prompts memory-mcp itself sends to a model
// are templates in llm/prompt.)
package prompts

import (
	"context"
	"log/slog"
	"slices"
	"strings"

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
		add(s, svc.Log, mcp.NewPrompt("org_policies",
			mcp.WithPromptDescription("The organisation's core policies in force, as a message to place at the start of a conversation."),
		), func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			text, err := memory.CorePoliciesMarkdown(ctx, svc.Facts)
			if err != nil {
				return nil, err
			}
			return mcp.NewGetPromptResult("Core policies in force",
				[]mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(text))}), nil
		})
	}
	if svc.Memories != nil {
		registerMemories(s, svc)
	}
	if svc.Blocks != nil {
		registerBlocks(s, svc)
	}
}

// offeredBy says which injection strategy offers each prompt ("" for every
// strategy): memory_context is how the context strategy reads memory,
// core_memory the self_editing strategy's; the policies are for everyone.
// add refuses a prompt this table does not name.
var offeredBy = map[string]memory.Strategy{
	"org_policies":   "",
	"memory_context": memory.StrategyContext,
	"core_memory":    memory.StrategySelfEditing,
}

// Filter offers only the prompts strategy st offers (see offeredBy), in
// prompts/list and prompts/get alike.
func Filter(st memory.Strategy) server.PromptFilterFunc {
	return func(ctx context.Context, prompts []mcp.Prompt) []mcp.Prompt {
		out := prompts[:0:0]
		for _, p := range prompts {
			if st.Offers(offeredBy[p.Name]) {
				out = append(out, p)
			}
		}
		return out
	}
}

// add registers prompt p with fn behind the checks every prompt shares: an
// argument p does not declare is an error (a misspelt one must not be
// silently ignored), and internal errors are hidden behind a log line while
// domain messages are kept.
func add(s *server.MCPServer, log *slog.Logger, p mcp.Prompt, fn server.PromptHandlerFunc) {
	if _, ok := offeredBy[p.Name]; !ok {
		panic("prompt " + p.Name + " has no entry in offeredBy (prompts/prompts.go)")
	}
	known := make([]string, len(p.Arguments))
	for i, a := range p.Arguments {
		known[i] = a.Name
	}
	s.AddPrompt(p, func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		for name := range req.Params.Arguments {
			if !slices.Contains(known, name) {
				takes := "no arguments"
				if len(known) > 0 {
					takes = strings.Join(known, ", ")
				}
				return nil, memory.Errorf(memory.EINVALID, "unknown argument %.64q: prompt %s takes %s", name, p.Name, takes)
			}
		}
		res, err := fn(ctx, req)
		if err == nil {
			return res, nil
		}
		public, internal := memory.Public(err)
		if internal {
			log.ErrorContext(ctx, "prompt failed", "prompt", req.Params.Name, "err", err)
		}
		return nil, public
	})
}
