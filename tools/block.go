package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
)

// BlockListArgs are the arguments of memory_block_list.
type BlockListArgs struct {
	LabelsOnly bool `json:"labels_only,omitempty" jsonschema:"Return labels, descriptions, sizes and versions without the values (smaller)."`
}

// BlockReadArgs are the arguments of memory_block_read.
type BlockReadArgs struct {
	Label string `json:"label" jsonschema:"Label of the block, e.g. persona, human, project (memory_block_list shows yours)."`
}

// BlockCreateArgs are the arguments of memory_block_create.
type BlockCreateArgs struct {
	Label       string   `json:"label" jsonschema:"Label of the new block: letters, digits, . _ : - (e.g. goals, team-plan)."`
	Description string   `json:"description" jsonschema:"What belongs in the block, so that you and other agents know when to edit it (max 1000 characters)."`
	Value       string   `json:"value,omitempty" jsonschema:"Initial text (default empty)."`
	Limit       *int     `json:"limit,omitempty" jsonschema:"Character limit of the block, 1 to 100000 (default 5000). Keep core memory small: it is meant to stay in view."`
	Shared      bool     `json:"shared,omitempty" jsonschema:"Make a shared block other agents can see (default: a personal block only you see)."`
	Writers     []string `json:"writers,omitempty" jsonschema:"Shared blocks only: agent ids that may edit it besides you, or [\"*\"] for every agent (default: only you)."`
	Readers     []string `json:"readers,omitempty" jsonschema:"Shared blocks only: agent ids that may read it (writers always can). Default: every agent."`
	ReadOnly    bool     `json:"read_only,omitempty" jsonschema:"Agents may read but not edit the block. Only a human operator may create or edit read-only blocks."`
}

// CASArg is the optional compare-and-set argument of the block edit tools,
// embedded in their arguments.
type CASArg struct {
	ExpectedVersion *int `json:"expected_version,omitempty" jsonschema:"Compare-and-set: the version of the block you read. If someone edited it since, the edit fails with ECONFLICT naming the current version, and you should read the block again. Without it the edit applies to the current value."`
}

// BlockAppendArgs are the arguments of memory_block_append.
type BlockAppendArgs struct {
	Label string `json:"label" jsonschema:"Label of the block, e.g. persona, human, project (memory_block_list shows yours)."`
	Text  string `json:"text" jsonschema:"Text to add at the end of the block, on a new line."`
	CASArg
}

// BlockReplaceArgs are the arguments of memory_block_replace.
type BlockReplaceArgs struct {
	Label   string `json:"label" jsonschema:"Label of the block, e.g. persona, human, project (memory_block_list shows yours)."`
	OldText string `json:"old_text" jsonschema:"Exact text to replace, copied from the block (without the line numbers memory_block_read shows). It must occur exactly once."`
	NewText string `json:"new_text" jsonschema:"Text to put in its place; empty deletes old_text."`
	CASArg
}

// BlockInsertArgs are the arguments of memory_block_insert.
type BlockInsertArgs struct {
	Label     string `json:"label" jsonschema:"Label of the block, e.g. persona, human, project (memory_block_list shows yours)."`
	AfterLine *int   `json:"after_line" jsonschema:"Insert after this line number, as memory_block_read numbers them; 0 inserts before the first line."`
	Text      string `json:"text" jsonschema:"Text to insert; it may span several lines."`
	CASArg
}

// BlockRethinkArgs are the arguments of memory_block_rethink.
type BlockRethinkArgs struct {
	Label           string `json:"label" jsonschema:"Label of the block, e.g. persona, human, project (memory_block_list shows yours)."`
	Value           string `json:"value" jsonschema:"The whole new text of the block; it replaces the old one (which stays in the history). Empty clears the block."`
	ExpectedVersion *int   `json:"expected_version" jsonschema:"Required: the version of the block your new value is based on. If someone edited it since, the rewrite fails with ECONFLICT instead of silently dropping their edit."`
}

