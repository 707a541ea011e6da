package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// ProvenanceKeyFile is the provenance key's file in the data directory,
// made on first run: 64 hex digits and a newline, mode 0600.
const ProvenanceKeyFile = "provenance.key"

// openStore opens the memory's database (--database, else the data
// directory's SQLite file) with its provenance key, so that every row it
// writes is stamped. Every command that writes opens it so.
func openStore(ctx context.Context, cfg *Config) (*store.DB, string, error) {
	db, err := openDatabase(ctx, cfg)
	if err != nil {
		return nil, "", err
	}
	from, err := useProvenanceKey(ctx, cfg, db)
	if err != nil {
		db.Close()
		return nil, "", err
	}
	return db, from, nil
}

// openDatabase opens the memory's database without a provenance key: the
// PostgreSQL database --database names, else memory.db in the data directory.
func openDatabase(ctx context.Context, cfg *Config) (*store.DB, error) {
	cleanDryRuns(cfg.DataDir) // a merge's dry run copies either engine's memory there
	if cfg.Database != "" {
		db, err := store.OpenPostgres(ctx, cfg.Database)
		return db, urlError(err, cfg.databaseSource())
	}
	return store.Open(ctx, filepath.Join(cfg.DataDir, store.FileName))
}

// databaseSource is where --database's value came from: a flag, the
// environment or the config file.
func (c *Config) databaseSource() string {
	return cmp.Or(c.sources["database"], "flag --database")
}

// urlError adds to err, a PostgreSQL URL's refusal, where the URL came
// from: the store's messages say what to correct "in the URL", and only
// the command knows which setting gave it. The error keeps its code. A
// refusal that is not the URL's ("written by a newer memory-mcp") is
// left as it is.
func urlError(err error, source string) error {
	if err == nil || !strings.Contains(err.Error(), "URL") {
		return err
	}
	if code := memory.ErrorCode(err); code != memory.EINTERNAL {
		return memory.Errorf(code, "%s (the URL is from %s)", memory.ErrorMessage(err), source)
	}
	return fmt.Errorf("%w (the URL is from %s)", err, source)
}

// useProvenanceKey gives db the key from MEMORY_MCP_PROVENANCE_KEY, else
// from the data directory's key file, made now if there is none, and
// returns where it came from.
func useProvenanceKey(ctx context.Context, cfg *Config, db *store.DB) (string, error) {
	key, from, err := provenanceKey(ctx, cfg, db)
	if err != nil {
		return "", err
	}
	if err := db.UseProvenanceKey(ctx, key); errors.Is(err, store.ErrProvenanceKey) {
		return "", fmt.Errorf("the provenance key from %s is not the one the rows of %s are stamped with: every process on a data directory must use the same key (unset MEMORY_MCP_PROVENANCE_KEY to use the data directory's %s, or restore the key that was used)",
			from, db.Path(), ProvenanceKeyFile)
	} else if err != nil {
		return "", err
	}
	return from, nil
}

func provenanceKey(ctx context.Context, cfg *Config, db *store.DB) ([]byte, string, error) {
	if cfg.ProvenanceKey != "" {
		key, err := decodeProvenanceKey(cfg.ProvenanceKey)
		if err != nil {
			return nil, "", fmt.Errorf("MEMORY_MCP_PROVENANCE_KEY: %w", err)
		}
		return key, "env MEMORY_MCP_PROVENANCE_KEY", nil
	}
	path := filepath.Join(cfg.DataDir, ProvenanceKeyFile)
	key, err := readProvenanceKey(path)
	if errors.Is(err, fs.ErrNotExist) {
		stamped, serr := db.HasProvenanceKey(ctx)
		if serr != nil {
			return nil, "", serr
		}
		if stamped {
			// A process starting beside this one makes the file before it
			// stamps a row: look again before calling the key lost.
			if key, err := readProvenanceKey(path); err == nil {
				return key, path, nil
			}
			return nil, "", fmt.Errorf("%s is missing, but the rows of %s are stamped with a provenance key: restore the file, or set MEMORY_MCP_PROVENANCE_KEY to the key that was used (a new key would make every stamped row read as tampered)",
				path, db.Path())
		}
		key, err = createProvenanceKey(path)
	}
	if err != nil {
		return nil, "", err
	}
	return key, path, nil
}

