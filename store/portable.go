package store

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/driver"

	memory "github.com/memory-mcp/memory-mcp"
)

// ExportFormat and ExportVersion name the export format in its header line
// (see docs/export.md). A new version is needed when a kind's columns change
// meaning; a column added by a migration is a new key in its records, which
// an import of an older export leaves to its default.
const (
	ExportFormat  = "memory-mcp"
	ExportVersion = 1
)

// ExportFilter selects what an export holds; the zero value holds everything.
type ExportFilter struct {
	// AgentID keeps one agent's own memory: its memories, notes, ledger
	// events, pending, approvals and the blocks it owns. Facts, shared
	// blocks and the shared state are the company's, not an agent's, and
	// are left out.
	AgentID string `json:"agent_id,omitempty"`
	// Namespace keeps the memories of one namespace (and what hangs on
	// them); every other kind is left out.
	Namespace string `json:"namespace,omitempty"`
	// Since and Until keep what was written in [Since, Until): memories,
	// notes, events, pending and approvals by their creation, facts and
	// blocks with their whole history when they changed in the range.
	Since *time.Time `json:"since,omitempty"`
	Until *time.Time `json:"until,omitempty"`
}

// The conditions of a filtered export, in SQL over the bound parameters
// ?1 agent, ?2 namespace, ?3 since, ?4 until (nanoseconds), each NULL when
// not asked. A kind that has no agent or namespace is left out when one is
// asked (?1 IS NULL). Every kind's rows refer only to rows the export
// holds: a shared copy brings its original, a summary its sources, and a
// conflict or link is kept only when both its ends are (see keeps). An
// export of everything runs no condition at all.
const (
	inRange      = `(?3 IS NULL OR %[1]s >= ?3) AND (?4 IS NULL OR %[1]s < ?4)`
	memSelected  = `SELECT id FROM memories WHERE (?1 IS NULL OR agent_id = ?1) AND (?2 IS NULL OR namespace = ?2) AND (?3 IS NULL OR created_at >= ?3) AND (?4 IS NULL OR created_at < ?4)`
	memExported  = `(id IN (` + memSelected + `) OR id IN (SELECT published_from FROM memories WHERE id IN (` + memSelected + `)) OR id IN (SELECT source_id FROM memory_sources WHERE summary_id IN (` + memSelected + `)))`
	factExported = `?1 IS NULL AND ?2 IS NULL AND fact_id IN (SELECT fact_id FROM operation_log WHERE (?3 IS NULL OR timestamp >= ?3) AND (?4 IS NULL OR timestamp < ?4))`
	blockChosen  = `(?1 IS NULL OR owner = ?1) AND ?2 IS NULL AND id IN (SELECT block_id FROM block_versions WHERE (?3 IS NULL OR at >= ?3) AND (?4 IS NULL OR at < ?4))`
	ledgerChosen = `(?1 IS NULL OR agent_id = ?1) AND ?2 IS NULL AND (?3 IS NULL OR created_at >= ?3) AND (?4 IS NULL OR created_at < ?4)`
	sharedChosen = `?1 IS NULL AND ?2 IS NULL AND (?3 IS NULL OR created_at >= ?3) AND (?4 IS NULL OR created_at < ?4)`
)

// portableKind is one kind of record of an export: the rows of one table,
// every column but the derived ones an import re-makes.
type portableKind struct {
	kind  string
	table string
	order string // the key, in the order rows are written and inserted
	where string
	// skip are columns left out: stamps (re-made under the importing
	// store's key) and vectors (re-made by its embedder).
	skip []string
	// keeps adds each exported row's value of a column to a set (column
	// -> set); within keeps only the rows whose values of its columns are
	// in their sets: a link or a conflict is exported only when both its
	// ends are. Checked here rather than in SQL: a filter of one table by
	// two IN lists over a filtered 100k-row table took minutes in SQLite,
	// a Go set of ids a few megabytes. An export of everything, which holds
	// every row, checks in the store instead (inStore).
	keeps, within map[string]string
}

