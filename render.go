package memory

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// What the MCP tools, resources and prompts show a model, where more than
// one of them shows it: stored text always fenced as data after the
// directive (see Fence), the system's own fields (ids, versions, statuses)
// outside the fence. A rendering only one of them uses lives with it.

// RenderBlocks renders blocks for a model to read: the DataDirective once,
// then each block's heading (version, size, what id may do with it) and its
// description and value fenced as data, since agents wrote them.
func RenderBlocks(blocks []Block, id Identity) string {
	var b strings.Builder
	b.WriteString(DataDirective + "\n")
	for _, blk := range blocks {
		fmt.Fprintf(&b, "\n## %s (%s, version %d, %d/%d characters%s)\n", blk.Label, BlockPath(blk.BlockSummary), blk.Version, blk.Chars, blk.Limit, blockTraits(blk, id))
		b.WriteString(Fence(blk.Label+" description", blk.Description) + "\n")
		b.WriteString(Fence(blk.Label, blk.Value) + "\n")
	}
	return b.String()
}

// RenderBlockVersions renders a block's history for a model to read: per
// version its number, operation, author and time, and its value fenced as
// data (after the DataDirective, once).
func RenderBlockVersions(heading string, vs []BlockVersion) string {
	return fencedList(heading, vs, func(b *strings.Builder, v BlockVersion) {
		fmt.Fprintf(b, "\n- v%d %s by %s at %s", v.Version, v.Op, v.Author.AgentID, v.At.Format(time.RFC3339))
		switch {
		case v.Deleted:
			b.WriteString(" (deleted)\n")
			return
		case v.RestoredFrom > 0:
			fmt.Fprintf(b, " (from v%d)", v.RestoredFrom)
		}
		fmt.Fprintf(b, ", %d characters:\n%s\n", utf8.RuneCountInString(v.Value), Fence(fmt.Sprintf("%s v%d", v.Label, v.Version), v.Value))
	})
}

// fencedList renders items under a heading with their count and the
// DataDirective once, each item by write (which fences what it shows of
// stored text), or a "none" line.
func fencedList[T any](heading string, items []T, write func(*strings.Builder, T)) string {
	if len(items) == 0 {
		return heading + ": none"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d):\n%s\n", heading, len(items), DataDirective)
	for _, it := range items {
		write(&b, it)
	}
	return strings.TrimRight(b.String(), "\n")
}

// RenderBlock renders one block for a model to read: the heading of the
// system's fields, the DataDirective, then its description and its value
// with numbered lines (for insert), each fenced as data.
func RenderBlock(head string, b Block, number func(lines []string) string) string {
	body := "(empty)"
	if lines := Lines(b.Value); len(lines) > 0 {
		body = number(lines)
	}
	return head + "\n" + DataDirective + "\ndescription:\n" + Fence(b.Label+" description", b.Description) + "\n" + Fence(b.Label, body)
}

// RenderFacts renders facts for a model to read: per fact a heading of the
// system's fields (id, version, category, state, author, time), then its
// tags and content, which their author wrote, fenced as data.
func RenderFacts(heading string, fs []Fact) string {
	return fencedList(heading, fs, func(b *strings.Builder, f Fact) {
		fmt.Fprintf(b, "\n- %s (v%d, %s", f.ID, f.Version, f.Category)
		if f.RetractedAt != nil {
			fmt.Fprintf(b, ", RETRACTED %s", f.RetractedAt.Format(time.RFC3339))
		}
		if f.SupersededBy != "" {
			fmt.Fprintf(b, ", superseded by %s", f.SupersededBy)
		}
		fmt.Fprintf(b, ", by %s at %s):\n%s\n", f.Author.AgentID, f.UpdatedAt.Format(time.RFC3339), Fence("fact "+f.ID, withTags(f.Tags, f.Content)))
	})
}

