package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	memory "github.com/memory-mcp/memory-mcp"
)

// importColumn is what an exact import holds a column of a record to: the
// table's declared type (INTEGER, REAL, TEXT), and whether it may be null
// or left out (a column a later migration added, which takes its default).
type importColumn struct {
	typ      string
	notNull  bool
	defaults bool
}

// recordChecker holds every record of an exact import to what the tools
// that write its kind hold their callers to (remember, publish_fact,
// write_note, the memory tool, ...), since an export's checksum proves only
// that it is whole, not who made it: each column of the type its table declares,
// present and not null where the table requires it; all text valid UTF-8
// (an unpaired surrogate escape too) with no control characters, refused
// rather than replaced, and of a bounded size, the content of memories,
// facts, notes, repeats and the shared state within the content limit; ids,
// agents and namespaces that are ids (no "../"); categories, buckets, note kinds, approval tiers
// and statuses that are names the tools know; JSON columns that are JSON;
// and every reference (a summary's sources, a conflict's ends, a claim's
// memory, a block version's block) to a record before it in the export,
// which is in reference order. A record that fails is refused with its line
// (ReadExport adds it) and the import stores nothing.
type recordChecker struct {
	maxBytes int
	cols     map[string]map[string]importColumn // table -> column -> what it takes (importColumns)
	seen     map[string]map[string]bool         // memory, memory_pk, fact, block: the ids read so far
}

// newRecordChecker checks the records of the import from src, whose
// columns Import read (src.columns).
func newRecordChecker(src ImportSource) *recordChecker {
	maxBytes := src.MaxContentBytes
	if maxBytes <= 0 {
		maxBytes = memory.DefaultMaxContentBytes
	}
	return &recordChecker{maxBytes: maxBytes, cols: src.columns,
		seen: map[string]map[string]bool{"memory": {}, "memory_pk": {}, "fact": {}, "block": {}}}
}

// maxTextBytes bounds any text column: a JSON column holds a call's
// arguments or a few memories, never more than a few contents.
func (rc *recordChecker) maxTextBytes() int { return max(1<<20, 64*rc.maxBytes) }

// jsonColumns are the columns that hold JSON text.
func isJSONColumn(col string) bool {
	switch col {
	case "tags", "writers", "readers", "identity", "args", "wrote":
		return true
	}
	return strings.HasSuffix(col, "_json")
}

