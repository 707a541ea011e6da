// Package promotion is the one governed write path into shared state (seed
// 002): notes in working memory pass an interpreter (what does the note
// mean?), a resolver (which existing row does it refer to?), a validator (is
// the write structurally safe?) and the inputter (ledger first, then the
// projection). Ambiguous lifecycle writes wait in the pending queue instead
// of being guessed, and are retried when their bucket changes.
package promotion

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"unicode/utf8"

	memory "github.com/memory-mcp/memory-mcp"
)

// Interpretation is an interpreter's answer for one note, and which
// interpreter gave it ("rules", "llm", or "rules (llm ...)" after a fallback).
type Interpretation struct {
	Request memory.WriteRequest
	By      string
	// Hold, when set, says why the write may not commit without a curator
	// (a model's proposal the note's own words do not support): it waits in
	// the pending queue, retried no more.
	Hold string
}

// InterpretFunc decides what a note means, given the narrow context of the shared state (StateContext).
// It always answers: an interpreter that cannot (an LLM that fails) falls
// back to the rules.
type InterpretFunc func(ctx context.Context, n memory.Note, c memory.StateContext) Interpretation

// RulesInterpreter is the deterministic, offline interpreter.
func RulesInterpreter(_ context.Context, n memory.Note, _ memory.StateContext) Interpretation {
	return Interpretation{Request: Rules(n), By: "rules"}
}

// Confidence the rules give their answers: explicit forms say exactly what
// they mean; sentence heuristics only suggest it.
const (
	explicitConfidence  = 0.95
	bracketConfidence   = 1
	heuristicConfidence = 0.6
)

// Rules interprets a note by the note grammar (see the README):
//
//	issue: / blocker: <text>             issues upsert
//	fixed: / resolved: <reference>       issues resolve
//	decision: <text>                     decisions append
//	reverted decision: / superseded: <reference>  decisions invalidate
//	constraint: <text>                   constraints upsert
//	lifted constraint: <reference>       constraints invalidate
//	plan: <text>                         plan upsert
//	result: <text>                       results append
//	task <id>: <state>                   task_state upsert (the id has a digit, '-', '_', '.' or ':')
//	learned: / learning: <text>          learnings append
//	[bucket/operation target_id] <text>  exactly that write
//
// An upsert or append form of an issue, decision or constraint may start
// with an explicit snake_case id and a colon ("issue: pandas_import: pandas
// fails to import"), or end with one in parentheses or square brackets
// ("issue: pandas fails to import (pandas_import)"): the id the author
// states is the row's. A lifecycle form may name its row either way too.
// Results and learnings keep such an id as text: their rows get ids from
// the ledger, and no note ever changes one by id. Agent notes without
// a form are read by a few conservative sentence heuristics; anything else,
// and tool output without a form, is ignored. (Whether tool output may
// commit what its form says is the pipeline's decision, not the reader's.)
func Rules(n memory.Note) memory.WriteRequest {
	text := trimBullet(strings.TrimSpace(n.Text))
	if r, ok := bracketForm(text); ok {
		return r
	}
	if r, ok := prefixForm(text, n); ok {
		return r
	}
	if r, ok := taskForm(text, n); ok {
		return r
	}
	if n.Kind == memory.NoteToolResult {
		return ignore("tool output without an explicit form stays in working memory: state what it means in a note")
	}
	return sentence(text, n)
}

func ignore(why string) memory.WriteRequest {
	return memory.WriteRequest{Decision: memory.DecisionIgnore, Rationale: why}
}

func trimBullet(s string) string {
	for _, b := range []string{"- ", "* ", "• "} {
		if rest, ok := strings.CutPrefix(s, b); ok {
			return strings.TrimSpace(rest)
		}
	}
	return s
}

// form is one "prefix:" of the grammar.
type form struct {
	names  []string
	bucket memory.Bucket
	op     memory.Operation
	alias  string // added to the row's reference memory; memory.KindBlocker also sets the issue's kind
}

