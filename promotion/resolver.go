package promotion

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/internal/text"
)

// Action is what the resolver decided about a write's target.
type Action string

// Resolver actions.
const (
	Bind      Action = "bind"      // the write names an existing live row
	Create    Action = "create"    // the write makes a new row (or reopens one by its id)
	Pass      Action = "pass"      // the bucket needs no resolution (results, learnings, task_state)
	Defer     Action = "defer"     // the target cannot be identified safely yet
	Duplicate Action = "duplicate" // the write most likely means a row that is already closed, or says what one already says
	Reject    Action = "reject"    // the write cannot name a target at all (Rule says which rule it breaks)
)

// Resolution is the resolver's answer and why.
type Resolution struct {
	Action   Action
	TargetID string
	// Derived: the target id was made from the text, and the pipeline gives
	// it a suffix when a row or ledger event already uses it, so that a
	// derived id never merges two rows.
	Derived bool
	// Curator: a deferral no automatic retry can settle (the note's words
	// will not change); the item waits for a curator at once.
	Curator    bool
	Rule       string // Reject: the validator rule broken
	Candidates []memory.Candidate
	Reason     string
}

// Resolver binds writes to existing rows, reading only the note's own words:
// an id the note names plainly, a reference whose distinctive words one row
// holds and no other row fits, or a kind reference ("the earlier blocker")
// that one row's recorded kind fits. Generic nouns never carry a bind among
// other words ("the deploy blocker"), a word of the reference the row lacks
// counts against it, and a single open row does not lower the bar. Anything
// less defers.
type Resolver struct {
	// MinMatched is how many distinctive words of the reference a row must
	// hold to be bound by words, unless the reference covers the row.
	MinMatched int
	// RowCoverage is the share of a row's own content words (id and text)
	// that a reference with fewer than MinMatched words must use.
	RowCoverage float64
	// UpsertScore is how much (0..1) of a live row's own words a new
	// statement must repeat, holding no word the row lacks, to be a
	// duplicate of it rather than a new row.
	UpsertScore float64
	// GhostWindow: rows closed less than this long before a note was written
	// still compete for it (the writer may not have heard), but can only make
	// it a duplicate, never bind it.
	GhostWindow time.Duration
}

// DefaultResolver is the resolver promotion uses. Its bar was set while
// reading testdata/binding.txt; testdata/binding_heldout.txt was written
// before it and not used to set it (`make bench` scores both).
var DefaultResolver = Resolver{MinMatched: 2, RowCoverage: 0.8, UpsertScore: 0.9, GhostWindow: 24 * time.Hour}

// Target is what the resolver is asked about: the write, the context
// (open, active and recently closed tracked rows), the note's own text and
// when it was written.
type Target struct {
	Request memory.WriteRequest
	Context memory.StateContext
	NoteAt  time.Time
	// Note is the note's text. Ids are read from it, never from what an
	// interpreter made of it; empty means the request's reference text.
	Note string
}

func (t Target) note() string {
	if t.Note != "" {
		return t.Note
	}
	return t.Request.ReferenceText
}

// Resolve decides which row the write refers to.
func (rv Resolver) Resolve(t Target) Resolution {
	r := t.Request
	switch {
	case r.Bucket == memory.BucketPlan:
		return Resolution{Action: Create, TargetID: orDefault(r.TargetID, memory.PlanID), Reason: "the plan has one row, main"}
	case !r.Bucket.Tracked():
		return Resolution{Action: Pass, TargetID: r.TargetID, Reason: string(r.Bucket) + " needs no resolution"}
	case r.Operation.Lifecycle():
		return rv.lifecycle(t)
	case r.Operation == memory.OpUpsert && r.TargetID != "":
		return rv.explicitUpsert(t)
	}
	return rv.statement(t)
}

// derivedID makes a target id from text; text without ASCII words gets "row".
func derivedID(text string) string {
	if id := memory.Slugify(text, 48); id != "" {
		return id
	}
	return "row"
}

