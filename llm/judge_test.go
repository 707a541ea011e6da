package llm_test

import (
	"context"
	"testing"
	"time"

	"github.com/memory-mcp/memory-mcp/llm"
)

func TestJudge(t *testing.T) {
	srv, seen, _ := fakeChat(t, reply{content: `{"contradicts": true, "same": false, "score": 0.93, "reason": "another city"}`},
		reply{content: `{"contradicts": true, "same": false, "score": 7, "reason": "sure"}`},
		reply{content: `{"contradicts": true, "same": true, "score": 0.9, "reason": "both"}`},
		reply{content: `{"contradicts": false, "same": true, "score": 0.9, "reason": "a paraphrase"}`})
	judge := llm.NewJudge(client(srv.URL, time.Second).ChatJSON, time.Second)
	j, err := judge(context.Background(), "The user lives in Lyon.", "The user moved to Paris.")
	if err != nil || !j.Contradicts || j.Score != 0.93 || j.Reason != "another city" {
		t.Fatalf("judgement %+v, %v", j, err)
	}
	rf, _ := (*seen)[0]["response_format"].(map[string]any)
	if js, _ := rf["json_schema"].(map[string]any); js["name"] != "contradiction" || js["strict"] != true {
		t.Fatalf("response_format = %v", rf)
	}
	if _, err := judge(context.Background(), "a", "b"); err == nil {
		t.Fatal("a score out of range was taken")
	}
	if j, err := judge(context.Background(), "a", "b"); err != nil || j.Contradicts || j.Same || j.Score != 0 {
		t.Fatalf("a judgement both contradictory and the same: %+v, %v; want one that is sure of nothing", j, err)
	}
	if j, err := judge(context.Background(), "The cat is Tom.", "The cat is called Tom."); err != nil || !j.Same || j.Contradicts {
		t.Fatalf("a paraphrase: %+v, %v", j, err)
	}
}
