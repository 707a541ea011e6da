package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

// inFiles returns the files of dir whose raw bytes hold s, as written or
// in lower case (the full-text index keeps words lower-cased). On the
// PostgreSQL pass the memory is not in dir but in the database's relation
// files in the cluster's data directory: those are read too, after a
// checkpoint has written every page the server holds in memory to them.
func inFiles(t *testing.T, dir, s string) []string {
	t.Helper()
	var found []string
	if u := databaseFor(t, dir); u != "" {
		db, err := storetest.OpenPostgresSQL(u)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec(`CHECKPOINT`); err != nil {
			t.Fatal(err)
		}
		found = storetest.PostgresFilesHolding(t, db, s)
	}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(s)) || bytes.Contains(b, []byte(strings.ToLower(s))) {
			found = append(found, filepath.Base(path))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// A human erases a text over MCP: every memory, shared copy, note and ledger
// row quoting it goes, an agent is refused, and afterwards no file in the
// data directory holds the bytes.
func TestEraseOverMCP(t *testing.T) {
	const secret = "Vorpalwidget"
	dir := t.TempDir()
	ann := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "ann"}})
	var m struct {
		ID string `json:"id"`
	}
	ann.ok("remember", map[string]any{"content": "The staging password is " + secret + "-42.", "tags": []string{"ops"},
		"idempotency_key": "k-1"}, &m)
	ann.ok("publish_memory", map[string]any{"id": m.ID}, nil)
	ann.ok("remember", map[string]any{"content": "the staging password is " + secret + "-42"}, nil) // a repeat keeps these words
	ann.ok("remember", map[string]any{"content": "The staging host is db-staging-1."}, nil)
	ann.ok("write_note", map[string]any{"text": "issue: rotate " + secret + " on staging", "promote": true}, nil)
	ann.ok("search_memory", map[string]any{"query": secret}, nil)
	ann.fail("erase", map[string]any{"contains": secret, "reason": "leaked secret"}, "EFORBIDDEN", "human")
	ann.stop()
	if found := inFiles(t, dir, secret); len(found) == 0 {
		t.Fatal("the secret is in no file before the erase: the check below could not fail")
	}

	olivia := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "olivia", "--human"}})
	olivia.fail("erase", map[string]any{"reason": "nothing named"}, "EINVALID", "nothing selected")
	olivia.fail("erase", map[string]any{"contains": secret}, "EINVALID", "reason")
	olivia.fail("erase", map[string]any{"ids": []string{m.ID, "mem-000000000000"}, "reason": "x"}, "ENOTFOUND", "mem-000000000000")
	var dry, rep struct {
		Erasure  int64          `json:"erasure"`
		DryRun   bool           `json:"dry_run"`
		Counts   map[string]int `json:"counts"`
		Scrubbed bool           `json:"scrubbed"`
	}
	olivia.ok("erase", map[string]any{"contains": strings.ToUpper(secret), "reason": "leaked secret", "dry_run": true}, &dry)
	olivia.ok("erase", map[string]any{"contains": secret, "reason": "leaked secret"}, &rep)
	if !dry.DryRun || dry.Counts["memories"] != 2 || rep.Counts["memories"] != 2 || rep.Counts["notes"] != 1 ||
		rep.Counts["ledger_events"] != 1 || rep.Counts["shared_state"] != 1 || rep.Counts["idempotency_keys"] != 1 || rep.Counts["approvals"] != 2 || rep.Counts["repeats"] != 1 || !rep.Scrubbed || rep.Erasure == 0 {
		t.Fatalf("dry run %+v, erase %+v", dry, rep)
	}
	olivia.fail("erase", map[string]any{"ids": []string{m.ID}, "reason": "again"}, "ENOTFOUND", m.ID)
	olivia.stop()

	ann = startIn(t, options{dataDir: dir, args: []string{"--agent-id", "ann"}})
	var found struct {
		Results []struct {
			ID string `json:"id"`
		} `json:"results"`
	}
	ann.ok("search_memory", map[string]any{"query": "staging password"}, &found)
	for _, r := range found.Results {
		if r.ID == m.ID {
			t.Errorf("search still finds the erased memory")
		}
	}
	// The key's kept result quoted the memory: it went, so a retry runs again.
	var again struct {
		ID string `json:"id"`
	}
	ann.ok("remember", map[string]any{"content": "The staging password was rotated.", "tags": []string{"ops"}, "idempotency_key": "k-1"}, &again)
	if again.ID == m.ID {
		t.Errorf("the idempotency key still answers with the erased memory")
	}
	ann.stop()
	if found := inFiles(t, dir, secret); len(found) > 0 {
		t.Fatalf("after erase the secret's bytes are still in %v", found)
	}
}