// lifecycle binds a resolve or invalidate to one live row, or defers.
func (rv Resolver) lifecycle(t Target) Resolution {
	r, noun := t.Request, t.Request.Bucket.Noun()
	rows := t.Context.In(r.Bucket)
	ms := mentions(t.note())
	if r.TargetID != "" {
		if res, ok := rv.wordsDisagree(t, rows, r.TargetID); ok {
			return res
		}
		return rv.named(t, rows, ms, r.TargetID, "explicit target id")
	}
	span := referenceSpan(r.ReferenceText)
	if id := soleID(span); id != "" {
		return rv.named(t, rows, ms, id, "the note names "+id)
	}
	others := rowsNamed(ms, rows, "")
	if inside := rowsNamed(mentions(span), rows, ""); len(inside) > 0 {
		return Resolution{Action: Defer, Curator: true, Reason: fmt.Sprintf("the note names %s inside a longer phrase: write %s to close it", inside[0], closeForm(r, inside[0]))}
	}
	if plain := plainly(ms, others); len(plain) > 0 {
		return Resolution{Action: Defer, Curator: true, Reason: fmt.Sprintf("besides the words it uses, the note names %s: write one note per row, by id", strings.Join(plain, ", "))}
	}
	words := writtenWords(span)
	if len(words) == 0 {
		return Resolution{Action: Reject, Rule: memory.RuleTarget, Reason: fmt.Sprintf("the note does not say which %s it means: name it by id (%s) or by its own words", noun, closeForm(r, "<id>"))}
	}
	q := newQuery(span)
	if len(q.words) == 0 {
		if kind, ok := kindReference(span); ok && r.Bucket == memory.BucketIssues && grammarReads(t, span) {
			return rv.byKind(kind, span, rv.candidates(rows, t.NoteAt, others), notedAfter(rows, t.NoteAt))
		}
		return Resolution{Action: Defer, Curator: true, Reason: fmt.Sprintf("the note calls it only %q, which any %s could be: a curator must bind it, or name the row (%s)",
			strings.Join(words, " "), noun, closeForm(r, "<id>"))}
	}
	res := rv.choose(q, rv.candidates(rows, t.NoteAt, others), noun)
	if later := notedAfter(rows, t.NoteAt); res.Action == Defer && later > 0 {
		res.Reason += fmt.Sprintf(" (%d row(s) recorded after the note was written were not considered)", later)
	}
	return res
}

// wordsDisagree defers a note that names one row by its words and another by
// the id it states at its end ("the login flake (upload_retry_flake)"): the
// note must mean one row by both, so when its words alone would bind a
// different row than the id, neither is bound and a curator decides. Words
// that fit no row, or the same row, leave the id to decide.
func (rv Resolver) wordsDisagree(t Target, rows []memory.StateRow, id string) (Resolution, bool) {
	if !endsWithStatedID(t.note(), id) {
		return Resolution{}, false
	}
	q := newQuery(t.Request.ReferenceText)
	if len(q.words) == 0 {
		return Resolution{}, false
	}
	res := rv.choose(q, rv.candidates(rows, t.NoteAt, nil), t.Request.Bucket.Noun())
	if res.Action != Bind || res.TargetID == id {
		return Resolution{}, false
	}
	return Resolution{Action: Defer, Curator: true, Candidates: res.Candidates, Reason: fmt.Sprintf(
		"the note's words name %s, but the id it states is %s: write the note again with the one it means (%s)",
		res.TargetID, id, closeForm(t.Request, "<id>"))}, true
}

// grammarReads reports whether span is the reference the note grammar
// itself reads in the note (or there is no note apart from the request). A
// kind reference binds on so few words that it must be the note's own
// reference, not a phrase an interpreter picked out of it: in "The deploy
// blocker, unlike the earlier blocker, is fixed" it is "the deploy blocker".
func grammarReads(t Target, span string) bool {
	if t.Note == "" {
		return true
	}
	own := Rules(memory.Note{Text: t.Note, Kind: memory.NoteAgent})
	return own.Operation.Lifecycle() && memory.TextKey(referenceSpan(own.ReferenceText)) == memory.TextKey(span)
}