// portableKinds are the kinds of an export, in an order an import can
// insert them in: everything a row refers to comes before it. Left out as
// not the memory's meaning: the change feed, leases, call caches and
// metrics, credentials, the provenance key, erasure records, embedder
// adapters, and the per-space statistics the triggers keep.
var portableKinds = []portableKind{
	{kind: "fact_op", table: "operation_log", order: "id", where: factExported, skip: []string{"stamp"}},
	{kind: "fact", table: "snapshot", order: "fact_id", where: factExported, keeps: map[string]string{"fact_id": "fact"}},
	{kind: "fact_claim", table: "fact_claims", order: "claim, value, fact_id", within: map[string]string{"fact_id": "fact"}},
	{kind: "fact_conflict", table: "fact_conflicts", order: "id", within: map[string]string{"older_id": "fact", "newer_id": "fact"}},
	{kind: "memory", table: "memories", order: "pk", where: memExported, skip: []string{"embedding", "embedder", "stamp"},
		keeps: map[string]string{"id": "memory", "pk": "memory_pk"}},
	{kind: "memory_source", table: "memory_sources", order: "summary_id, position", within: map[string]string{"summary_id": "memory", "source_id": "memory"}},
	{kind: "memory_claim", table: "memory_claims", order: "agent_id, claim, value, memory_pk", within: map[string]string{"memory_pk": "memory_pk"}},
	{kind: "memory_conflict", table: "memory_conflicts", order: "id", within: map[string]string{"older_id": "memory", "newer_id": "memory"}},
	{kind: "memory_repeat", table: "memory_repeats", order: "pk", skip: []string{"stamp"}, within: map[string]string{"memory_id": "memory"},
		where: `(?1 IS NULL OR agent_id = ?1) AND (?2 IS NULL OR namespace = ?2) AND ` + fmt.Sprintf(inRange, "said_at")},
	{kind: "shared_repeat", table: "shared_repeats", order: "copy_id, memory_id", within: map[string]string{"copy_id": "memory", "memory_id": "memory"}},
	{kind: "block", table: "blocks", order: "id", where: blockChosen},
	{kind: "block_version", table: "block_versions", order: "block_id, version", where: "block_id IN (SELECT id FROM blocks WHERE " + blockChosen + ")", skip: []string{"stamp"}},
	{kind: "note", table: "notes", order: "note_id", where: ledgerChosen},
	{kind: "event", table: "events_memory", order: "seq", where: ledgerChosen, skip: []string{"stamp"}},
	{kind: "pending", table: "pending_memory_events", order: "pending_id", where: ledgerChosen},
	{kind: "approval", table: "approvals", order: "id", where: `(?1 IS NULL OR principal = 'agent:' || ?1) AND ?2 IS NULL AND ` + fmt.Sprintf(inRange, "created_at")},
	{kind: "shared_plan", table: "shared_plan", order: "id", where: sharedChosen},
	{kind: "shared_issue", table: "shared_issues", order: "id", where: sharedChosen},
	{kind: "shared_constraint", table: "shared_constraints", order: "id", where: sharedChosen},
	{kind: "shared_decision", table: "shared_decisions", order: "id", where: sharedChosen},
	{kind: "shared_result", table: "shared_results", order: "id", where: sharedChosen},
	{kind: "shared_task_state", table: "shared_task_state", order: "id", where: sharedChosen},
	{kind: "shared_learning", table: "shared_learnings", order: "id", where: sharedChosen},
}

// exportHeader is an export's first line.
type exportHeader struct {
	Format  string       `json:"format"`
	Version int          `json:"version"`
	Filter  ExportFilter `json:"filter"`
}

// exportTrailer is an export's last line: how many records it holds and
// the SHA-256 of every byte before it, so that a cut or altered file is
// refused whole.
type exportTrailer struct {
	End     bool           `json:"end"`
	Records int            `json:"records"`
	Kinds   map[string]int `json:"kinds"`
	SHA256  string         `json:"sha256"`
}

// ExportCounts says how many records of each kind an export or import wrote.
type ExportCounts map[string]int

// Export writes what the filter selects to w in the export format (JSON
// Lines: a header, one record per row, a checksum trailer), from one
// consistent snapshot, streaming: an export of everything holds no more
// memory for a bigger store; a filtered one keeps the ids of what it wrote,
// to check links against (see keeps).
// The same store and filter always give the same bytes.
//
// On PostgreSQL the snapshot is one REPEATABLE READ transaction, and the
// bytes are those SQLite's export of the same rows gives: the columns in
// the same order, each value the same JSON.
func (db *DB) Export(ctx context.Context, f ExportFilter, w io.Writer) (ExportCounts, error) {
	counts := ExportCounts{}
	sum := sha256.New()
	out := bufio.NewWriterSize(io.MultiWriter(w, sum), 1<<16)
	sets := map[string]map[string]bool{}
	// write writes the header, each kind's rows through kind, and flushes.
	write := func(kind func(k portableKind) (int, error)) error {
		head, _ := json.Marshal(exportHeader{Format: ExportFormat, Version: ExportVersion, Filter: f})
		out.Write(append(head, '\n'))
		for _, k := range portableKinds {
			n, err := kind(k)
			if err != nil {
				return fmt.Errorf("export %s: %w", k.table, err)
			}
			if n > 0 {
				counts[k.kind] = n
			}
		}
		return out.Flush()
	}
	var err error
	if db.postgres {
		err = db.exportPostgres(ctx, func(tx *sql.Tx) error {
			return write(func(k portableKind) (int, error) { return db.exportKindPostgres(ctx, tx, k, f, sets, out) })
		})
	} else {
		err = db.exportSQLite(ctx, func(c *sqlite3.Conn) error {
			return write(func(k portableKind) (int, error) { return exportKind(c, k, f, sets, out) })
		})
	}
	if err != nil {
		return nil, db.busyError(err)
	}
	var records int
	for _, n := range counts {
		records += n
	}
	tail, _ := json.Marshal(exportTrailer{End: true, Records: records, Kinds: counts, SHA256: hex.EncodeToString(sum.Sum(nil))})
	if _, err := w.Write(append(tail, '\n')); err != nil {
		return nil, err
	}
	return counts, nil
}