// BlockDeleteArgs are the arguments of memory_block_delete.
type BlockDeleteArgs struct {
	Label string `json:"label" jsonschema:"Label of the block to delete."`
	CASArg
}

// BlockHistoryArgs are the arguments of memory_block_history.
type BlockHistoryArgs struct {
	Label string `json:"label" jsonschema:"Label of the block, deleted or not."`
	Limit *int   `json:"limit,omitempty" jsonschema:"Maximum versions, newest first, 1 to 1000 (default 50)."`
}

// BlockRestoreArgs are the arguments of memory_block_restore.
type BlockRestoreArgs struct {
	Label   string `json:"label" jsonschema:"Label of the block, deleted or not."`
	Version *int   `json:"version" jsonschema:"The earlier version whose value to bring back (memory_block_history lists them). The restore is a new version; nothing is erased."`
	CASArg
}

// BlockResult is the result of the tools that read or change one block.
type BlockResult struct {
	Block memory.Block `json:"block"`
}

// BlocksResult is the result of memory_block_list: the blocks, or with
// labels_only their summaries (no values).
type BlocksResult struct {
	Blocks    []memory.Block        `json:"blocks,omitempty"`
	Summaries []memory.BlockSummary `json:"summaries,omitempty"`
}

// BlockHistoryResult is the result of memory_block_history.
type BlockHistoryResult struct {
	Label    string                `json:"label"`
	Versions []memory.BlockVersion `json:"versions"`
}

