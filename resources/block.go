package resources

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
)

// BlocksList is the resource listing the caller's core memory blocks.
const BlocksList = "memory://blocks"

func registerBlocks(s *server.MCPServer, svc Services) {
	blocks := svc.Blocks
	s.AddResource(mcp.NewResource(BlocksList, "Core memory blocks",
		mcp.WithResourceDescription("Every core memory block visible to the caller (personal, then shared), with values, as JSON."),
		mcp.WithMIMEType("application/json"),
	), handler(svc.Log, func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		bs, err := blocks.List(ctx)
		if err != nil {
			return nil, err
		}
		return jsonContents(BlocksList, map[string]any{"blocks": bs})
	}))

	// {+label}: labels may contain ':', which simple expansion does not
	// match; they never contain '/' (CheckID), so the label is one segment.
	s.AddResourceTemplate(mcp.NewResourceTemplate(BlocksList+"/{+label}", "Core memory block",
		mcp.WithTemplateDescription("One core memory block by label (e.g. memory://blocks/persona): description, value, limit, version, as JSON."),
		mcp.WithTemplateMIMEType("application/json"),
	), handler(svc.Log, func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		b, err := blocks.Get(ctx, arg(req, "label"))
		if err != nil {
			return nil, err
		}
		return jsonContents(req.Params.URI, b)
	}))
}

// blockChanged maps a block change ref (memory.BlockChangeRef: "<owner>/<label>",
// or "*/<label>" for a shared block) to the block resources it changes. The
// scope is for routing: a personal block's change concerns only its owner.
func blockChanged(ref string) []string {
	_, label := memory.ParseBlockChangeRef(ref)
	return []string{BlocksList, BlocksList + "/" + label}
}
