package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Block limits. A block's limit counts characters (Unicode code points), the
// unit a model sees, not bytes.
const (
	DefaultBlockLimit   = 5000
	MaxBlockLimit       = 100_000
	MaxBlockDescription = 1000
	// MaxBlocks bounds the blocks one agent may own, so that core memory stays
	// a small, always-visible working set rather than a second archive.
	MaxBlocks = 64
	// AnyAgent in a block's writers or readers stands for every agent.
	AnyAgent = "*"
	// ConfigAgent is the author of what configuration does to blocks: it
	// makes the default blocks and applies later changes of the setting
	// (configure versions). No agent can have this id (CheckID rejects it),
	// so history never confuses the configuration with an agent.
	ConfigAgent = "(config)"
)

// ConfigIdentity is the identity configuration acts as. It counts as human:
// an operator wrote the setting, and read-only blocks are kept by people.
var ConfigIdentity = Identity{AgentID: ConfigAgent, Human: true}

// BlockOp names what produced a block version.
type BlockOp string

// Block operations, as recorded in a block's history.
const (
	BlockCreate    BlockOp = "create"
	BlockAppend    BlockOp = "append"
	BlockReplace   BlockOp = "replace"
	BlockInsert    BlockOp = "insert"
	BlockRethink   BlockOp = "rethink"
	BlockDelete    BlockOp = "delete"
	BlockRestore   BlockOp = "restore"
	BlockConfigure BlockOp = "configure" // the block's setting in configuration changed
)

// Block is a piece of core memory: a labelled text the agent keeps in view and
// rewrites itself (Letta-style). A personal block belongs to one agent; a
// shared block is visible to several and edited by its owner or its writers.
type Block struct {
	BlockSummary
	Value     string     `json:"value"`
	CreatedAt time.Time  `json:"created_at"`
	DeletedAt *time.Time `json:"deleted_at,omitempty"`
}

