// Package locomo loads the LoCoMo long-term conversational memory benchmark
// and scores retrieval rankings against its evidence turns. It is test data
// only (licence CC BY-NC 4.0): benchmarks read it from outside the repository,
// and nothing in the product may import this package.
package locomo

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Turn is one utterance of a conversation, stored as one memory.
type Turn struct {
	ID      string    // dialogue id, "D<session>:<turn>"
	Session int       // session number, from 1
	Speaker string    // who said it
	Text    string    // "speaker: text", plus " [shares: caption]" when an image was shared
	Date    time.Time // when the session took place (UTC; the data set has no zone)
}

// Question is one benchmark question with the turns that answer it.
type Question struct {
	Text     string
	Category int      // 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial
	Evidence []string // distinct, normalised turn ids; empty when none could be resolved
}

// Conversation is one LoCoMo sample: its turns in order and its questions.
type Conversation struct {
	ID        string // sample_id, e.g. "conv-26"
	Turns     []Turn
	Questions []Question
}

// Dataset is the whole benchmark plus what loading had to repair in it.
type Dataset struct {
	Conversations []Conversation
	// Normalised counts evidence ids that were malformed ("D:11:26",
	// "D30:05", several ids in one string) and were rewritten to turn ids.
	Normalised int
	// Dropped counts evidence ids that name no turn of their conversation
	// ("D", or a well-formed id past the end of its session).
	Dropped int
}

// DateLayout is how LoCoMo writes session dates: "1:56 pm on 8 May, 2023".
const DateLayout = "3:04 pm on 2 January, 2006"

// Load reads locomo10.json from path.
func Load(path string) (*Dataset, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read locomo: %w", err)
	}
	return Parse(raw)
}

// Find returns the path of locomo10.json, which lives outside the
// repository (its licence forbids shipping it): $LOCOMO_PATH if set, else
// ../shared/bench/locomo10.json beside the repository root, found by walking
// up from the working directory to go.mod so that tests of any package find it.
func Find() (string, error) {
	if p := os.Getenv("LOCOMO_PATH"); p != "" {
		return p, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, "..", "shared", "bench", "locomo10.json")
			if _, err := os.Stat(p); err != nil {
				return "", fmt.Errorf("locomo10.json not found at %s (set LOCOMO_PATH): %w", p, err)
			}
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("locomo10.json not found: no go.mod above the working directory (set LOCOMO_PATH)")
		}
		dir = parent
	}
}

type rawSample struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []struct {
		Question string   `json:"question"`
		Evidence []string `json:"evidence"`
		Category int      `json:"category"`
	} `json:"qa"`
}

type rawTurn struct {
	Speaker string `json:"speaker"`
	DiaID   string `json:"dia_id"`
	Text    string `json:"text"`
	Caption string `json:"blip_caption"`
}

var sessionKey = regexp.MustCompile(`^session_(\d+)$`)

// Parse decodes the JSON of locomo10.json.
func Parse(raw []byte) (*Dataset, error) {
	var samples []rawSample
	if err := json.Unmarshal(raw, &samples); err != nil {
		return nil, fmt.Errorf("decode locomo: %w", err)
	}
	ds := &Dataset{}
	for _, s := range samples {
		c, err := conversation(s, ds)
		if err != nil {
			return nil, fmt.Errorf("conversation %s: %w", s.SampleID, err)
		}
		ds.Conversations = append(ds.Conversations, c)
	}
	return ds, nil
}

func conversation(s rawSample, ds *Dataset) (Conversation, error) {
	c := Conversation{ID: s.SampleID}
	turns, err := sessions(s.Conversation)
	if err != nil {
		return c, err
	}
	c.Turns = turns
	known := make(map[string]bool, len(turns))
	for _, t := range turns {
		known[t.ID] = true
	}
	for _, q := range s.QA {
		ev, fixed, dropped := NormaliseEvidence(q.Evidence, known)
		ds.Normalised += fixed
		ds.Dropped += dropped
		c.Questions = append(c.Questions, Question{Text: q.Question, Category: q.Category, Evidence: ev})
	}
	return c, nil
}

