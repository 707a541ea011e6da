package store

import (
	"encoding/hex"
	"slices"
	"strings"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

// filter is a search's restrictions. BM25 candidates get the exact-match
// parts (space, namespace, category, tags) as FTS5 filter tokens in the MATCH
// expression and the ranges (since/until, expiry) in SQL; vector candidates
// get all of them from keep. Both lists obey the same rules, which the tests
// check by running every filter through each list alone.
type filter struct {
	agent        string
	scope        memory.Scope
	cats         []memory.Category
	tags         []string // all must be present
	ns           []string
	since, until int64 // on occurred_at, since inclusive, until exclusive; 0: open
	now          int64 // memories expiring at or before now are gone
	// archive: the filter reads the archive (archived memories that are not
	// forgotten) rather than the active memories.
	archive bool
	// withArchive: the search also ranks the archive (include_archived).
	withArchive bool
}

func newFilter(agent string, q memory.Query, now int64) filter {
	f := filter{agent: agent, scope: q.Scope, cats: q.Categories, tags: q.Tags, ns: q.Namespaces, now: now, withArchive: q.IncludeArchived}
	if !q.Since.IsZero() {
		f.since = nanos(q.Since)
	}
	if !q.Until.IsZero() {
		f.until = nanos(q.Until)
	}
	return f
}

// filterToken names a value in the index's filters column: "z", a kind, the
// value in hex (so any id survives the tokenizer whole) and a closing "0" that
// leaves the porter stemmer nothing to strip.
func filterToken(kind, value string) string {
	return "z" + kind + hex.EncodeToString([]byte(value)) + "0"
}

// sharedToken marks every shared memory.
var sharedToken = filterToken("shared", "")

// filterTokens is the filters column of a memory.
func filterTokens(agent string, shared bool, ns string, cat memory.Category, tags []string) string {
	toks := []string{filterToken("p", agent)}
	if shared {
		toks = []string{sharedToken, filterToken("s", agent)}
	}
	toks = append(toks, filterToken("n", ns), filterToken("c", string(cat)))
	for _, t := range tags {
		toks = append(toks, filterToken("t", t))
	}
	return strings.Join(toks, " ")
}

// match renders the BM25 query: any of terms in content or tags, restricted
// by f's exact-match filters. Content can never satisfy a filter: filter
// tokens are only looked for in the filters column.
func (f filter) match(terms []string) string {
	text := MatchAny(strings.Join(terms, " "))
	if text == "" {
		return ""
	}
	parts := []string{"{content tags} : (" + text + ")", f.scopeMatch(), anyToken("c", f.cats), anyToken("n", f.ns)}
	for _, t := range f.tags {
		parts = append(parts, anyToken("t", []string{t}))
	}
	return strings.Join(slices.DeleteFunc(parts, func(p string) bool { return p == "" }), " AND ")
}

// scopeMatch restricts a match to the spaces f's scope reads: the caller's
// personal memories, every shared one (the caller's own copies too: what it
// published is in the shared space), or both, where the caller's own shared
// copies are left out for the personal memories they were published from.
func (f filter) scopeMatch() string {
	me := `"` + filterToken("p", f.agent) + `"`
	notMine := ` NOT filters : "` + filterToken("s", f.agent) + `"`
	switch f.scope {
	case memory.ScopePersonal:
		return "filters : " + me
	case memory.ScopeShared:
		return `filters : "` + sharedToken + `"`
	}
	return "(filters : (" + me + ` OR "` + sharedToken + `")` + notMine + ")"
}

// spaceSQL selects, in memory_spaces, the spaces f's scope reads.
func (f filter) spaceSQL() (string, []any) {
	switch f.scope {
	case memory.ScopePersonal:
		return "agent_id = ? AND shared = 0", []any{f.agent}
	case memory.ScopeShared:
		return "shared = 1", nil
	}
	return "(agent_id = ?1 AND shared = 0) OR (shared = 1 AND agent_id <> ?1)", []any{f.agent}
}

// anyToken matches any of values of one kind; "" when there are none.
func anyToken[T ~string](kind string, values []T) string {
	if len(values) == 0 {
		return ""
	}
	toks := make([]string, len(values))
	for i, v := range values {
		toks[i] = `"` + filterToken(kind, string(v)) + `"`
	}
	return "filters : (" + strings.Join(toks, " OR ") + ")"
}

// during narrows f to memories that occurred in [from, to), where a zero
// bound is open; false when that leaves no time at all.
func (f filter) during(from, to time.Time) (filter, bool) {
	if lo := nanos(from); !from.IsZero() && (f.since == 0 || lo > f.since) {
		f.since = lo
	}
	if hi := nanos(to); !to.IsZero() && (f.until == 0 || hi < f.until) {
		f.until = hi
	}
	return f, f.until == 0 || f.since < f.until
}

// sql renders the range filters, which FTS5 cannot express, as a condition
// on alias m with its arguments: for the active index, or for the archive.
func (f filter) sql() (string, []any) {
	state := "m.forgotten_at IS NULL AND m.archived_at IS NULL"
	if f.archive {
		state = "m.forgotten_at IS NULL AND m.archived_at IS NOT NULL"
	}
	conds := []string{state, "(m.expires_at IS NULL OR m.expires_at > ?)"}
	args := []any{f.now}
	if f.since != 0 {
		conds = append(conds, "m.occurred_at >= ?")
		args = append(args, f.since)
	}
	if f.until != 0 {
		conds = append(conds, "m.occurred_at < ?")
		args = append(args, f.until)
	}
	return strings.Join(conds, " AND "), args
}

// index is the full-text index f reads: the active memories', or the archive's.
func (f filter) index() string {
	if f.archive {
		return "memory_archive_fts"
	}
	return "memory_fts"
}

// keep is match and sql together for a memory the index holds; the index holds active memories
// only, and the space (scope) is chosen by collection.
func (f filter) keep(m docMeta) bool {
	switch {
	case m.expires != 0 && m.expires <= f.now,
		len(f.cats) > 0 && !slices.Contains(f.cats, m.cat),
		len(f.ns) > 0 && !slices.Contains(f.ns, m.ns),
		f.since != 0 && m.occurred < f.since,
		f.until != 0 && m.occurred >= f.until:
		return false
	}
	for _, t := range f.tags {
		if !slices.Contains(m.tags, t) {
			return false
		}
	}
	return true
}
