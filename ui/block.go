package ui

import (
	"net/http"

	memory "github.com/memory-mcp/memory-mcp"
)

// blockVersions is how many versions of a block's history a page shows.
const blockVersions = 100

// blocks lists the blocks the curator may read: their own, and the shared
// blocks (an agent's personal blocks are its own, here as on MCP).
func (h *handler) blocks(r *http.Request) (view, error) {
	bs, err := h.svc.Blocks.List(r.Context())
	return view{Title: "Blocks", Data: bs}, err
}

type blockData struct {
	Label   string
	Block   *memory.Block // nil when deleted
	Deleted string        // why Block is nil
	History []memory.BlockVersion
	Full    bool
}

// block shows a block and its history, newest first; a deleted block's
// history still shows.
func (h *handler) block(r *http.Request) (view, error) {
	d := blockData{Label: r.PathValue("label")}
	b, err := h.svc.Blocks.Get(r.Context(), d.Label)
	switch {
	case err == nil:
		d.Block = &b
	case memory.ErrorCode(err) == memory.ENOTFOUND:
		d.Deleted = memory.ErrorMessage(err)
	default:
		return view{}, err
	}
	// An unknown label fails here too, with the service's ENOTFOUND.
	if d.History, err = h.svc.Blocks.History(r.Context(), d.Label, blockVersions); err != nil {
		return view{}, err
	}
	d.Full = len(d.History) == blockVersions
	return view{Title: "Block " + d.Label, Data: d}, nil
}
