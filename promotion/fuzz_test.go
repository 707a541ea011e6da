package promotion_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/llm"
	"github.com/memory-mcp/memory-mcp/promotion"
	"github.com/memory-mcp/memory-mcp/store"
)

// allowed is the projection contract, written out again independently of
// the validator so the fuzzers check the validator rather than trust it.
var allowed = map[string]bool{
	"plan/upsert": true, "constraints/upsert": true, "constraints/invalidate": true, "issues/upsert": true, "issues/resolve": true,
	"decisions/append": true, "decisions/invalidate": true, "results/append": true, "task_state/upsert": true, "learnings/append": true,
}

var targetRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_]{0,63}$`)

// invalid says what is wrong with a committed write, or "".
func invalid(ev memory.Event) string {
	key := string(ev.Bucket) + "/" + string(ev.Operation)
	p := ev.Payload
	switch {
	case !allowed[key]:
		return "bucket/operation " + key
	case (ev.Bucket == memory.Results || ev.Bucket == memory.Learnings) != (ev.TargetID == ""):
		return "target presence " + ev.TargetID
	case ev.TargetID != "" && !targetRE.MatchString(ev.TargetID):
		return "target " + ev.TargetID
	case ev.Bucket == memory.Plan && ev.TargetID != "main":
		return "plan target " + ev.TargetID
	case !utf8.ValidString(p.Text + p.State + p.Reason + p.TaskID + ev.SourceRef.ReferenceText):
		return "utf8"
	case len(p.Text) > 8192 || len(p.State) > 256 || len(p.Reason) > 1000 || len(ev.SourceRef.ReferenceText) > 500:
		return "size"
	case ev.Operation == memory.Resolve || ev.Operation == memory.Invalidate:
		if p.Text != "" || p.State != "" {
			return "lifecycle payload"
		}
	case ev.Bucket == memory.TaskState:
		if strings.TrimSpace(p.State) == "" {
			return "task without state"
		}
	case strings.TrimSpace(p.Text) == "":
		return "empty text"
	}
	return ""
}

var (
	fuzzOnce sync.Once
	fuzzDB   *store.DB
	fuzzP    *promotion.Pipeline
	fuzzSeq  int64 // the last ledger event checked (a worker runs inputs one at a time)
)

// fuzzPipeline is one real pipeline per fuzz worker process, seeded with
// rows for notes to refer to.
func fuzzPipeline(t *testing.T) *promotion.Pipeline {
	fuzzOnce.Do(func() {
		dir, err := os.MkdirTemp("", "promotion-fuzz")
		if err != nil {
			t.Fatal(err)
		}
		if fuzzDB, err = store.Open(context.Background(), filepath.Join(dir, store.FileName)); err != nil {
			t.Fatal(err)
		}
		fuzzP = promotion.New(fuzzDB, "fuzz")
		fuzzP.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
		for _, n := range []string{"blocker: pandas import fails", "issue: flaky auth test", "issue: flaky billing test",
			"decision: use Go", "constraint: no network in CI"} {
			fuzzP.WriteNote(as(agent), memory.NoteWrite{Text: n})
		}
		fuzzP.Promote(as(agent), 0)
	})
	return fuzzP
}

// FuzzPromoteNote runs arbitrary note text through the rules interpreter,
// resolver, validator and inputter on a real database: nothing may panic, and
// every event that reaches the ledger must be a valid write.
func FuzzPromoteNote(f *testing.F) {
	files, _ := filepath.Glob("testdata/scenarios/*.txt")
	for _, file := range files {
		b, _ := os.ReadFile(file)
		for _, line := range strings.Split(string(b), "\n") {
			if text, ok := strings.CutPrefix(line, "> "); ok {
				f.Add(text, false)
			}
		}
	}
	f.Add("[issues/resolve \x00] x", true)
	f.Add("task \xff: \n", false)
	f.Add("fixed: "+strings.Repeat("é", 600), false)
	f.Fuzz(func(t *testing.T, text string, tool bool) {
		kind := memory.AgentNote
		if tool {
			kind = memory.ToolResultNote
		}
		p := fuzzPipeline(t)
		if _, err := p.WriteNote(as(agent), memory.NoteWrite{Text: text, Kind: kind}); err != nil {
			if memory.ErrorCode(err) != memory.EINVALID {
				t.Fatalf("write_note(%q): %v", text, err)
			}
			return
		}
		rep, err := p.Promote(as(agent), 0)
		if err != nil {
			t.Fatalf("promote(%q): %v", text, err)
		}
		evs, err := p.DB.Events(context.Background(), fuzzSeq, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs {
			if why := invalid(ev); why != "" {
				t.Fatalf("note %q committed an invalid write (%s): %+v", text, why, ev)
			}
			fuzzSeq = ev.Seq
		}
		for _, o := range rep.Outcomes {
			if o.Status == memory.Rejected && o.Rule == "" {
				t.Fatalf("rejection without a rule: %+v", o)
			}
		}
	})
}

// FuzzLLMOutput feeds arbitrary model replies to the LLM interpreter: it must
// never panic, and must either use a structurally valid answer or fall back
// to the rules.
func FuzzLLMOutput(f *testing.F) {
	f.Add([]byte(`{"decision":"accept","bucket":"issues","operation":"resolve","target_id":"flaky_auth_test","payload":{"text":"","state":"","reason":"","task_id":""},"reference_text":"x","candidate_aliases":[],"confidence":0.9,"rationale":""}`))
	f.Add([]byte(`{"decision":"accept","bucket":"results","operation":"append","target_id":"","payload":{"text":"a","state":"","reason":"","task_id":"T 1"},"reference_text":"","candidate_aliases":null,"confidence":1e308,"rationale":""}`))
	f.Add([]byte(`{"decision":"ignore"}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"candidate_aliases":["a","b","c","d","e","f","g","h","i","j","k","l","m","n","o","p"],"decision":"accept","bucket":"issues","operation":"resolve","target_id":"x_y","confidence":0.5}`))
	note := memory.Note{Text: "The earlier blocker is fixed.", Kind: memory.AgentNote}
	f.Fuzz(func(t *testing.T, reply []byte) {
		li := &promotion.LLMInterpreter{Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
			Chat: func(_ context.Context, _, _ string, _ llm.Schema, out any) error {
				dec := json.NewDecoder(bytes.NewReader(reply))
				dec.DisallowUnknownFields()
				if err := dec.Decode(out); err != nil {
					return &llm.DecodeError{Reply: string(reply), Err: err}
				}
				return nil
			}}
		in := li.Interpret(context.Background(), note, memory.SharedContext{})
		if in.By == "llm" {
			if v := in.Request.Check(); v != nil {
				t.Fatalf("an invalid answer was used: %v", v)
			}
			if in.Request.Operation.Lifecycle() && in.Request.TargetID != "" {
				t.Fatalf("a target the note does not name was kept: %+v", in.Request)
			}
		} else if !strings.HasPrefix(in.By, "rules (llm ") || in.Request.Operation != memory.Resolve {
			t.Fatalf("fallback = %+v", in)
		}
	})
}