// exportSQLite runs fn in one read transaction on a connection of its own.
func (db *DB) exportSQLite(ctx context.Context, fn func(c *sqlite3.Conn) error) error {
	conn, err := db.reads.Conn(ctx)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		c := dc.(driver.Conn).Raw()
		old := c.SetInterrupt(ctx)
		defer c.SetInterrupt(old)
		if err := c.Exec(`BEGIN`); err != nil {
			return err
		}
		defer c.Exec(`ROLLBACK`)
		return fn(c)
	})
}

// exportKind writes k's selected rows, one line each, and counts them.
func exportKind(c *sqlite3.Conn, k portableKind, f ExportFilter, sets map[string]map[string]bool, out *bufio.Writer) (int, error) {
	cols, err := portableColumns(c, k)
	if err != nil {
		return 0, err
	}
	where := k.where
	if where == "" {
		where = "1"
	}
	keeps, within := columnSets(cols, k.keeps, sets), columnSets(cols, k.within, sets)
	if f.whole() {
		where, keeps, within = k.inStore("1"), nil, nil
	}
	st, _, err := c.Prepare(`SELECT ` + strings.Join(cols, ", ") + ` FROM ` + k.table + ` WHERE ` + where + ` ORDER BY ` + k.order)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	bindFilter(st, f)
	prefix := []byte(`{"kind":"` + k.kind + `","row":{`)
	names := make([][]byte, len(cols))
	for i, col := range cols {
		names[i], _ = json.Marshal(col)
		names[i] = append(names[i], ':')
	}
	var line []byte
	n := 0
rows:
	for st.Step() {
		for i, set := range within {
			if set != nil && !set[st.ColumnText(i)] {
				continue rows
			}
		}
		for i, set := range keeps {
			if set != nil {
				set[st.ColumnText(i)] = true
			}
		}
		line = append(line[:0], prefix...)
		for i := range cols {
			if i > 0 {
				line = append(line, ',')
			}
			line = append(line, names[i]...)
			if line, err = appendJSONColumn(line, st, i); err != nil {
				return n, fmt.Errorf("column %s: %w", cols[i], err)
			}
		}
		line = append(line, "}}\n"...)
		if _, err := out.Write(line); err != nil {
			return n, err
		}
		n++
	}
	return n, st.Err()
}

// whole reports whether f selects everything.
func (f ExportFilter) whole() bool {
	return f.AgentID == "" && f.Namespace == "" && f.Since == nil && f.Until == nil
}

// setRows are the rows each set of keeps and within holds in an export of
// everything, which holds every row of their tables: a memory's id and pk,
// a fact's id.
var setRows = map[string]struct{ table, column string }{
	"memory":    {"memories", "id"},
	"memory_pk": {"memories", "pk"},
	"fact":      {"snapshot", "fact_id"},
}

// inStore is the condition of k's rows in an export of everything: that
// the rows its within columns name are in the store (of an export of
// everything, the sets would hold every id of the store, memory growing
// with it), else all, as all is said on the engine.
func (k portableKind) inStore(all string) string {
	var conds []string
	for _, col := range slices.Sorted(maps.Keys(k.within)) {
		r := setRows[k.within[col]]
		conds = append(conds, fmt.Sprintf(`EXISTS (SELECT 1 FROM %s s WHERE s.%s = %s.%s)`, r.table, r.column, k.table, col))
	}
	if len(conds) == 0 {
		return all
	}
	return strings.Join(conds, " AND ")
}

// columnSets gives, per column of cols, the set named for it in named (nil
// for none), made in sets when new.
func columnSets(cols []string, named map[string]string, sets map[string]map[string]bool) []map[string]bool {
	out := make([]map[string]bool, len(cols))
	for i, col := range cols {
		if name, ok := named[col]; ok {
			if sets[name] == nil {
				sets[name] = map[string]bool{}
			}
			out[i] = sets[name]
		}
	}
	return out
}

// bindFilter binds f as ?1..?4 (see the conditions above).
func bindFilter(st *sqlite3.Stmt, f ExportFilter) {
	if f.AgentID != "" {
		st.BindText(1, f.AgentID)
	}
	if f.Namespace != "" {
		st.BindText(2, f.Namespace)
	}
	if f.Since != nil {
		st.BindInt64(3, nanos(*f.Since))
	}
	if f.Until != nil {
		st.BindInt64(4, nanos(*f.Until))
	}
}