// RenderFactHistory renders a fact's operations, newest last as stored:
// each one's version, type, author and time, then its content and reason
// fenced as data.
func RenderFactHistory(ops []FactOperation) string {
	if len(ops) == 0 {
		return "history: none"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "history (%d):\n", len(ops))
	for _, op := range ops {
		fmt.Fprintf(&b, "\n- v%d %s by %s at %s", op.Version, op.Type, op.Author.AgentID, op.Timestamp.Format(time.RFC3339))
		var body []string
		if op.Content != nil {
			body = append(body, *op.Content)
		}
		if op.Reason != "" {
			body = append(body, "reason: "+op.Reason)
		}
		if len(body) > 0 {
			fmt.Fprintf(&b, ":\n%s", Fence(fmt.Sprintf("fact v%d", op.Version), strings.Join(body, "\n")))
		}
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

// withTags puts tags, which their writer chose, before text, inside the
// fence they are shown in.
func withTags(tags []string, text string) string {
	if len(tags) == 0 {
		return text
	}
	return "tags: " + strings.Join(tags, ", ") + "\n" + text
}

// blockTraits says, for the block's heading, what the caller may do with it.
func blockTraits(b Block, id Identity) string {
	var t []string
	if b.Shared {
		t = append(t, "shared by "+b.OwnerName())
	}
	switch {
	case b.CheckWrite(id) == nil:
	case b.ReadOnly:
		t = append(t, "read-only")
	default:
		t = append(t, "you cannot edit it")
	}
	if len(t) == 0 {
		return ""
	}
	return ", " + strings.Join(t, ", ")
}

// RowBlock renders one row: a heading of the system's own fields (bucket,
// id, status, version), then what notes wrote into it (text, task state,
// close reason) fenced as data.
func RowBlock(r StateRow) string {
	head := fmt.Sprintf("- %s/%s (%s", r.Bucket, r.ID, r.Status)
	if r.Version > 0 {
		head += fmt.Sprintf(", version %d", r.Version)
	}
	var body []string
	if r.State != "" {
		body = append(body, "state: "+r.State)
	}
	if r.Text != "" {
		body = append(body, r.Text)
	}
	if r.CloseReason != "" {
		body = append(body, "closed: "+r.CloseReason)
	}
	return head + ")\n" + Fence(string(r.Bucket)+"/"+r.ID, strings.Join(body, "\n"))
}

// RenderPending renders a page of the pending queue for a model to read:
// per item its id, write, attempts, reason and candidates, and the note it
// came from fenced as data (or a word that it is private).
func RenderPending(l PendingList) string {
	if len(l.Pending) == 0 {
		return fmt.Sprintf("pending: none (%d in all)", l.Total)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "pending (%d of %d):\n\n%s\n", len(l.Pending), l.Total, DataDirective)
	for _, p := range l.Pending {
		fmt.Fprintf(&b, "\n- #%d %s/%s", p.ID, p.Request.Bucket, p.Request.Operation)
		if p.Request.TargetID != "" {
			b.WriteString(" " + p.Request.TargetID)
		}
		fmt.Fprintf(&b, " by %s, %s, attempts %d", p.Agent, p.Status, p.Attempts)
		if p.Stale {
			b.WriteString(", STALE (waits for a curator)")
		}
		b.WriteString(": " + p.Reason)
		for _, c := range p.Candidates {
			fmt.Fprintf(&b, " %s=%.2f", c.TargetID, c.Score)
		}
		if p.Redacted {
			fmt.Fprintf(&b, "\n  (the note is private to %s)\n", p.Agent)
			continue
		}
		fmt.Fprintf(&b, "\n%s\n", Fence(fmt.Sprintf("note %d by %s", p.NoteID, p.Agent), p.RawInput))
	}
	if more := l.Total - len(l.Pending); more > 0 {
		fmt.Fprintf(&b, "\n... and %d more: raise limit to see them\n", more)
	}
	return strings.TrimRight(b.String(), "\n")
}

// CorePoliciesMarkdown renders the core policies in force as markdown for a
// system prompt. Superseded policies are listed apart so that they are not
// obeyed by mistake.
func CorePoliciesMarkdown(ctx context.Context, facts FactService) (string, error) {
	var active, superseded []Fact
	for offset := 0; ; {
		page, err := facts.List(ctx, FactCorePolicy, offset, 500)
		if err != nil {
			return "", err
		}
		for _, f := range page.Facts {
			if f.SupersededBy != "" {
				superseded = append(superseded, f)
			} else {
				active = append(active, f)
			}
		}
		offset += len(page.Facts)
		if len(page.Facts) == 0 || offset >= page.Total {
			break
		}
	}
	var b strings.Builder
	b.WriteString("# Core policies\n\n")
	if len(active) == 0 {
		b.WriteString("No core policies are in force.\n")
	}
	for _, f := range active {
		fmt.Fprintf(&b, "- **%s** (v%d): %s\n", f.ID, f.Version, strings.Join(strings.Fields(f.Content), " "))
	}
	if len(superseded) > 0 {
		b.WriteString("\n## Superseded, pending review (do not follow)\n\n")
		for _, f := range superseded {
			fmt.Fprintf(&b, "- %s: replaced by %s\n", f.ID, f.SupersededBy)
		}
	}
	return b.String(), nil
}
