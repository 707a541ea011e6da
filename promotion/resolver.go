package promotion

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	memory "github.com/memory-mcp/memory-mcp"
)

// Action is what the resolver decided about a write's target.
type Action string

// Resolver actions.
const (
	Bind      Action = "bind"      // the write names an existing live row
	Create    Action = "create"    // the write makes a new row (or reopens one by its id)
	Pass      Action = "pass"      // the bucket needs no resolution (results, learnings, task_state)
	Defer     Action = "defer"     // the target cannot be identified safely yet
	Duplicate Action = "duplicate" // the write most likely means a row that is already closed
)

// Resolution is the resolver's answer and why.
type Resolution struct {
	Action     Action
	TargetID   string
	Candidates []memory.Candidate
	Reason     string
}

// Resolver binds writes to existing rows. It scores candidates by explicit
// ids, snake_case slugs in the text, weighted token overlap with each row's
// id, text and reference memory, and alias hints; it binds only when the best
// candidate is strong and clearly ahead of the second, and otherwise defers.
type Resolver struct {
	// MinScore is how strong (0..1) the best candidate of a lifecycle write
	// must be: the weighted share of the note's reference words it contains.
	MinScore float64
	// MinMargin is how far the best must lead the second.
	MinMargin float64
	// UpsertScore is the (higher) bar for an upsert to update an existing row
	// instead of creating a new one.
	UpsertScore float64
	// GhostWindow: rows closed less than this long before a note was written
	// still compete for it (the writer may not have heard), but can only make
	// it a duplicate, never bind it.
	GhostWindow time.Duration
}

// DefaultResolver has the thresholds measured on the scenario corpus
// (`make bench` prints precision and recall).
var DefaultResolver = Resolver{MinScore: 0.5, MinMargin: 0.3, UpsertScore: 0.9, GhostWindow: 24 * time.Hour}

// Target is what the resolver is asked about: the write, the context
// (open, active and recently closed tracked rows), and when the note was
// written.
type Target struct {
	Request memory.WriteRequest
	Context memory.SharedContext
	NoteAt  time.Time
}

// Resolve decides which row the write refers to.
func (rv Resolver) Resolve(t Target) Resolution {
	r := t.Request
	switch {
	case r.Bucket == memory.Plan:
		return Resolution{Action: Create, TargetID: orDefault(r.TargetID, memory.PlanID), Reason: "the plan has one row, main"}
	case !r.Bucket.Tracked():
		return Resolution{Action: Pass, TargetID: r.TargetID, Reason: string(r.Bucket) + " needs no resolution"}
	case r.Operation == memory.Append:
		return rv.appendTarget(r)
	case r.Operation.Lifecycle():
		return rv.lifecycle(t)
	}
	return rv.upsert(t)
}

func (rv Resolver) appendTarget(r memory.WriteRequest) Resolution {
	if r.TargetID != "" {
		return Resolution{Action: Create, TargetID: r.TargetID, Reason: "explicit target id for a new " + r.Bucket.Noun()}
	}
	return Resolution{Action: Create, TargetID: derivedID(r.Payload.Text), Reason: "new " + r.Bucket.Noun() + ", id derived from its text"}
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
	if r.TargetID != "" {
		return named(rows, r.TargetID, noun, "explicit target id")
	}
	for _, slug := range slugsIn(r.ReferenceText, r.Payload.Reason) {
		if slices.ContainsFunc(rows, func(row memory.SharedRow) bool { return row.ID == slug }) {
			return named(rows, slug, noun, "slug "+slug+" named in the text")
		}
	}
	query := queryWords(r.ReferenceText, r.CandidateAliases)
	if len(query) == 0 {
		query = queryWords(r.Payload.Reason, nil)
	}
	if len(query) == 0 {
		return Resolution{Action: Defer, Reason: "the note does not say which " + noun + " it means"}
	}
	known := rv.candidates(rows, t.NoteAt)
	res := rv.choose(score(query, known), noun, rv.MinScore)
	if (res.Action == Bind || res.Action == Duplicate) && res.TargetID != "" && len(r.CandidateAliases) > 0 {
		res = checkHints(res, score(queryWords(r.ReferenceText, nil), known))
	}
	if later := len(rows) - len(known); res.Action == Defer && later > 0 {
		res.Reason += fmt.Sprintf(" (%d row(s) recorded after the note was written were not considered)", later)
	}
	return res
}