func registerBlocks(s *server.MCPServer, svc Services) {
	blocks := svc.Blocks
	add(s, svc, mcp.NewTool("memory_block_list",
		mcp.WithDescription("List your core memory blocks (personal, then shared ones you can see) with their descriptions, "+
			"sizes against their character limits, versions and values (labels_only leaves the values out). Core memory is what you keep in view across "+
			"conversations and edit yourself with the other memory_block_* tools."),
		mcp.WithInputSchema[BlockListArgs](), mcp.WithOutputSchema[BlocksResult](),
	), func(ctx context.Context, a BlockListArgs) (BlocksResult, string, error) {
		bs, err := blocks.List(ctx)
		if err != nil || !a.LabelsOnly {
			return BlocksResult{Blocks: bs}, renderBlocks(ctx, bs), err
		}
		sums := make([]memory.BlockSummary, len(bs))
		for i := range bs {
			sums[i] = bs[i].BlockSummary
		}
		return BlocksResult{Summaries: sums}, renderBlockLines(bs), nil
	})

	add(s, svc, mcp.NewTool("memory_block_read",
		mcp.WithDescription("Read one core memory block: its description, version, size and value with numbered lines "+
			"(the numbers are for memory_block_insert; they are not part of the text)."),
		mcp.WithInputSchema[BlockReadArgs](), mcp.WithOutputSchema[BlockResult](),
	), func(ctx context.Context, a BlockReadArgs) (BlockResult, string, error) {
		b, err := blocks.Get(ctx, a.Label)
		return BlockResult{Block: b}, renderBlock(b), err
	})

	add(s, svc, mcp.NewTool("memory_block_create",
		mcp.WithDescription("Create a core memory block, personal by default or shared with other agents. Give it a "+
			"description saying what belongs there. Prefer the blocks you have (persona, human, project) and create one only "+
			"for a distinct, lasting subject."),
		mcp.WithInputSchema[BlockCreateArgs](), mcp.WithOutputSchema[BlockResult](),
	), func(ctx context.Context, a BlockCreateArgs) (BlockResult, string, error) {
		limit, err := count("limit", a.Limit)
		if err != nil {
			return BlockResult{}, "", err
		}
		b, err := blocks.Create(ctx, memory.BlockSpec{Label: a.Label, Description: a.Description, Value: a.Value, Limit: limit,
			Shared: a.Shared, Writers: a.Writers, Readers: a.Readers, ReadOnly: a.ReadOnly})
		return BlockResult{Block: b}, edited("created", b), err
	})

	addBlockEdit(s, svc, "memory_block_append", "Add text at the end of a core memory block, on a new line. Use it to record "+
		"something new that belongs in the block; fails with the number of characters over the limit if the block would overflow.",
		func(a BlockAppendArgs) (memory.BlockEdit, error) {
			return memory.BlockEdit{Label: a.Label, Op: memory.BlockAppend, Text: a.Text, ExpectedVersion: a.ExpectedVersion}, nil
		})
	addBlockEdit(s, svc, "memory_block_replace", "Replace exact text in a core memory block: old_text must occur exactly once "+
		"(the error says how often it occurs otherwise). Use it to correct or update one statement; an empty new_text deletes old_text.",
		func(a BlockReplaceArgs) (memory.BlockEdit, error) {
			return memory.BlockEdit{Label: a.Label, Op: memory.BlockReplace, OldText: a.OldText, NewText: a.NewText, ExpectedVersion: a.ExpectedVersion}, nil
		})
	addBlockEdit(s, svc, "memory_block_insert", "Insert text into a core memory block after a given line (0: at the top), "+
		"using the line numbers memory_block_read shows.",
		func(a BlockInsertArgs) (memory.BlockEdit, error) {
			line, err := required("after_line", a.AfterLine, "0 inserts before the first line")
			return memory.BlockEdit{Label: a.Label, Op: memory.BlockInsert, Text: a.Text, AfterLine: line, ExpectedVersion: a.ExpectedVersion}, err
		})
	addBlockEdit(s, svc, "memory_block_rethink", "Rewrite a whole core memory block: to reorganise it, condense it when it "+
		"nears its limit, or drop what is stale. Needs expected_version, the version your rewrite is based on, so that another "+
		"agent's edit is never overwritten unseen. The old value stays in the history.",
		func(a BlockRethinkArgs) (memory.BlockEdit, error) {
			return memory.BlockEdit{Label: a.Label, Op: memory.BlockRethink, Text: a.Value, ExpectedVersion: a.ExpectedVersion}, nil
		})
	addBlockEdit(s, svc, "memory_block_delete", "Delete a core memory block you no longer need. The deletion is a version "+
		"like any other: memory_block_history still lists the block and memory_block_restore brings it back.",
		func(a BlockDeleteArgs) (memory.BlockEdit, error) {
			return memory.BlockEdit{Label: a.Label, Op: memory.BlockDelete, ExpectedVersion: a.ExpectedVersion}, nil
		})
	addBlockEdit(s, svc, "memory_block_restore", "Bring back an earlier version of a core memory block (also undeletes it). "+
		"The restore is a new version; nothing in the history is erased.",
		func(a BlockRestoreArgs) (memory.BlockEdit, error) {
			v, err := required("version", a.Version, "memory_block_history lists the versions")
			return memory.BlockEdit{Label: a.Label, Op: memory.BlockRestore, Version: v, ExpectedVersion: a.ExpectedVersion}, err
		})

	add(s, svc, mcp.NewTool("memory_block_history",
		mcp.WithDescription("List the versions of a core memory block, newest first: each edit's value, operation, author and "+
			"time. Use it to see who changed what, or to pick a version for memory_block_restore."),
		mcp.WithInputSchema[BlockHistoryArgs](), mcp.WithOutputSchema[BlockHistoryResult](),
	), func(ctx context.Context, a BlockHistoryArgs) (BlockHistoryResult, string, error) {
		limit, err := count("limit", a.Limit)
		if err != nil {
			return BlockHistoryResult{}, "", err
		}
		vs, err := blocks.History(ctx, a.Label, limit)
		return BlockHistoryResult{Label: a.Label, Versions: vs}, memory.RenderBlockVersions("versions of block "+a.Label, vs), err
	})
}