func (rc *recordChecker) check(kind string, raw json.RawMessage) error {
	k, ok := kindNamed(kind)
	if !ok {
		return fmt.Errorf("unknown kind %q", kind)
	}
	cols, ok := rc.cols[k.table]
	if !ok {
		return fmt.Errorf("no columns read for %s", k.table)
	}
	if !utf8.Valid(raw) {
		return memory.Errorf(memory.EINVALID, "the record is not valid UTF-8")
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var row map[string]any
	if err := d.Decode(&row); err != nil {
		return err
	}
	honest := bytes.ContainsRune(raw, utf8.RuneError) || bytes.Contains(bytes.ToLower(raw), []byte(`\ufffd`))
	for col, v := range row { // JSON decoding replaces an unpaired surrogate escape with U+FFFD
		if s, ok := v.(string); ok && !honest && strings.ContainsRune(s, utf8.RuneError) {
			return memory.Errorf(memory.EINVALID, "%s is not valid UTF-8 (an unpaired surrogate)", col)
		}
	}
	for name, c := range cols {
		if err := rc.checkColumn(name, c, row); err != nil {
			return err
		}
	}
	text := func(col string) string { s, _ := row[col].(string); return s }
	ids := func(cols ...string) error {
		for _, col := range cols {
			if err := memory.CheckID(col, text(col)); err != nil {
				return err
			}
		}
		return nil
	}
	refers := func(set string, cols ...string) error {
		for _, col := range cols {
			if v := row[col]; v != nil && !rc.seen[set][fmt.Sprint(v)] {
				return memory.Errorf(memory.EINVALID, "%s %v names no %s before it in the export", col, v, strings.ReplaceAll(set, "_", " "))
			}
		}
		return nil
	}
	content := func(col string) error { return memory.CheckContent(col, text(col), rc.maxBytes) }
	name := func(col string, parse func(string) error) error {
		if v, ok := row[col].(string); ok {
			if err := parse(v); err != nil {
				return memory.Errorf(memory.EINVALID, "%s: %s", col, errorMessage(err))
			}
		}
		return nil
	}
	category := func(s string) error { _, err := memory.ParseCategory(s); return err }
	factCategory := func(s string) error { _, err := memory.ParseFactCategory(s); return err }
	bucket := func(s string) error { _, err := memory.ParseBucket(s); return err }
	var err error
	switch kind {
	case "memory":
		err = firstError(ids("id", "agent_id", "namespace"), content("content"), memory.CheckText("source", text("source"), memory.MaxSourceLen),
			name("category", category))
		rc.seen["memory"][text("id")] = true
		rc.seen["memory_pk"][fmt.Sprint(row["pk"])] = true
	case "fact_op", "fact":
		err = firstError(ids("fact_id", "author_agent_id"), name("category", factCategory))
		if _, ok := row["content"].(string); err == nil && (ok || kind == "fact") { // a retraction has none
			err = content("content")
		}
		rc.seen["fact"][text("fact_id")] = true
	case "fact_claim":
		err = refers("fact", "fact_id")
	case "fact_conflict":
		err = refers("fact", "older_id", "newer_id")
	case "memory_source":
		err = refers("memory", "summary_id", "source_id")
	case "memory_claim":
		if text("agent_id") != sharedClaims {
			err = ids("agent_id")
		}
		err = firstError(err, refers("memory_pk", "memory_pk"))
	case "memory_conflict":
		err = firstError(ids("agent_id"), refers("memory", "older_id", "newer_id"))
	case "memory_repeat":
		err = firstError(ids("agent_id", "namespace"), content("content"), name("category", category), refers("memory", "memory_id"))
	case "shared_repeat":
		err = refers("memory", "copy_id", "memory_id")
	case "block":
		rc.seen["block"][fmt.Sprint(row["id"])] = true
	case "block_version":
		err = refers("block", "block_id")
	case "note":
		err = firstError(ids("agent_id"), content("text"), name("kind", func(s string) error { _, err := memory.ParseNoteKind(s); return err }))
	case "event", "pending":
		err = firstError(ids("agent_id"), name("bucket", bucket))
	case "approval":
		err = firstError(name("tier", func(s string) error { _, err := memory.ParseRiskTier(s); return err }),
			name("status", func(s string) error { _, err := memory.ParseApprovalStatus(s); return err }))
		if p := text("principal"); err == nil && !strings.HasPrefix(p, "agent:") && !strings.HasPrefix(p, "human:") {
			err = memory.Errorf(memory.EINVALID, "principal %q is not agent:<id> or human:<id>", p)
		}
	default:
		if strings.HasPrefix(kind, "shared_") {
			if _, ok := cols["text"]; ok && kind != "shared_task_state" {
				err = content("text")
			}
		}
	}
	return err
}

// checkColumn holds one column of row to c.
func (rc *recordChecker) checkColumn(col string, c importColumn, row map[string]any) error {
	v, ok := row[col]
	switch {
	case !ok && c.notNull && !c.defaults:
		return memory.Errorf(memory.EINVALID, "column %s is missing", col)
	case !ok:
		return nil
	case v == nil && c.notNull:
		return memory.Errorf(memory.EINVALID, "column %s is null; it must have a value", col)
	case v == nil:
		return nil
	}
	switch c.typ {
	case "INTEGER":
		if n, ok := v.(json.Number); !ok || strings.ContainsAny(n.String(), ".eE") {
			return memory.Errorf(memory.EINVALID, "column %s is %s; it holds a whole number", col, jsonType(v))
		}
		if _, err := v.(json.Number).Int64(); err != nil {
			return memory.Errorf(memory.EINVALID, "column %s is %s, out of range", col, v)
		}
	case "REAL":
		if _, ok := v.(json.Number); !ok {
			return memory.Errorf(memory.EINVALID, "column %s is %s; it holds a number", col, jsonType(v))
		}
	case "TEXT":
		s, ok := v.(string)
		if !ok {
			return memory.Errorf(memory.EINVALID, "column %s is %s; it holds text", col, jsonType(v))
		}
		if err := memory.CheckText(col, s, rc.maxTextBytes()); err != nil {
			return err
		}
		if isJSONColumn(col) && !json.Valid([]byte(s)) {
			return memory.Errorf(memory.EINVALID, "column %s is not JSON text", col)
		}
		if col == "tags" || col == "writers" || col == "readers" {
			var list []string
			if err := json.Unmarshal([]byte(s), &list); err != nil {
				return memory.Errorf(memory.EINVALID, "column %s is not a JSON list of strings", col)
			}
		}
	default:
		return memory.Errorf(memory.EINVALID, "column %s is of a type the export format does not carry", col)
	}
	return nil
}

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "text"
	case json.Number:
		return "a number"
	case bool:
		return "true or false"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return "null"
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// errorMessage is a domain error's message without its code, any other
// error's text.
func errorMessage(err error) string {
	var e *memory.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

// importColumns reads the columns of every table an export carries, as the
// store's schema declares them (PostgreSQL's types named as SQLite's, which
// they mirror: bigint INTEGER, double precision REAL, text TEXT), without
// the columns an import re-makes (stamps, vectors).
func (db *DB) importColumns(ctx context.Context) (map[string]map[string]importColumn, error) {
	// An INTEGER PRIMARY KEY of one column is the rowid, made when left out.
	q := `SELECT name, upper(type), "notnull" OR pk > 0, dflt_value IS NOT NULL OR
			(pk > 0 AND upper(type) = 'INTEGER' AND (SELECT count(*) FROM pragma_table_info(?1) WHERE pk > 0) = 1)
		FROM pragma_table_info(?1)`
	if db.postgres {
		q = `SELECT column_name,
				CASE WHEN data_type IN ('bigint', 'integer', 'smallint') THEN 'INTEGER'
					WHEN data_type IN ('double precision', 'real', 'numeric') THEN 'REAL'
					WHEN data_type IN ('text', 'character varying') THEN 'TEXT' ELSE 'BLOB' END,
				is_nullable = 'NO', column_default IS NOT NULL OR is_identity = 'YES'
			FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?
				AND data_type <> 'tsvector'` // the full-text index, which SQLite keeps apart
	}
	out := map[string]map[string]importColumn{}
	for _, k := range portableKinds {
		rows, err := db.reads.QueryContext(ctx, db.dialect(q), k.table)
		if err != nil {
			return nil, db.busyError(fmt.Errorf("read the columns of %s: %w", k.table, err))
		}
		cols := map[string]importColumn{}
		for rows.Next() {
			var name string
			var c importColumn
			if err := rows.Scan(&name, &c.typ, &c.notNull, &c.defaults); err != nil {
				rows.Close()
				return nil, err
			}
			if !slices.Contains(k.skip, name) {
				cols[name] = c
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		out[k.table] = cols
	}
	return out, nil
}