// BlockSummary is a block without its value: what memory_block_list shows
// when asked for labels only, so that no block looks empty when it is not.
type BlockSummary struct {
	Label       string    `json:"label"`
	Description string    `json:"description"`
	Chars       int       `json:"chars"`
	Limit       int       `json:"limit"`
	ReadOnly    bool      `json:"read_only"`
	Shared      bool      `json:"shared"`
	Owner       string    `json:"owner,omitempty"`
	Writers     []string  `json:"writers,omitempty"`
	Readers     []string  `json:"readers,omitempty"`
	Version     int       `json:"version"`
	UpdatedBy   string    `json:"updated_by"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// OwnerName names the block's owner for messages: the configuration owns
// the shared default blocks.
func (b *BlockSummary) OwnerName() string {
	if b.Owner == "" {
		return "configuration"
	}
	return b.Owner
}

// Writer reports whether agent may edit the block, read-only aside: the owner
// of a personal block; the owner or a listed writer of a shared one.
func (b *Block) Writer(agent string) bool {
	if agent == b.Owner {
		return true
	}
	return b.Shared && (slices.Contains(b.Writers, AnyAgent) || slices.Contains(b.Writers, agent))
}

// VisibleTo reports whether agent may read the block. A shared block with no
// readers listed is visible to every agent; its writers always see it.
func (b *Block) VisibleTo(agent string) bool {
	if b.Writer(agent) {
		return true
	}
	if !b.Shared {
		return false
	}
	return len(b.Readers) == 0 || slices.Contains(b.Readers, AnyAgent) || slices.Contains(b.Readers, agent)
}

// CheckWrite returns EFORBIDDEN naming the block when id may not edit it.
// Read-only blocks are kept by people: only a human identity may change them.
func (b *Block) CheckWrite(id Identity) error {
	if b.ReadOnly && !id.Human {
		return Errorf(EFORBIDDEN, "block %s is read-only: agents may read it but not edit it (you are %s); a human operator maintains it",
			b.Label, id.Describe())
	}
	if !b.Writer(id.AgentID) {
		return Errorf(EFORBIDDEN, "shared block %s may be edited only by %s; you are %s", b.Label, b.writersText(), id.Describe())
	}
	return nil
}

func (b *Block) writersText() string {
	names := []string{}
	if b.Owner != "" {
		names = append(names, b.Owner+" (owner)")
	}
	for _, w := range b.Writers {
		if w != b.Owner {
			names = append(names, w)
		}
	}
	if len(names) == 0 {
		return "nobody (it has no owner and no writers)"
	}
	return strings.Join(names, ", ")
}

// BlockSpec describes a block to create, by a tool call or by configuration
// (the default blocks).
type BlockSpec struct {
	Label       string   `json:"label"`
	Description string   `json:"description"`
	Value       string   `json:"value,omitempty"`
	Limit       int      `json:"limit,omitempty"`
	ReadOnly    bool     `json:"read_only,omitempty"`
	Shared      bool     `json:"shared,omitempty"`
	Writers     []string `json:"writers,omitempty"`
	Readers     []string `json:"readers,omitempty"`
	// Path is the memory tool path the block is created at ("" for
	// memory_block_create and configuration), for the memory tool's messages.
	Path string `json:"-"`
}

// Validate checks the spec and fills in the default limit.
func (s *BlockSpec) Validate() error {
	if err := CheckID("label", s.Label); err != nil {
		return err
	}
	if err := checkDescription(s.Label, s.Description); err != nil {
		return err
	}
	if s.Limit == 0 {
		s.Limit = DefaultBlockLimit
	}
	if s.Limit < 1 || s.Limit > MaxBlockLimit {
		return Errorf(EINVALID, "limit %d for block %s is out of range: use 1 to %d characters", s.Limit, s.Label, MaxBlockLimit)
	}
	if err := checkText("value", s.Value); err != nil {
		return err
	}
	if n := utf8.RuneCountInString(s.Value); n > s.Limit {
		return overLimit(s.Label, "its value is", n, s.Limit)
	}
	if !s.Shared && (len(s.Writers) > 0 || len(s.Readers) > 0) {
		return Errorf(EINVALID, "writers and readers apply only to shared blocks: set shared to true, or leave them out for a personal block")
	}
	var err error
	if s.Writers, err = checkAgents("writers", s.Writers); err != nil {
		return err
	}
	s.Readers, err = checkAgents("readers", s.Readers)
	return err
}

func checkDescription(label, d string) error {
	if strings.TrimSpace(d) == "" {
		return Errorf(EINVALID, "description of block %s is empty: say what belongs in the block, so that you (and other agents) know when to edit it", label)
	}
	if err := CheckText("description of block "+label, d, 0); err != nil {
		return err
	}
	switch n := utf8.RuneCountInString(d); {
	case n > MaxBlockDescription:
		return Errorf(EINVALID, "description of block %s is %d characters; the limit is %d (%d over)", label, n, MaxBlockDescription, n-MaxBlockDescription)
	}
	return nil
}

// checkAgents validates a list of agent ids ("*" for every agent), dropping duplicates.
func checkAgents(field string, agents []string) ([]string, error) {
	out := []string{}
	for _, a := range agents {
		a = strings.TrimSpace(a)
		if a != AnyAgent {
			if err := CheckID(field+" entry", a); err != nil {
				return nil, err
			}
		}
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	if len(out) > MaxTags {
		return nil, Errorf(EINVALID, "%s lists %d agents; the limit is %d (use \"*\" for every agent)", field, len(out), MaxTags)
	}
	return out, nil
}

// checkText rejects text a block may not hold (see CheckText). Empty text is
// the caller's business: a rethink may clear a block, an append may not add
// nothing. Limits count characters and are checked against the block.
func checkText(field, text string) error {
	return CheckText(field, text, 0)
}

// BlockEdit is one change to a block. Op selects which fields matter:
// append and insert add Text (insert after line AfterLine), replace swaps
// OldText for NewText, rethink makes Text the whole value, delete removes the
// block (a version like any other), restore brings back version Version.
type BlockEdit struct {
	Label     string
	Op        BlockOp
	Text      string
	OldText   string
	NewText   string
	AfterLine int
	Version   int
	// ExpectedVersion makes the edit compare-and-set: it fails with ECONFLICT
	// unless the block is at this version. Without it, append, replace and
	// insert apply to whatever the value is when the edit commits.
	ExpectedVersion *int
	// ExpectedHash, a prefix of the value's BlockHash, makes the edit
	// compare-and-set on the content instead, or as well.
	ExpectedHash string
	// Path is the memory tool path the edit was asked by ("" for the
	// memory_block_* tools): the block must lie in the path's area (shared
	// or not), and replace and insert follow the memory tool's rules and
	// messages (see fileReplace, fileInsert).
	Path string
}

// Validate checks the arguments that do not depend on the block's state.
func (e *BlockEdit) Validate() error {
	if err := CheckID("label", e.Label); err != nil {
		return err
	}
	if e.ExpectedVersion != nil && *e.ExpectedVersion < 1 {
		return Errorf(EINVALID, "expected_version %d is not a version: blocks start at version 1; send the version memory_block_read shows", *e.ExpectedVersion)
	}
	if e.ExpectedHash != "" {
		if err := CheckExpectedHash(e.ExpectedHash); err != nil {
			return err
		}
	}
	if e.Path != "" {
		return e.validateFile()
	}
	for field, text := range map[string]string{"text": e.Text, "new_text": e.NewText} {
		if err := checkText(field, text); err != nil {
			return err
		}
	}
	// old_text is only looked for, never stored: it may name a control
	// character a block took in before they were refused, to remove it.
	if !utf8.ValidString(e.OldText) {
		return Errorf(EINVALID, "old_text is not valid UTF-8")
	}
	switch e.Op {
	case BlockAppend, BlockInsert:
		if strings.TrimSpace(e.Text) == "" {
			return Errorf(EINVALID, "text is empty: give the text to %s", e.Op)
		}
		if e.Op == BlockInsert && e.AfterLine < 0 {
			return Errorf(EINVALID, "after_line %d is negative: use 0 to insert before the first line", e.AfterLine)
		}
	case BlockReplace:
		if e.OldText == "" {
			return errEmptyOldText()
		}
		if e.OldText == e.NewText {
			return Errorf(EINVALID, "old_text and new_text are the same: nothing would change")
		}
	case BlockRethink:
		if e.ExpectedVersion == nil {
			return Errorf(EINVALID, "memory_block_rethink rewrites the whole block, so it needs expected_version: "+
				"the version of block %s your new value is based on (memory_block_read shows it)", e.Label)
		}
	case BlockRestore:
		if e.Version < 1 {
			return Errorf(EINVALID, "version %d is not a version: memory_block_history lists the versions of block %s", e.Version, e.Label)
		}
	case BlockDelete:
	default:
		return Errorf(EINVALID, "unknown block edit %q", e.Op)
	}
	return nil
}

// Apply returns value with the edit applied, for the edits that compute a new
// value from the current one (append, replace, insert, rethink).
func (e *BlockEdit) Apply(value string) (string, error) {
	switch {
	case e.Path != "" && e.Op == BlockReplace:
		return fileReplace(e.Path, value, e.OldText, e.NewText)
	case e.Path != "" && e.Op == BlockInsert:
		return fileInsert(e.Path, value, e.Text, e.AfterLine)
	}
	switch e.Op {
	case BlockAppend:
		return AppendText(value, e.Text), nil
	case BlockReplace:
		return ReplaceText(e.Label, value, e.OldText, e.NewText)
	case BlockInsert:
		return InsertText(e.Label, value, e.Text, e.AfterLine)
	case BlockRethink:
		return e.Text, nil
	}
	return "", Errorf(EINVALID, "%s does not compute a new value", e.Op)
}

// AppendText adds text to value on a new line.
func AppendText(value, text string) string {
	if value == "" || strings.HasSuffix(value, "\n") {
		return value + text
	}
	return value + "\n" + text
}

// lineNumbered matches the "  3| " prefix memory_block_read puts before each
// line, which a model sometimes copies into old_text.
var lineNumbered = regexp.MustCompile(`(?m)^\s*\d+\| `)

// ReplaceText replaces the one occurrence of old in value with new. It fails
// when old is missing or occurs more than once, saying how many times and on
// which lines, because replacing the wrong occurrence silently corrupts memory.
func ReplaceText(label, value, old, new string) (string, error) {
	if old == "" {
		return "", errEmptyOldText()
	}
	switch n := strings.Count(value, old); n {
	case 1:
		return strings.Replace(value, old, new, 1), nil
	case 0:
		msg := fmt.Sprintf("old_text was not found in block %s: copy it exactly (spaces and line breaks too) from memory_block_read", label)
		if lineNumbered.MatchString(old) {
			msg += `; leave out the "N| " line numbers, which are not part of the block`
		}
		return "", Errorf(EINVALID, "%s", msg)
	default:
		return "", Errorf(EINVALID, "old_text occurs %d times in block %s (lines %s): include more of the surrounding text so that it matches exactly once",
			n, label, joinLines(occurrenceLines(value, old)))
	}
}

func errEmptyOldText() error {
	return Errorf(EINVALID, "old_text is empty: give the exact text to replace, copied from the block")
}

// occurrenceLines returns, once each and in order, the 1-based lines on
// which an occurrence of old starts, as the reference memory tool lists them.
func occurrenceLines(value, old string) []int {
	var lines []int
	line, counted := 1, 0
	for at := 0; ; {
		i := strings.Index(value[at:], old)
		if i < 0 {
			return lines
		}
		line += strings.Count(value[counted:at+i], "\n")
		counted = at + i
		if len(lines) == 0 || lines[len(lines)-1] != line {
			lines = append(lines, line)
		}
		at += i + len(old)
	}
}

// maxListedLines caps the lines an error lists, so that an old_str found
// thousands of times answers in a sentence, not hundreds of kilobytes.
const maxListedLines = 20

// joinLines lists lines for an error: the first maxListedLines, then how
// many more there are.
func joinLines(lines []int) string {
	shown := lines[:min(len(lines), maxListedLines)]
	parts := make([]string, len(shown))
	for i, x := range shown {
		parts[i] = fmt.Sprint(x)
	}
	s := strings.Join(parts, ", ")
	if more := len(lines) - len(shown); more > 0 {
		s += fmt.Sprintf(" and %d more lines", more)
	}
	return s
}

// Lines splits a block value into its lines; an empty value has none.
func Lines(value string) []string {
	if value == "" {
		return nil
	}
	return strings.Split(value, "\n")
}

// InsertText inserts text as new lines after line after (0: before the first line).
func InsertText(label, value, text string, after int) (string, error) {
	lines := Lines(value)
	if after < 0 || after > len(lines) {
		return "", Errorf(EINVALID, "after_line %d is out of range: block %s has %d lines; use 0 (before the first line) to %d (after the last)",
			after, label, len(lines), len(lines))
	}
	added := Lines(strings.TrimSuffix(text, "\n"))
	out := make([]string, 0, len(lines)+len(added))
	out = append(append(append(out, lines[:after]...), added...), lines[after:]...)
	return strings.Join(out, "\n"), nil
}

// CheckBlockLimit enforces a block's character limit on an edit from before
// to after. A block already over its limit (its limit was lowered) may still
// be edited as long as the edit does not make it longer, so that it can
// always be condensed.
func CheckBlockLimit(label, before, after string, limit int) error {
	n := utf8.RuneCountInString(after)
	if n <= limit || n <= utf8.RuneCountInString(before) {
		return nil
	}
	return overLimit(label, "it would be", n, limit)
}

func overLimit(label, what string, n, limit int) error {
	return Errorf(EINVALID, "block %s: %s %d characters; its limit is %d characters (%d over): "+
		"shorten the text, or condense the block first (rewrite what is stale shorter; every version is kept)", label, what, n, limit, n-limit)
}

// BlockVersion is one entry of a block's history: the value after an edit,
// who made it, and how.
type BlockVersion struct {
	Label        string    `json:"label"`
	Version      int       `json:"version"`
	Op           BlockOp   `json:"op"`
	Value        string    `json:"value"`
	Description  string    `json:"description"`
	Limit        int       `json:"limit"`
	Deleted      bool      `json:"deleted,omitempty"`
	RestoredFrom int       `json:"restored_from,omitempty"`
	Author       Author    `json:"author"`
	At           time.Time `json:"at"`
}

// BlockService is core memory: the blocks visible to the caller (from ctx),
// their edits, and their history. Every edit is a new version; nothing is
// erased.
type BlockService interface {
	// List returns the caller's blocks and the shared blocks visible to it.
	List(ctx context.Context) ([]Block, error)
	Get(ctx context.Context, label string) (Block, error)
	Create(ctx context.Context, s BlockSpec) (Block, error)
	Edit(ctx context.Context, e BlockEdit) (Block, error)
	// History returns up to limit versions of the block, newest first.
	History(ctx context.Context, label string, limit int) ([]BlockVersion, error)
	// Rename moves a block to another label (and area) as one write.
	Rename(ctx context.Context, r BlockRename) (Block, error)
}

// BlockRename moves the block at Label (a memory tool path From) to
// NewLabel (path To), shared when NewShared: in one transaction the block
// is created at the new label with the old one's value, description, limit
// and readers and writers (when it stays shared), and deleted at the old
// label, whose history stays there and can restore it.
type BlockRename struct {
	From, To        MemoryPath
	ExpectedVersion *int
	ExpectedHash    string
}

// DefaultBlocks are the blocks every agent has from its first use: who it
// is, who it works with, and what it works on.
func DefaultBlocks() []BlockSpec {
	return []BlockSpec{
		{Label: "persona", Limit: 2000, Description: "Who you are in this work: your role, your working style, and the " +
			"commitments you have made about how you behave. Edit it when you learn how you should act. Write it in the first person."},
		{Label: "human", Limit: 2000, Description: "What you know about the person you work with: name, role, " +
			"preferences, how they like answers, what to avoid. Update it as soon as they tell you something about " +
			"themselves or correct you."},
		{Label: "project", Limit: 5000, Description: "The project at hand: its goal, stack, layout, conventions, the " +
			"decisions made and the open questions. Keep it current: replace what is stale instead of piling up notes " +
			"(every earlier version is kept in the block's history)."},
	}
}

// ParseBlockSpecs reads the blocks setting: a JSON array of block specs
// ([{"label": "persona", "description": "...", "limit": 2000}]). It replaces
// the default blocks; "[]" means none.
func ParseBlockSpecs(s string) ([]BlockSpec, error) {
	var specs []BlockSpec
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&specs); err != nil {
		return nil, Errorf(EINVALID, `blocks must be a JSON array like [{"label": "persona", "description": "...", "limit": 2000}]: %v`, err)
	}
	seen := map[string]bool{}
	for i := range specs {
		if err := specs[i].Validate(); err != nil {
			return nil, err
		}
		if seen[specs[i].Label] {
			return nil, Errorf(EINVALID, "block %s is listed twice", specs[i].Label)
		}
		seen[specs[i].Label] = true
	}
	return specs, nil
}
