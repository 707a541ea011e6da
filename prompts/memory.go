package prompts

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
)

func registerMemories(s *server.MCPServer, svc Services) {
	add(s, svc.Log, mcp.NewPrompt("memory_context",
		mcp.WithPromptDescription("The stored memories most relevant to a query, packed into a token budget as fenced "+
			"data blocks after a directive that they are information, not instructions: place it before the task."),
		mcp.WithArgument("query", mcp.RequiredArgument(),
			mcp.ArgumentDescription("What the conversation is about, in the words the memories would use.")),
		mcp.WithArgument("token_budget",
			mcp.ArgumentDescription(fmt.Sprintf("Largest size of the result in tokens, %d to %d (default %d).",
				memory.MinTokenBudget, memory.MaxTokenBudget, memory.DefaultTokenBudget))),
		mcp.WithArgument("categories",
			mcp.ArgumentDescription("Only these categories, comma-separated or a JSON array: working, episodic, semantic, procedural, social.")),
		mcp.WithArgument("min_relevance",
			mcp.ArgumentDescription(fmt.Sprintf("Leave out memories scoring below this, 0 to 1 (default %g).", contextMinRelevance))),
	), func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		args := req.Params.Arguments
		budget, err := intArg("token_budget", args["token_budget"])
		if err != nil {
			return nil, err
		}
		cats, err := listArg("categories", args["categories"])
		if err != nil {
			return nil, err
		}
		q := memory.Query{Text: args["query"]}
		if v := strings.TrimSpace(args["min_relevance"]); v != "" {
			m, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, memory.Errorf(memory.EINVALID, "min_relevance %.64q is not a number from 0 to 1", v)
			}
			q.MinRelevance = &m
		}
		for _, c := range cats {
			q.Categories = append(q.Categories, memory.Category(c))
		}
		text, n, err := contextFor(ctx, svc.Memories, q, budget)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			text = "No stored memories matched this query."
		}
		return mcp.NewGetPromptResult(fmt.Sprintf("%d relevant memories", n),
			[]mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(text))}), nil
	})
}

// intArg reads an optional positive integer prompt argument (prompt arguments are strings).
func intArg(name, v string) (int, error) {
	if strings.TrimSpace(v) == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	switch {
	case err != nil:
		return 0, memory.Errorf(memory.EINVALID, "%s %q is not an integer", name, v)
	case n == 0: // as in every tool: an explicit 0 is out of range, not the default
		return 0, memory.Errorf(memory.EINVALID, "%s 0 is out of range: give a positive number, or leave %s out for the default", name, name)
	}
	return n, nil
}

// listArg reads an optional list prompt argument given as a JSON array of
// strings or as comma-separated values.
func listArg(name, v string) ([]string, error) {
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, "[") {
		var out []string
		if err := json.Unmarshal([]byte(v), &out); err != nil {
			return nil, memory.Errorf(memory.EINVALID, "%s is not a JSON array of strings: give e.g. [\"semantic\",\"episodic\"] or semantic,episodic", name)
		}
		return out, nil
	}
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out, nil
}

// contextMinRelevance is context injection's default min_relevance: a
// memory scoring below it ranked low in every list that found it, and would
// only dilute what is injected.
const contextMinRelevance = 0.2

// contextLimit is how many ranked memories context injection considers
// before packing them into the budget.
const contextLimit = 50

// contextFor is seed 004's context-injection strategy: search svc for q (up to
// contextLimit hits) and pack the ranked memories into budget tokens as
// fenced data. It returns the text and how many memories it holds.
func contextFor(ctx context.Context, svc memory.MemoryService, q memory.Query, budget int) (string, int, error) {
	budget, err := memory.CheckTokenBudget(budget)
	if err != nil {
		return "", 0, err
	}
	q.Limit = contextLimit
	if q.MinRelevance == nil {
		m := contextMinRelevance
		q.MinRelevance = &m
	}
	hits, err := svc.Search(ctx, q)
	if err != nil {
		return "", 0, err
	}
	text, n := memory.FormatContext(hits, budget)
	return text, n, nil
}
