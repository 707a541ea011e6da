package tools

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
)

// NoteGrammar is the note grammar the rules interpreter reads, as a model
// should see it: in the server's instructions, once, rather than in
// write_note's description, which a model reads with every tool list. The
// README carries the same table.
const NoteGrammar = `One statement per note. Explicit forms (case-insensitive):
  issue: <text> | blocker: <text>          track a problem (issues upsert)
  fixed: <which> | resolved: <which>       close an open issue (issues resolve)
  decision: <text>                         record a choice (decisions append)
  reverted decision: <which> | superseded: <which>   retire a decision
  constraint: <text>                       a restriction in force (constraints upsert)
  lifted constraint: <which>               retire a constraint
  plan: <text>                             replace the plan (the only way to change it)
  result: <text>                           record a measurement or outcome
  task <id>: <state>                       the latest state of a task (the id has a digit or - _ . :)
  learned: <text> | learning: <text>       reusable knowledge
  [bucket/operation target_id] <text>      exactly that write, e.g. [issues/resolve pandas_import] pinned 2.1
Name rows by their snake_case id ("fixed: pandas_import"; "issue: pandas_import: pandas fails to import", or with the id
at the end: "issue: pandas fails to import (pandas_import)" or "[pandas_import]"); one id per note. The id you state
is the row's id, so "fixed: pandas_import" finds it later. Only a lower-case id with an underscore counts ("(v2)" is text).
Changing an existing row's text, or reopening a closed one, needs its id. Decisions are append-only: a new decision
cannot take an id another decision has or had (supersede the old one and give the new one its own id). A reference without an id binds only when
one row holds every distinctive word of it (at least two, or most of the row's own words); generic words (blocker,
issue, bug) never bind among other words. Alone after a pointer back they name a kind: "the earlier blocker" (or
that / the previous / the same blocker) closes the one issue reported with blocker:, "that issue" or "the earlier
bug" the one open issue; a bare "the bug" names nothing. Anything less waits in the pending queue for a later note
or a human curator.
Plain sentences are read conservatively: questions, hedges, negations, reported speech and narration are ignored.
Tool output (kind tool_result) may add results and learnings; any other write from it waits for a curator.
A note may be long, but a promoted statement carries at most 8192 bytes of text.`

// WriteNoteArgs are the arguments of write_note.
type WriteNoteArgs struct {
	Content string `json:"content" jsonschema:"The note: one statement, ideally in the note grammar (issue:, fixed:, decision:, ... see the instructions). Notes up to the configured size are kept; promotion rejects a statement of more than 8192 bytes (rule size_limit)."`
	Kind    string `json:"kind,omitempty" jsonschema:"agent (your own words, the default) or tool_result (output of a tool you ran)."`
	TaskID  string `json:"task_id,omitempty" jsonschema:"The task the note belongs to (letters, digits, . _ : -); results and 'task: <state>' notes use it."`
	Promote bool   `json:"promote,omitempty" jsonschema:"true: promote your pending notes (this one included) into shared state now and return each outcome. Default false: the note stays in your working memory until promote_notes."`
}

// WriteNoteResult is the result of write_note.
type WriteNoteResult struct {
	Note      memory.Note      `json:"note"`
	Outcomes  []memory.Outcome `json:"outcomes,omitempty"`
	Retried   []memory.Outcome `json:"retried,omitempty"`
	Remaining int              `json:"remaining,omitempty"`
}

// PromoteNotesArgs are the arguments of promote_notes.
type PromoteNotesArgs struct {
	Limit *int `json:"limit,omitempty" jsonschema:"Promote at most this many notes in this call, 1 to 500 (default 200); the result says how many remain."`
}

func registerNotes(s *server.MCPServer, svc Services) {
	p := svc.Promotion
	add(s, svc, mcp.NewTool("write_note",
		mcp.WithDescription("Write a note to your working memory; promotion (promote: true, or promote_notes) reads it into the team's shared state (plan, constraints, issues, decisions, results, task states, learnings) through an audited ledger. Write in the note grammar of the instructions. Returns the note, and with promote the outcome of each note: committed, pending, ignored or rejected."),
		mcp.WithInputSchema[WriteNoteArgs](), mcp.WithOutputSchema[WriteNoteResult](),
	), func(ctx context.Context, a WriteNoteArgs) (WriteNoteResult, string, error) {
		n, err := p.WriteNote(ctx, memory.NoteWrite{Text: a.Content, Kind: memory.NoteKind(a.Kind), TaskID: a.TaskID})
		if err != nil {
			return WriteNoteResult{}, "", err
		}
		res := WriteNoteResult{Note: n}
		text := fmt.Sprintf("note %d saved to working memory", n.ID)
		if !a.Promote {
			return res, text + " (call promote_notes, or write with promote: true, to share it)", nil
		}
		rep, err := p.Promote(ctx, 0)
		res.Outcomes, res.Retried, res.Remaining = rep.Outcomes, rep.Retried, rep.Remaining
		return res, text + "\n" + renderReport(rep), err
	})

	add(s, svc, mcp.NewTool("promote_notes",
		mcp.WithDescription("Promote your notes not yet promoted, oldest first. Returns each outcome (committed, pending: an ambiguous reference waits rather than guess, ignored, rejected) and those of pending items retried after a commit."),
		mcp.WithInputSchema[PromoteNotesArgs](), mcp.WithOutputSchema[memory.PromotionReport](),
	), func(ctx context.Context, a PromoteNotesArgs) (memory.PromotionReport, string, error) {
		limit, err := count("limit", a.Limit)
		if err != nil {
			return memory.PromotionReport{}, "", err
		}
		rep, err := p.Promote(ctx, limit)
		return rep, renderReport(rep), err
	})
}

func renderReport(rep memory.PromotionReport) string {
	text := list("outcomes", rep.Outcomes, func(o memory.Outcome) string { return "- " + o.Summary() })
	if len(rep.Retried) > 0 {
		text += "\n" + list("pending retries", rep.Retried, func(o memory.Outcome) string { return "- " + o.Summary() })
	}
	if rep.Remaining > 0 {
		text += fmt.Sprintf("\n%d more notes wait: call promote_notes again", rep.Remaining)
	}
	return text
}
