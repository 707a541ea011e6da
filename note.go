package memory

import (
	"strings"
	"time"
)

// NoteKind says where a note's text came from.
type NoteKind string

// Note kinds (seed 002's working memory holds both).
const (
	NoteAgent      NoteKind = "agent"       // the agent's own words
	NoteToolResult NoteKind = "tool_result" // output of a tool the agent ran
)

// ParseNoteKind validates a note kind; an empty string means NoteAgent.
func ParseNoteKind(s string) (NoteKind, error) {
	switch k := NoteKind(strings.TrimSpace(s)); k {
	case "":
		return NoteAgent, nil
	case NoteAgent, NoteToolResult:
		return k, nil
	}
	return "", Errorf(EINVALID, "unknown note kind %q: use agent or tool_result", s)
}

// Note is one entry of working memory: private to the agent that wrote it and
// to the run it was written in, timestamped, and never schema-checked beyond
// its size. A note becomes shared state only through promotion, after which
// it is marked processed and keeps the outcome.
type Note struct {
	ID          int64      `json:"note_id"`
	Kind        NoteKind   `json:"kind"`
	Text        string     `json:"text"`
	TaskID      string     `json:"task_id,omitempty"`
	Agent       string     `json:"agent_id"`
	Autonomy    Autonomy   `json:"autonomy,omitempty"` // the author's, at write time; none for a human
	Run         string     `json:"run_id"`
	CreatedAt   time.Time  `json:"created_at"`
	Processed   bool       `json:"processed"`
	ProcessedAt *time.Time `json:"processed_at,omitempty"`
	Outcome     *Outcome   `json:"outcome,omitempty"`
}

// NoteWrite asks to add a note to the caller's working memory.
type NoteWrite struct {
	Text   string
	Kind   NoteKind
	TaskID string
}

// Validate checks the write and fills in the default kind.
func (w *NoteWrite) Validate(maxBytes int) error {
	if err := CheckContent("text", w.Text, maxBytes); err != nil {
		return err
	}
	kind, err := ParseNoteKind(string(w.Kind))
	if err != nil {
		return err
	}
	w.Kind = kind
	if w.TaskID != "" {
		return CheckID("task_id", w.TaskID)
	}
	return nil
}