// byKind resolves a reference that names a row only by its kind ("the
// earlier blocker"; see kindReference) among the rows the note could mean:
// it binds the one row of that kind, and defers otherwise. When there is
// none yet the write is retried (a report written earlier may be promoted
// later); two or more stay two or more (a row closed since keeps competing),
// so a curator decides at once.
func (rv Resolver) byKind(kind, span string, rows []memory.StateRow, later int) Resolution {
	what := "issue"
	if kind != "" {
		what = kind
	}
	var fit []memory.Candidate
	for _, row := range rows {
		if kind == "" || row.Kind == kind {
			fit = append(fit, memory.Candidate{TargetID: row.ID, Score: 1, Live: row.Live(), Signals: []string{"reported as a " + orDefault(row.Kind, "row")}})
		}
	}
	res := Resolution{Action: Defer, Candidates: top(fit, 3)}
	live := slices.ContainsFunc(fit, func(c memory.Candidate) bool { return c.Live })
	switch {
	case len(fit) == 1 && live:
		res.Action, res.TargetID = Bind, fit[0].TargetID
		res.Reason = fmt.Sprintf("%q names it by kind alone, and %s is the only %s recorded before the note", span, fit[0].TargetID, what)
	case len(fit) == 1:
		res.Action, res.TargetID = Duplicate, fit[0].TargetID
		res.Reason = fmt.Sprintf("it most likely means %s, the only %s recorded before the note, which is already closed", fit[0].TargetID, what)
	case len(fit) > 1 && !live:
		res.Action = Duplicate
		res.Reason = fmt.Sprintf("every %s it may mean (%s) is already closed", what, ids(fit))
	case len(fit) > 1:
		res.Curator = true
		res.Reason = fmt.Sprintf("%q could be any of %d %ss (%s): a curator must bind it, or name the row ([issues/resolve <id>])", span, len(fit), what, ids(fit))
	default:
		res.Reason = fmt.Sprintf("%q names an open %s, and none was recorded before the note (yet)", span, what)
		if later > 0 {
			res.Reason += fmt.Sprintf("; %d row(s) recorded after the note was written were not considered", later)
		}
	}
	return res
}

// ids lists the candidates' target ids.
func ids(cands []memory.Candidate) string {
	out := make([]string, len(cands))
	for i, c := range cands {
		out[i] = c.TargetID
	}
	return strings.Join(out, ", ")
}

// notedAfter counts the rows recorded from notes written after at.
func notedAfter(rows []memory.StateRow, at time.Time) int {
	n := 0
	for _, row := range rows {
		if row.NotedAt.After(at) {
			n++
		}
	}
	return n
}

// plainly returns the ids among ids that the note states plainly.
func plainly(ms []mention, ids []string) []string {
	var out []string
	for _, m := range ms {
		if m.plain && slices.Contains(ids, m.id) && !slices.Contains(out, m.id) {
			out = append(out, m.id)
		}
	}
	return out
}

// closeForm is the explicit note that closes row id with r's operation.
func closeForm(r memory.WriteRequest, id string) string {
	return fmt.Sprintf("[%s/%s %s]", r.Bucket, r.Operation, id)
}

// rowsNamed returns the ids of rows that the note mentions, except skip.
func rowsNamed(ms []mention, rows []memory.StateRow, skip string) []string {
	var out []string
	for _, m := range ms {
		if m.id != skip && !slices.Contains(out, m.id) && slices.ContainsFunc(rows, func(r memory.StateRow) bool { return r.ID == m.id }) {
			out = append(out, m.id)
		}
	}
	return out
}

