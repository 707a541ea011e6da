package prompts

import (
	"context"
	"strings"

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
			[]mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(coreMemory(blocks, id)))}), nil
	})
}

// coreMemory renders the blocks with instructions for editing them
// itself, as a message to place at the start of a conversation. Block texts
// are written by agents, so they are fenced as data.
func coreMemory(blocks []memory.Block, id memory.Identity) string {
	var b strings.Builder
	b.WriteString("# Core memory\n\n")
	b.WriteString("These blocks are your core memory. They persist across conversations and you keep them current yourself:\n" +
		"- When you learn something that belongs in a block, edit it at once: memory_block_append adds a line, " +
		"memory_block_replace changes exact text, memory_block_insert adds lines after a line number, " +
		"memory_block_rethink rewrites the whole block (pass expected_version), memory_block_delete removes a block you no longer need.\n" +
		"- Each block has a character limit. When a block is nearly full, condense it with memory_block_rethink rather than letting edits fail.\n" +
		"- Edits may pass expected_version (the version shown below). ECONFLICT means someone else edited the block first: " +
		"read it again with memory_block_read and redo your edit on the new value.\n" +
		"- Read-only blocks are maintained by people; do not try to edit them. Shared blocks are seen by other agents too.\n" +
		"- memory_block_history and memory_block_restore undo mistakes: every version is kept.\n\n")
	if len(blocks) == 0 {
		b.WriteString("You have no blocks. memory_block_create makes one.\n")
		return b.String()
	}
	b.WriteString(memory.RenderBlocks(blocks, id))
	return b.String()
}