var forms = []form{
	{[]string{"reverted decision", "superseded"}, memory.BucketDecisions, memory.OpInvalidate, ""},
	{[]string{"lifted constraint"}, memory.BucketConstraints, memory.OpInvalidate, ""},
	{[]string{"fixed", "resolved"}, memory.BucketIssues, memory.OpResolve, ""},
	{[]string{"issue"}, memory.BucketIssues, memory.OpUpsert, ""},
	{[]string{"blocker"}, memory.BucketIssues, memory.OpUpsert, memory.KindBlocker},
	{[]string{"decision"}, memory.BucketDecisions, memory.OpAppend, ""},
	{[]string{"constraint"}, memory.BucketConstraints, memory.OpUpsert, ""},
	{[]string{"plan"}, memory.BucketPlan, memory.OpUpsert, ""},
	{[]string{"result"}, memory.BucketResults, memory.OpAppend, ""},
	{[]string{"learned", "learning"}, memory.BucketLearnings, memory.OpAppend, ""},
}

// cutForm returns the text after "name:" (any case, spaces allowed before
// the colon).
func cutForm(text, name string) (string, bool) {
	if len(text) < len(name) || !strings.EqualFold(text[:len(name)], name) {
		return "", false
	}
	rest := strings.TrimLeft(text[len(name):], " \t")
	if !strings.HasPrefix(rest, ":") {
		return "", false
	}
	return strings.TrimSpace(rest[1:]), true
}

func prefixForm(text string, n memory.Note) (memory.WriteRequest, bool) {
	for _, f := range forms {
		for _, name := range f.names {
			body, ok := cutForm(text, name)
			if !ok {
				continue
			}
			r := memory.WriteRequest{Decision: memory.DecisionAccept, Bucket: f.bucket, Operation: f.op,
				Confidence: explicitConfidence, Rationale: "explicit form " + strings.ToLower(name) + ":"}
			if f.alias != "" {
				r.CandidateAliases = []string{f.alias}
			}
			if why := doubt(f.op, body); why != "" {
				return ignore("the " + strings.ToLower(name) + ": note " + why), true
			}
			fill(&r, body, n)
			return r, true
		}
	}
	return memory.WriteRequest{}, false
}

// doubt says why a lifecycle form's body does not state a change ("" when
// it does): it denies it, asks, or hedges.
func doubt(op memory.Operation, body string) string {
	switch {
	case !op.Lifecycle():
		return ""
	case denied.MatchString(referenceSpan(body)):
		return "denies the change (not, nothing, none ...)"
	case strings.Contains(body, "?"):
		return "asks rather than states"
	case hedge.MatchString(body):
		return "is hedged (maybe, probably, should be ...)"
	}
	return ""
}

// denied is a lifecycle reference that says nothing changed: "fixed: not
// db_timeout", "resolved: nothing yet". A reference that merely contains a
// negation ("lifted constraint: no network in CI") names a row instead.
var denied = regexp.MustCompile(`(?i)^(?:not|nothing|none|nobody|neither|no longer|never ?mind)\b`)

// fill puts a form's body where its bucket and operation want it. A
// lifecycle body's reference is the part that names the row (see
// referenceSpan); all of it is the reason.
func fill(r *memory.WriteRequest, body string, n memory.Note) {
	switch {
	case r.Operation.Lifecycle():
		ref := body
		if id, _ := leadingID(body, true); id != "" {
			r.TargetID = id
		} else if id, rest := statedID(body); id != "" {
			r.TargetID, ref = id, rest
		}
		r.ReferenceText = clip(referenceSpan(ref), memory.MaxReferenceBytes)
		r.Payload.Reason = clip(body, memory.MaxReasonBytes)
	case r.Bucket == memory.BucketPlan:
		r.TargetID, r.Payload.Text = memory.PlanID, body
	case r.Bucket == memory.BucketResults:
		r.Payload.Text = body
		if n.TaskID != "" {
			r.Payload.TaskID = taskSlug(n.TaskID)
		}
	case r.Bucket.Keyed():
		r.TargetID, r.Payload.Text = ownID(body)
	default: // learnings: like results, ids from the ledger
		r.Payload.Text = body
	}
}