// checkHints keeps the interpreter's alias hints from overruling the note's
// own words: a bind (or duplicate) the hints produced is kept only if, by the
// note's words alone, no other row scores higher than the chosen one.
func checkHints(res Resolution, byNote []memory.Candidate) Resolution {
	if len(byNote) == 0 || byNote[0].Score == 0 || byNote[0].TargetID == res.TargetID {
		return res
	}
	for _, c := range byNote {
		if c.TargetID == res.TargetID && c.Score >= byNote[0].Score {
			return res
		}
	}
	return Resolution{Action: Defer, Candidates: res.Candidates,
		Reason: fmt.Sprintf("the interpreter's hints point to %s but the note's own words point to %s", res.TargetID, byNote[0].TargetID)}
}

// named resolves an id the write gives outright.
func named(rows []memory.SharedRow, id, noun, how string) Resolution {
	for _, row := range rows {
		if row.ID != id {
			continue
		}
		c := []memory.Candidate{{TargetID: id, Score: 1, Live: row.Live(), Signals: []string{how}}}
		if !row.Live() {
			return Resolution{Action: Duplicate, TargetID: id, Candidates: c, Reason: fmt.Sprintf("%s: %s is already %s", how, id, row.Status)}
		}
		return Resolution{Action: Bind, TargetID: id, Candidates: c, Reason: how}
	}
	return Resolution{Action: Defer, TargetID: id, Reason: fmt.Sprintf("no %s %s (yet)", noun, id)}
}

// upsert updates the row the write names or clearly matches, or creates one.
func (rv Resolver) upsert(t Target) Resolution {
	r, noun := t.Request, t.Request.Bucket.Noun()
	rows := t.Context.In(r.Bucket)
	if r.TargetID != "" {
		return explicitUpsert(rows, r.TargetID)
	}
	id := derivedID(r.Payload.Text)
	if slices.ContainsFunc(rows, func(row memory.SharedRow) bool { return row.ID == id && row.Live() }) {
		return Resolution{Action: Bind, TargetID: id, Reason: "the id derived from the text, " + id + ", is a " + noun}
	}
	var live []memory.SharedRow
	for _, row := range rv.candidates(rows, t.NoteAt) {
		if row.Live() {
			live = append(live, row)
		}
	}
	cands := score(queryWords(r.Payload.Text+" "+r.ReferenceText, r.CandidateAliases), live)
	if len(cands) == 0 || cands[0].Score < rv.UpsertScore {
		res := Resolution{Action: Create, TargetID: id, Candidates: top(cands, 3), Reason: "no " + noun + " matches closely; new row " + id}
		if len(cands) > 0 && cands[0].Score > 0 {
			res.Reason = fmt.Sprintf("closest %s %s scores %.2f, under %.2f; new row %s", noun, cands[0].TargetID, cands[0].Score, rv.UpsertScore, id)
		}
		return res
	}
	return rv.choose(cands, noun, rv.UpsertScore)
}

func explicitUpsert(rows []memory.SharedRow, id string) Resolution {
	for _, row := range rows {
		if row.ID == id && row.Live() {
			return Resolution{Action: Bind, TargetID: id, Reason: "explicit target id; updates it"}
		}
	}
	return Resolution{Action: Create, TargetID: id, Reason: "explicit target id; creates or reopens it"}
}

// candidates are the rows a note written at noteAt can mean: created from a
// note written no later than it, and live, or closed within the ghost window
// before it (or after it).
func (rv Resolver) candidates(rows []memory.SharedRow, noteAt time.Time) []memory.SharedRow {
	var out []memory.SharedRow
	for _, row := range rows {
		if row.NotedAt.After(noteAt) {
			continue
		}
		if row.Live() || row.ClosedAt != nil && row.ClosedAt.After(noteAt.Add(-rv.GhostWindow)) {
			out = append(out, row)
		}
	}
	return out
}