// appendJSONColumn appends column i of st's row as JSON: NULL null, an
// integer or a real a number, text a string. No exported column holds a blob.
func appendJSONColumn(b []byte, st *sqlite3.Stmt, i int) ([]byte, error) {
	switch st.ColumnType(i) {
	case sqlite3.NULL:
		return appendJSONValue(b, nil)
	case sqlite3.INTEGER:
		return appendJSONValue(b, st.ColumnInt64(i))
	case sqlite3.FLOAT:
		return appendJSONValue(b, st.ColumnFloat(i))
	case sqlite3.TEXT:
		return appendJSONValue(b, st.ColumnText(i))
	}
	return appendJSONValue(b, st.ColumnBlob(i, nil))
}

// appendJSONValue appends a column's value as JSON, the same from either
// engine's driver: nil null, an integer or a real a number, text a string.
func appendJSONValue(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return b, fmt.Errorf("%v is not a number JSON can hold", v)
		}
		// A real always has a point or an exponent, so that an import
		// binds it as a real again.
		s := strconv.FormatFloat(v, 'g', -1, 64)
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return append(b, s...), nil
	case string:
		s, _ := json.Marshal(v)
		return append(b, s...), nil
	}
	return b, errors.New("a blob, which the export format does not carry")
}

// portableColumns are the columns of k's table an export carries, in the
// table's order.
func portableColumns(c *sqlite3.Conn, k portableKind) ([]string, error) {
	st, _, err := c.Prepare(`SELECT name FROM pragma_table_info(?) ORDER BY cid`)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	st.BindText(1, k.table)
	var cols []string
	for st.Step() {
		if name := st.ColumnText(0); !slices.Contains(k.skip, name) {
			cols = append(cols, name)
		}
	}
	return cols, st.Err()
}

// ImportReport is what Import did.
type ImportReport struct {
	Header  ExportFilter `json:"filter"`
	Records int          `json:"records"`
	Kinds   ExportCounts `json:"kinds"`
}

// errImport is a bad export: its line and what is wrong with it, an
// EINVALID error.
func errImport(line int, format string, args ...any) error {
	return memory.Errorf(memory.EINVALID, "line %d of the export: %s", line, fmt.Sprintf(format, args...))
}

// ImportSource is where an exact import comes from, recorded as the
// provenance of every row it writes.
type ImportSource struct {
	File string // the file as the importer named it
	By   string // who imported it, as a principal ("human:ann")
	// MaxContentBytes bounds a memory's or fact's content, as remember and
	// publish_fact do; 0 is memory.DefaultMaxContentBytes.
	MaxContentBytes int
	// DryRun makes the whole import, checks and all, and rolls it back.
	DryRun bool

	columns map[string]map[string]importColumn // the tables' columns, as the records are checked against them
}

// Import reads an export from r into the store, which must hold no memory
// (see Empty), exactly: every row as it was, with its ids, stamped under
// this store's key, in one transaction that commits only once the trailer's
// count and checksum match what was read. The import itself is recorded
// (the imports table: src, the SHA-256 of r's bytes, what it wrote), stamped,
// as the provenance of the rows; the record is not part of an export.
// Memories come without vectors: re-embed them after (reindex). With
// src.DryRun it does all of that and rolls it back.
func (db *DB) Import(ctx context.Context, r io.Reader, src ImportSource) (ImportReport, error) {
	rep := ImportReport{Kinds: ExportCounts{}}
	empty, err := db.Empty(ctx)
	if err != nil {
		return rep, err
	}
	if !empty {
		return rep, memory.Errorf(memory.ECONFLICT, "the store at %s already holds memory: an exact import goes only into an empty store", db.path)
	}
	if src.columns, err = db.importColumns(ctx); err != nil {
		return rep, err
	}
	if db.postgres {
		return rep, db.busyError(db.importPostgres(ctx, r, src, &rep))
	}
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return rep, fmt.Errorf("import: %w", err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		c := dc.(driver.Conn).Raw()
		old := c.SetInterrupt(ctx)
		defer c.SetInterrupt(old)
		if err := c.Exec(`BEGIN IMMEDIATE`); err != nil {
			return err
		}
		if err := db.importRows(c, r, src, &rep); err != nil || src.DryRun {
			c.Exec(`ROLLBACK`)
			return err
		}
		return c.Exec(`COMMIT`)
	})
	return rep, db.busyError(err)
}