// memoryMCP runs a subcommand of the binary on dir and returns its output.
func memoryMCP(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(binary(t), append(args, "--data-dir", dir)...)
	cmd.Env = append(cleanEnv(t, dir), "MEMORY_MCP_EMBEDDER=none") // in the environment: not every command reads it as a flag
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// The erase and gc commands: erase runs as the configured identity, which
// must be a human's; gc purges what was forgotten past its grace, and the
// bytes leave the files.
func TestEraseAndGCCommands(t *testing.T) {
	const secret = "Brindlequork"
	dir := t.TempDir()
	ann := start(t, options{dataDir: dir, args: []string{"--agent-id", "ann", "--embedder", "none"}})
	var keep, gone, forgotten struct {
		ID string `json:"id"`
	}
	ann.ok("remember", map[string]any{"content": "Ask " + secret + " about the budget."}, &gone)
	ann.ok("remember", map[string]any{"content": "The budget review is in March."}, &keep)
	ann.ok("remember", map[string]any{"content": "Old note: Zanthrope owes a reply."}, &forgotten)
	ann.ok("forget", map[string]any{"id": forgotten.ID, "reason": "answered"}, nil)
	ann.stop()

	if out, err := memoryMCP(t, dir, "erase", "--agent-id", "ann", "--contains", secret, "--reason", "request 9"); err == nil ||
		!strings.Contains(out, "only a human") {
		t.Fatalf("erase as an agent: %v\n%s", err, out)
	}
	if out, err := memoryMCP(t, dir, "erase", "--human", "--reason", "request 9"); err == nil || !strings.Contains(out, "nothing selected") {
		t.Fatalf("erase with no selector: %v\n%s", err, out)
	}
	out, err := memoryMCP(t, dir, "erase", "--human", "--id", gone.ID, "--reason", "request 9", "--dry-run")
	if err != nil || !strings.Contains(out, "would erase:") || !strings.Contains(out, "memories 1") {
		t.Fatalf("erase --dry-run: %v\n%s", err, out)
	}
	out, err = memoryMCP(t, dir, "erase", "--human", "--agent-id", "ann", "--contains", secret, "--reason", "request 9")
	if err != nil || !strings.Contains(out, "erased:") || !strings.Contains(out, "memories 1") || !strings.Contains(out, "no file in the data directory") {
		t.Fatalf("erase: %v\n%s", err, out)
	}
	if found := inFiles(t, dir, secret); len(found) > 0 {
		t.Fatalf("after erase the bytes are still in %v", found)
	}
	if found := inFiles(t, dir, "Zanthrope"); len(found) == 0 {
		t.Fatal("the forgotten memory is in no file before gc")
	}
	out, err = memoryMCP(t, dir, "gc", "--agent-id", "ann")
	if err != nil || !strings.Contains(out, "nothing forgotten") {
		t.Fatalf("gc within the grace period: %v\n%s", err, out)
	}
	out, err = memoryMCP(t, dir, "gc", "--agent-id", "ann", "--grace", "0")
	if err != nil || !strings.Contains(out, "memories 1") {
		t.Fatalf("gc --grace 0: %v\n%s", err, out)
	}
	if found := inFiles(t, dir, "Zanthrope"); len(found) > 0 {
		t.Fatalf("after gc the forgotten memory's bytes are still in %v", found)
	}
	ann = start(t, options{dataDir: dir, args: []string{"--agent-id", "ann", "--embedder", "none"}})
	ann.ok("recall_memory", map[string]any{"ids": []string{keep.ID}}, nil)
	ann.fail("recall_memory", map[string]any{"ids": []string{forgotten.ID}}, "ENOTFOUND", forgotten.ID)
}

// TestEraseTextKeptAsJSON erases a text with characters JSON escapes ("&",
// "<"): a held core policy quoting it (its arguments kept as JSON), and a
// fact published with an idempotency key (its result kept as JSON). The
// hold goes, so no one can approve it into a fact afterwards, and so does
// the key's result; no file keeps the text in either form.
func TestEraseTextKeptAsJSON(t *testing.T) {
	dir := t.TempDir()
	sam := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "sam", "--seniority", "senior"}})
	sam.fail("publish_fact", map[string]any{"fact_id": "vault", "content": "The vault token is Zq&vault-77.", "category": "core_policy",
		"idempotency_key": "held-1"}, "EHELD", "")
	sam.ok("publish_fact", map[string]any{"fact_id": "door", "content": "The door code is <vault> 4411.", "category": "convention",
		"idempotency_key": "door-1"}, nil)
	// A note's result names only the note; its key still holds the hash of
	// arguments that quote the text.
	sam.ok("write_note", map[string]any{"text": "the side door uses <vault> too", "idempotency_key": "note-1"}, nil)
	sam.stop()
	for _, s := range []string{`vault-77`, `vault\u003e`} {
		if len(inFiles(t, dir, s)) == 0 {
			t.Fatalf("%s is in no file before the erase: the check below could not fail", s)
		}
	}
	olivia := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "olivia", "--human"}})
	var list struct {
		Approvals []struct{ ID string } `json:"approvals"`
	}
	olivia.ok("list_approvals", map[string]any{"status": "pending"}, &list)
	var rep struct {
		Counts map[string]int `json:"counts"`
	}
	olivia.ok("erase", map[string]any{"contains": "Zq&vault-77", "reason": "leaked token"}, &rep)
	if rep.Counts["approvals"] < 1 || rep.Counts["idempotency_keys"] != 1 {
		t.Fatalf("erase of the held text: %+v", rep.Counts)
	}
	olivia.ok("erase", map[string]any{"contains": "<vault>", "reason": "leaked code"}, &rep)
	if rep.Counts["facts"] != 1 || rep.Counts["notes"] != 1 || rep.Counts["idempotency_keys"] != 2 {
		t.Fatalf("erase of the published text: %+v", rep.Counts)
	}
	for _, a := range list.Approvals {
		olivia.fail("decide_approval", map[string]any{"id": a.ID, "approve": true, "reason": "ok"}, "ENOTFOUND", "")
	}
	olivia.fail("get_fact", map[string]any{"fact_id": "vault"}, "ENOTFOUND", "")
	olivia.stop()
	for _, s := range []string{"vault-77", `vault\u003e`, "<vault>"} {
		if found := inFiles(t, dir, s); len(found) > 0 {
			t.Errorf("after erase %s is still in %v", s, found)
		}
	}
}