// ownID splits an upsert or append body into the id its author states and
// the row's text: a leading "pandas_import: text", else a trailing "text
// (pandas_import)" or "text [pandas_import]". A trailing id that repeats the
// leading one is dropped from the text; a different one stays text (the
// leading id is the one the grammar reads). A body that is only an id is
// text, so a row never has empty text.
func ownID(body string) (id, text string) {
	if id, rest := leadingID(body, false); id != "" && rest != "" {
		if again, bare := statedID(rest); again == id && bare != "" {
			rest = bare
		}
		return id, rest
	}
	if id, rest := statedID(body); id != "" && rest != "" {
		return id, rest
	}
	return "", body
}

// statedPattern is a body that ends with a parenthesised or bracketed word,
// the way authors label what they write: "uploads retry forever
// (upload_retry_flake)".
var statedPattern = regexp.MustCompile(`(?s)^(.*?)\s*(?:\(\s*([^()\s]+)\s*\)|\[\s*([^\[\]\s]+)\s*\])[\s.!]*$`)

// statedID splits "text (snake_case_id)" or "text [snake_case_id]" into
// the id and the text before it. Only a snake_case id (with an underscore,
// as leadingID requires) counts, so "(v2)" and "(see docs)" stay text.
func statedID(body string) (id, rest string) {
	m := statedPattern.FindStringSubmatch(body)
	if m == nil {
		return "", body
	}
	id = m[2] + m[3]
	if !memory.IsSlug(id) || !strings.Contains(id, "_") {
		return "", body
	}
	return id, strings.TrimSpace(strings.TrimRight(m[1], ":;,-–— \t"))
}

// endsWithStatedID reports whether note names id only by stating it at its
// very end ("... (fetch_user)"), not also as a form's leading id or
// elsewhere in its words. Engineering notes end with code identifiers in
// parentheses, so such an id is a weaker claim on an existing row than a
// leading "fetch_user: ...".
func endsWithStatedID(note, id string) bool {
	sid, _ := statedID(strings.TrimSpace(note))
	if sid != id {
		return false
	}
	n := 0
	for _, m := range mentions(note) {
		if m.id == id {
			n++
		}
	}
	return n == 1
}

// leadingID splits "pandas_import: text" into an explicit id and the rest.
// A lifecycle body may also be "pandas_import rest" or a bare id. Only
// snake_case ids (with an underscore) count, so "build: failing" stays text.
func leadingID(body string, lifecycle bool) (id, rest string) {
	head, tail, found := strings.Cut(body, ":")
	if lifecycle && (!found || strings.ContainsAny(strings.TrimSpace(head), " \t")) {
		head, tail, _ = strings.Cut(body, " ")
	}
	head = strings.TrimRight(strings.TrimSpace(head), ".,;!")
	if !memory.IsSlug(head) || !strings.Contains(head, "_") {
		return "", body
	}
	return head, strings.TrimSpace(tail)
}

var bracketPattern = regexp.MustCompile(`(?s)^\[\s*([A-Za-z_]+)\s*/\s*([A-Za-z_]+)(?:\s+([^\]\s]+))?\s*\]\s*(.*)$`)

