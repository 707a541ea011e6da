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
	b.WriteString("These blocks are your core memory: the files of the memory tool, each block at its path below " +
		"(/memories/<name>, shared ones under /memories/shared/). They persist across conversations and you keep them current yourself:\n" +
		"- When you learn something that belongs in a file, edit it at once with the memory tool: str_replace changes exact text, " +
		"insert adds lines after a line number, create makes a new file, delete removes one you no longer need, rename moves it.\n" +
		"- Each file has a character limit. When one is nearly full, condense it (view it, then str_replace the stale part) rather than letting edits fail.\n" +
		"- Edits may pass expected_version (the version shown below) or expected_hash. ECONFLICT means someone else edited the file first: " +
		"view it again and redo your edit on the new text.\n" +
		"- Read-only files are maintained by people; do not try to edit them. Shared files are seen by other agents too.\n" +
		"- history and restore undo mistakes: every version is kept.\n\n")
	if len(blocks) == 0 {
		b.WriteString("You have no files yet. The memory tool's create command makes one.\n")
		return b.String()
	}
	b.WriteString(memory.RenderBlocks(blocks, id))
	return b.String()
}