// TestScheduledGC: a server's scheduler purges, on its own, what was
// forgotten longer ago than gc-grace, and leaves what is within it: the
// purged text is in no file of the data directory afterwards.
func TestScheduledGC(t *testing.T) {
	dir := t.TempDir()
	ann := start(t, options{dataDir: dir, args: []string{"--agent-id", "ann", "--embedder", "none"}})
	var old, kept struct {
		ID string `json:"id"`
	}
	ann.ok("remember", map[string]any{"content": "Old note: Quillfeather owes a reply."}, &old)
	ann.ok("remember", map[string]any{"content": "The budget review is in March."}, &kept)
	ann.ok("forget", map[string]any{"id": old.ID, "reason": "answered"}, nil)
	ann.stop()
	time.Sleep(1500 * time.Millisecond) // older than the grace below

	s := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "ann", "--embedder", "none",
		"--consolidation-interval", "100ms", "--gc-grace", "1s"}})
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(s.errw.String(), `msg="scheduled gc" memories=1`); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the scheduler never purged the forgotten memory:\n%s", s.errw.String())
		}
	}
	// What is forgotten now is within the grace: the next looks keep it.
	var recent struct {
		ID string `json:"id"`
	}
	s.ok("remember", map[string]any{"content": "Recent note: Marrowvale owes a reply."}, &recent)
	s.ok("forget", map[string]any{"id": recent.ID, "reason": "answered"}, nil)
	s.stop()
	if !strings.Contains(s.errw.String(), "scrubbed=true") || strings.Contains(s.errw.String(), "level=ERROR") {
		t.Fatalf("the scheduled gc's log:\n%s", s.errw.String())
	}
	if found := inFiles(t, dir, "Quillfeather"); len(found) > 0 {
		t.Fatalf("after the scheduled gc the purged memory's bytes are still in %v", found)
	}
	if found := inFiles(t, dir, "Marrowvale"); len(found) == 0 {
		t.Fatal("a memory forgotten within the grace was purged")
	}
	if found := inFiles(t, dir, "budget review"); len(found) == 0 {
		t.Fatal("an active memory was purged")
	}
}