// bracketForm reads "[bucket/operation target_id] text" into exactly that
// write; what the bucket and operation are is left to the validator. For an
// issue, decision or constraint, "[bucket/operation] text (target_id)"
// names the target too.
func bracketForm(text string) (memory.WriteRequest, bool) {
	m := bracketPattern.FindStringSubmatch(text)
	if m == nil {
		return memory.WriteRequest{}, false
	}
	r := memory.WriteRequest{Decision: memory.DecisionAccept, Bucket: memory.Bucket(strings.ToLower(m[1])),
		Operation: memory.Operation(strings.ToLower(m[2])), TargetID: m[3],
		Confidence: bracketConfidence, Rationale: "explicit bracket form"}
	body := strings.TrimSpace(m[4])
	own := body // the body without a trailing id the note states (see statedID)
	if id, rest := statedID(body); id != "" && r.TargetID == "" && r.Bucket.Tracked() && (rest != "" || r.Operation.Lifecycle()) {
		r.TargetID, own = id, rest
	}
	switch {
	case r.Operation.Lifecycle():
		r.ReferenceText = clip(referenceSpan(own), memory.MaxReferenceBytes)
		r.Payload.Reason = body
	case r.Bucket == memory.BucketTaskState:
		r.Payload.State = body
	case r.Bucket == memory.BucketPlan && r.TargetID == "":
		r.TargetID, r.Payload.Text = memory.PlanID, body
	default:
		r.Payload.Text = own
	}
	return r, true
}

