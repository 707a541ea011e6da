package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/internal/foreign"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/tools"
)

// exportFlags are the flags of `memory-mcp export`. Its --agent-id selects
// whose memory to export; it shadows the agent-id setting, so the caller's
// own agent id comes from the environment or the config file, as erase's.
type exportFlags struct {
	output    string
	markdown  string
	agent     string
	namespace string
	since     string
	until     string
}

func (f *exportFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.output, "output", "", "write the export to this new file (default: standard output)")
	fs.StringVar(&f.agent, "agent-id", "", "export only this agent's own memory (an agent may export only its own; a human, --human, anyone's); "+
		"your own agent id comes from MEMORY_MCP_AGENT_ID or the config file here")
	fs.StringVar(&f.markdown, "markdown", "", "instead, render the memory for people into this new or empty folder: one Markdown file per namespace, "+
		"with each memory's provenance, and facts.md")
	fs.StringVar(&f.namespace, "namespace", "", "export only the memories of this namespace")
	fs.StringVar(&f.since, "since", "", "export only what was written at or after this time (RFC 3339, or a date 2026-11-01)")
	fs.StringVar(&f.until, "until", "", "export only what was written before this time (RFC 3339, or a date)")
}

// filter is the export filter the flags ask for, as the configured
// identity may have it: an agent exports only its own memory.
func (f *exportFlags) filter(id memory.Identity) (store.ExportFilter, error) {
	out := store.ExportFilter{AgentID: f.agent, Namespace: f.namespace}
	if !id.Human {
		if f.agent != "" && f.agent != id.AgentID {
			return out, memory.Errorf(memory.EFORBIDDEN, "agent %s may export only its own memory, not agent %s's (a human exports anyone's, with --human)", id.AgentID, f.agent)
		}
		out.AgentID = id.AgentID
	}
	var err error
	if out.Since, err = parseMoment("since", f.since); err != nil {
		return out, err
	}
	if out.Until, err = parseMoment("until", f.until); err != nil {
		return out, err
	}
	if out.Since != nil && out.Until != nil && !out.Until.After(*out.Since) {
		return out, memory.Errorf(memory.EINVALID, "--until %s is not after --since %s", f.until, f.since)
	}
	return out, nil
}

// parseMoment reads an RFC 3339 time or a date (midnight UTC); "" is none.
func parseMoment(name, s string) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	for _, layout := range []string{time.RFC3339Nano, time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			t = t.UTC()
			return &t, nil
		}
	}
	return nil, memory.Errorf(memory.EINVALID, "--%s %q is not a time such as 2026-11-01 or 2026-11-01T09:30:00Z", name, s)
}

// export writes the data directory's memory, as the flags select, in the
// export format.
func export(ctx context.Context, cfg *Config, f *exportFlags, stdout, stderr io.Writer) error {
	filter, err := f.filter(cfg.Identity)
	if err != nil {
		return fmt.Errorf("%s", errorText(err))
	}
	db, _, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	if f.markdown != "" {
		files, err := exportMarkdown(ctx, db, filter, f.markdown)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %s in %s\n", strings.Join(files, ", "), f.markdown)
		return nil
	}
	w, done, err := exportOutput(f.output, stdout)
	if err != nil {
		return err
	}
	counts, err := db.Export(ctx, filter, w)
	if err = done(err); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	fmt.Fprintf(stderr, "exported %s\n", describeCounts(counts))
	return nil
}