// choose binds the best candidate when it is strong and clearly ahead, and
// defers otherwise. A closed row that wins makes the write a duplicate.
func (rv Resolver) choose(cands []memory.Candidate, noun string, min float64) Resolution {
	res := Resolution{Action: Defer, Candidates: top(cands, 3)}
	if len(cands) == 0 || cands[0].Score == 0 {
		res.Reason = "no " + noun + " shares a word with the note"
		return res
	}
	best, second := cands[0], memory.Candidate{}
	if len(cands) > 1 {
		second = cands[1]
	}
	switch {
	case best.Score < min:
		res.Reason = fmt.Sprintf("best match %s scores %.2f, under %.2f: too weak to bind", best.TargetID, best.Score, min)
	case best.Score-second.Score < rv.MinMargin && allClosed(cands, best.Score-rv.MinMargin):
		res.Action = Duplicate
		res.Reason = fmt.Sprintf("%s (%.2f) and %s (%.2f) match about equally, and every row it may mean is already closed",
			best.TargetID, best.Score, second.TargetID, second.Score)
	case best.Score-second.Score < rv.MinMargin:
		res.Reason = fmt.Sprintf("ambiguous: %s (%.2f) and %s (%.2f) match about equally", best.TargetID, best.Score, second.TargetID, second.Score)
	case !best.Live:
		res.Action, res.TargetID = Duplicate, best.TargetID
		res.Reason = fmt.Sprintf("it most likely means %s (%.2f), which is already closed", best.TargetID, best.Score)
	default:
		res.Action, res.TargetID = Bind, best.TargetID
		res.Reason = fmt.Sprintf("best match %s (%.2f) is ahead of the next (%.2f) by at least %.2f", best.TargetID, best.Score, second.Score, rv.MinMargin)
	}
	return res
}

// allClosed reports whether every candidate scoring above floor is closed.
func allClosed(cands []memory.Candidate, floor float64) bool {
	for _, c := range cands {
		if c.Score > floor && c.Live {
			return false
		}
	}
	return true
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

// score rates each row by the weighted share of the query words it holds.
// A word's weight is 1/(number of rows holding it), so words every candidate
// shares say little and a word only one row holds says a lot; a query word
// no row holds keeps weight 1 and lowers every score.
func score(query []string, rows []memory.SharedRow) []memory.Candidate {
	vocab := make([]map[string]string, len(rows)) // word -> where it came from
	df := map[string]int{}
	for i, row := range rows {
		vocab[i] = rowWords(row)
		for w := range vocab[i] {
			df[w]++
		}
	}
	total := 0.0
	for _, q := range query {
		total += weight(df[q])
	}
	cands := make([]memory.Candidate, 0, len(rows))
	for i, row := range rows {
		c := memory.Candidate{TargetID: row.ID, Live: row.Live()}
		got := 0.0
		for _, q := range query {
			if src, ok := vocab[i][q]; ok {
				got += weight(df[q])
				c.Signals = append(c.Signals, q+" ("+src+")")
			}
		}
		if total > 0 {
			c.Score = float64(int(got/total*1000+0.5)) / 1000
		}
		cands = append(cands, c)
	}
	slices.SortStableFunc(cands, func(a, b memory.Candidate) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.TargetID, b.TargetID))
	})
	return cands
}

func weight(df int) float64 {
	if df == 0 {
		return 1
	}
	return 1 / float64(df)
}

// rowWords is a row's vocabulary, each word with where it came from: its id,
// text, aliases or remembered phrases.
func rowWords(row memory.SharedRow) map[string]string {
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

// queryWords are the content words a write uses to refer to its target.
func queryWords(text string, aliases []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range contentWords(text + " " + strings.Join(aliases, " ")) {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// slugsIn returns the snake_case tokens in texts: explicit references to row ids.
func slugsIn(texts ...string) []string {
	var out []string
	for _, t := range texts {
		for _, f := range strings.FieldsFunc(t, func(r rune) bool { return !(r == '_' || r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r))) }) {
			if strings.Contains(f, "_") && memory.IsSlug(f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// contentWords splits text into lower-case, lightly stemmed words, without
// function words and without the words every lifecycle note uses ("fixed",
// "earlier", "now"), which say nothing about which row is meant.
func contentWords(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if stopwords[w] {
			continue
		}
		if w = stem(w); !stopwords[w] && w != "" {
			out = append(out, w)
		}
	}
	return out
}

// stem folds the common English inflections so "fails", "failed" and
// "failing" meet. Both sides of every comparison use it, so consistency
// matters more than linguistics.
func stem(w string) string {
	switch {
	case len(w) > 5 && strings.HasSuffix(w, "ing"):
		return w[:len(w)-3]
	case len(w) > 4 && strings.HasSuffix(w, "ed"):
		return w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return w[:len(w)-1]
	}
	return w
}

var stopwords = func() map[string]bool {
	words := strings.Fields(`a an the this that these those it its it's is are was were be been being am
		has have had do does did done of to in on at by for from with as and or but not no so
		we i you they he she our my your their us me them there here
		now again still finally just already earlier previous prior before after since yesterday today
		last first latest recent recently old older other same one some any
		fix fixe fixed resolve resolved solve solved close closed gone unblock unblocked work works working
		pass passes passing
		issue problem bug thing stuff matter one ones`)
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}()