// decodeProvenanceKey decodes a key written as hex digits.
func decodeProvenanceKey(s string) ([]byte, error) {
	key, err := hex.DecodeString(s)
	if err != nil || len(key) != store.ProvenanceKeySize {
		return nil, fmt.Errorf("a provenance key is %d hex digits (%d random bytes, e.g. from `openssl rand -hex %d`)",
			2*store.ProvenanceKeySize, store.ProvenanceKeySize, store.ProvenanceKeySize)
	}
	return key, nil
}

// readProvenanceKey reads the key file at path, refusing one that others
// than its owner may read or write (whoever can read the key can forge
// stamps) or that does not hold exactly a key.
func readProvenanceKey(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	// Windows has no permission bits to check: its ACLs are the user's.
	if perm := info.Mode().Perm(); runtime.GOOS != "windows" && perm&0o077 != 0 {
		return nil, fmt.Errorf("%s has mode %04o: others than its owner may use it to forge provenance stamps; run `chmod 600 %s`", path, perm, path)
	}
	if n := info.Size(); n != 2*store.ProvenanceKeySize && n != 2*store.ProvenanceKeySize+1 {
		return nil, fmt.Errorf("%s holds %d bytes, not a provenance key (%d hex digits and a newline): restore it, or set MEMORY_MCP_PROVENANCE_KEY",
			path, n, 2*store.ProvenanceKeySize)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	key, err := decodeProvenanceKey(strings.TrimSuffix(string(b), "\n"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return key, nil
}

// createProvenanceKey makes a new random key at path, or reads the one
// another process made first: the key is written whole to a file of its own
// and linked into place, which fails if path exists, so no process ever
// reads a half-written key or replaces another's.
func createProvenanceKey(path string) ([]byte, error) {
	key := make([]byte, store.ProvenanceKeySize)
	rand.Read(key)
	// With the memory in PostgreSQL nothing else made the data directory.
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create provenance key: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ProvenanceKeyFile+".new-*")
	if err != nil {
		return nil, fmt.Errorf("create provenance key: %w", err)
	}
	defer os.Remove(tmp.Name())
	// CreateTemp makes the file 0600.
	_, err = tmp.WriteString(hex.EncodeToString(key) + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("write provenance key: %w", err)
	}
	if err := os.Link(tmp.Name(), path); errors.Is(err, fs.ErrExist) {
		return readProvenanceKey(path)
	} else if err != nil {
		return nil, fmt.Errorf("create provenance key: %w", err)
	}
	// The new name must reach the disk before the database records the
	// key's fingerprint: a key lost to a power cut would leave every stamp
	// unverifiable and every command refusing to start.
	dir, err := os.Open(filepath.Dir(path))
	if err == nil {
		err = errors.Join(dir.Sync(), dir.Close())
	}
	if err != nil {
		return nil, fmt.Errorf("save provenance key: %w", err)
	}
	return key, nil
}

// verifyFlags are the verify command's own flags.
type verifyFlags struct {
	json  bool
	trust bool
}

func (f *verifyFlags) define(fs *flag.FlagSet) {
	fs.BoolVar(&f.json, "json", false, "print the report as JSON")
	fs.BoolVar(&f.trust, "trust-unstamped", false, "first stamp every unstamped row (written before provenance stamps, or without a key) "+
		"as it is now: you declare its current content trusted")
}

// verifyReport is what verify prints with --json.
type verifyReport struct {
	Database string `json:"database"`
	KeyFrom  string `json:"key_from"`
	// Stamped is what --trust-unstamped stamped, per table.
	Stamped map[string]int `json:"stamped,omitempty"`
	store.ProvenanceReport
	// CountsMismatched are the counts the database keeps per space, state,
	// category and namespace (memory_counts) that differ from the memories
	// counted one by one: edited by hand.
	CountsMismatched []store.CountsMismatch `json:"counts_mismatched,omitempty"`
}

// errMismatched is verify's failure: some rows do not match their stamps.
type errMismatched int

func (n errMismatched) Error() string {
	return fmt.Sprintf("%d rows do not match their provenance stamps", int(n))
}

// verify checks every stamped table of the data directory's database
// against the provenance key, and fails when a row does not match.
func verify(ctx context.Context, cfg *Config, f *verifyFlags, stdout io.Writer) error {
	db, from, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	out := verifyReport{Database: db.Path(), KeyFrom: from}
	if f.trust {
		if out.Stamped, err = db.TrustUnstamped(ctx); err != nil {
			return err
		}
	}
	if out.ProvenanceReport, err = db.Verify(ctx); err != nil {
		return err
	}
	if out.CountsMismatched, err = db.CheckCounts(ctx); err != nil {
		return err
	}
	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		writeVerify(stdout, out)
	}
	if n := len(out.Mismatched); n > 0 {
		return errMismatched(n)
	}
	if n := len(out.CountsMismatched); n > 0 {
		return fmt.Errorf("%d of the memory counts the database keeps differ from the memories it holds", n)
	}
	return nil
}

// writeVerify renders r for a person: never a row's content, only its id.
func writeVerify(w io.Writer, r verifyReport) {
	fmt.Fprintf(w, "provenance stamps of %s (key from %s)\n", r.Database, r.KeyFrom)
	if r.Stamped != nil {
		var n int
		var per []string
		for _, t := range r.Tables {
			n += r.Stamped[t.Table]
			per = append(per, fmt.Sprintf("%s %d", t.Table, r.Stamped[t.Table]))
		}
		fmt.Fprintf(w, "stamped %d unstamped rows as they are now, trusting their content on your word (%s)\n", n, strings.Join(per, ", "))
	}
	fmt.Fprintf(w, "%-16s %10s %10s %10s %11s\n", "table", "checked", "valid", "unstamped", "mismatched")
	var unstamped int
	for _, t := range r.Tables {
		fmt.Fprintf(w, "%-16s %10d %10d %10d %11d\n", t.Table, t.Checked, t.Valid, t.Unstamped, t.Mismatched)
		unstamped += t.Unstamped
	}
	if r.Complete {
		fmt.Fprintln(w, "every row was stamped once: a row without a stamp is counted as mismatched")
	}
	if unstamped > 0 {
		fmt.Fprintf(w, "%d rows are unstamped (written before provenance stamps, or without a key): nothing says whether they changed. "+
			"`memory-mcp verify --trust-unstamped` stamps them as they are now, if you trust their content.\n", unstamped)
	}
	if len(r.Mismatched) > 0 {
		fmt.Fprintf(w, "%d rows do not match their stamps (changed since they were written, stamped with another key, or without a stamp "+
			"although every row was stamped once):\n", len(r.Mismatched))
		for _, m := range r.Mismatched {
			fmt.Fprintf(w, "  %s %s\n", m.Table, m.ID)
		}
	}
	if len(r.CountsMismatched) > 0 {
		fmt.Fprintf(w, "%d memory counts the database keeps (memory_counts) differ from the memories counted one by one (edited by hand?):\n",
			len(r.CountsMismatched))
		for _, m := range r.CountsMismatched {
			space := "agent " + m.AgentID
			if m.Shared {
				space = "shared by " + m.AgentID
			}
			fmt.Fprintf(w, "  %s, %s %s in %s: kept %d, counted %d\n", space, m.State, m.Category, m.Namespace, m.Kept, m.Counted)
		}
	} else {
		fmt.Fprintln(w, "the memory counts the database keeps match the memories")
	}
}
