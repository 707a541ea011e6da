package llm_test

import (
	"context"
	"testing"
	"time"

	"github.com/memory-mcp/memory-mcp/llm"
)

func TestJudge(t *testing.T) {
	srv, seen, _ := fakeChat(t, reply{content: `{"contradicts": true, "score": 0.93, "reason": "another city"}`},
		reply{content: `{"contradicts": true, "score": 7, "reason": "sure"}`})
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
}