// holdReader holds a read transaction open on dir's memory from a
// connection of its own, as another process reading would, until release:
// on SQLite it keeps the write-ahead log from being emptied; on PostgreSQL
// (REPEATABLE READ) its snapshot keeps seeing the rows an erase deletes,
// which a rewrite of the tables must then keep.
func holdReader(t *testing.T, dir string) (release func() error, err error) {
	if u := databaseFor(t, dir); u != "" {
		return storetest.HoldPostgresReader(t.Context(), u)
	}
	return storetest.HoldReader(t.Context(), filepath.Join(dir, store.FileName))
}

// TestScrubOwedIsRetried: another process reading keeps an erase's scrub
// from emptying the write-ahead log (on PostgreSQL, from rewriting the
// tables without the rows its snapshot still sees), so the scrub stays
// owed (the erase and stats say so). While a server keeps the database open, nothing else
// empties the log: a gc that purges nothing, or another server's start,
// finishes the scrub, and no file holds the erased bytes after it.
func TestScrubOwedIsRetried(t *testing.T) {
	const secret = "Glimmerfrost"
	dirs := []string{t.TempDir(), t.TempDir()}
	ids := make([]string, len(dirs))
	for i, dir := range dirs {
		ann := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "ann", "--embedder", "none"}})
		var m struct {
			ID string `json:"id"`
		}
		ann.ok("remember", map[string]any{"content": "The alarm code of " + secret + " is 5521."}, &m)
		ann.ok("remember", map[string]any{"content": "The alarm panel is by the door."}, nil)
		ann.stop()
		ids[i] = m.ID
	}
	// A server on each directory keeps it open throughout (the last
	// connection to close would empty the log itself).
	for _, dir := range dirs {
		held := start(t, options{dataDir: dir, args: []string{"--agent-id", "bob", "--embedder", "none", "--consolidation-interval", "0"}})
		held.ok("remember", map[string]any{"content": "Bob keeps the spare key."}, nil)
		t.Cleanup(held.stop)
	}
	// The erases run at once, each waiting out the checkpoint's busy
	// timeout under its reader.
	outs, errs := make([]string, len(dirs)), make([]error, len(dirs))
	releases := make([]func() error, len(dirs))
	binary(t)
	var wg sync.WaitGroup
	for i, dir := range dirs {
		release, err := holdReader(t, dir)
		if err != nil {
			t.Fatal(err)
		}
		releases[i] = release
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = memoryMCP(t, dir, "erase", "--human", "--id", ids[i], "--reason", "request 31")
		}()
	}
	wg.Wait()
	for i := range dirs {
		if errs[i] != nil || !strings.Contains(outs[i], "memories 1") || !strings.Contains(outs[i], "not rewritten yet") {
			t.Fatalf("erase under a reader: %v\n%s", errs[i], outs[i])
		}
		if err := releases[i](); err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range dirs {
		if len(inFiles(t, dir, secret)) == 0 {
			t.Fatal("the erased bytes are in no file while the scrub is owed: the checks below could not fail")
		}
	}
	out, err := memoryMCP(t, dirs[0], "stats")
	if err != nil || !strings.Contains(out, "a rewrite of the database file is owed") {
		t.Fatalf("stats while a scrub is owed: %v\n%s", err, out)
	}

	out, err = memoryMCP(t, dirs[0], "gc", "--agent-id", "ann", "--grace", "0")
	if err != nil || !strings.Contains(out, "nothing forgotten") || !strings.Contains(out, "rewritten") {
		t.Fatalf("gc with nothing to purge, a scrub owed: %v\n%s", err, out)
	}
	if found := inFiles(t, dirs[0], secret); len(found) > 0 {
		t.Fatalf("after gc the erased bytes are still in %v", found)
	}
	if out, err := memoryMCP(t, dirs[0], "stats"); err != nil || strings.Contains(out, "owed") {
		t.Fatalf("stats after the owed scrub: %v\n%s", err, out)
	}

	startIn(t, options{dataDir: dirs[1], args: []string{"--agent-id", "ann", "--embedder", "none"}}).stop()
	if found := inFiles(t, dirs[1], secret); len(found) > 0 {
		t.Fatalf("after a server's start the erased bytes are still in %v", found)
	}
}