// named resolves an id the write gives outright. The note must name it
// plainly (not negated, not after a contrast), name no other row, and the
// row must have been recorded from a note written before this one.
func (rv Resolver) named(t Target, rows []memory.StateRow, ms []mention, id, how string) Resolution {
	noun := t.Request.Bucket.Noun()
	i := slices.IndexFunc(ms, func(m mention) bool { return m.id == id })
	switch {
	case i < 0:
		return Resolution{Action: Defer, Curator: true, Reason: fmt.Sprintf("the note does not name %s: only an id the note itself names can close a row", id)}
	case !ms[i].plain:
		return Resolution{Action: Defer, Curator: true, Reason: fmt.Sprintf("the note names %s in a negated or contrasted clause (not, but, still, remains ...): it does not say %s changed", id, id)}
	}
	if others := rowsNamed(ms, rows, id); len(others) > 0 {
		return Resolution{Action: Defer, Curator: true, Reason: fmt.Sprintf("the note names %d rows (%s, %s): write one note per row", len(others)+1, id, strings.Join(others, ", "))}
	}
	for _, row := range rows {
		if row.ID != id {
			continue
		}
		c := []memory.Candidate{{TargetID: id, Score: 1, Live: row.Live(), Signals: []string{how}}}
		switch {
		case row.NotedAt.After(t.NoteAt) && row.CreatedAt.After(t.NoteAt) && row.Live():
			// The row did not exist when the note was written, and the
			// note states its id: its author named the row it expected
			// (the note waited for it in the pending queue).
			return Resolution{Action: Bind, TargetID: id, Candidates: c, Reason: how + ", stated before the row was created"}
		case row.NotedAt.After(t.NoteAt):
			return Resolution{Action: Defer, Curator: true, TargetID: id, Candidates: c, Reason: fmt.Sprintf(
				"%s %s was recorded from a note written after this one: a curator must decide whether the note means it", noun, id)}
		case !row.Live():
			return Resolution{Action: Duplicate, TargetID: id, Candidates: c, Reason: fmt.Sprintf("%s: %s is already %s", how, id, row.Status)}
		}
		return Resolution{Action: Bind, TargetID: id, Candidates: c, Reason: how}
	}
	return Resolution{Action: Defer, TargetID: id, Reason: fmt.Sprintf("no %s %s (yet)", noun, id)}
}

// explicitUpsert updates or creates the row an upsert names. An existing
// row is changed only when the note itself names its id.
func (rv Resolver) explicitUpsert(t Target) Resolution {
	r, noun := t.Request, t.Request.Bucket.Noun()
	if !slices.ContainsFunc(mentions(t.note()), func(m mention) bool { return m.id == r.TargetID }) {
		return Resolution{Action: Defer, Curator: true, Reason: fmt.Sprintf(
			"the interpreter proposed writing %s %s, which the note does not name: a curator must decide", r.Bucket, r.TargetID)}
	}
	for _, row := range t.Context.In(r.Bucket) {
		switch {
		case row.ID != r.TargetID || !row.Live():
		case row.NotedAt.After(t.NoteAt):
			return Resolution{Action: Defer, Curator: true, TargetID: row.ID, Reason: fmt.Sprintf(
				"%s %s was recorded from a note written after this one: a curator must decide whether this older note should change it", noun, row.ID)}
		default:
			return Resolution{Action: Bind, TargetID: row.ID, Reason: "explicit target id; updates it"}
		}
	}
	return Resolution{Action: Create, TargetID: r.TargetID, Reason: "explicit target id; creates it, or reopens it if it was closed"}
}

// statement resolves an upsert without an id, or an append, in a tracked
// bucket: a duplicate of a live row is ignored, a statement that may
// restate one waits, anything else is a new row with an id of its own.
func (rv Resolver) statement(t Target) Resolution {
	r, noun := t.Request, t.Request.Bucket.Noun()
	if res, ok := rv.restates(r, t.Context.In(r.Bucket)); ok {
		return res
	}
	if r.TargetID != "" {
		return Resolution{Action: Create, TargetID: r.TargetID, Reason: "explicit target id for a new " + noun}
	}
	return Resolution{Action: Create, TargetID: derivedID(r.Payload.Text), Derived: true, Reason: "new " + noun + ", id derived from its text"}
}

// contradicts defers a statement that contradicts a live row of its bucket
// in other words than a negation of the same words (another day, number,
// name; an opposite), found by the rules memories and facts are checked by
// (seed 003's contradiction gate): two rows in force that cannot both hold
// would leave every agent reading the shared state to guess.
func contradicts(r memory.WriteRequest, rows []memory.StateRow) (Resolution, bool) {
	for _, row := range rows {
		if !row.Live() {
			continue
		}
		if c, ok := text.Contradicts(row.Text, r.Payload.Text); ok {
			what := "one denies what the other says"
			if c.Kind == text.ConflictValue {
				what = "another " + c.Slot
			}
			return Resolution{Action: Defer, Curator: true, Candidates: []memory.Candidate{{TargetID: row.ID, Live: true, Signals: []string{"contradicts"}}}, Reason: fmt.Sprintf(
				"it contradicts %s %s (%s), which is in force: retire %s first, or a curator decides", r.Bucket, row.ID, what, row.ID)}, true
		}
	}
	return Resolution{}, false
}

