package memory

import (
	"slices"
	"time"
)

// Repeat is a write that dedup answered "duplicate": nothing was stored,
// and the words the caller sent are kept here, linked to the memory they
// were taken to repeat, since dedup can be wrong ("the internal API" and
// "the international API"). Its author may store them as their own memory
// after all: remember (or publish_memory) again with NotARepeatOf, or a
// human on the review page (MemoryService.StoreRepeat).
type Repeat struct {
	ID string `json:"id" jsonschema:"The repeat's id (rep-...)."`
	// MemoryID is the memory the write was answered a repeat of.
	MemoryID string `json:"memory_id" jsonschema:"The memory the write was answered a repeat of."`
	AgentID  string `json:"agent_id" jsonschema:"Who made the write."`
	// Tool is the tool answered: remember, or publish_memory (then From is
	// the memory whose publish was answered).
	Tool string `json:"tool" jsonschema:"remember or publish_memory."`
	From string `json:"from,omitempty" jsonschema:"publish_memory: your memory whose publish was answered duplicate."`
	// Content is the words sent, as they were.
	Content   string   `json:"content" jsonschema:"The words the write sent, as they were."`
	Namespace string   `json:"namespace"`
	Category  Category `json:"category"`
	Tags      []string `json:"tags"`
	// Tier is how dedup found the repeat (DedupExact, ...).
	Tier   string    `json:"tier" jsonschema:"How dedup matched it: exact, words, semantic or model."`
	SaidAt time.Time `json:"said_at"`
	// StoredAs is the memory the words were stored as after all, if they were.
	StoredAs string `json:"stored_as,omitempty" jsonschema:"The memory these words were stored as after all, if they were."`
	// Kept is the memory it repeated as it is now, for the review page,
	// which shows the two side by side (nil when it is gone); a tool's
	// result has it already, as the memory recalled or returned.
	Kept *Entry `json:"-"`
}

// RepeatPrefix begins every repeat's id.
const RepeatPrefix = "rep-"

// RepeatQuery selects repeats, newest first: the caller's own, or for a
// human any agent's (AgentID narrows to one); MemoryIDs narrows to the
// repeats of those memories, IDs to those repeats; Open leaves out those
// stored after all.
type RepeatQuery struct {
	AgentID   string
	MemoryIDs []string
	IDs       []string
	Open      bool
	Limit     int // 1 to MaxSearchLimit; 0 is DefaultSearchLimit
}

// Validate checks the query and fills its default limit.
func (q *RepeatQuery) Validate() error {
	if q.AgentID != "" {
		if err := CheckID("agent_id", q.AgentID); err != nil {
			return err
		}
	}
	for _, id := range append(slices.Clone(q.MemoryIDs), q.IDs...) {
		if err := CheckID("id", id); err != nil {
			return err
		}
	}
	var err error
	q.Limit, err = CheckLimit(q.Limit, DefaultSearchLimit, MaxSearchLimit)
	return err
}

// PublishWrite is a publish_memory call: the caller's memory ID to share,
// and NotARepeatOf, a shared memory its publish was answered a repeat of
// that says something else, which dedup then does not count it a repeat of.
type PublishWrite struct {
	ID           string
	NotARepeatOf string
}
