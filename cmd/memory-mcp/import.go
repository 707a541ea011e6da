package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/tools"
)

// importWrite is one write an import asks of a store that holds memory:
// a call of a tool that writes, made as an identity, through the write
// gates like any other call.
type importWrite struct {
	as   memory.Identity
	tool string // remember or publish_fact
	// key is the call's idempotency key, made from what is imported, so
	// that a second import of the same thing is a repeat the gates answer
	// without writing.
	key string
	// origin names what is imported for good (see store.Call.Origin):
	// the write claims it, and no later import writes it again.
	origin string
	// memoryID and factID are the export's memory or fact the write
	// carries, "" for none: a merge does not write one the store holds
	// already in any state (a memory) or holds retracted (a fact).
	memoryID, factID string
	args             any // the tool's arguments
	what             string
}

// importOutcome counts how an import's writes ended.
type importOutcome struct {
	// stored, duplicate, merged, unchanged, replayed, held, rejected; and
	// what was not written as the store holds it already (see skipHeld)
	Outcomes map[string]int `json:"outcomes"`
	Skipped  map[string]int `json:"skipped"` // records a merge does not carry, by kind
	Failures []string       `json:"failures,omitempty"`
	Unread   []string       `json:"unread,omitempty"` // what of a folder was not read, and why
}

func newImportOutcome() *importOutcome {
	return &importOutcome{Outcomes: map[string]int{}, Skipped: map[string]int{}}
}

// importWrites are an import's writes, handed over a batch at a time so
// that an import holds one batch in memory, not the file: each calls apply
// with every batch in turn; total is how many writes there are in all.
type importWrites struct {
	total int
	each  func(apply func([]importWrite) error) error
}

// writesOf is writes as importWrites: one batch.
func writesOf(writes []importWrite) importWrites {
	return importWrites{total: len(writes), each: func(apply func([]importWrite) error) error { return apply(writes) }}
}

// importBatch is how many writes of an export a merge holds at once (a
// few megabytes); each batch also scans the store once for what earlier
// merges wrote (HeldForImport), so not too few.
var importBatch = 5000

// applyWrites runs each write through the gates in front of its tool on
// the app a, batch by batch. The rate limits are left out: they stop a
// runaway agent, and an import is an operator's act, one write after another.
func applyWrites(ctx context.Context, a *app, writes importWrites, out *importOutcome, progress func(done, total int)) error {
	a.gates.Limits, a.gates.Budget = nil, 0
	done := 0
	err := writes.each(func(batch []importWrite) error {
		kept, err := skipHeld(ctx, a.db, batch, out)
		if err != nil {
			return err
		}
		done += len(batch) - len(kept)
		for _, w := range kept {
			outcome := applyWrite(ctx, a, w)
			if strings.HasPrefix(outcome, "rejected") {
				if len(out.Failures) < 20 {
					out.Failures = append(out.Failures, w.what+": "+strings.TrimPrefix(outcome, "rejected: "))
				}
				outcome = "rejected"
			}
			out.Outcomes[outcome]++
			if done++; progress != nil && done%100 == 0 {
				progress(done, writes.total)
			}
		}
		return nil
	})
	if err == nil && progress != nil {
		progress(done, writes.total)
	}
	return err
}

// Outcomes of what a merge import leaves out as the store holds it already.
const (
	outcomeImportedBefore = "imported before"      // an earlier import claimed its origin
	outcomeInStore        = "already in the store" // the store holds the memory, in whatever state
	outcomeRetractedHere  = "retracted in the store"
)

// skipHeld counts out, and returns writes without, what the store holds
// already, however long ago and in whatever state it came: what an earlier
// import brought in (its origin), a memory the store holds by its id
// (active, superseded, consolidated, archived, forgotten) or a merge import
// made a memory of, and a fact the store holds retracted. An import never
// brings back what the store let go, and a second import writes nothing.
// Each write's own transaction claims its origin too, so that of two
// imports at once only one writes.
func skipHeld(ctx context.Context, db *store.DB, writes []importWrite, out *importOutcome) ([]importWrite, error) {
	var origins, memories, facts []string
	for _, w := range writes {
		origins = append(origins, w.origin)
		if w.memoryID != "" {
			memories = append(memories, w.memoryID)
		}
		if w.factID != "" {
			facts = append(facts, w.factID)
		}
	}
	held, err := db.HeldForImport(ctx, origins, memories, facts)
	if err != nil {
		return nil, err
	}
	kept := writes[:0:0]
	for _, w := range writes {
		switch {
		case held.Origins[w.origin]:
			out.Outcomes[outcomeImportedBefore]++
		case w.memoryID != "" && held.Memories[w.memoryID]:
			out.Outcomes[outcomeInStore]++
		case w.factID != "" && held.Retracted[w.factID]:
			out.Outcomes[outcomeRetractedHere]++
		default:
			kept = append(kept, w)
		}
	}
	return kept, nil
}