// sessions returns the turns of every session_N in session order.
func sessions(conv map[string]json.RawMessage) ([]Turn, error) {
	var nums []int
	for k := range conv {
		if m := sessionKey.FindStringSubmatch(k); m != nil {
			n, _ := strconv.Atoi(m[1])
			nums = append(nums, n)
		}
	}
	sort.Ints(nums)
	var out []Turn
	for _, n := range nums {
		date, err := sessionDate(conv, n)
		if err != nil {
			return nil, err
		}
		var raw []rawTurn
		if err := json.Unmarshal(conv[fmt.Sprintf("session_%d", n)], &raw); err != nil {
			return nil, fmt.Errorf("session %d: %w", n, err)
		}
		for _, r := range raw {
			out = append(out, Turn{ID: r.DiaID, Session: n, Speaker: r.Speaker, Text: turnText(r), Date: date})
		}
	}
	return out, nil
}

func sessionDate(conv map[string]json.RawMessage, n int) (time.Time, error) {
	var s string
	if err := json.Unmarshal(conv[fmt.Sprintf("session_%d_date_time", n)], &s); err != nil {
		return time.Time{}, fmt.Errorf("session %d date: %w", n, err)
	}
	t, err := time.Parse(DateLayout, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("session %d date: %w", n, err)
	}
	return t, nil
}

// turnText is what is stored for a turn: who said it, what was said, and the
// caption of a shared image, which often holds the answer.
func turnText(r rawTurn) string {
	text := r.Speaker + ": " + r.Text
	if r.Caption != "" {
		text += " [shares: " + r.Caption + "]"
	}
	return text
}

var evidenceID = regexp.MustCompile(`D:?(\d+):(\d+)`)

// NormaliseEvidence turns raw evidence strings into distinct turn ids that
// exist in known. Malformed strings are repaired where the intent is clear:
// several ids in one string ("D8:6; D9:17", "D9:1 D4:4"), a stray colon
// ("D:11:26"), leading zeros ("D30:05"). It returns the ids, how many were
// repaired, and how many were dropped because they name no known turn.
func NormaliseEvidence(raw []string, known map[string]bool) (ids []string, normalised, dropped int) {
	seen := map[string]bool{}
	for _, r := range raw {
		matches := evidenceID.FindAllStringSubmatch(r, -1)
		if len(matches) == 0 {
			dropped++
			continue
		}
		for _, m := range matches {
			s, _ := strconv.Atoi(m[1])
			t, _ := strconv.Atoi(m[2])
			id := fmt.Sprintf("D%d:%d", s, t)
			if !known[id] {
				dropped++
				continue
			}
			if id != strings.TrimSpace(r) {
				normalised++
			}
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	return ids, normalised, dropped
}

// Corpus returns the text of every turn and of every question, in order:
// real conversational text of the length agents remember, and queries for it.
func (d *Dataset) Corpus() (texts, queries []string) {
	for _, c := range d.Conversations {
		for _, t := range c.Turns {
			texts = append(texts, t.Text)
		}
		for _, q := range c.Questions {
			queries = append(queries, q.Text)
		}
	}
	return texts, queries
}

// Grown is the i-th text of a store grown from texts to any size: past the
// end they repeat with a suffix that keeps each one distinct.
func Grown(texts []string, i int) string {
	if i < len(texts) {
		return texts[i]
	}
	return fmt.Sprintf("%s (note %d)", texts[i%len(texts)], i/len(texts))
}

// TB is the part of testing.TB that Must uses.
type TB interface {
	Helper()
	Skip(args ...any)
	Fatal(args ...any)
}

// Must finds and loads the dataset for a benchmark: it skips the benchmark
// when the data is not beside the checkout (it is outside the repository,
// in ../shared/bench) and fails it when the file does not parse.
func Must(tb TB) *Dataset {
	tb.Helper()
	path, err := Find()
	if err != nil {
		tb.Skip(err)
	}
	ds, err := Load(path)
	if err != nil {
		tb.Fatal(err)
	}
	return ds
}