var (
	taskPattern = regexp.MustCompile(`(?is)^task(?:\s+([^\s:]+(?::[^\s:]+)*))?\s*:\s*(.*)$`)
	taskIDChars = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]*$`)
)

// taskForm reads "task <id>: <state>", or "task: <state>" in a note that
// carries a task id. The state is the first line; later lines are detail.
// A task id holds a digit or one of - _ . : (so "Task force: ..." is not a
// task); one with other characters is kept as given, for the validator to
// reject with a message that says so.
func taskForm(text string, n memory.Note) (memory.WriteRequest, bool) {
	m := taskPattern.FindStringSubmatch(text)
	if m == nil {
		return memory.WriteRequest{}, false
	}
	id, target := m[1], ""
	switch {
	case id == "" && n.TaskID == "":
		return memory.WriteRequest{}, false
	case id == "":
		target = taskSlug(n.TaskID)
	case !taskIDChars.MatchString(id):
		target = id // not a slug: the validator says why
	case !strings.ContainsAny(id, "0123456789-_.:"):
		return memory.WriteRequest{}, false
	default:
		target = taskSlug(id)
	}
	state, detail, _ := strings.Cut(strings.TrimSpace(m[2]), "\n")
	return memory.WriteRequest{Decision: memory.DecisionAccept, Bucket: memory.BucketTaskState, Operation: memory.OpUpsert,
		TargetID: target, Payload: memory.Payload{State: strings.TrimSpace(state), Text: strings.TrimSpace(detail)},
		Confidence: explicitConfidence, Rationale: "explicit form task <id>:"}, true
}

// taskSlug maps a caller's task id to a target id, one-to-one up to case
// (task ids are case-insensitive: "T-12" and "t-12" are one task). Ids of
// letters and digits joined by single dashes map plainly ("T-12" → "t_12",
// "build-7" → "build_7"); any other id writes each character other than a
// letter or digit as "__" and two hex digits ("t.12" → "t__2e12"), so the
// two shapes never meet (only the second holds "__") and each decodes
// uniquely. An id whose slug would be too long is shortened and given a
// hash suffix after "___", which neither shape produces.
func taskSlug(id string) string {
	id = strings.ToLower(id)
	var b strings.Builder
	plain := !strings.Contains(id, "--") && !strings.HasPrefix(id, "-") && !strings.HasSuffix(id, "-")
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == '-' && plain:
			b.WriteByte('_')
		default:
			plain = false
		}
	}
	if !plain {
		b.Reset()
		for _, r := range id {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
				b.WriteRune(r)
				continue
			}
			for _, c := range []byte(string(r)) {
				b.WriteString("__" + hex.EncodeToString([]byte{c}))
			}
		}
	}
	if s := b.String(); len(s) <= memory.MaxTargetIDLen {
		return s
	}
	sum := sha256.Sum256([]byte(id))
	s := b.String()[:memory.MaxTargetIDLen-3-12]
	return strings.TrimRight(s, "_") + "___" + hex.EncodeToString(sum[:6])
}

// clip shortens s to at most max bytes at a rune boundary. Reference text
// and reasons are derived from the note, so they are clipped rather than
// rejected.
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	for max > 0 && !utf8.RuneStart(s[max]) {
		max--
	}
	return s[:max]
}

// heuristic is one sentence pattern for agent notes without a form.
type heuristic struct {
	name   string
	re     *regexp.Regexp
	bucket memory.Bucket
	op     memory.Operation
	alias  string
	// rest is the group after the pattern's own negation ("must not"), which
	// is checked for negation instead of the whole sentence; 0: none.
	rest int
}

// heuristics are tried in order; lifecycle patterns capture the reference in
// group 1. They are deliberately few, and none writes the plan: a sentence
// they do not recognise is ignored, and a vague lifecycle sentence is left
// to the resolver, which defers rather than guesses.
var heuristics = []heuristic{
	{"resolution", regexp.MustCompile(`(?i)^(.+?)\s+(?:is|are|was|were|has been|have been|got)\s+(?:now\s+|finally\s+|just\s+)?(?:fixed|resolved|solved|unblocked)\b`), memory.BucketIssues, memory.OpResolve, "", 0},
	{"resolution", regexp.MustCompile(`(?i)^(?:i|we)\s+(?:have\s+|just\s+|finally\s+)?(?:fixed|resolved|solved)\s+(.+)$`), memory.BucketIssues, memory.OpResolve, "", 0},
	{"resolution", regexp.MustCompile(`(?i)^(.+?)\s+(?:works|passes|is working|is passing)\s+(?:again|now)\b`), memory.BucketIssues, memory.OpResolve, "", 0},
	{"reversal", regexp.MustCompile(`(?i)^(?:we|i|the team)\s+(?:have\s+|just\s+|finally\s+)?(?:reverted|reversed|abandoned|rolled back|dropped)\s+(?:the\s+|our\s+)?decision\s+(?:to\s+|on\s+)?(.+)$`), memory.BucketDecisions, memory.OpInvalidate, "", 0},
	{"decision", regexp.MustCompile(`(?i)^(?:we|the team)\s+(?:have\s+|finally\s+)?(?:decided|agreed|chose|settled)\s+(?:to\s+[a-z]+|on\s+\S+|that\s+\S+)`), memory.BucketDecisions, memory.OpAppend, "", 0},
	{"constraint", regexp.MustCompile(`(?i)^(?:we|agents?|all agents|you|nobody|no one|everyone)\s+(?:must not|must never|must always|may not|should never|(?:are|is) not allowed to|(?:are|is) never allowed to)\s+[a-z]+(.*)$`), memory.BucketConstraints, memory.OpUpsert, "", 1},
	{"constraint", regexp.MustCompile(`(?i)^never\s+` + imperative + `\b(.*)$`), memory.BucketConstraints, memory.OpUpsert, "", 1},
	{"blocker", regexp.MustCompile(`(?i)\b(?:(?:am|are|is|we're|i'm)\s+blocked\s+(?:by|on)|(?:is|are)\s+broken)\b`), memory.BucketIssues, memory.OpUpsert, memory.KindBlocker, 0},
	{"learning", regexp.MustCompile(`(?i)^(?:til\b|today i learned|lesson learned|it turns out|turns out)|\blearned that\b`), memory.BucketLearnings, memory.OpAppend, "", 0},
}

// imperative lists the verbs "Never <verb> ..." is read as a rule with;
// "Never mind", "Never seen this" are not rules.
const imperative = `(?:run|deploy|push|merge|commit|delete|drop|use|call|write|edit|change|modify|touch|force|skip|disable|store|log|expose|share|send|release|ship|install|upgrade|downgrade|rebase|reset|restart|remove|migrate|print|hardcode|bypass|trust|rename|publish|approve|reuse|rotate|truncate|bump)`

var (
	hedge       = regexp.MustCompile(`(?i)\b(?:maybe|perhaps|probably|might|may be|i think|i guess|not sure|possibly|hopefully|should be|almost|nearly|partly|partially|mostly|kind of|sort of|seems?|appears?|looks like)\b`)
	conditional = regexp.MustCompile(`(?i)^(?:if|when|once|unless|whether|after|before|until|as soon as)\b`)
	// question is a sentence that asks, with or without its question mark.
	question = regexp.MustCompile(`(?i)\?|^(?:is|are|was|were|did|does|do|has|have|had|can|could|should|will|would|why|how|what|which|who|whose)\b`)
	reported = regexp.MustCompile(`(?i)\b(?:asked|asks|asking|wonder|wonders|wondered|wondering|whether|said|says|told|tells|claims?|claimed|according to|reported|reports|heard|rumou?rs?|suggested|suggests|proposed|proposes|mentioned)\b`)
	filler   = regexp.MustCompile(`(?i)^(?:ok|okay|thanks|thank you|hello|hi|hmm|sure|got it|let me|let's|i will|i'll|i am going to|i'm going to|now i|next i|checking|looking at|thinking|running|trying)\b`)
	label    = regexp.MustCompile(`^[A-Za-z][A-Za-z ]{0,24}:\s+(\S.*)$`)
)

