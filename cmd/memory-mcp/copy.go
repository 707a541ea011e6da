package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// copyFlags are copy's own flags.
type copyFlags struct {
	to string // the PostgreSQL database to copy into; empty: --database
}

func (f *copyFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.to, "to", "", "the new, empty PostgreSQL database to copy into (postgres://user@host:5432/db); default: --database")
}

// copyToPostgres copies the data directory's SQLite memory into an empty
// PostgreSQL database (store.Copy says why a table copy) and checks the
// result: every table holds the rows it held, every row verifies under the
// data directory's provenance key, which the servers on the new database
// must use (MEMORY_MCP_PROVENANCE_KEY, or the same key file), and searches
// find the same memories on both.
func copyToPostgres(ctx context.Context, cfg *Config, f *copyFlags, stdout io.Writer) error {
	target, source := f.to, "flag --to"
	if target == "" {
		target, source = cfg.Database, cfg.databaseSource()
	}
	if target == "" {
		return errors.New("copy: name the new, empty PostgreSQL database to copy into: --to postgres://user@host:5432/db")
	}
	if !strings.HasPrefix(target, "postgres://") && !strings.HasPrefix(target, "postgresql://") {
		return fmt.Errorf("copy: %q (from %s) is not a PostgreSQL URL: give one (postgres://user@host:5432/db)", redactDatabase(target), source)
	}
	path := filepath.Join(cfg.DataDir, store.FileName)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("copy: %s holds no %s: name the data directory whose memory to copy (--data-dir)", cfg.DataDir, store.FileName)
	}
	src, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	defer src.Close()
	key, _, err := provenanceKey(ctx, cfg, src)
	if err != nil {
		return err
	}
	if err := src.UseProvenanceKey(ctx, key); err != nil {
		return fmt.Errorf("copy: the provenance key does not match %s: %w", path, err)
	}
	dst, err := store.OpenPostgres(ctx, target)
	if err != nil {
		return fmt.Errorf("copy: %s", errorText(urlError(err, source)))
	}
	defer dst.Close()
	copied, err := src.Copy(ctx, dst)
	if err != nil {
		return fmt.Errorf("copy: %s", errorText(err))
	}
	rows, err := checkCopy(ctx, src, dst, key, copied)
	if err != nil {
		return err
	}
	searched, err := sameSearches(ctx, src, dst)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "TABLE\tROWS")
	for _, c := range copied {
		fmt.Fprintf(w, "%s\t%d\n", c.Table, c.Rows)
	}
	w.Flush()
	fmt.Fprintf(stdout, "copied %s into %s: every table holds the rows it held, %d stamped rows verify, and %d searches find the same memories.\n"+
		"Start the servers with --database and the same provenance key (MEMORY_MCP_PROVENANCE_KEY, or %s copied beside them).\n",
		path, dst.Path(), rows, searched, ProvenanceKeyFile)
	return nil
}

// checkCopy checks what Copy wrote into dst against src: each table's rows
// counted on both, and every stamped row verified under key. It returns
// how many stamped rows verified.
func checkCopy(ctx context.Context, src, dst *store.DB, key []byte, copied []store.CopiedTable) (int, error) {
	tables := make([]string, len(copied))
	for i, c := range copied {
		tables[i] = c.Table
	}
	want, err := src.RowCounts(ctx, tables)
	if err != nil {
		return 0, err
	}
	got, err := dst.RowCounts(ctx, tables)
	if err != nil {
		return 0, err
	}
	for _, t := range tables {
		if got[t] != want[t] {
			return 0, fmt.Errorf("copy: %s holds %d rows on PostgreSQL and %d in SQLite", t, got[t], want[t])
		}
	}
	if err := dst.UseProvenanceKey(ctx, key); err != nil {
		return 0, fmt.Errorf("copy: the copied database refuses the key its rows were stamped with: %w", err)
	}
	rep, err := dst.Verify(ctx)
	if err != nil {
		return 0, err
	}
	if n := len(rep.Mismatched); n > 0 {
		return 0, fmt.Errorf("copy: %d rows do not match their provenance stamps on PostgreSQL (the first: %s %s): run memory-mcp verify on the data directory",
			n, rep.Mismatched[0].Table, rep.Mismatched[0].ID)
	}
	valid := 0
	for _, t := range rep.Tables {
		valid += t.Valid
	}
	return valid, nil
}

// searchProbes is how many of an agent's memories sameSearches makes a
// query of, and how many agents it asks for, at most.
const searchProbes, searchAgents = 5, 20

// sameSearches checks that the copy finds what the original finds: for up
// to searchAgents agents, queries made of the first words of up to
// searchProbes of their memories, spread over their list, are searched on
// both engines (by keywords: the copy command loads no embedder), and
// must return the same memories in the same order. It returns how many
// queries it compared.
func sameSearches(ctx context.Context, src, dst *store.DB) (int, error) {
	var agents []string
	err := src.View(ctx, func(tx *store.Tx) error {
		var err error
		agents, err = tx.PersonalAgents(ctx, time.Time{})
		return err
	})
	if err != nil {
		return 0, err
	}
	before, after := store.NewMemoryService(src, nil), store.NewMemoryService(dst, nil)
	n := 0
	for _, agent := range agents[:min(len(agents), searchAgents)] {
		as := memory.WithIdentity(ctx, memory.Identity{AgentID: agent, Seniority: memory.SeniorityMid, Autonomy: memory.AutonomySemi})
		page, err := before.List(as, memory.ListQuery{Limit: 500})
		if err != nil {
			return n, err
		}
		step := max(1, len(page.Memories)/searchProbes)
		for i := 0; i < len(page.Memories) && i/step < searchProbes; i += step {
			words := strings.Fields(page.Memories[i].Content)
			q := memory.Query{Text: strings.Join(words[:min(len(words), 4)], " "), Limit: 10, IncludeArchived: true}
			want, werr := before.Search(as, q)
			got, gerr := after.Search(as, q)
			if werr != nil || gerr != nil {
				return n, fmt.Errorf("copy: search %q as %s: %w", q.Text, agent, errors.Join(werr, gerr))
			}
			if !slices.EqualFunc(got, want, func(a, b memory.Hit) bool { return a.ID == b.ID }) {
				return n, fmt.Errorf("copy: searching %q as %s finds %s on PostgreSQL and %s in SQLite", q.Text, agent, hitIDs(got), hitIDs(want))
			}
			n++
		}
	}
	return n, nil
}

func hitIDs(hits []memory.Hit) string {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return "[" + strings.Join(ids, " ") + "]"
}