// exportOutput is where an export goes: standard output, or a new file
// that takes its name only once whole, so that a cut export never sits
// where a whole one is expected.
func exportOutput(path string, stdout io.Writer) (io.Writer, func(error) error, error) {
	if path == "" {
		bw := bufio.NewWriter(stdout)
		return bw, func(err error) error { return errors.Join(err, bw.Flush()) }, nil
	}
	if _, err := os.Lstat(path); err == nil {
		return nil, nil, fmt.Errorf("export: %s exists: name a new file", path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".partial-*")
	if err != nil {
		return nil, nil, fmt.Errorf("export: %w", err)
	}
	bw := bufio.NewWriter(tmp)
	return bw, func(err error) error {
		err = errors.Join(err, bw.Flush())
		if err == nil {
			err = tmp.Sync()
		}
		err = errors.Join(err, tmp.Close())
		if err == nil {
			err = os.Link(tmp.Name(), path)
		}
		os.Remove(tmp.Name())
		return err
	}, nil
}

// describeCounts renders counts as "12 records (memory 10, note 2)".
func describeCounts(counts store.ExportCounts) string {
	var n int
	var per []string
	for _, k := range store.ExportKinds() {
		if c := counts[k]; c > 0 {
			n += c
			per = append(per, fmt.Sprintf("%s %d", k, c))
		}
	}
	if n == 0 {
		return "0 records"
	}
	return fmt.Sprintf("%d records (%s)", n, strings.Join(per, ", "))
}

// importFlags are the flags of `memory-mcp import`.
type importFlags struct {
	file   string
	format string
	dryRun bool
}

func (f *importFlags) define(fs *flag.FlagSet) {
	fs.BoolVar(&f.dryRun, "dry-run", false, "say what the import would store, and store nothing")
	fs.StringVar(&f.format, "format", "", "the file's format: memory-mcp (an export), "+strings.Join(foreign.Formats, ", ")+
		"; detected when not given")
}

// importFile imports FILE in its format: a memory-mcp export (see
// importExport), or another tool's memory (see importForeign).
func importFile(ctx context.Context, cfg *Config, f *importFlags, stdout, stderr io.Writer) error {
	format := f.format
	if format == "" {
		var err error
		if format, err = detectFormat(f.file); err != nil {
			return err
		}
	}
	switch {
	case format == store.ExportFormat:
		return importExport(ctx, cfg, f, stdout, stderr)
	case slices.Contains(foreign.Formats, format):
		return importForeign(ctx, cfg, f, format, stdout, stderr)
	}
	return fmt.Errorf("import: unknown --format %q: use memory-mcp, %s", format, strings.Join(foreign.Formats, ", "))
}

// detectFormat names the format of the file or folder at path.
func detectFormat(path string) (string, error) {
	header := []byte(`{"format":"` + store.ExportFormat + `"`)
	if f, err := os.Open(path); err == nil {
		b := make([]byte, len(header))
		n, _ := io.ReadFull(f, b)
		f.Close()
		if bytes.Equal(b[:n], header) {
			return store.ExportFormat, nil
		}
	}
	format, err := foreign.Detect(path)
	if errors.Is(err, foreign.ErrUnknown) {
		return "", fmt.Errorf("import: %s is of no format this build reads: name it with --format (memory-mcp, %s)", path, strings.Join(foreign.Formats, ", "))
	} else if err != nil {
		return "", fmt.Errorf("import: %w", err)
	}
	return format, nil
}

// importForeign remembers what another tool kept, as the configured
// identity (it is the caller's own memory), through the write gates: each
// item is a memory of the kind its format says, with its source naming the
// format and file, and an idempotency key made from both and the content,
// so that a second import stores nothing new.
func importForeign(ctx context.Context, cfg *Config, f *importFlags, format string, stdout, stderr io.Writer) error {
	items, unread, err := foreign.ReadSkipping(format, f.file)
	if err != nil {
		return fmt.Errorf("import %s: %w", f.file, err)
	}
	writes := make([]importWrite, 0, len(items))
	for _, it := range items {
		args := tools.RememberArgs{Content: it.Content, Category: it.Category, Tags: it.Tags, Source: it.Source}
		if !it.OccurredAt.IsZero() {
			args.OccurredAt = it.OccurredAt.Format(time.RFC3339Nano)
		}
		sum := sha256.Sum256([]byte(it.Source + "\x00" + it.Content))
		key := "import:" + format + ":" + hex.EncodeToString(sum[:16])
		writes = append(writes, importWrite{as: cfg.Identity, tool: "remember", key: key, origin: cfg.Identity.Principal() + " " + key,
			args: args, what: it.Source})
	}
	out := newImportOutcome()
	out.Unread = unread
	if err := mergeImport(ctx, cfg, writesOf(writes), f.dryRun, out, stderr); err != nil {
		return err
	}
	writeOutcome(stdout, out, f.dryRun)
	return nil
}

// importExport reads a memory-mcp export into the data directory. Into an
// empty store the import is exact: every record as it was, stamped under
// this store's key, then re-embedded. Into a store that holds memory it
// goes through the write gates (see exportWrites). Either way it is a
// human's act: it writes every agent's memory as that agent's.
func importExport(ctx context.Context, cfg *Config, f *importFlags, stdout, stderr io.Writer) error {
	if !cfg.Identity.Human {
		return fmt.Errorf("%s", errorText(memory.Errorf(memory.EFORBIDDEN, "import writes memory as the agents that wrote it: run it as a human (--human)")))
	}
	in, err := os.Open(f.file)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	defer in.Close()
	db, _, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	empty, err := db.Empty(ctx)
	if err != nil || !empty {
		db.Close()
		if err != nil {
			return err
		}
		out := newImportOutcome()
		writes, err := exportWrites(in, out, time.Now(), cfg.Identity)
		if err != nil {
			return fmt.Errorf("import %s: %s", f.file, errorText(err))
		}
		if err := mergeImport(ctx, cfg, writes, f.dryRun, out, stderr); err != nil {
			return err
		}
		writeOutcome(stdout, out, f.dryRun)
		return nil
	}
	var src io.Reader = in
	if info, err := in.Stat(); err == nil && info.Size() > 0 {
		src = &readProgress{r: in, total: info.Size(), draw: progressBar(stderr, "import kB", time.Now())}
	}
	file := f.file
	if abs, err := filepath.Abs(file); err == nil {
		file = abs
	}
	// A dry run makes the whole import, every record checked, in a
	// transaction it rolls back: nothing is written, not even a copy.
	rep, err := db.Import(ctx, src, store.ImportSource{File: file, By: cfg.Identity.Principal(), MaxContentBytes: cfg.MaxContentBytes, DryRun: f.dryRun})
	db.Close()
	if p, ok := src.(*readProgress); ok {
		if err == nil {
			p.finish()
		}
		if p.drawn {
			fmt.Fprintln(stderr)
		}
	}
	if err != nil {
		return fmt.Errorf("import %s: %s", f.file, errorText(err))
	}
	if f.dryRun {
		fmt.Fprintf(stdout, "a dry run (nothing was stored) would import %s exactly into the empty store in %s\n", describeCounts(rep.Kinds), storeName(cfg))
		return nil
	}
	fmt.Fprintf(stdout, "imported %s exactly into %s\n", describeCounts(rep.Kinds), storeName(cfg))
	if rep.Kinds["memory"] > 0 && cfg.Embedder != "none" {
		return reindex(ctx, cfg, true, stderr)
	}
	return nil
}

// readProgress draws how much of a file an exact import has read, every
// megabyte, in kB. Reading is not the whole of the import (it indexes and
// stamps what it read, then commits), so the bar stops short of the end,
// at total-1 kB, until finish says the import is done.
type readProgress struct {
	r           io.Reader
	read, total int64
	next        int64
	draw        func(done, total int)
	drawn       bool
}

func (p *readProgress) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.read += int64(n)
	if p.read >= p.next || err == io.EOF {
		p.show(min(p.read/1024, p.kB()-1))
		p.next = p.read + 1<<20
	}
	return n, err
}

// kB is the file's size in kB, rounded up: at least 1 for a file not empty.
func (p *readProgress) kB() int64 { return (p.total + 1023) / 1024 }

func (p *readProgress) show(done int64) {
	p.draw(int(done), int(p.kB()))
	p.drawn = true
}

// finish draws the bar full: the import committed.
func (p *readProgress) finish() { p.show(p.kB()) }

// storeName names where cfg's memory is, for messages: the data directory,
// or the PostgreSQL database without its password.
func storeName(cfg *Config) string {
	if cfg.Database != "" {
		return redactDatabase(cfg.Database)
	}
	return cfg.DataDir
}