// sentence reads an agent note without a form. It is conservative: noise,
// questions, hedges, conditionals, reported speech and anything negated are
// ignored. A leading label ("Update: ...") is set aside first.
func sentence(text string, n memory.Note) memory.WriteRequest {
	first, _, _ := strings.Cut(text, "\n")
	first = strings.TrimSpace(first)
	if m := label.FindStringSubmatch(first); m != nil {
		first = m[1]
	}
	if why := caution(first); why != "" {
		return ignore(why)
	}
	sent := strings.TrimRight(first, ".! ")
	// The patterns read the sentence without a trailing id it states
	// ("The upload flake is fixed (upload_retry_flake)").
	id, bare := statedID(sent)
	for _, h := range heuristics {
		m := h.re.FindStringSubmatch(bare)
		if m == nil {
			continue
		}
		scope := bare // a rule's own "must not" is not a negation of it
		if h.rest > 0 {
			scope = m[h.rest]
		}
		if negation.MatchString(scope) {
			return ignore("negated: a sentence with not, no, never ... does not change shared state; use an explicit form")
		}
		return heuristicRequest(h, m, sent, id, n)
	}
	return ignore("no explicit form and no recognised statement; use a form such as issue:, fixed:, decision: to record one")
}

// caution says why a plain sentence must not be read as a statement about
// shared state ("" when it may be): too short, a question, narration, a
// hedge, a condition, or someone else's words.
func caution(first string) string {
	switch {
	case len(strings.Fields(first)) < 3:
		return "too short to be a statement about shared state"
	case question.MatchString(first):
		return "a question, not a statement"
	case filler.MatchString(first):
		return "narration of the agent's own work, not a statement about shared state"
	case hedge.MatchString(first):
		return "hedged (maybe, probably, I think, almost ...): state it plainly or use an explicit form"
	case conditional.MatchString(first):
		return "conditional: it says what would happen, not what happened"
	case reported.MatchString(first):
		return "reported speech (asked, said, whether ...): it says what someone else said, not what happened"
	}
	return ""
}

// heuristicRequest builds the write a sentence pattern reads. id is a
// trailing id the sentence states: a lifecycle sentence's target when its
// reference has no id of its own (fill reads it from the whole sentence for
// the other forms).
func heuristicRequest(h heuristic, m []string, sent, id string, n memory.Note) memory.WriteRequest {
	r := memory.WriteRequest{Decision: memory.DecisionAccept, Bucket: h.bucket, Operation: h.op,
		Confidence: heuristicConfidence, Rationale: "plain sentence read as a " + h.name}
	if h.alias != "" {
		r.CandidateAliases = []string{h.alias}
	}
	if h.op.Lifecycle() {
		fill(&r, strings.TrimSpace(m[1]), n)
		if r.TargetID == "" {
			r.TargetID = id
		}
		r.Payload.Reason = clip(sent, memory.MaxReasonBytes)
	} else {
		fill(&r, sent, n)
	}
	return r
}