// TestEraseByIDTakesItsQuotes: an erase by id over MCP takes the note, the
// ledger event (and the shared-state row it made) and the block version
// that quote the memory's content; a note that does not stays, and after
// gc no file holds the erased words.
func TestEraseByIDTakesItsQuotes(t *testing.T) {
	const said = "Quillfeather ships the spare drives on Thursdays."
	dir := t.TempDir()
	ann := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "ann", "--embedder", "none"}})
	var m struct {
		ID string `json:"id"`
	}
	ann.ok("remember", map[string]any{"content": said}, &m)
	ann.ok("write_note", map[string]any{"text": "learned: " + said, "promote": true}, nil)
	ann.ok("memory", map[string]any{"command": "insert", "path": "/memories/human", "insert_line": 0, "insert_text": said}, nil)
	ann.ok("write_note", map[string]any{"text": "issue: the Marrowgate badge reader is broken", "promote": true}, nil)
	ann.stop()
	for _, s := range []string{"Quillfeather", "Marrowgate"} {
		if len(inFiles(t, dir, s)) == 0 {
			t.Fatalf("%s is in no file before the erase: the checks below could not fail", s)
		}
	}

	olivia := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "olivia", "--human"}})
	var dry, rep struct {
		Counts map[string]int `json:"counts"`
	}
	olivia.ok("erase", map[string]any{"ids": []string{m.ID}, "reason": "request 52", "dry_run": true}, &dry)
	olivia.ok("erase", map[string]any{"ids": []string{m.ID}, "reason": "request 52"}, &rep)
	for _, c := range []map[string]int{dry.Counts, rep.Counts} {
		if c["memories"] != 1 || c["notes"] != 1 || c["ledger_events"] != 1 || c["shared_state"] != 1 || c["block_versions"] != 1 {
			t.Fatalf("erase by id: dry run %v, erase %v", dry.Counts, rep.Counts)
		}
	}
	olivia.stop()
	if out, err := memoryMCP(t, dir, "gc", "--agent-id", "ann", "--grace", "0"); err != nil {
		t.Fatalf("gc: %v\n%s", err, out)
	}
	if found := inFiles(t, dir, "Quillfeather"); len(found) > 0 {
		t.Fatalf("after erase and gc the memory's words are still in %v", found)
	}
	if len(inFiles(t, dir, "Marrowgate")) == 0 {
		t.Fatal("the note that quotes no erased memory went too")
	}
}