// importRows inserts every record of the export on c, in c's transaction,
// records the import, then re-makes what the rows do not carry: the
// archive's index and stamps.
func (db *DB) importRows(c *sqlite3.Conn, r io.Reader, src ImportSource, rep *ImportReport) error {
	if err := c.Exec(`PRAGMA defer_foreign_keys = on`); err != nil {
		return err
	}
	restore, err := deferIndexing(c)
	if err != nil {
		return fmt.Errorf("defer the full-text index: %w", err)
	}
	ins := &inserter{c: c, stmts: map[string]*sqlite3.Stmt{}}
	defer ins.close()
	sum, err := readImport(r, src, rep, ins.insert)
	if err != nil {
		return err
	}
	if err := restore(); err != nil {
		return fmt.Errorf("index the imported rows: %w", err)
	}
	err = c.Exec(`INSERT INTO memory_archive_fts (rowid, content, tags, filters)
		SELECT pk, content, tags, filters FROM memories WHERE archived_at IS NOT NULL AND forgotten_at IS NULL`)
	if err != nil {
		return fmt.Errorf("index the archive: %w", err)
	}
	if err := db.recordImport(c, src, sum, rep.Kinds); err != nil {
		return fmt.Errorf("record the import: %w", err)
	}
	return db.stampAll(func(s stampSpec, after []int64) (int, error) { return db.stampRows(c, s, after) })
}

// readImport reads the export r, checks each record (recordChecker), hands
// it to insert and counts it in rep, and returns the SHA-256 of all of r's
// bytes, which the import's record keeps.
func readImport(r io.Reader, src ImportSource, rep *ImportReport, insert func(kind string, row json.RawMessage) error) (string, error) {
	sum := sha256.New()
	r = io.TeeReader(r, sum)
	rc := newRecordChecker(src)
	f, err := ReadExport(r, func(kind string, row json.RawMessage) error {
		if err := rc.check(kind, row); err != nil {
			return err
		}
		if err := insert(kind, row); err != nil {
			return err
		}
		rep.Records++
		rep.Kinds[kind]++
		return nil
	})
	if err != nil {
		return "", err
	}
	rep.Header = f
	if _, err := io.Copy(io.Discard, r); err != nil { // the file's checksum is of all of it
		return "", err
	}
	return hex.EncodeToString(sum.Sum(nil)), nil
}

// deferredIndexes are the full-text triggers an exact import lifts while
// it inserts and then does the work of in one statement each. A trigger's
// insert into an FTS5 table runs in its own statement, at the end of which
// FTS5 writes what it holds to disk: a segment per row, merged again and
// again (most of an import's time, in its profile). trigger is the
// trigger's SQL as the migrations left it, spaces collapsed; a trigger
// that is not (a later migration changed it) is left in place, so that the
// import stays right, only slower.
var deferredIndexes = []struct{ name, trigger, bulk string }{
	{"memories_fts_insert", `CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories WHEN new.forgotten_at IS NULL AND new.archived_at IS NULL BEGIN INSERT INTO memory_fts (rowid, content, tags, filters) VALUES (new.pk, new.content, new.tags, new.filters); END`,
		`INSERT INTO memory_fts (rowid, content, tags, filters) SELECT pk, content, tags, filters FROM memories WHERE forgotten_at IS NULL AND archived_at IS NULL ORDER BY pk`},
	{"operation_log_fts", `CREATE TRIGGER operation_log_fts AFTER INSERT ON operation_log WHEN new.operation_type = 'PUBLISH' BEGIN INSERT INTO fact_fts (rowid, content, tags) VALUES (new.id, new.content, new.tags); END`,
		`INSERT INTO fact_fts (rowid, content, tags) SELECT id, content, tags FROM operation_log WHERE operation_type = 'PUBLISH' ORDER BY id`},
}

