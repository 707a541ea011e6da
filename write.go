package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// Decision is the interpreter's verdict on a note.
type Decision string

// Decisions.
const (
	DecisionAccept Decision = "accept" // the note carries a write to shared state
	DecisionIgnore Decision = "ignore" // the note stays in working memory
)

// Payload is the content of a write. Which fields a write may or must carry
// depends on its bucket and operation (see PayloadRule).
type Payload struct {
	Text   string `json:"text"`    // the statement: the issue, decision, plan, result, ...
	State  string `json:"state"`   // task_state only: the task's state, e.g. "blocked on review"
	Reason string `json:"reason"`  // resolve / invalidate only: why the row is closed
	TaskID string `json:"task_id"` // results only (optional): the task the result belongs to
}

// WriteRequest is seed 002's structured write request: what the interpreter
// proposes a note means. From here on the pipeline is deterministic.
type WriteRequest struct {
	Decision         Decision  `json:"decision"`
	Bucket           Bucket    `json:"bucket"`
	Operation        Operation `json:"operation"`
	TargetID         string    `json:"target_id"`
	Payload          Payload   `json:"payload"`
	ReferenceText    string    `json:"reference_text"`
	CandidateAliases []string  `json:"candidate_aliases"`
	Confidence       float64   `json:"confidence"`
	Rationale        string    `json:"rationale"`
}

// Size limits of a write request, in bytes unless named otherwise.
const (
	MaxTargetIDLen    = 64
	MaxStateTextBytes = 8 << 10
	MaxStateBytes     = 256
	MaxReasonBytes    = 1000
	MaxReferenceBytes = 500
	MaxAliases        = 16
	MaxAliasBytes     = 100
	MaxRationaleBytes = 2000
)

// Violation is a broken validator rule: which rule, and a message that says
// what was wrong.
type Violation struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// Error implements error.
func (v *Violation) Error() string { return v.Rule + ": " + v.Message }

// Validator rule names, reported with every rejection. (Whether a lifecycle
// target exists is the resolver's question: a target that does not exist yet
// defers, it is not rejected.)
const (
	RuleDecision   = "decision"
	RuleBucket     = "known_bucket"
	RuleOperation  = "allowed_operation"
	RuleTargetSlug = "target_id_slug"
	RuleTarget     = "target_required"
	RulePayload    = "payload_shape"
	RuleSize       = "size_limit"
	RuleConfidence = "confidence_range"
)

var slugPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_]*$`)

// IsSlug reports whether s is a valid target id: lower-case letters, digits
// and '_', starting with a letter or digit, at most MaxTargetIDLen long.
func IsSlug(s string) bool { return len(s) <= MaxTargetIDLen && slugPattern.MatchString(s) }

// writeRules are the structural rules, in the order they are reported. Each
// returns "" when the request passes. They need no state, so they run before
// the resolver: the resolver only sees well-formed requests.
var writeRules = []struct {
	name  string
	check func(r *WriteRequest) string
}{
	{RuleDecision, checkDecision},
	{RuleConfidence, checkConfidence},
	{RuleBucket, checkBucket},
	{RuleOperation, checkOperation},
	{RuleTargetSlug, checkTargetSlug},
	{RuleSize, checkSizes},
	{RulePayload, checkPayload},
}

// Check applies the structural rules and returns the first one broken, or
// nil. An ignore decision is checked only for being one.
func (r *WriteRequest) Check() *Violation {
	for _, rule := range writeRules {
		if msg := rule.check(r); msg != "" {
			return &Violation{Rule: rule.name, Message: msg}
		}
		if rule.name == RuleConfidence && r.Decision == DecisionIgnore {
			return nil
		}
	}
	return nil
}

// CheckTarget applies the rule that needs the resolver's answer: every write
// except an append to results or learnings names its row, and a plan write
// names "main".
func (r *WriteRequest) CheckTarget() *Violation {
	switch {
	case r.Bucket.Keyed() && r.TargetID == "":
		return &Violation{RuleTarget, fmt.Sprintf("%s/%s needs a target_id", r.Bucket, r.Operation)}
	case r.Bucket == BucketPlan && r.TargetID != PlanID:
		return &Violation{RuleTarget, fmt.Sprintf("the plan has one row, %q; target_id %q is not it", PlanID, r.TargetID)}
	}
	return nil
}

func checkDecision(r *WriteRequest) string {
	if r.Decision != DecisionAccept && r.Decision != DecisionIgnore {
		return fmt.Sprintf("decision %q is neither accept nor ignore", r.Decision)
	}
	return ""
}

func checkConfidence(r *WriteRequest) string {
	if !(r.Confidence >= 0 && r.Confidence <= 1) { // also catches NaN
		return fmt.Sprintf("confidence %v is outside 0..1", r.Confidence)
	}
	return ""
}

func checkBucket(r *WriteRequest) string {
	if !r.Bucket.Known() {
		return fmt.Sprintf("unknown bucket %q: use one of %s", r.Bucket, bucketList())
	}
	return ""
}

func checkOperation(r *WriteRequest) string {
	if !r.Bucket.Allows(r.Operation) {
		return fmt.Sprintf("%s does not accept %q: use %s", r.Bucket, r.Operation, opList(r.Bucket.Operations()))
	}
	return ""
}

func opList(ops []Operation) string {
	names := make([]string, len(ops))
	for i, op := range ops {
		names[i] = string(op)
	}
	return strings.Join(names, " or ")
}

func checkTargetSlug(r *WriteRequest) string {
	switch {
	case r.TargetID == "":
		return ""
	case !r.Bucket.Keyed():
		return fmt.Sprintf("%s rows get their ids from the ledger; leave target_id empty (a result's task goes in payload.task_id)", r.Bucket)
	case r.Bucket == BucketTaskState && !IsSlug(r.TargetID):
		return fmt.Sprintf("task id %q cannot name a task: task ids use ASCII letters, digits and '.', '_', ':', '-' and hold a digit or one of those (task T-12: <state>)", r.TargetID)
	case !IsSlug(r.TargetID):
		return fmt.Sprintf("target_id %q is not a slug: use 1 to %d lower-case letters, digits and '_', like pandas_import_blocker", r.TargetID, MaxTargetIDLen)
	}
	return ""
}

// checkSizes bounds every string and rejects invalid UTF-8 and the control
// characters stored text may not hold (see CheckText): the interpreter, a
// model's among them, must not put into the ledger what a caller may not.
func checkSizes(r *WriteRequest) string {
	fields := []struct {
		name string
		v    string
		max  int
	}{
		{"payload.text", r.Payload.Text, MaxStateTextBytes},
		{"payload.state", r.Payload.State, MaxStateBytes},
		{"payload.reason", r.Payload.Reason, MaxReasonBytes},
		{"payload.task_id", r.Payload.TaskID, MaxTargetIDLen},
		{"reference_text", r.ReferenceText, MaxReferenceBytes},
		{"rationale", r.Rationale, MaxRationaleBytes},
	}
	for _, f := range fields {
		if err := CheckText(f.name, f.v, 0); err != nil {
			return ErrorMessage(err)
		}
		if len(f.v) > f.max {
			return fmt.Sprintf("%s is %d bytes; the limit is %d bytes (%d over)", f.name, len(f.v), f.max, len(f.v)-f.max)
		}
	}
	if len(r.CandidateAliases) > MaxAliases {
		return fmt.Sprintf("%d candidate_aliases; the limit is %d", len(r.CandidateAliases), MaxAliases)
	}
	for _, a := range r.CandidateAliases {
		if CheckText("alias", a, 0) != nil || len(a) > MaxAliasBytes {
			return fmt.Sprintf("alias %.40q is not valid UTF-8 of at most %d bytes without control characters", a, MaxAliasBytes)
		}
	}
	return ""
}

// PayloadRule says which payload fields a bucket/operation needs and allows.
type PayloadRule struct {
	Required []string
	Allowed  []string // besides Required
}

// PayloadRuleFor returns the payload shape of bucket b under operation op.
func PayloadRuleFor(b Bucket, op Operation) PayloadRule {
	switch {
	case op.Lifecycle():
		return PayloadRule{Allowed: []string{"reason"}}
	case b == BucketTaskState:
		return PayloadRule{Required: []string{"state"}, Allowed: []string{"text"}}
	case b == BucketResults:
		return PayloadRule{Required: []string{"text"}, Allowed: []string{"task_id"}}
	}
	return PayloadRule{Required: []string{"text"}}
}

func checkPayload(r *WriteRequest) string {
	rule := PayloadRuleFor(r.Bucket, r.Operation)
	fields := map[string]string{"text": r.Payload.Text, "state": r.Payload.State, "reason": r.Payload.Reason, "task_id": r.Payload.TaskID}
	for _, name := range rule.Required {
		if strings.TrimSpace(fields[name]) == "" {
			return fmt.Sprintf("%s/%s needs payload.%s", r.Bucket, r.Operation, name)
		}
	}
	for _, name := range []string{"text", "state", "reason", "task_id"} {
		if fields[name] != "" && !slices.Contains(rule.Required, name) && !slices.Contains(rule.Allowed, name) {
			return fmt.Sprintf("%s/%s does not take payload.%s", r.Bucket, r.Operation, name)
		}
	}
	if r.Payload.TaskID != "" && !IsSlug(r.Payload.TaskID) {
		return fmt.Sprintf("payload.task_id %q is not a slug", r.Payload.TaskID)
	}
	return ""
}

// TextKey normalises text for duplicate detection: lower case, every run of
// characters other than letters and digits collapsed to one space, trimmed.
// Two writes whose texts have the same key are near-identical.
func TextKey(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
			continue
		}
		space = true
	}
	return b.String()
}

// slugStopwords are dropped from derived ids: they make ids longer without
// telling rows apart.
var slugStopwords = map[string]bool{"a": true, "an": true, "the": true, "of": true, "to": true, "is": true, "are": true, "and": true}

// Slugify derives a target id from text: its first six words (ASCII letters
// and digits, without articles), lower-case, joined by '_', at most maxLen long.
// It returns "" when the text has no such words.
func Slugify(text string, maxLen int) string {
	var words []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if !slugStopwords[w] {
			words = append(words, w)
		}
	}
	slug := ""
	for i, w := range words {
		if i == 6 {
			break
		}
		next := w
		if slug != "" {
			next = slug + "_" + w
		}
		if len(next) > maxLen {
			if slug == "" {
				slug = w[:maxLen]
			}
			break
		}
		slug = next
	}
	return slug
}

// Fingerprint identifies what a request would write: two requests with the
// same fingerprint are the same write (used to keep duplicate notes out of
// the pending queue).
func (r *WriteRequest) Fingerprint() string {
	parts := []string{string(r.Bucket), string(r.Operation), r.TargetID, TextKey(r.Payload.Text),
		TextKey(r.Payload.State), TextKey(r.Payload.TaskID), TextKey(r.ReferenceText)}
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:16])
}
