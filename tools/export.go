package tools

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
)

// ExportArgs are the arguments of export_memory.
type ExportArgs struct {
	Cursor string `json:"cursor,omitempty" jsonschema:"The next_cursor of the page before; leave it out for the first page."`
	Limit  int    `json:"limit,omitempty" jsonschema:"Most lines in the page, 1 to 1000 (default 200); a page of long memories may hold fewer."`
}

func registerExport(s *server.MCPServer, svc Services) {
	add(s, svc, mcp.NewTool("export_memory",
		mcp.WithDescription("Your own memory in memory-mcp's export format (JSON Lines, docs/export.md), a page at a time, so that "+
			"you can hand it over or move it: your memories in every state with their provenance, conflicts, notes, ledger "+
			"events, pending writes, approvals and the blocks you own. Join every page's lines in order (follow next_cursor "+
			"until it is absent) to get the file `memory-mcp import` reads. Read-only."),
		mcp.WithInputSchema[ExportArgs](), mcp.WithOutputSchema[memory.ExportPage](),
	), func(ctx context.Context, a ExportArgs) (memory.ExportPage, string, error) {
		p, err := svc.Portability.ExportOwn(ctx, a.Cursor, a.Limit)
		if err != nil {
			return p, "", err
		}
		text := fmt.Sprintf("lines %d to %d of %d of your export", p.From+1, p.From+p.Count, p.Total)
		if p.NextCursor != "" {
			text += "; next_cursor " + p.NextCursor
		}
		return p, text + ":\n" + p.Lines, nil
	})
}