// deferIndexing drops the deferred indexes' triggers on c, in c's
// transaction, and returns the function that indexes every row inserted
// since and puts the triggers back.
func deferIndexing(c *sqlite3.Conn) (func() error, error) {
	type lifted struct{ sql, bulk string }
	var done []lifted
	for _, d := range deferredIndexes {
		st, _, err := c.Prepare(`SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name = ?`)
		if err != nil {
			return nil, err
		}
		st.BindText(1, d.name)
		var sql string
		if st.Step() {
			sql = st.ColumnText(0)
		}
		err = st.Err()
		st.Close()
		if err != nil {
			return nil, err
		}
		if strings.Join(strings.Fields(sql), " ") != d.trigger {
			continue
		}
		if err := c.Exec(`DROP TRIGGER ` + d.name); err != nil {
			return nil, err
		}
		done = append(done, lifted{sql, d.bulk})
	}
	return func() error {
		for _, l := range done {
			if err := c.Exec(l.bulk); err != nil {
				return err
			}
			if err := c.Exec(l.sql); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// recordImport writes the imports row of an exact import that wrote kinds.
func (db *DB) recordImport(c *sqlite3.Conn, src ImportSource, sum string, kinds ExportCounts) error {
	counts, _ := json.Marshal(kinds)
	st, _, err := c.Prepare(`INSERT INTO imports (imported_at, imported_by, file, sha256, format, kinds, first_memory_pk, last_memory_pk, last_memory_created_at)
		SELECT ?, ?, ?, ?, ?, ?, min(pk), max(pk), max(created_at) FROM memories`)
	if err != nil {
		return err
	}
	defer st.Close()
	st.BindInt64(1, nanos(db.Now.Now()))
	st.BindText(2, src.By)
	st.BindText(3, src.File)
	st.BindText(4, sum)
	st.BindText(5, ExportFormat)
	st.BindText(6, string(counts))
	return st.Exec()
}

// stampAll stamps every unstamped row, batch by batch, in the import's
// transaction: batch stamps up to trustBatch rows of s's table after after
// (stampRows on SQLite, stampBatchPostgres).
func (db *DB) stampAll(batch func(s stampSpec, after []int64) (int, error)) error {
	if db.provenanceKey == nil {
		return nil
	}
	for _, s := range stampSpecs {
		after := make([]int64, len(s.keys))
		for i := range after {
			after[i] = math.MinInt64
		}
		for {
			n, err := batch(s, after)
			if err != nil {
				return fmt.Errorf("stamp %s: %w", s.table, err)
			}
			if n < trustBatch {
				break
			}
		}
	}
	return nil
}

// Empty reports whether the store holds no memory: no row of any kind an
// export carries.
func (db *DB) Empty(ctx context.Context) (bool, error) {
	for _, k := range portableKinds {
		var some bool
		if err := db.reads.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM `+k.table+`)`).Scan(&some); err != nil {
			return false, db.busyError(fmt.Errorf("look in %s: %w", k.table, err))
		}
		if some {
			return false, nil
		}
	}
	return true, nil
}

// ReadExport reads an export from r and calls fn with each record's kind
// and row (a JSON object of columns), in order, and returns the export's
// filter. It fails on the first bad line, and at the end when the trailer's
// count or checksum do not match: a caller acts on the records only once
// ReadExport returned nil.
func ReadExport(r io.Reader, fn func(kind string, row json.RawMessage) error) (ExportFilter, error) {
	in := &exportReader{r: bufio.NewReaderSize(r, 1<<16), sum: sha256.New()}
	h, err := in.header()
	if err != nil {
		return h.Filter, err
	}
	n := 0
	for {
		line, kind, row, err := in.record()
		if err != nil {
			return h.Filter, err
		}
		if kind == "" {
			break
		}
		if err := fn(kind, row); err != nil {
			return h.Filter, errImport(line, "%s record: %v", kind, err)
		}
		n++
	}
	if in.trailer.Records != n {
		return h.Filter, errImport(in.line, "the trailer counts %d records, the export holds %d", in.trailer.Records, n)
	}
	// the checksum ends at the trailer: what follows it was added after
	if _, err := in.r.ReadByte(); err == nil {
		return h.Filter, errImport(in.line+1, "data after the trailer: the export was changed or damaged")
	} else if !errors.Is(err, io.EOF) {
		return h.Filter, err
	}
	return h.Filter, nil
}

// exportReader reads an export line by line, summing every byte before
// the trailer.
type exportReader struct {
	r       *bufio.Reader
	sum     hash.Hash
	line    int
	trailer exportTrailer
}

// next returns the next line, without its newline.
func (in *exportReader) next() ([]byte, error) {
	b, err := in.r.ReadBytes('\n')
	if errors.Is(err, io.EOF) && len(b) > 0 {
		err = nil
	}
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errImport(in.line+1, "the export ends before its trailer: it was cut short")
		}
		return nil, err
	}
	in.line++
	return bytes.TrimSuffix(b, []byte("\n")), nil
}

func (in *exportReader) header() (exportHeader, error) {
	var h exportHeader
	b, err := in.next()
	if err != nil {
		return h, err
	}
	in.sum.Write(b)
	in.sum.Write([]byte("\n"))
	if err := json.Unmarshal(b, &h); err != nil || h.Format != ExportFormat {
		return h, errImport(1, `not a memory-mcp export: its first line is not {"format":"memory-mcp",...}`)
	}
	if h.Version != ExportVersion {
		return h, errImport(1, "export format version %d; this build reads version %d", h.Version, ExportVersion)
	}
	return h, nil
}

// record returns the next record's line, kind and row; at the trailer,
// which it checks, an empty kind.
func (in *exportReader) record() (int, string, json.RawMessage, error) {
	b, err := in.next()
	if err != nil {
		return in.line, "", nil, err
	}
	var rec struct {
		Kind string          `json:"kind"`
		Row  json.RawMessage `json:"row"`
		End  bool            `json:"end"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return in.line, "", nil, errImport(in.line, "not a JSON record: %v", err)
	}
	if rec.End {
		var keys map[string]json.RawMessage
		json.Unmarshal(b, &keys)
		if keys["records"] == nil || keys["sha256"] == nil {
			return in.line, "", nil, errImport(in.line, `a trailer is {"end":true,"records":N,"sha256":"..."}`)
		}
		if err := json.Unmarshal(b, &in.trailer); err != nil {
			return in.line, "", nil, errImport(in.line, "a bad trailer: %v", err)
		}
		if got := hex.EncodeToString(in.sum.Sum(nil)); got != in.trailer.SHA256 {
			return in.line, "", nil, errImport(in.line, "the checksum is %s, the trailer says %s: the export was changed or damaged", got, in.trailer.SHA256)
		}
		return in.line, "", nil, nil
	}
	in.sum.Write(b)
	in.sum.Write([]byte("\n"))
	if rec.Kind == "" || len(rec.Row) == 0 || rec.Row[0] != '{' {
		return in.line, "", nil, errImport(in.line, `a record is {"kind": ..., "row": {...}}`)
	}
	return in.line, rec.Kind, rec.Row, nil
}

// inserter inserts records, one prepared statement per kind and column set.
type inserter struct {
	c     *sqlite3.Conn
	stmts map[string]*sqlite3.Stmt
	cols  map[string][]string // kind -> the table's columns an export may carry
}

func (ins *inserter) close() {
	for _, st := range ins.stmts {
		st.Close()
	}
}

func (ins *inserter) insert(kind string, raw json.RawMessage) error {
	var row map[string]json.RawMessage
	if err := json.Unmarshal(raw, &row); err != nil {
		return err
	}
	k, ok := kindNamed(kind)
	if !ok {
		return fmt.Errorf("unknown kind %q", kind)
	}
	if ins.cols == nil {
		ins.cols = map[string][]string{}
	}
	known, ok := ins.cols[kind]
	if !ok {
		var err error
		if known, err = portableColumns(ins.c, k); err != nil {
			return err
		}
		ins.cols[kind] = known
	}
	cols := make([]string, 0, len(row))
	for _, col := range known {
		if _, ok := row[col]; ok {
			cols = append(cols, col)
		}
	}
	if len(cols) != len(row) {
		for col := range row {
			if !slices.Contains(known, col) {
				return fmt.Errorf("unknown column %q", col)
			}
		}
	}
	key := kind + "\x00" + strings.Join(cols, ",")
	st, ok := ins.stmts[key]
	if !ok {
		var err error
		st, _, err = ins.c.Prepare(`INSERT INTO ` + k.table + ` (` + strings.Join(cols, ", ") + `) VALUES (` + placeholders(len(cols)) + `)`)
		if err != nil {
			return err
		}
		ins.stmts[key] = st
	}
	for i, col := range cols {
		if err := bindJSON(st, i+1, row[col]); err != nil {
			return fmt.Errorf("column %s: %v", col, err)
		}
	}
	err := st.Exec()
	st.Reset()
	return err
}

func kindNamed(kind string) (portableKind, bool) {
	for _, k := range portableKinds {
		if k.kind == kind {
			return k, true
		}
	}
	return portableKind{}, false
}

// bindJSON binds a JSON value as the type the export wrote it from (see
// jsonValue).
func bindJSON(st *sqlite3.Stmt, i int, v json.RawMessage) error {
	val, err := jsonValue(v)
	if err != nil {
		return err
	}
	switch val := val.(type) {
	case string:
		return st.BindText(i, val)
	case float64:
		return st.BindFloat(i, val)
	case int64:
		return st.BindInt64(i, val)
	}
	return st.BindNull(i)
}

// jsonValue is a JSON value of an export as the type it was written from:
// null nil, a whole number an int64, a number with a point or exponent a
// float64, a string a string.
func jsonValue(v json.RawMessage) (any, error) {
	s := string(bytes.TrimSpace(v))
	switch {
	case s == "null":
		return nil, nil
	case strings.HasPrefix(s, `"`):
		var t string
		if err := json.Unmarshal(v, &t); err != nil {
			return nil, err
		}
		return t, nil
	case strings.ContainsAny(s, ".eE"):
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("%s is not a number", s)
		}
		return f, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("%s is not null, a number or a string", s)
	}
	return n, nil
}

// ExportKinds are the kinds of record an export holds, in export order.
func ExportKinds() []string {
	out := make([]string, len(portableKinds))
	for i, k := range portableKinds {
		out[i] = k.kind
	}
	return out
}

// Limits of an ExportOwn page: lines, and bytes past which a page ends
// early (after at least one line), so that a page of long memories stays a
// size a client can take in one message.
const (
	exportPageLines    = 200
	maxExportPageLines = 1000
	maxExportPageBytes = 1 << 20
)

// ExportOwn implements memory.PortabilityService: the export of the
// caller's own memory (ExportFilter{AgentID}), paged by line. The first page
// exports and keeps the export in memory (see exportSnapshots); a page after
// it is cut from that kept export, so that it costs what it returns, and
// the pages join to the export as it was at the first page, whatever is
// written meanwhile. A cursor whose kept export is gone (expired, pushed
// out, or given by another process) exports again and is refused
// (ECONFLICT) when the export is no longer the one the cursor came from.
func (db *DB) ExportOwn(ctx context.Context, cursor string, limit int) (memory.ExportPage, error) {
	page := memory.ExportPage{Format: ExportFormat, Version: ExportVersion}
	who, err := memory.RequireIdentity(ctx)
	if err != nil {
		return page, err
	}
	switch {
	case limit == 0:
		limit = exportPageLines
	case limit < 1 || limit > maxExportPageLines:
		return page, memory.Errorf(memory.EINVALID, "limit is %d lines; give 1 to %d, or leave it out for %d", limit, maxExportPageLines, exportPageLines)
	}
	from, want, err := parseExportCursor(cursor)
	if err != nil {
		return page, err
	}
	snap := db.exports.get(who.AgentID, want, db.Now.Now())
	if snap == nil {
		var buf bytes.Buffer
		if _, err := db.Export(ctx, ExportFilter{AgentID: who.AgentID}, &buf); err != nil {
			return page, err
		}
		snap = newExportSnapshot(who.AgentID, buf.Bytes(), db.Now.Now())
		if want != "" && !strings.HasPrefix(snap.sum, want) {
			return page, memory.Errorf(memory.ECONFLICT, "your memory changed since the first page of this export was read: start again without a cursor")
		}
		db.exports.put(snap)
	}
	page.SHA256, page.Total = snap.sum, len(snap.ends)
	if from > len(snap.ends) {
		return page, memory.Errorf(memory.EINVALID, "cursor %q points past the export's end", cursor)
	}
	start := snap.start(from)
	n := from
	for n < len(snap.ends) && n-from < limit && (n == from || snap.ends[n]-start <= maxExportPageBytes) {
		n++
	}
	page.Lines, page.From, page.Count = string(snap.data[start:snap.start(n)]), from, n-from
	if n < len(snap.ends) {
		page.NextCursor = fmt.Sprintf("%d.%s", n, page.SHA256[:16])
	}
	return page, nil
}

// Limits of the exports ExportOwn keeps between pages: how long one is
// kept after its last page was read, and how many bytes all of them may
// hold; past that the oldest are dropped (their next page exports again).
const (
	exportSnapshotTTL   = 10 * time.Minute
	exportSnapshotBytes = 256 << 20
)

// exportSnapshot is one agent's export, kept between the pages read from it.
type exportSnapshot struct {
	agent string
	sum   string // hex SHA-256 of data
	data  []byte
	ends  []int // the offset past each line's newline
	used  time.Time
}

func newExportSnapshot(agent string, data []byte, now time.Time) *exportSnapshot {
	sum := sha256.Sum256(data)
	s := &exportSnapshot{agent: agent, sum: hex.EncodeToString(sum[:]), data: data, used: now}
	for i, b := range data {
		if b == '\n' {
			s.ends = append(s.ends, i+1)
		}
	}
	return s
}

// start is the offset of line i (len(data) past the last).
func (s *exportSnapshot) start(i int) int {
	if i == 0 {
		return 0
	}
	return s.ends[i-1]
}

// exportSnapshots are the exports ExportOwn keeps: at most one per agent,
// its latest first page's.
type exportSnapshots struct {
	mu      sync.Mutex
	byAgent map[string]*exportSnapshot
}

// get returns agent's kept export whose sum starts with prefix, nil when
// none is (or prefix is empty: a first page exports anew).
func (e *exportSnapshots) get(agent, prefix string, now time.Time) *exportSnapshot {
	if prefix == "" {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.byAgent[agent]
	if s == nil || !strings.HasPrefix(s.sum, prefix) || now.Sub(s.used) > exportSnapshotTTL {
		return nil
	}
	s.used = now
	return s
}

// put keeps s as its agent's export, dropping expired ones and then the
// least recently read until all fit in exportSnapshotBytes.
func (e *exportSnapshots) put(s *exportSnapshot) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.byAgent == nil {
		e.byAgent = map[string]*exportSnapshot{}
	}
	e.byAgent[s.agent] = s
	for {
		total := 0
		var oldest *exportSnapshot
		for agent, k := range e.byAgent {
			if s.used.Sub(k.used) > exportSnapshotTTL {
				delete(e.byAgent, agent)
				continue
			}
			total += len(k.data)
			if oldest == nil || k.used.Before(oldest.used) {
				oldest = k
			}
		}
		if total <= exportSnapshotBytes || oldest == nil {
			return
		}
		delete(e.byAgent, oldest.agent)
	}
}

// parseExportCursor reads a cursor "<line>.<export sha256 prefix>".
func parseExportCursor(cursor string) (int, string, error) {
	if cursor == "" {
		return 0, "", nil
	}
	at, sum, ok := strings.Cut(cursor, ".")
	n, err := strconv.Atoi(at)
	if !ok || err != nil || n < 1 || len(sum) != 16 {
		return 0, "", memory.Errorf(memory.EINVALID, "cursor %q is not one this tool gave: send the next_cursor of the page before, or none for the first page", cursor)
	}
	return n, sum, nil
}
