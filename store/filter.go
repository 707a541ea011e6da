package store

import (
	"slices"
	"strings"

	memory "github.com/memory-mcp/memory-mcp"
)

// filter is a search's restrictions, applied in SQL to BM25 candidates and in
// memory (keep) to vector candidates, so both lists obey the same rules.
type filter struct {
	agent        string
	scope        memory.Scope
	cats         []memory.Category
	tags         []string // all must be present
	ns           []string
	since, until int64 // on occurred_at, since inclusive, until exclusive; 0: open
	now          int64 // memories expiring at or before now are gone
}

func newFilter(agent string, q memory.Query, now int64) filter {
	f := filter{agent: agent, scope: q.Scope, cats: q.Categories, tags: q.Tags, ns: q.Namespaces, now: now}
	if !q.Since.IsZero() {
		f.since = nanos(q.Since)
	}
	if !q.Until.IsZero() {
		f.until = nanos(q.Until)
	}
	return f
}

// sql renders f as a condition on alias m with its arguments.
func (f filter) sql() (string, []any) {
	conds := []string{"m.forgotten_at IS NULL", "(m.expires_at IS NULL OR m.expires_at > ?)"}
	args := []any{f.now}
	switch f.scope {
	case memory.Personal:
		conds = append(conds, "m.agent_id = ? AND m.shared = 0")
		args = append(args, f.agent)
	case memory.Shared:
		conds = append(conds, "m.shared = 1 AND m.agent_id <> ?")
		args = append(args, f.agent)
	default:
		conds = append(conds, "((m.shared = 0 AND m.agent_id = ?) OR (m.shared = 1 AND m.agent_id <> ?))")
		args = append(args, f.agent, f.agent)
	}
	if len(f.cats) > 0 {
		conds = append(conds, "m.category IN ("+placeholders(len(f.cats))+")")
		args = append(args, anySlice(f.cats)...)
	}
	if len(f.ns) > 0 {
		conds = append(conds, "m.namespace IN ("+placeholders(len(f.ns))+")")
		args = append(args, anySlice(f.ns)...)
	}
	for _, t := range f.tags {
		conds = append(conds, "EXISTS (SELECT 1 FROM json_each(m.tags) WHERE value = ?)")
		args = append(args, t)
	}
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

// keep is sql for a memory the index holds; the index holds active memories
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

// where is the part of f chromem can filter on itself: exact matches on a
// single namespace or category. It is nil, never empty, when there is none.
func (f filter) where() map[string]string {
	var w map[string]string
	if len(f.ns) == 1 {
		w = map[string]string{"ns": f.ns[0]}
	}
	if len(f.cats) == 1 {
		if w == nil {
			w = map[string]string{}
		}
		w["cat"] = string(f.cats[0])
	}
	return w
}
