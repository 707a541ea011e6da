package prompts

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
)

func registerBlocks(s *server.MCPServer, svc Services) {
	add(s, svc.Log, mcp.NewPrompt("core_memory",
		mcp.WithPromptDescription("Your core memory blocks (persona, human, project and any others you keep), with instructions "+
			"for editing them yourself, as a message to place at the start of a conversation (the self-editing strategy)."),
	), func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		id, err := memory.RequireIdentity(ctx)
		if err != nil {
			return nil, err
		}
		blocks, err := svc.Blocks.List(ctx)
		if err != nil {
			return nil, err
		}
		return mcp.NewGetPromptResult("Core memory and how to edit it",
			[]mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(memory.CoreMemoryPrompt(blocks, id)))}), nil
	})
}
