package store

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	memory "github.com/memory-mcp/memory-mcp"
)

// Erasure deletes for good, which nothing else in the store does: the
// no-delete triggers let a delete through only while erase_permit holds
// its row, which an erase or gc inserts at its start and deletes before it
// commits (migration 0012). What goes is listed in one place,
// erasureSteps; a new table that holds memory ids or stored text is one
// more step there.

// erasure is one erase or gc inside its transaction: what it removes, and
// its account of it.
type erasure struct {
	tx     *Tx
	dryRun bool // counted in a transaction rolled back
	now    time.Time
	// memories are the memory ids that go (closed under what derives from
	// them before the steps run).
	memories []string
	gone     map[string]bool // memories, as a set
	// texts are the text an erase removes wherever it is stored (its
	// contains, when no ids are given), in the forms textForms lists;
	// agent narrows them to what that agent wrote (bound as ?1, a JSON
	// list). quoted are the erased memories' contents in the same forms:
	// a row quoting one goes whoever wrote it, since it repeats what is
	// erased (bound as ?3). Only the memory steps run when textual is
	// false.
	texts, quoted []string
	// textIn and quotedIn find texts and quoted in a row's text, in one
	// pass over it (see quoteMatcher).
	textIn, quotedIn *quoteMatcher
	// approvalIDs are the approval requests erased (see keys).
	approvalIDs []string
	agent       string
	textual     bool

	report memory.ErasureReport
	refs   []string                       // every erased item, "<kind>:<id>", for the audit's hash
	feed   map[memory.ChangeKind][]string // change feed refs naming what went
	facts  bool                           // a fact went: its full-text index is merged
}

// erasureSteps are everything an erase or gc removes, in order: a
// summary's source rows before the memories they name (foreign keys), the
// memories' derivatives after the memories, the change feed last, since
// every step before it says which of its rows name what went.
var erasureSteps = []struct {
	kind string
	run  func(*erasure, context.Context) (int, error)
}{
	{"", (*erasure).restoreSources},
	{memory.ErasedSources, (*erasure).sources},
	{"", (*erasure).unlinkSuperseded},
	{memory.ErasedConflicts, (*erasure).conflicts},
	{memory.ErasedMemories, (*erasure).memoryRows},
	{memory.ErasedRepeats, (*erasure).repeats},
	{memory.ErasedNotes, (*erasure).notes},
	{memory.ErasedEvents, (*erasure).ledger},
	{memory.ErasedPending, (*erasure).pending},
	{memory.ErasedBlockVersions, (*erasure).blockVersions},
	{memory.ErasedFactOperations, (*erasure).factLog},
	{memory.ErasedApprovals, (*erasure).approvals},
	{memory.ErasedKeys, (*erasure).keys},
	{"", (*erasure).writeLog},
	{memory.ErasedChanges, (*erasure).changes},
}

func newErasure(tx *Tx) *erasure {
	return &erasure{tx: tx, now: tx.Now(), gone: map[string]bool{}, feed: map[memory.ChangeKind][]string{},
		report: memory.ErasureReport{Counts: map[string]int{}}}
}

// foldCase is s with every letter's case folded (simple Unicode case
// folding: "ÉCOLE" and "école" are one text; one rune never becomes
// two), so that an erase's text and a stored row are compared alike on
// either engine. It is done in Go, never in SQL: SQLite's lower() folds
// ASCII letters only, and PostgreSQL's follows the collation's locale.
func foldCase(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			return strings.Map(func(r rune) rune { return unicode.ToLower(unicode.ToUpper(r)) }, s)
		}
	}
	return s
}

// quoting returns the key (the expression key) of each row of table that
// quotes what the erase removes in one of cols: an erased memory's content
// (when quoted is true), whoever wrote the row, or the erase's text in a
// row that whose (an SQL condition on agent, bound as ?1; "" for every
// agent) says is the agent's. Each row is read once and searched in Go
// (quoteMatcher): a search of every erased text in SQL, row by row, made
// an erase by agent quadratic in its memories.
func (e *erasure) quoting(ctx context.Context, table, key, whose string, quoted bool, cols ...string) ([]string, error) {
	texts := make([]string, len(cols))
	for i, c := range cols {
		texts[i] = "coalesce(" + c + ", '')"
	}
	rows, err := e.tx.queryOnce(ctx, `SELECT `+key+`, `+whose+`, `+strings.Join(texts, ", ")+` FROM `+table, e.agent)
	if err != nil {
		return nil, fmt.Errorf("find rows of %s quoting the erased text: %w", table, err)
	}
	defer rows.Close()
	var out []string
	vals := make([]string, len(cols))
	dest := []any{new(string), new(bool)}
	for i := range vals {
		dest = append(dest, &vals[i])
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("read %s: %w", table, err)
		}
		mine := *dest[1].(*bool)
		for _, v := range vals {
			lower := foldCase(v)
			if quoted && e.quotedIn.in(lower) || mine && e.textIn.in(lower) {
				out = append(out, *dest[0].(*string))
				break
			}
		}
	}
	return out, rows.Err()
}

// instr is the SQL expression of where needle first occurs in hay (from
// 1; 0 when it does not): SQLite's instr, PostgreSQL's strpos.
func (db *DB) instr(hay, needle string) string {
	if db.postgres {
		return "strpos(" + hay + ", " + needle + ")"
	}
	return "instr(" + hay + ", " + needle + ")"
}

// textList is texts (or ids) as a JSON list, [] for none: PostgreSQL's
// json_each takes no null.
func textList(texts []string) string {
	if len(texts) == 0 {
		return "[]"
	}
	return jsonList(texts)
}