// applyWrite makes one write and says how it ended.
func applyWrite(ctx context.Context, a *app, w importWrite) string {
	args, err := canonicalArgs(w.args)
	if err != nil {
		return "rejected: " + err.Error()
	}
	ctx = memory.WithIdentity(ctx, w.as)
	res, _, err := a.gates.Run(ctx, memory.WriteCall{Tool: w.tool, Key: w.key, Args: args}, func(ctx context.Context) (any, string, error) {
		if c := store.CallFrom(ctx); c != nil {
			c.Origin = w.origin
		}
		return a.run(ctx, w.tool, args)
	})
	switch {
	case errors.Is(err, store.ErrImported):
		return outcomeImportedBefore
	case memory.ErrorCode(err) == string(memory.EHELD):
		return "held"
	case err != nil:
		return "rejected: " + errorText(err)
	}
	switch res.(type) {
	case []byte, json.RawMessage: // the first call's result, returned again
		return "replayed"
	}
	var r struct {
		Outcome string `json:"outcome"`
	}
	b, _ := json.Marshal(res)
	json.Unmarshal(b, &r)
	if r.Outcome == "" {
		return "stored"
	}
	return r.Outcome
}

// canonicalArgs renders a tool's arguments as the gates see a call's: JSON
// with its keys sorted.
func canonicalArgs(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// exportedMemory and exportedFact are the columns of an export's memory
// and fact records that a merge reads.
type exportedMemory struct {
	ID               string  `json:"id"`
	AgentID          string  `json:"agent_id"`
	Namespace        string  `json:"namespace"`
	Category         string  `json:"category"`
	Content          string  `json:"content"`
	Tags             string  `json:"tags"`
	Confidence       float64 `json:"confidence"`
	Source           *string `json:"source"`
	Shared           int     `json:"shared"`
	OccurredAt       int64   `json:"occurred_at"`
	ExpiresAt        *int64  `json:"expires_at"`
	AuthorSeniority  *string `json:"author_seniority"`
	AuthorAutonomy   *string `json:"author_autonomy"`
	AuthorIsHuman    int     `json:"author_is_human"`
	CreatedAt        int64   `json:"created_at"`
	ForgottenAt      *int64  `json:"forgotten_at"`
	ForgottenBy      *string `json:"forgotten_by"`
	ForgetReason     *string `json:"forget_reason"`
	ArchivedAt       *int64  `json:"archived_at"`
	ArchiveReason    *string `json:"archive_reason"`
	ConsolidatedInto *string `json:"consolidated_into"`
	SupersededBy     *string `json:"superseded_by"`
	PublishedFrom    *string `json:"published_from"`
}

type exportedFact struct {
	FactID          string  `json:"fact_id"`
	Content         string  `json:"content"`
	Category        string  `json:"category"`
	Tags            string  `json:"tags"`
	RetractedAt     *int64  `json:"retracted_at"`
	Version         int     `json:"version"`
	AuthorAgentID   string  `json:"author_agent_id"`
	AuthorSeniority *string `json:"author_seniority"`
	AuthorAutonomy  *string `json:"author_autonomy"`
	AuthorIsHuman   int     `json:"author_is_human"`
}

// exportWrites reads a memory-mcp export into the writes that carry its
// meaning into a store that holds memory: each active personal memory is
// remembered again, and each standing fact published again, as the
// importing identity as: a file proves nothing about who wrote it, so no
// record's author, human or seniority is taken from it; a memory's author
// is kept as text in its source. What no tool can write as it was (history, forgotten,
// archived and superseded memories, shared copies, conflicts, blocks,
// notes, the ledger, approvals) is counted as skipped, never brought back
// as active: an import never revives what was refuted.
//
// The file is read twice: once whole, every line and the trailer's count
// and checksum checked and what is skipped counted, before anything is
// written; then again, a batch of writes at a time, as they are applied,
// so that a merge's memory does not grow with the file.
func exportWrites(in io.ReadSeeker, out *importOutcome, now time.Time, as memory.Identity) (importWrites, error) {
	var w importWrites
	if err := readWrites(in, out, now, as, func(importWrite) error { w.total++; return nil }); err != nil {
		return w, err
	}
	w.each = func(apply func([]importWrite) error) error {
		if _, err := in.Seek(0, io.SeekStart); err != nil {
			return err
		}
		batch := make([]importWrite, 0, importBatch)
		var applyErr error // not the file's fault: not reported as a bad line
		err := readWrites(in, nil, now, as, func(w importWrite) error {
			if batch = append(batch, w); len(batch) < importBatch {
				return nil
			}
			applyErr = apply(batch)
			batch = batch[:0]
			return applyErr
		})
		switch {
		case applyErr != nil:
			return applyErr
		case err != nil: // the file changed since it was checked
			return fmt.Errorf("the file changed while it was imported: %s", errorText(err))
		case len(batch) > 0:
			return apply(batch)
		}
		return nil
	}
	return w, nil
}

// readWrites reads the export r and calls fn with each write it asks for,
// counting in out, unless nil, what it skips.
func readWrites(r io.Reader, out *importOutcome, now time.Time, as memory.Identity, fn func(importWrite) error) error {
	skip := func(what string) {
		if out != nil {
			out.Skipped[what]++
		}
	}
	_, err := store.ReadExport(r, func(kind string, row json.RawMessage) error {
		switch kind {
		case "memory":
			var m exportedMemory
			if err := json.Unmarshal(row, &m); err != nil {
				return err
			}
			if m.Shared == 1 || m.ForgottenAt != nil || m.ArchivedAt != nil || m.SupersededBy != nil || (m.ExpiresAt != nil && *m.ExpiresAt <= now.UnixNano()) {
				skip("memory not active")
				return nil
			}
			return fn(memoryWrite(m, as))
		case "fact":
			var f exportedFact
			if err := json.Unmarshal(row, &f); err != nil {
				return err
			}
			if f.RetractedAt != nil {
				skip("fact retracted")
				return nil
			}
			return fn(factWrite(f, as))
		default:
			skip(kind)
		}
		return nil
	})
	return err
}

func memoryWrite(m exportedMemory, as memory.Identity) importWrite {
	var tags []string
	json.Unmarshal([]byte(m.Tags), &tags)
	args := tools.RememberArgs{Content: m.Content, Category: m.Category, Namespace: m.Namespace, Tags: tags,
		OccurredAt: time.Unix(0, m.OccurredAt).UTC().Format(time.RFC3339Nano)}
	if m.Confidence != 1 {
		args.Confidence = &m.Confidence
	}
	args.Source = "imported: memory " + m.ID + " of agent " + m.AgentID
	if m.Source != nil {
		args.Source += "; source: " + *m.Source
	}
	if len(args.Source) > memory.MaxSourceLen {
		args.Source = strings.ToValidUTF8(args.Source[:memory.MaxSourceLen], "")
	}
	if m.ExpiresAt != nil {
		args.ExpiresAt = time.Unix(0, *m.ExpiresAt).UTC().Format(time.RFC3339Nano)
	}
	return importWrite{as: as, tool: "remember", key: "import:" + m.ID, origin: "memory " + m.ID, memoryID: m.ID,
		args: args, what: "memory " + m.ID}
}

func factWrite(f exportedFact, as memory.Identity) importWrite {
	var tags []string
	json.Unmarshal([]byte(f.Tags), &tags)
	return importWrite{as: as, tool: "publish_fact",
		key:    fmt.Sprintf("import:fact:%s:v%d", f.FactID, f.Version),
		origin: fmt.Sprintf("fact %s v%d %s", f.FactID, f.Version, f.Content), factID: f.FactID,
		args: tools.PublishFactArgs{FactID: f.FactID, Content: f.Content, Category: f.Category, Tags: tags}, what: "fact " + f.FactID}
}

// mergeImport applies writes to the data directory's store through the
// gates, or with dryRun to a backup of it made for the purpose and thrown
// away after, so that what it says would change is what the gates decide.
// The backup is made in the data directory (see makeDryRunDir): one that a
// killed dry run leaves is removed when the directory is next opened.
func mergeImport(ctx context.Context, cfg *Config, writes importWrites, dryRun bool, out *importOutcome, stderr io.Writer) error {
	run := *cfg
	if dryRun {
		tmp, err := makeDryRunDir(cfg.DataDir)
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		db, _, err := openStore(ctx, cfg)
		if err != nil {
			return err
		}
		key, _, err := provenanceKey(ctx, cfg, db)
		switch {
		case err != nil:
		case cfg.Database != "": // a copy of PostgreSQL's memory through its export
			err = copyThroughExport(ctx, db, key, filepath.Join(tmp, store.FileName))
		default:
			err = db.Backup(ctx, filepath.Join(tmp, store.FileName))
		}
		db.Close()
		if err != nil {
			return err
		}
		run.DataDir, run.ProvenanceKey, run.Database = tmp, fmt.Sprintf("%x", key), ""
		run.Backup.Dir = ""
	}
	a, err := openApp(ctx, &run, newLogger(&run, io.Discard))
	if err != nil {
		return err
	}
	defer a.Close()
	err = applyWrites(ctx, a, writes, out, progressBar(stderr, "import", time.Now()))
	fmt.Fprintln(stderr)
	return err
}

// writeOutcome renders what a merge did (or, dry, would do).
func writeOutcome(w io.Writer, out *importOutcome, dryRun bool) {
	verb := "imported"
	if dryRun {
		verb = "a dry run (nothing was stored) would import"
	}
	fmt.Fprintf(w, "%s through the write gates: %s\n", verb, renderCounts(out.Outcomes))
	if len(out.Skipped) > 0 {
		fmt.Fprintf(w, "left out (a merge into a store that holds memory carries only active memories and standing facts): %s\n", renderCounts(out.Skipped))
	}
	for _, f := range out.Failures {
		fmt.Fprintf(w, "  rejected %s\n", f)
	}
	for _, u := range out.Unread {
		fmt.Fprintf(w, "  not read %s\n", u)
	}
}

// renderCounts renders counts as "stored 3, duplicate 1", by name.
func renderCounts(m map[string]int) string {
	if len(m) == 0 {
		return "nothing"
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	var parts []string
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