// restates compares a statement with the live rows of its bucket: the same
// words as one (all of the statement's distinctive words in the row, and at
// least UpsertScore of the row's own) make it a duplicate; all of its words
// in a row that says more make it a possible restatement, which waits; a
// statement that matches a row but differs in negation may contradict it,
// which waits too.
func (rv Resolver) restates(r memory.WriteRequest, rows []memory.StateRow) (Resolution, bool) {
	key, q := memory.TextKey(r.Payload.Text), newQuery(r.Payload.Text)
	negated := q.negated
	q.negated = false // compared below, as a possible contradiction
	var similar []memory.Candidate
	for _, row := range rows {
		if !row.Live() {
			continue
		}
		if memory.TextKey(row.Text) == key {
			return Resolution{Action: Duplicate, TargetID: row.ID, Reason: fmt.Sprintf("%s %s already says this (event %s)", r.Bucket, row.ID, row.EventID)}, true
		}
		c, m := rv.judgeRow(q, row)
		if len(m.missing) > 0 || len(m.matched) == 0 {
			continue
		}
		switch {
		case negation.MatchString(row.Text) != negated && m.coverage >= rv.UpsertScore:
			return Resolution{Action: Defer, Curator: true, Candidates: []memory.Candidate{c}, Reason: fmt.Sprintf(
				"it may contradict %s %s (the same words, one of them negated): retire %s first, or a curator decides", r.Bucket, row.ID, row.ID)}, true
		case m.coverage >= rv.UpsertScore:
			return Resolution{Action: Duplicate, TargetID: row.ID, Candidates: []memory.Candidate{c}, Reason: fmt.Sprintf(
				"%s %s already says this in other words (it holds %s)", r.Bucket, row.ID, strings.Join(m.matched, ", "))}, true
		case len(m.matched) >= rv.MinMatched:
			similar = append(similar, c)
		}
	}
	if res, ok := contradicts(r, rows); ok {
		return res, true
	}
	if len(similar) == 0 {
		return Resolution{}, false
	}
	return Resolution{Action: Defer, Curator: true, Candidates: top(similar, 3), Reason: fmt.Sprintf(
		"it may restate %s %s, which says more: to change that row name it ([%s/upsert %s] <text>); to record another, say what tells them apart",
		r.Bucket.Noun(), similar[0].TargetID, r.Bucket, similar[0].TargetID)}, true
}

// candidates are the rows a note written at noteAt can mean: created from a
// note written no later than it, and live, or closed within the ghost window
// before it (or after it); rows the note names elsewhere are left out.
func (rv Resolver) candidates(rows []memory.StateRow, noteAt time.Time, skip []string) []memory.StateRow {
	var out []memory.StateRow
	for _, row := range rows {
		if row.NotedAt.After(noteAt) || slices.Contains(skip, row.ID) {
			continue
		}
		if row.Live() || row.ClosedAt != nil && row.ClosedAt.After(noteAt.Add(-rv.GhostWindow)) {
			out = append(out, row)
		}
	}
	return out
}

// match is how a reference's words meet one row.
type match struct {
	matched, missing []string
	coverage         float64 // share of the row's own words the reference uses
}

// judgeRow scores one row against the query words of a reference. A
// negated reference ("the no-network rule") fits only a row whose own words
// are negated too.
func (rv Resolver) judgeRow(q query, row memory.StateRow) (memory.Candidate, match) {
	vocab, own := rowWords(row), ownWords(row)
	c := memory.Candidate{TargetID: row.ID, Live: row.Live()}
	var m match
	used := 0
	for _, w := range q.words {
		if src, ok := vocab[w]; ok {
			m.matched = append(m.matched, q.surface[w])
			c.Signals = append(c.Signals, q.surface[w]+" ("+src+")")
		} else {
			m.missing = append(m.missing, q.surface[w])
			c.Signals = append(c.Signals, "lacks "+q.surface[w])
		}
		if own[w] {
			used++
		}
	}
	if q.negated && !negation.MatchString(row.Text) {
		m.missing = append(m.missing, "a negation")
		c.Signals = append(c.Signals, "lacks the note's negation")
	}
	if len(own) > 0 {
		m.coverage = float64(used) / float64(len(own))
	}
	if len(q.words) > 0 {
		c.Score = float64(int(float64(len(m.matched))/float64(len(q.words))*100+0.5)) / 100
	}
	return c, m
}