// textForms are the forms a text is searched for in, case-folded
// (foldCase): as written, and as JSON writes it inside a string, once and
// twice ("&" is "\u0026", a quote "\""), since arguments, results and
// payloads are kept as JSON.
func textForms(s string) []string {
	once := jsonEscape(s)
	forms := []string{foldCase(s), foldCase(once), foldCase(jsonEscape(once))}
	slices.Sort(forms)
	return slices.Compact(forms)
}

// jsonEscape is s as JSON writes it inside a string, without the quotes.
func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// byAgent narrows a query of rows that quote the text to those col says
// agent wrote (bound as ?1; "" for every agent).
func byAgent(col string) string { return "(?1 = '' OR " + col + " = ?1)" }

// add records erased items of a kind.
func (e *erasure) add(kind string, ids ...string) {
	for _, id := range ids {
		e.refs = append(e.refs, kind+":"+id)
	}
}

// Erase removes what r selects for good, with everything derived from it,
// and leaves an audit row; who must be a human (the service checks). An
// id that names no memory fails it whole.
func (tx *Tx) Erase(ctx context.Context, who memory.Identity, r memory.ErasureRequest) (memory.ErasureReport, error) {
	e := newErasure(tx)
	e.agent, e.dryRun = r.AgentID, r.DryRun
	var forms []string
	if r.Contains != "" {
		forms = textForms(r.Contains)
	}
	ids, err := e.selectMemories(ctx, r, forms)
	if err != nil {
		return e.report, err
	}
	if err := e.derive(ctx, ids); err != nil {
		return e.report, err
	}
	if len(r.IDs) == 0 { // with ids, contains only narrows the memories
		e.texts = forms
	}
	if e.quoted, err = e.contents(ctx); err != nil {
		return e.report, err
	}
	e.textual = len(e.texts) > 0 || len(e.quoted) > 0
	e.textIn, e.quotedIn = newQuoteMatcher(e.texts), newQuoteMatcher(e.quoted)
	if err := e.run(ctx); err != nil {
		return e.report, err
	}
	return e.report, e.audit(ctx, who, "erase", r.Reason, eraseSelector(r, tx.db.provenanceKey))
}