// addBlockEdit registers an edit tool: arguments A become one BlockEdit.
func addBlockEdit[A any](s *server.MCPServer, svc Services, name, desc string, edit func(A) (memory.BlockEdit, error)) {
	add(s, svc, mcp.NewTool(name, mcp.WithDescription(desc),
		mcp.WithInputSchema[A](), mcp.WithOutputSchema[BlockResult](),
	), func(ctx context.Context, a A) (BlockResult, string, error) {
		e, err := edit(a)
		if err != nil {
			return BlockResult{}, "", err
		}
		b, err := svc.Blocks.Edit(ctx, e)
		return BlockResult{Block: b}, edited(pastTense[e.Op], b), err
	})
}

var pastTense = map[memory.BlockOp]string{
	memory.BlockAppend: "appended to", memory.BlockReplace: "replaced text in", memory.BlockInsert: "inserted into",
	memory.BlockRethink: "rewrote", memory.BlockDelete: "deleted", memory.BlockRestore: "restored",
}

// required returns the number argument name, which must be given: for these
// arguments 0 is a meaningful value, so a missing one must not become 0.
func required(name string, p *int, hint string) (int, error) {
	if p == nil {
		return 0, memory.Errorf(memory.EINVALID, "%s is missing: %s", name, hint)
	}
	return *p, nil
}

// edited says what an edit did and shows the result, so that the model can
// check it without another read.
func edited(what string, b memory.Block) string {
	if b.DeletedAt != nil {
		return fmt.Sprintf("%s block %s (now version %d); memory_block_restore with version %d brings it back", what, b.Label, b.Version, b.Version-1)
	}
	return fmt.Sprintf("%s block %s: now version %d. Check the result:\n%s", what, b.Label, b.Version, renderBlock(b))
}

// renderBlocks shows the blocks with their values fenced as data: the text
// content is what a text-only client gives the model.
func renderBlocks(ctx context.Context, bs []memory.Block) string {
	if len(bs) == 0 {
		return "core memory blocks: none"
	}
	id, _ := memory.IdentityFrom(ctx)
	return fmt.Sprintf("core memory blocks (%d):\n%s", len(bs), strings.TrimRight(memory.RenderBlocks(bs, id), "\n"))
}

// renderBlockLines lists the blocks without values: per block its heading
// and its description, which an agent wrote, fenced as data.
func renderBlockLines(bs []memory.Block) string {
	if len(bs) == 0 {
		return "core memory blocks: none"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "core memory blocks (%d):\n%s", len(bs), memory.DataDirective)
	for _, blk := range bs {
		fmt.Fprintf(&b, "\n- %s (v%d, %d/%d characters%s):\n%s", blk.Label, blk.Version, blk.Chars, blk.Limit, blockFlags(blk),
			memory.Fence(blk.Label+" description", blk.Description))
	}
	return b.String()
}

func renderBlock(b memory.Block) string {
	head := fmt.Sprintf("%s (version %d, %d/%d characters%s, last edited by %s at %s)",
		b.Label, b.Version, b.Chars, b.Limit, blockFlags(b), b.UpdatedBy, b.UpdatedAt.Format(time.RFC3339))
	return memory.RenderBlock(head, b, func(lines []string) string {
		var out strings.Builder
		for i, l := range lines {
			fmt.Fprintf(&out, "%3d| %s\n", i+1, l)
		}
		return strings.TrimRight(out.String(), "\n")
	})
}

func blockFlags(b memory.Block) string {
	var f []string
	if b.Shared {
		f = append(f, "shared by "+b.OwnerName())
		if len(b.Writers) > 0 {
			f = append(f, "writers: "+strings.Join(b.Writers, " "))
		}
	}
	if b.ReadOnly {
		f = append(f, "read-only")
	}
	if len(f) == 0 {
		return ""
	}
	return ", " + strings.Join(f, ", ")
}