// fits reports whether a row is strong evidence for the reference: it holds
// every distinctive word, and at least MinMatched of them or most of its own.
func (rv Resolver) fits(m match) bool {
	return len(m.missing) == 0 && (len(m.matched) >= rv.MinMatched || m.coverage >= rv.RowCoverage)
}

// choose binds the one row that fits the reference, and defers otherwise. A
// closed row that fits makes the write a duplicate.
func (rv Resolver) choose(q query, rows []memory.StateRow, noun string) Resolution {
	var cands, fit []memory.Candidate
	for _, row := range rows {
		c, m := rv.judgeRow(q, row)
		cands = append(cands, c)
		if rv.fits(m) {
			fit = append(fit, c)
		}
	}
	sortCandidates(cands)
	res := Resolution{Action: Defer, Candidates: top(cands, 3)}
	switch {
	case len(fit) == 1 && fit[0].Live:
		res.Action, res.TargetID = Bind, fit[0].TargetID
		res.Reason = fmt.Sprintf("only %s (%.2f) holds every distinctive word of the note", fit[0].TargetID, fit[0].Score)
	case len(fit) == 1:
		res.Action, res.TargetID = Duplicate, fit[0].TargetID
		res.Reason = fmt.Sprintf("it most likely means %s (%.2f), which is already closed", fit[0].TargetID, fit[0].Score)
	case len(fit) > 1 && !slices.ContainsFunc(fit, func(c memory.Candidate) bool { return c.Live }):
		res.Action = Duplicate
		res.Reason = fmt.Sprintf("%s and %s both fit, and every row it may mean is already closed", fit[0].TargetID, fit[1].TargetID)
	case len(fit) > 1:
		res.Reason = fmt.Sprintf("ambiguous: %s (%.2f) and %s (%.2f) both hold the note's words", fit[0].TargetID, fit[0].Score, fit[1].TargetID, fit[1].Score)
	case len(cands) == 0 || cands[0].Score == 0:
		res.Reason = "no " + noun + " shares a word with the note"
	default:
		res.Reason = weakReason(cands[0], rv.MinMatched)
	}
	return res
}

// weakReason says why the best partial match does not bind.
func weakReason(c memory.Candidate, min int) string {
	var lacks []string
	for _, s := range c.Signals {
		if w, ok := strings.CutPrefix(s, "lacks "); ok {
			lacks = append(lacks, w)
		}
	}
	if len(lacks) > 0 {
		return fmt.Sprintf("best match %s (%.2f) lacks the note's word(s) %s: too weak to bind", c.TargetID, c.Score, strings.Join(lacks, ", "))
	}
	return fmt.Sprintf("best match %s (%.2f) shares fewer than %d distinctive words with the note: too weak to bind", c.TargetID, c.Score, min)
}

func sortCandidates(cands []memory.Candidate) {
	slices.SortStableFunc(cands, func(a, b memory.Candidate) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.TargetID, b.TargetID))
	})
}

func top(cands []memory.Candidate, n int) []memory.Candidate {
	var out []memory.Candidate
	for _, c := range cands {
		if len(out) < n && c.Score > 0 {
			out = append(out, c)
		}
	}
	return out
}

// rowWords is a row's vocabulary, each word with where it came from: its id,
// text, aliases or remembered phrases (all of which came from notes).
func rowWords(row memory.StateRow) map[string]string {
	out := map[string]string{}
	add := func(text, src string) {
		for _, w := range contentWords(text) {
			if _, ok := out[w]; !ok {
				out[w] = src
			}
		}
	}
	add(row.ID, "id")
	if row.Reference != nil {
		add(strings.Join(row.Reference.Aliases, " "), "alias")
		add(strings.Join(row.Reference.Phrases, " "), "reference memory")
	}
	add(row.Text, "text")
	return out
}

// ownWords are the distinctive words of a row's id and text: what a
// reference must cover to bind with a single word.
func ownWords(row memory.StateRow) map[string]bool {
	out := map[string]bool{}
	for _, w := range distinct(contentWords(row.ID + " " + row.Text)) {
		out[w] = true
	}
	return out
}
