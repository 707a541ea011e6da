package memory

import "context"

// ExportPage is one page of the caller's own memory in the export format
// (docs/export.md): its lines from From on. The pages of one export,
// joined in order, are the file `memory-mcp export --agent-id` writes for
// the caller, which `memory-mcp import` reads.
type ExportPage struct {
	Format  string `json:"format" jsonschema:"The export format: memory-mcp."`
	Version int    `json:"version" jsonschema:"The export format's version."`
	// Lines are the page's lines, each ending in a newline.
	Lines string `json:"lines" jsonschema:"This page's lines of the export (JSON Lines: the header first, one record per line, the checksum trailer last), each ending in a newline. Join the pages' lines in order to get the whole export."`
	From  int    `json:"from" jsonschema:"The index of this page's first line in the export (0: the header)."`
	Count int    `json:"count" jsonschema:"How many lines this page holds."`
	Total int    `json:"total" jsonschema:"How many lines the whole export holds."`
	// SHA256 identifies the whole export the page belongs to.
	SHA256 string `json:"sha256" jsonschema:"SHA-256 of the whole export: every page of one export carries the same."`
	// NextCursor asks for the next page; empty on the last.
	NextCursor string `json:"next_cursor,omitempty" jsonschema:"Send as cursor to get the next page; absent on the last page."`
}

// PortabilityService hands the caller its own memory in the export format,
// a page at a time, so that a client can move it without a shell.
type PortabilityService interface {
	// ExportOwn returns the page of the calling identity's own memory
	// that cursor names ("" the first), of at most limit lines (0: the
	// default). The pages after the first come from the export the first
	// page made, while the service keeps it; a cursor of an export it no
	// longer keeps and that has since changed is refused (ECONFLICT): the
	// pages must come from one export.
	ExportOwn(ctx context.Context, cursor string, limit int) (ExportPage, error)
}
