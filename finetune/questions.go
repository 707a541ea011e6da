package finetune

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/llm"
	"github.com/memory-mcp/memory-mcp/llm/prompt"
)

// questionsSchema is the model's answer: the questions alone.
var questionsSchema = llm.Schema{Name: "training_questions", Description: "Questions a document answers.",
	JSON: json.RawMessage(`{"type":"object","properties":{"questions":{"type":"array","items":{"type":"string"}}},` +
		`"required":["questions"],"additionalProperties":false}`),
	Temperature: 0.7, // varied questions, not the most likely one each time
	MaxTokens:   400,
}

// QuestionConfig tunes the synthetic questions of stage 1.
type QuestionConfig struct {
	Docs     int // at most this many documents are asked about, chosen by the seed
	PerDoc   int // questions asked for per document
	Parallel int // calls in flight at once
}

// DefaultQuestions asks about 256 documents, 3 questions each, 4 calls at
// a time: the seed's few hundred documents, a few minutes of a local model.
func DefaultQuestions() QuestionConfig { return QuestionConfig{Docs: 256, PerDoc: 3, Parallel: 4} }

// maxQuestionBytes bounds a question kept from the model: a query, not a
// text.
const maxQuestionBytes = 300

// QuestionPairs asks chat for questions about documents (up to c.Docs of
// them, chosen by seed) and pairs each question with its document. The
// model's failure stops the asking: the pairs made so far are returned
// with the error, and the caller goes on with the offline pairs.
func QuestionPairs(ctx context.Context, chat llm.ChatFunc, docs []Doc, c QuestionConfig, seed uint64) ([]Pair, error) {
	pick := rand.New(rand.NewPCG(seed, 0x9e57)).Perm(len(docs))
	pick = pick[:min(len(pick), c.Docs)]
	slices.Sort(pick)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	got := make([][]string, len(pick))
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	work := make(chan int)
	for range max(c.Parallel, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range work {
				qs, err := ask(ctx, chat, docs[pick[k]], c.PerDoc)
				mu.Lock()
				if err != nil && first == nil {
					first = fmt.Errorf("questions about %s: %w", docs[pick[k]].ID, err)
					cancel()
				}
				got[k] = qs
				mu.Unlock()
			}
		}()
	}
	for k := range pick {
		if ctx.Err() != nil {
			break
		}
		work <- k
	}
	close(work)
	wg.Wait()
	var out []Pair
	for k, qs := range got {
		for _, q := range qs {
			out = append(out, Pair{Source: SourceLLM, Query: q, Doc: pick[k], From: pick[k]})
		}
	}
	return out, first
}

// ask asks for n questions about d and keeps the usable ones: distinct,
// one line, with words, short, and not the document itself.
func ask(ctx context.Context, chat llm.ChatFunc, d Doc, n int) ([]string, error) {
	label := "memory " + d.ID
	if d.Fact {
		label = "fact " + d.ID
	}
	text, _ := capTokens(d.Text, DocTokens)
	system, user, err := prompt.Questions(prompt.QuestionsData{Label: label, Text: text, Count: n})
	if err != nil {
		return nil, err
	}
	var reply struct {
		Questions []string `json:"questions"`
	}
	if err := chat(ctx, system, user, questionsSchema, &reply); err != nil {
		return nil, err
	}
	var out []string
	for _, q := range reply.Questions {
		q = strings.Join(strings.Fields(q), " ")
		if q == "" || len(q) > maxQuestionBytes || q == strings.TrimSpace(d.Text) || slices.Contains(out, q) ||
			memory.CheckText("question", q, maxQuestionBytes) != nil || wordCount(q) == 0 {
			continue
		}
		out = append(out, q)
	}
	return out[:min(len(out), n)], nil
}