// selectMemories returns the memories r selects before derivation, with
// forms the forms of its text. Every id must name a memory (any agent's:
// the caller is a human).
func (e *erasure) selectMemories(ctx context.Context, r memory.ErasureRequest, forms []string) ([]string, error) {
	conds, args := []string{"true"}, []any{}
	if len(r.IDs) > 0 {
		missing, err := scanStrings(e.tx.queryOnce(ctx, `SELECT value FROM json_each(?) WHERE NOT EXISTS (SELECT 1 FROM memories WHERE id = value)`, textList(r.IDs)))
		if err != nil {
			return nil, fmt.Errorf("check ids: %w", err)
		}
		if len(missing) > 0 {
			return nil, memory.Errorf(memory.ENOTFOUND, "no memory with id %q: nothing was erased; list_memories (with agent_id and states) shows an agent's memories", missing[0])
		}
		conds, args = append(conds, "id IN (SELECT value FROM json_each(?))"), append(args, textList(r.IDs))
	}
	if r.AgentID != "" {
		conds, args = append(conds, "agent_id = ?"), append(args, r.AgentID)
	}
	if r.Contains == "" {
		ids, err := scanStrings(e.tx.queryOnce(ctx, `SELECT id FROM memories WHERE `+strings.Join(conds, " AND "), args...))
		if err != nil {
			return nil, fmt.Errorf("select memories: %w", err)
		}
		return ids, nil
	}
	// The text is looked for in Go, case-folded alike on both engines
	// (foldCase), each memory read once.
	holds := newQuoteMatcher(forms)
	rows, err := e.tx.queryOnce(ctx, `SELECT id, coalesce(content, ''), coalesce(tags, ''), coalesce(source, ''), coalesce(forget_reason, '')
		FROM memories WHERE `+strings.Join(conds, " AND "), args...)
	if err != nil {
		return nil, fmt.Errorf("select memories: %w", err)
	}
	defer rows.Close()
	var ids []string
	var id string
	texts := make([]string, 4)
	for rows.Next() {
		if err := rows.Scan(&id, &texts[0], &texts[1], &texts[2], &texts[3]); err != nil {
			return nil, fmt.Errorf("select memories: %w", err)
		}
		if slices.ContainsFunc(texts, func(t string) bool { return holds.in(foldCase(t)) }) {
			ids = append(ids, id)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("select memories: %w", err)
	}
	return ids, nil
}

// idIn is the condition that col, a column of memories that is mostly
// NULL (published_from, superseded_by, consolidated_into) and looked up by
// a partial index WHERE it IS NOT NULL, holds one of the ids bound at
// param (see idsArg). PostgreSQL counts on json_each yielding 100 rows
// and a column without sampled values (0035) being half NULL, so it read
// every memory for the join instead (most of the erase confirmation's
// second at 100k memories); bound as an array, the ids are a constant it
// counts, looked up by the index.
func (db *DB) idIn(col, param string) string {
	if db.postgres {
		return col + " IS NOT NULL AND " + col + " = ANY(" + param + ")"
	}
	return col + " IN (SELECT value FROM json_each(" + param + "))"
}

// idsArg binds ids for idIn: an array on PostgreSQL, a JSON list on
// SQLite.
func (db *DB) idsArg(ids []string) any {
	if db.postgres {
		return append([]string{}, ids...)
	}
	return textList(ids)
}

// derive closes ids under what derives from a memory: its shared copy and
// the personal memory a copy was published from (the same words), and the
// summaries made from it (which say it again). What a summary was made
// from is not derived from it: those memories stay, back in search.
func (e *erasure) derive(ctx context.Context, ids []string) error {
	for len(ids) > 0 {
		for _, id := range ids {
			if !e.gone[id] {
				e.gone[id] = true
				e.memories = append(e.memories, id)
			}
		}
		db := e.tx.db
		next, err := scanStrings(e.tx.queryOnce(ctx, `SELECT id FROM memories WHERE `+db.idIn("published_from", "?2")+`
			UNION SELECT published_from FROM memories WHERE id IN (SELECT value FROM json_each(?1)) AND published_from IS NOT NULL
			UNION SELECT summary_id FROM memory_sources WHERE source_id IN (SELECT value FROM json_each(?1))
			UNION SELECT id FROM memories WHERE archive_reason = 'merged' AND `+db.idIn("superseded_by", "?2")+`
			UNION SELECT superseded_by FROM memories WHERE id IN (SELECT value FROM json_each(?1)) AND archive_reason = 'merged'`, textList(ids), db.idsArg(ids)))
		if err != nil {
			return fmt.Errorf("derive erased memories: %w", err)
		}
		ids = slices.DeleteFunc(next, func(id string) bool { return e.gone[id] })
	}
	return nil
}

// contents returns the erased memories' contents in the forms a row
// quoting one is searched for in (textForms), leaving out those too short
// to be quoted rather than met by chance (see quotable).
func (e *erasure) contents(ctx context.Context) ([]string, error) {
	contents, err := scanStrings(e.tx.queryOnce(ctx, `SELECT DISTINCT content FROM memories WHERE id IN (SELECT value FROM json_each(?))`,
		textList(e.memories)))
	if err != nil {
		return nil, fmt.Errorf("read erased memories' contents: %w", err)
	}
	var forms []string
	for _, c := range contents {
		if quotable(c) {
			forms = append(forms, textForms(c)...)
		}
	}
	slices.Sort(forms)
	return slices.Compact(forms), nil
}

// Only a memory of at least minQuotedWords words and minQuotedRunes
// characters is looked for in other rows: "yes", "TBD" or "the API" are
// inside many texts that never quoted it, and an erase removes whatever
// holds them, whoever wrote it. A shorter memory's words are erased from
// other rows by contains.
const (
	minQuotedWords = 4
	minQuotedRunes = 24
)

func quotable(content string) bool {
	c := strings.TrimSpace(content)
	return len(strings.Fields(c)) >= minQuotedWords && len([]rune(c)) >= minQuotedRunes
}

// run lifts the no-delete triggers for this transaction and runs every
// step, counting what each removed.
func (e *erasure) run(ctx context.Context) error {
	sort.Strings(e.memories)
	if _, err := e.tx.execOnce(ctx, `INSERT INTO erase_permit (one) VALUES (1)`); err != nil {
		return fmt.Errorf("permit erase: %w", err)
	}
	for _, st := range erasureSteps {
		n, err := st.run(e, ctx)
		if err != nil {
			return err
		}
		if n > 0 && st.kind != "" {
			e.report.Counts[st.kind] += n
		}
	}
	if _, err := e.tx.execOnce(ctx, `DELETE FROM erase_permit`); err != nil {
		return fmt.Errorf("end erase permit: %w", err)
	}
	return e.merge(ctx)
}

// merge rewrites the full-text indexes that lost rows as one segment each:
// FTS5 keeps a deleted row's terms in its segments until they are merged,
// and the file must not. PostgreSQL's GIN indexes are rewritten by the
// scrub, with their tables.
func (e *erasure) merge(ctx context.Context) error {
	// A dry run's transaction is rolled back: rewriting the indexes (1.8 s
	// for 100k memories) would only be undone.
	if e.dryRun || e.tx.db.postgres {
		return nil
	}
	var tables []string
	if e.report.Counts[memory.ErasedMemories] > 0 {
		tables = append(tables, "memory_fts", "memory_archive_fts")
	}
	if e.facts {
		tables = append(tables, "fact_fts")
	}
	if e.report.Counts[memory.ErasedRepeats] > 0 {
		tables = append(tables, "repeat_fts")
	}
	for _, t := range tables {
		if _, err := e.tx.execOnce(ctx, `INSERT INTO `+t+` (`+t+`) VALUES ('optimize')`); err != nil {
			return fmt.Errorf("merge %s: %w", t, err)
		}
	}
	return nil
}

// restoreSources gives back to search the memories archived into an
// erased summary that are not erased themselves, as forgetting the summary
// would.
func (e *erasure) restoreSources(ctx context.Context) (int, error) {
	back, err := scanStrings(e.tx.queryOnce(ctx, `SELECT id FROM memories WHERE `+e.tx.db.idIn("consolidated_into", "?"),
		e.tx.db.idsArg(e.memories)))
	if err != nil {
		return 0, fmt.Errorf("read sources of erased summaries: %w", err)
	}
	back = slices.DeleteFunc(back, func(id string) bool { return e.gone[id] })
	for _, id := range back {
		if err := e.tx.unarchive(ctx, id, e.now); err != nil {
			return 0, err
		}
	}
	e.report.Restored = len(back)
	return 0, nil
}

// sources removes what the erased summaries were made from, and the rows
// naming an erased memory as a source.
func (e *erasure) sources(ctx context.Context) (int, error) {
	return e.exec(ctx, "delete summary sources", `DELETE FROM memory_sources WHERE summary_id IN (SELECT value FROM json_each(?1))
		OR source_id IN (SELECT value FROM json_each(?1))`, textList(e.memories))
}

// unlinkSuperseded clears the pointer of the memories an erased memory
// superseded: they stay archived as superseded (recallable, restorable),
// as they do when the memory that replaced them is forgotten; a purge or
// an erase brings nothing back into search.
func (e *erasure) unlinkSuperseded(ctx context.Context) (int, error) {
	_, err := e.exec(ctx, "unlink superseded memories", `UPDATE memories SET superseded_by = NULL
		WHERE `+e.tx.db.idIn("superseded_by", "?"), e.tx.db.idsArg(e.memories))
	return 0, err
}

// conflicts removes the recorded contradictions either side of which goes
// (they quote its values), and the erased memories' claims; by text, also
// the conflicts whose values or reason (a decider's words, a model's)
// quote it.
func (e *erasure) conflicts(ctx context.Context) (int, error) {
	if _, err := e.exec(ctx, "delete claims", `DELETE FROM memory_claims WHERE memory_pk IN
		(SELECT pk FROM memories WHERE id IN (SELECT value FROM json_each(?)))`, textList(e.memories)); err != nil {
		return 0, err
	}
	n, err := e.exec(ctx, "delete conflicts", `DELETE FROM memory_conflicts WHERE older_id IN (SELECT value FROM json_each(?1))
		OR newer_id IN (SELECT value FROM json_each(?1))`, textList(e.memories))
	if err != nil || !e.textual {
		return n, err
	}
	for _, t := range []struct{ table, whose string }{
		{"memory_conflicts", byAgent("agent_id")},
		{"fact_conflicts", "?1 = ''"}, // a fact's conflicts belong to no agent: an agent selector leaves them
	} {
		ids, err := e.quoting(ctx, t.table, "id", t.whose, true, "reason", "older_value", "newer_value")
		if err != nil {
			return 0, err
		}
		m, err := e.exec(ctx, "delete conflicts quoting the text", `DELETE FROM `+t.table+` WHERE id IN (SELECT value FROM json_each(?))`, textList(ids))
		if err != nil {
			return 0, err
		}
		n += m
	}
	return n, nil
}

// memoryRows deletes the memories, their vectors with them; the triggers
// of migration 0012 take them out of the full-text indexes and the search
// statistics. One statement: a copy and its original go together, and
// foreign keys are checked at its end.
func (e *erasure) memoryRows(ctx context.Context) (int, error) {
	e.add("memory", e.memories...)
	e.feed[memory.ChangeMemory] = append(e.feed[memory.ChangeMemory], e.memories...)
	if _, err := e.exec(ctx, "delete repeats", `DELETE FROM shared_repeats WHERE copy_id IN (SELECT value FROM json_each(?1))
		OR memory_id IN (SELECT value FROM json_each(?1))`, textList(e.memories)); err != nil {
		return 0, err
	}
	return e.exec(ctx, "delete memories", `DELETE FROM memories WHERE id IN (SELECT value FROM json_each(?))`, textList(e.memories))
}

// repeats deletes the words kept of writes answered "duplicate" of an
// erased memory, or published from one, or stored after all as one (they
// say what it says, or what was taken to be it); by text, the repeats
// that quote it.
func (e *erasure) repeats(ctx context.Context) (int, error) {
	ids, err := scanStrings(e.tx.queryOnce(ctx, `SELECT id FROM memory_repeats WHERE memory_id IN (SELECT value FROM json_each(?1))
		OR from_id IN (SELECT value FROM json_each(?1)) OR stored_as IN (SELECT value FROM json_each(?1))`, textList(e.memories)))
	if err != nil {
		return 0, fmt.Errorf("find repeats of erased memories: %w", err)
	}
	if e.textual {
		quoting, err := e.quoting(ctx, "memory_repeats", "id", byAgent("agent_id"), true, "content", "tags", "source")
		if err != nil {
			return 0, err
		}
		ids = append(ids, quoting...)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	e.add("repeat", ids...)
	return e.exec(ctx, "delete repeats", `DELETE FROM memory_repeats WHERE id IN (SELECT value FROM json_each(?))`, textList(ids))
}

// approvals deletes the approval requests whose arguments, outcome or
// decision quote the text, or that name an erased memory (publish_memory
// of it, or a write that made it): a held or reviewed call keeps its
// arguments whole.
func (e *erasure) approvals(ctx context.Context) (int, error) {
	ids, err := scanStrings(e.tx.queryOnce(ctx, `SELECT id FROM approvals WHERE ref IN (SELECT value FROM json_each(?1))
		OR EXISTS (SELECT 1 FROM json_each(?1) WHERE `+e.tx.db.instr("args", `'"' || value || '"'`)+` > 0)`, textList(e.memories)))
	if err != nil {
		return 0, fmt.Errorf("find approvals of erased memories: %w", err)
	}
	if e.textual {
		quoting, err := e.quoting(ctx, "approvals", "id", "(?1 = '' OR principal IN ('agent:' || ?1, 'human:' || ?1))", true,
			"args", "reason", "error_message", "wrote")
		if err != nil {
			return 0, err
		}
		ids = append(ids, quoting...)
	}
	// The keys of the calls they held answer with the request's id; the
	// keys step drops them with it.
	e.approvalIDs = ids
	return e.exec(ctx, "delete approvals", `DELETE FROM approvals WHERE id IN (SELECT value FROM json_each(?))`, textList(ids))
}

// notes deletes working-memory notes that quote the text.
func (e *erasure) notes(ctx context.Context) (int, error) {
	if !e.textual {
		return 0, nil
	}
	ids, err := e.quoting(ctx, "notes", "note_id", byAgent("agent_id"), true, "text", "outcome_json")
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	e.add("note", ids...)
	e.feed[memory.ChangeNote] = append(e.feed[memory.ChangeNote], ids...)
	return e.exec(ctx, "delete notes", `DELETE FROM notes WHERE note_id IN (SELECT CAST(value AS bigint) FROM json_each(?))`, textList(ids))
}

// stateQuoting is, per bucket, the columns of its table that hold text.
var stateQuoting = map[memory.Bucket][]string{
	memory.BucketPlan:        {"text"},
	memory.BucketTaskState:   {"text", "state"},
	memory.BucketResults:     {"text", "task_id"},
	memory.BucketLearnings:   {"text"},
	memory.BucketIssues:      {"text", "close_reason", "reference_memory_json"},
	memory.BucketConstraints: {"text", "close_reason", "reference_memory_json"},
	memory.BucketDecisions:   {"text", "close_reason", "reference_memory_json"},
}

// ledger deletes the promotion ledger's events that quote the text and
// the shared-state rows that do, each with the other: the row an event
// made, and every event of a row that goes, so that replaying the ledger
// rebuilds the state as it is after the erase. The row count goes under
// its own kind.
func (e *erasure) ledger(ctx context.Context) (int, error) {
	if !e.textual {
		return 0, nil
	}
	type row struct{ bucket, id string }
	rows := map[row]bool{}
	seqs, err := e.quoting(ctx, "events_memory", "seq", byAgent("agent_id"), true, "raw_input", "payload_json", "source_ref", "projection_error")
	if err != nil {
		return 0, err
	}
	for _, s := range seqs {
		var bucket, target string
		if err := e.tx.queryRowOnce(ctx, `SELECT bucket, target_id FROM events_memory WHERE seq = ?`, s).Scan(&bucket, &target); err != nil {
			return 0, fmt.Errorf("read event %s: %w", s, err)
		}
		seq, _ := strconv.ParseInt(s, 10, 64)
		if id := rowID(&memory.Event{Bucket: memory.Bucket(bucket), TargetID: target, Seq: seq}); id != "" {
			rows[row{bucket, id}] = true
		}
	}
	// Rows have no author: with an agent, the erase's text takes only the
	// rows its events made; an erased memory's content, every row quoting it.
	for _, b := range memory.Buckets {
		ids, err := e.quoting(ctx, stateTable(b), "id", "?1 = ''", true, stateQuoting[b]...)
		if err != nil {
			return 0, err
		}
		for _, id := range ids {
			rows[row{string(b), id}] = true
		}
	}
	var events []string
	states := 0
	for r := range rows {
		q, b, id := eventsOfRow(memory.Bucket(r.bucket), r.id)
		evs, err := scanStrings(e.tx.queryOnce(ctx, q, b, id))
		if err != nil {
			return 0, fmt.Errorf("read events of %s/%s: %w", r.bucket, r.id, err)
		}
		events = append(events, evs...)
		n, err := e.exec(ctx, "delete shared state", `DELETE FROM `+stateTable(memory.Bucket(r.bucket))+` WHERE id = ?`, r.id)
		if err != nil {
			return 0, err
		}
		if n > 0 {
			states += n
			ref := memory.StateChangeRef(memory.Bucket(r.bucket), r.id)
			e.add("shared", ref)
			e.feed[memory.ChangeState] = append(e.feed[memory.ChangeState], ref)
		}
	}
	if states > 0 {
		e.report.Counts[memory.ErasedStateRows] += states
	}
	for _, s := range seqs {
		var id string
		if err := e.tx.queryRowOnce(ctx, `SELECT event_id FROM events_memory WHERE seq = ?`, s).Scan(&id); err != nil {
			return 0, fmt.Errorf("read event %s: %w", s, err)
		}
		events = append(events, id)
	}
	slices.Sort(events)
	events = slices.Compact(events)
	e.add("event", events...)
	return e.exec(ctx, "delete ledger events", `DELETE FROM events_memory WHERE event_id IN (SELECT value FROM json_each(?))`, textList(events))
}

// eventsOfRow is the query of the events that wrote row id of bucket b:
// an appended row's one event (its id is made from the event's seq), or
// every event whose target it is.
func eventsOfRow(b memory.Bucket, id string) (string, any, any) {
	for _, prefix := range []string{"result_", "learning_"} {
		if seq, ok := strings.CutPrefix(id, prefix); ok && (b == memory.BucketResults || b == memory.BucketLearnings) {
			return `SELECT event_id FROM events_memory WHERE bucket = ? AND seq = ?`, b, seq
		}
	}
	return `SELECT event_id FROM events_memory WHERE bucket = ? AND target_id = ?`, b, id
}

// pending deletes pending writes that quote the text.
func (e *erasure) pending(ctx context.Context) (int, error) {
	if !e.textual {
		return 0, nil
	}
	ids, err := e.quoting(ctx, "pending_memory_events", "pending_id", byAgent("agent_id"), true,
		"raw_input", "request_json", "reason", "candidates_json", "resolution_json")
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	e.add("pending", ids...)
	e.feed[memory.ChangePending] = append(e.feed[memory.ChangePending], ids...)
	return e.exec(ctx, "delete pending writes", `DELETE FROM pending_memory_events WHERE pending_id IN (SELECT CAST(value AS bigint) FROM json_each(?))`, textList(ids))
}

// blockVersions deletes the block versions that quote the text. A block
// whose newest version went is back at its newest version left (the
// rewound count); a block with none left goes (the blocks count).
func (e *erasure) blockVersions(ctx context.Context) (int, error) {
	if !e.textual {
		return 0, nil
	}
	versions, err := e.quoting(ctx, "block_versions", "block_id || '/' || version", byAgent("author_agent_id"), true, "value", "description")
	if err != nil {
		return 0, err
	}
	var blocks []int64
	for _, v := range versions {
		e.add("block_version", v)
		id, version, _ := strings.Cut(v, "/")
		block, _ := strconv.ParseInt(id, 10, 64)
		if _, err := e.tx.execOnce(ctx, `DELETE FROM block_versions WHERE block_id = ? AND version = ?`, block, version); err != nil {
			return 0, fmt.Errorf("delete block version %s: %w", v, err)
		}
		if !slices.Contains(blocks, block) {
			blocks = append(blocks, block)
		}
	}
	n := len(versions)
	for _, id := range blocks {
		if err := e.rewind(ctx, id); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// rewind brings block id in line with its versions after some went.
func (e *erasure) rewind(ctx context.Context, id int64) error {
	var scope, label string
	var current int64
	if err := e.tx.queryRowOnce(ctx, `SELECT scope, label, version FROM blocks WHERE id = ?`, id).Scan(&scope, &label, &current); err != nil {
		return fmt.Errorf("read block %d: %w", id, err)
	}
	e.feed[memory.ChangeBlock] = append(e.feed[memory.ChangeBlock], scope+"/"+label)
	var newest sql.NullInt64
	if err := e.tx.queryRowOnce(ctx, `SELECT max(version) FROM block_versions WHERE block_id = ?`, id).Scan(&newest); err != nil {
		return fmt.Errorf("read block %d: %w", id, err)
	}
	switch {
	case !newest.Valid:
		if _, err := e.tx.execOnce(ctx, `DELETE FROM blocks WHERE id = ?`, id); err != nil {
			return fmt.Errorf("delete block %d: %w", id, err)
		}
		e.report.Counts[memory.ErasedBlocks]++
	case newest.Int64 != current:
		_, err := e.tx.execOnce(ctx, `UPDATE blocks SET (value, description, char_limit, version, deleted_at, updated_at) =
			(SELECT value, description, char_limit, version, CASE WHEN deleted = 1 THEN at END, max(blocks.updated_at, at)
			 FROM block_versions WHERE block_id = ?1 AND version = ?2) WHERE id = ?1`, id, newest.Int64)
		if err != nil {
			return fmt.Errorf("rewind block %d: %w", id, err)
		}
		e.report.Rewound++
	}
	return nil
}

// factLog deletes the org facts any version of which quotes the text,
// whole: every operation, the snapshot row and their full-text entries (a
// fact's versions say one thing over time, and a fact kept without the
// version that said it would misstate its history).
func (e *erasure) factLog(ctx context.Context) (int, error) {
	if !e.textual {
		return 0, nil
	}
	// An erased memory's words in a fact are left to an erase by contains:
	// a fact is someone's statement to every agent, with its history, and
	// goes whole.
	quoting, err := e.quoting(ctx, "operation_log", "fact_id", byAgent("author_agent_id"), false, "content", "tags", "reason")
	if err != nil {
		return 0, err
	}
	slices.Sort(quoting)
	facts := slices.Compact(quoting)
	if len(facts) == 0 {
		return 0, nil
	}
	e.facts = true
	list := textList(facts)
	// On SQLite fact_fts holds the published versions; an external-content
	// table is told the old values of what leaves it. PostgreSQL's terms
	// are a column of the rows that go.
	if !e.tx.db.postgres {
		if _, err := e.tx.execOnce(ctx, `INSERT INTO fact_fts (fact_fts, rowid, content, tags)
		SELECT 'delete', id, content, tags FROM operation_log WHERE operation_type = 'PUBLISH' AND fact_id IN (SELECT value FROM json_each(?))`, list); err != nil {
			return 0, fmt.Errorf("unindex facts: %w", err)
		}
	}
	// Their claims and conflicts name them (foreign keys) and quote them.
	if _, err := e.exec(ctx, "delete fact claims", `DELETE FROM fact_claims WHERE fact_id IN (SELECT value FROM json_each(?))`, list); err != nil {
		return 0, err
	}
	cs, err := e.exec(ctx, "delete fact conflicts", `DELETE FROM fact_conflicts WHERE older_id IN (SELECT value FROM json_each(?1))
		OR newer_id IN (SELECT value FROM json_each(?1))`, list)
	if err != nil {
		return 0, err
	}
	e.report.Counts[memory.ErasedConflicts] += cs
	if _, err := e.tx.execOnce(ctx, `DELETE FROM snapshot WHERE fact_id IN (SELECT value FROM json_each(?))`, list); err != nil {
		return 0, fmt.Errorf("delete fact snapshots: %w", err)
	}
	n, err := e.exec(ctx, "delete fact operations", `DELETE FROM operation_log WHERE fact_id IN (SELECT value FROM json_each(?))`, list)
	if err != nil {
		return 0, err
	}
	e.add("fact", facts...)
	e.feed[memory.ChangeFact] = append(e.feed[memory.ChangeFact], facts...)
	e.report.Counts[memory.ErasedFacts] += len(facts)
	return n, nil
}

// memoryIDPattern finds memory ids in a stored result.
var memoryIDPattern = regexp.MustCompile(`mem-[0-9a-f]{12}`)

// keys deletes the idempotency keys whose kept result names an erased
// memory or approval request, or quotes the text (one of the agent's, when
// the erase names one): a repeat of such a call runs again instead of
// answering from what went.
func (e *erasure) keys(ctx context.Context) (int, error) {
	rows, err := e.tx.queryOnce(ctx, `SELECT principal, key, coalesce(ref, ''), coalesce(result, ''), coalesce(text, ''),
		coalesce(error_message, '') FROM idempotency_keys`)
	if err != nil {
		return 0, fmt.Errorf("read idempotency keys: %w", err)
	}
	type pk struct{ principal, key string }
	var drop []pk
	for rows.Next() {
		var k pk
		var ref, result, text, failed string
		if err := rows.Scan(&k.principal, &k.key, &ref, &result, &text, &failed); err != nil {
			rows.Close()
			return 0, err
		}
		if e.names(k.principal, ref, result+"\n"+text+"\n"+failed) {
			drop = append(drop, k)
		}
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return 0, err
	}
	for _, k := range drop {
		if _, err := e.tx.exec(ctx, `DELETE FROM idempotency_keys WHERE principal = ? AND key = ?`, k.principal, k.key); err != nil {
			return 0, fmt.Errorf("delete idempotency key: %w", err)
		}
	}
	return len(drop), nil
}

// names reports whether principal's kept result names an erased memory or
// approval, or quotes the erased text.
func (e *erasure) names(principal, ref, kept string) bool {
	if e.gone[ref] {
		return true
	}
	for _, id := range e.approvalIDs {
		if ref == id || strings.Contains(kept, id) {
			return true
		}
	}
	lower := foldCase(kept)
	if e.agent == "" || principal == "agent:"+e.agent || principal == "human:"+e.agent {
		if e.textIn.in(lower) {
			return true
		}
	}
	if e.quotedIn.in(lower) {
		return true
	}
	for _, id := range memoryIDPattern.FindAllString(kept, -1) {
		if e.gone[id] {
			return true
		}
	}
	return false
}

// writeLog keeps the write log's lines (the metrics count them) without
// the erased memories' ids.
func (e *erasure) writeLog(ctx context.Context) (int, error) {
	_, err := e.exec(ctx, "clear write log refs", `UPDATE write_log SET ref = NULL WHERE ref IN (SELECT value FROM json_each(?))`, textList(e.memories))
	return 0, err
}

// changes deletes the change feed's rows that name what went. The erase
// adds one row of its own (memory.ChangeErase) after this, which tells
// every process to drop what no longer exists.
func (e *erasure) changes(ctx context.Context) (int, error) {
	n := 0
	for kind, refs := range e.feed {
		m, err := e.exec(ctx, "delete changes", `DELETE FROM changes WHERE kind = ? AND ref IN (SELECT value FROM json_each(?))`, kind, textList(refs))
		if err != nil {
			return 0, err
		}
		n += m
	}
	return n, nil
}

// exec runs a statement and returns the rows it changed.
func (e *erasure) exec(ctx context.Context, what, q string, args ...any) (int, error) {
	res, err := e.tx.execOnce(ctx, q, args...)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// audit writes the erasure's audit row (kind erase or gc) and its change,
// and fills the report's hash and number.
func (e *erasure) audit(ctx context.Context, who memory.Identity, kind, reason string, selector map[string]any) error {
	sort.Strings(e.refs)
	sum := sha256.Sum256([]byte(strings.Join(e.refs, "\n")))
	e.report.ErasedSHA256 = hex.EncodeToString(sum[:])
	sel, _ := json.Marshal(selector)
	counts, _ := json.Marshal(e.report.Counts)
	var err error
	e.report.Erasure, err = e.tx.insertID(ctx, "id", `INSERT INTO erasures (at, kind, by_agent, by_human, reason, selector, counts, erased_sha256)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, nanos(e.now), kind, who.AgentID, who.Human, reason, string(sel), string(counts), e.report.ErasedSHA256)
	if err != nil {
		return fmt.Errorf("audit erasure: %w", err)
	}
	if e.report.Total() > 0 {
		if err := e.tx.oweScrub(ctx, e.report.Erasure, e.now); err != nil {
			return err
		}
	}
	return e.tx.RecordChange(ctx, memory.ChangeErase, memory.IDRef(e.report.Erasure), e.now)
}

// eraseSelector is what an erase asked for, as its audit row keeps it:
// ids by count and hash, a text only by its HMAC under the provenance key
// (a plain hash of a short text, a name or a code, is confirmed by trying
// candidates; the keyed one only by who holds the key), or its SHA-256
// when the store has no key.
func eraseSelector(r memory.ErasureRequest, key []byte) map[string]any {
	sel := map[string]any{}
	if len(r.IDs) > 0 {
		ids := slices.Sorted(slices.Values(r.IDs))
		sum := sha256.Sum256([]byte(strings.Join(ids, "\n")))
		sel["ids"] = len(ids)
		sel["ids_sha256"] = hex.EncodeToString(sum[:])
	}
	if r.AgentID != "" {
		sel["agent_id"] = r.AgentID
	}
	switch {
	case r.Contains != "" && key != nil:
		m := hmac.New(sha256.New, key)
		m.Write([]byte(r.Contains))
		sel["contains_hmac_sha256"] = hex.EncodeToString(m.Sum(nil))
	case r.Contains != "":
		sum := sha256.Sum256([]byte(r.Contains))
		sel["contains_sha256"] = hex.EncodeToString(sum[:])
	}
	return sel
}

// Erasure is one row of the erasure audit.
type Erasure struct {
	ID           int64
	At           time.Time
	Kind         string // erase or gc
	By           string
	Human        bool
	Reason       string
	Selector     string // JSON
	Counts       map[string]int
	ErasedSHA256 string
}

// Erasures returns the audit rows, oldest first.
func (db *DB) Erasures(ctx context.Context) ([]Erasure, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT id, at, kind, by_agent, by_human, reason, selector, counts, erased_sha256 FROM erasures ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("read erasures: %w", err)
	}
	defer rows.Close()
	var out []Erasure
	for rows.Next() {
		var a Erasure
		var at int64
		var counts string
		if err := rows.Scan(&a.ID, &at, &a.Kind, &a.By, &a.Human, &a.Reason, &a.Selector, &counts, &a.ErasedSHA256); err != nil {
			return nil, err
		}
		a.At = fromNanos(at)
		if err := json.Unmarshal([]byte(counts), &a.Counts); err != nil {
			return nil, fmt.Errorf("erasure %d counts: %w", a.ID, err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// errDryRun rolls back a dry run's transaction once it has counted.
var errDryRun = errors.New("dry run")

// Erase removes what r selects for good (memory.ErasureService): a
// human's call only. A dry run counts in a transaction it rolls back. A
// committed erase is followed by ScrubOwed, so that the bytes leave the
// files.
func (s *MemoryService) Erase(ctx context.Context, r memory.ErasureRequest) (memory.ErasureReport, error) {
	who, err := memory.RequireIdentity(ctx)
	if err != nil {
		return memory.ErasureReport{}, err
	}
	if !who.Human {
		return memory.ErasureReport{}, memory.Errorf(memory.EFORBIDDEN, "erase removes stored content for good and only a human operator may run it; forget (your memories) or retract_memory (your shared ones) hide what you no longer want found")
	}
	if err := r.Validate(); err != nil {
		return memory.ErasureReport{}, err
	}
	var rep memory.ErasureReport
	err = s.db.Update(ctx, func(tx *Tx) error {
		var err error
		if rep, err = tx.Erase(ctx, who, r); err != nil {
			return err
		}
		if r.DryRun {
			return errDryRun
		}
		return nil
	})
	if r.DryRun && errors.Is(err, errDryRun) {
		rep.DryRun, rep.Erasure, rep.ErasedSHA256 = true, 0, ""
		if _, rep.ScrubOwed, err = s.db.OwedScrub(ctx); err != nil {
			return memory.ErasureReport{}, err
		}
		return rep, nil
	}
	if err != nil {
		return memory.ErasureReport{}, err
	}
	if s.Index != nil {
		if err := s.Index.Sync(ctx); err != nil {
			s.Log.Warn("vector index not yet synced after an erase", "err", err)
		}
	}
	// The erase has committed: a scrub that fails says so in the report
	// and the log, not as the call's error. An erase that removed nothing
	// still pays a scrub an earlier erase or gc owes.
	if rep.Scrubbed, rep.ScrubOwed, err = s.db.ScrubOwed(ctx); err != nil || rep.ScrubOwed {
		s.Log.Warn("erase committed, but the database was not rewritten (another process reading?); the scrub stays owed to the next erase, gc or server start",
			"erasure", rep.Erasure, "err", err)
	}
	return rep, nil
}

// Collection is what one gc batch purges: memories forgotten (retracted,
// for a shared copy) or expired before Before, of Agent ("" for every
// agent), at most Limit of them. Grace is the period Before was reckoned
// with, for the audit row.
type Collection struct {
	Agent  string
	Before time.Time
	Grace  time.Duration
	Limit  int
}

// Collect purges one batch of c's memories for good, as an erase of them
// would (seed 003's second phase of two-phase collection), and leaves an
// audit row when it purged any. Unlike an erase it derives nothing: what
// it purges was already out of search, and a memory still needed by one
// that stays (the original of a live shared copy, the source of a summary
// still kept) waits until that one goes too.
func (tx *Tx) Collect(ctx context.Context, who memory.Identity, c Collection) (memory.ErasureReport, error) {
	e := newErasure(tx)
	ids, err := scanStrings(tx.queryOnce(ctx, `SELECT id FROM memories WHERE (forgotten_at < ?1 OR expires_at < ?1)
		AND (?2 = '' OR agent_id = ?2) ORDER BY pk`, nanos(c.Before), c.Agent))
	if err != nil {
		return e.report, fmt.Errorf("find memories to collect: %w", err)
	}
	if ids, err = e.unneeded(ctx, ids); err != nil {
		return e.report, err
	}
	if c.Limit > 0 && len(ids) > c.Limit {
		if ids, err = e.unneeded(ctx, ids[:c.Limit]); err != nil {
			return e.report, err
		}
	}
	if len(ids) == 0 {
		return e.report, nil
	}
	// A memory merged into one that goes holds its words: it goes too.
	for more := ids; len(more) > 0; {
		if more, err = scanStrings(tx.queryOnce(ctx, `SELECT id FROM memories WHERE archive_reason = 'merged'
			AND `+tx.db.idIn("superseded_by", "?"), tx.db.idsArg(more))); err != nil {
			return e.report, fmt.Errorf("find merged memories to collect: %w", err)
		}
		ids = append(ids, more...)
	}
	for _, id := range ids {
		e.gone[id] = true
	}
	e.memories = ids
	if err := e.run(ctx); err != nil {
		return e.report, err
	}
	sel := map[string]any{"grace": c.Grace.String()}
	if c.Agent != "" {
		sel["agent_id"] = c.Agent
	}
	return e.report, e.audit(ctx, who, "gc", "forgotten, retracted or expired more than "+c.Grace.String()+" ago", sel)
}

// unneeded drops from ids, until none is left to drop, the memories a
// memory outside them still needs: an original whose shared copy stays,
// a source of a summary that stays.
func (e *erasure) unneeded(ctx context.Context, ids []string) ([]string, error) {
	for len(ids) > 0 {
		needed, err := scanStrings(e.tx.queryOnce(ctx, `SELECT v.value FROM json_each(?1) v
			WHERE EXISTS (SELECT 1 FROM memories c WHERE c.published_from = v.value AND c.id NOT IN (SELECT value FROM json_each(?1)))
			OR EXISTS (SELECT 1 FROM memory_sources s WHERE s.source_id = v.value AND s.summary_id NOT IN (SELECT value FROM json_each(?1)))`,
			textList(ids)))
		if err != nil {
			return nil, fmt.Errorf("find memories still needed: %w", err)
		}
		if len(needed) == 0 {
			break
		}
		drop := make(map[string]bool, len(needed))
		for _, id := range needed {
			drop[id] = true
		}
		ids = slices.DeleteFunc(ids, func(id string) bool { return drop[id] })
	}
	return ids, nil
}
