package tools

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
)

// EraseArgs are the arguments of erase.
type EraseArgs struct {
	IDs      []string `json:"ids,omitempty" jsonschema:"Ids of memories to erase (any agent's), with their shared copies or originals and the summaries made from them. Every id must exist, or nothing is erased."`
	AgentID  string   `json:"agent_id,omitempty" jsonschema:"Erase only this agent's memories (with ids or contains), or all of them (alone). With contains, the notes, ledger events, pending writes, block versions and facts quoting the text go only when this agent wrote them (those quoting an erased memory's whole content, facts aside, go whoever wrote them)."`
	Contains string   `json:"contains,omitempty" jsonschema:"A text to remove wherever it is stored (a name, a secret; at least 3 characters; letters match in either case, accented ones too): memories, notes, the promotion ledger and pending writes, shared state, core memory block versions, org facts. Given with ids, only those memories are searched."`
	Reason   string   `json:"reason" jsonschema:"Why this is erased (a request's reference, 'secret pasted by mistake'). Kept in the audit; must not quote what is erased."`
	DryRun   bool     `json:"dry_run,omitempty" jsonschema:"true: count what would be erased and change nothing."`
}

// EraseResult is the result of erase.
type EraseResult struct {
	memory.ErasureReport
}

func registerErase(s *server.MCPServer, svc Services) {
	add(s, svc, mcp.NewTool("erase",
		mcp.WithDescription("Humans only. Remove stored content for good, unlike forget and retract, which hide it: "+
			"the selected memories with their shared copies, vectors and full-text entries, the summaries made from them, "+
			"every note, ledger event, pending write, shared-state row and block version quoting an erased memory's whole content "+
			"(of at least 4 words), and (with contains) those and the org facts quoting the text, then rewrite the database file so the bytes are gone. The selectors narrow each other. "+
			"An audit row keeps who, when, why and the counts, never the content. Cannot be undone: try dry_run first."),
		mcp.WithInputSchema[EraseArgs](), mcp.WithOutputSchema[EraseResult](),
	), func(ctx context.Context, a EraseArgs) (EraseResult, string, error) {
		rep, err := svc.Erasure.Erase(ctx, memory.ErasureRequest{IDs: a.IDs, AgentID: a.AgentID, Contains: a.Contains,
			Reason: a.Reason, DryRun: a.DryRun})
		if err != nil {
			return EraseResult{}, "", err
		}
		return EraseResult{rep}, RenderErasure(rep), nil
	})
}

// RenderErasure says what an erase removed (or, dry, would), for a person
// or a model; the command line prints it too.
func RenderErasure(r memory.ErasureReport) string {
	kinds := make([]string, 0, len(r.Counts))
	for k := range r.Counts {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s %d", k, r.Counts[k]))
	}
	what := "nothing matched"
	if len(parts) > 0 {
		what = strings.Join(parts, ", ")
	}
	var b strings.Builder
	if r.DryRun {
		fmt.Fprintf(&b, "dry run, nothing changed; would erase: %s", what)
	} else {
		fmt.Fprintf(&b, "erased: %s; audit row %d", what, r.Erasure)
	}
	if r.Restored > 0 {
		fmt.Fprintf(&b, "; %d archived memories back in search (their summary was erased)", r.Restored)
	}
	if r.Rewound > 0 {
		fmt.Fprintf(&b, "; %d blocks back at their newest version without the text", r.Rewound)
	}
	b.WriteString(RenderScrub(r))
	return b.String()
}

// RenderScrub says whether the erased bytes left the files, after an
// erase or gc ("" when there is nothing to say).
func RenderScrub(r memory.ErasureReport) string {
	switch {
	case r.ScrubOwed && r.DryRun:
		return "; a rewrite of the database file is owed (an earlier erase or gc could not finish it): the next erase, gc or server start does it"
	case r.ScrubOwed:
		return "; the database file is not rewritten yet (another process was reading): the next erase, gc or server start finishes it"
	case r.Scrubbed && r.Total() == 0:
		return "; the database file was rewritten, as an earlier erase or gc still owed, and no file in the data directory holds the bytes it erased"
	case r.Scrubbed:
		return "; the database file was rewritten and no file in the data directory holds the erased bytes"
	}
	return ""
}
