package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memory-mcp/memory-mcp/llm"
)

// reply is one canned answer of the fake server.
type reply struct {
	status  int
	content string
	refusal string
	finish  string
	delay   time.Duration
}

// fakeChat is an OpenAI-compatible /v1/chat/completions that answers with
// replies in order (the last one repeats) and keeps the requests it saw.
func fakeChat(t *testing.T, replies ...reply) (*httptest.Server, *[]map[string]any, *atomic.Int32) {
	t.Helper()
	var seen []map[string]any
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req map[string]any
		json.Unmarshal(body, &req)
		seen = append(seen, req)
		i := int(n.Add(1)) - 1
		rep := replies[min(i, len(replies)-1)]
		time.Sleep(rep.delay)
		if rep.status != 0 && rep.status != 200 {
			w.WriteHeader(rep.status)
			io.WriteString(w, `{"error":{"message":"boom","type":"server_error"}}`)
			return
		}
		msg := map[string]any{"role": "assistant", "content": rep.content}
		if rep.refusal != "" {
			msg["refusal"] = rep.refusal
		}
		json.NewEncoder(w).Encode(map[string]any{"id": "c1", "object": "chat.completion", "model": "m",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": cmpOr(rep.finish, "stop")}}})
	}))
	t.Cleanup(srv.Close)
	return srv, &seen, &n
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

var schema = llm.Schema{Name: "thing", JSON: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`)}

type thing struct {
	A string `json:"a"`
}

func client(url string, timeout time.Duration) *llm.Client {
	return llm.New(llm.Config{BaseURL: url + "/v1", Model: "m", Timeout: timeout, Retries: 2})
}

func TestChatJSON(t *testing.T) {
	srv, seen, _ := fakeChat(t, reply{content: `{"a":"yes"}`})
	var out thing
	if err := client(srv.URL, time.Second).ChatJSON(context.Background(), "sys", "usr", schema, &out); err != nil || out.A != "yes" {
		t.Fatalf("ChatJSON = %+v, %v", out, err)
	}
	req := (*seen)[0]
	rf, _ := req["response_format"].(map[string]any)
	js, _ := rf["json_schema"].(map[string]any)
	if rf["type"] != "json_schema" || js["name"] != "thing" || js["strict"] != true || js["schema"] == nil {
		t.Fatalf("response_format = %v", rf)
	}
	if temp, _ := req["temperature"].(float64); temp <= 0 || temp > 0.1 {
		t.Fatalf("temperature = %v: zero is dropped by go-openai, so a tiny value must be sent", req["temperature"])
	}
	msgs, _ := req["messages"].([]any)
	if len(msgs) != 2 || msgs[0].(map[string]any)["content"] != "sys" || msgs[1].(map[string]any)["content"] != "usr" {
		t.Fatalf("messages = %v", msgs)
	}
}

func TestChatJSONFailures(t *testing.T) {
	tests := []struct {
		name    string
		replies []reply
		check   func(error) bool
		calls   int32
	}{
		{"malformed", []reply{{content: `{"a": "yes"`}}, func(err error) bool { var d *llm.DecodeError; return errors.As(err, &d) }, 1},
		{"unknown field", []reply{{content: `{"a":"x","b":1}`}}, func(err error) bool { var d *llm.DecodeError; return errors.As(err, &d) }, 1},
		{"trailing", []reply{{content: `{"a":"x"} {"a":"y"}`}}, func(err error) bool { var d *llm.DecodeError; return errors.As(err, &d) }, 1},
		{"refusal", []reply{{refusal: "I can't help with that"}}, func(err error) bool {
			var r *llm.RefusalError
			return errors.As(err, &r) && r.Message == "I can't help with that"
		}, 1},
		{"truncated", []reply{{content: `{"a":"ye`, finish: "length"}}, func(err error) bool { return errors.Is(err, llm.ErrTruncated) }, 1},
		{"500 then ok", []reply{{status: 500}, {status: 503}, {content: `{"a":"ok"}`}}, func(err error) bool { return err == nil }, 3},
		{"500 always", []reply{{status: 500}}, func(err error) bool { return err != nil && strings.Contains(err.Error(), "500") }, 3},
		{"400 not retried", []reply{{status: 400}}, func(err error) bool { return err != nil }, 1},
		{"timeout", []reply{{content: `{"a":"late"}`, delay: 300 * time.Millisecond}}, func(err error) bool { return err != nil }, 1}, // a timeout is not retried (llm.Retryable)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _, calls := fakeChat(t, tt.replies...)
			var out thing
			err := client(srv.URL, 100*time.Millisecond).ChatJSON(context.Background(), "s", "u", schema, &out)
			if !tt.check(err) {
				t.Fatalf("err = %v", err)
			}
			if calls.Load() != tt.calls {
				t.Fatalf("%d calls, want %d", calls.Load(), tt.calls)
			}
		})
	}
}

// TestChatJSONSampling: a schema's temperature and length limit reach the
// request; left at zero, the call stays near-deterministic and unbounded.
func TestChatJSONSampling(t *testing.T) {
	srv, seen, _ := fakeChat(t, reply{content: `{"a":"yes"}`})
	var out thing
	s := schema
	s.Temperature, s.MaxTokens = 0.3, 500
	if err := client(srv.URL, time.Second).ChatJSON(context.Background(), "s", "u", s, &out); err != nil {
		t.Fatal(err)
	}
	if err := client(srv.URL, time.Second).ChatJSON(context.Background(), "s", "u", schema, &out); err != nil {
		t.Fatal(err)
	}
	set, unset := (*seen)[0], (*seen)[1]
	if temp, _ := set["temperature"].(float64); temp < 0.29 || temp > 0.31 || set["max_tokens"] != 500.0 {
		t.Errorf("temperature %v, max_tokens %v; want 0.3 and 500", set["temperature"], set["max_tokens"])
	}
	if temp, _ := unset["temperature"].(float64); temp <= 0 || temp > 0.1 || unset["max_tokens"] != nil {
		t.Errorf("defaults: temperature %v, max_tokens %v", unset["temperature"], unset["max_tokens"])
	}
}

// TestRejected: only an answer refusing the request itself is a rejection;
// rate limits, server errors, timeouts and malformed replies are not.
func TestRejected(t *testing.T) {
	tests := []struct {
		name     string
		replies  []reply
		rejected bool
		status   int
	}{
		{"401", []reply{{status: 401}}, true, 401},
		{"400", []reply{{status: 400}}, true, 400},
		{"404 model", []reply{{status: 404}}, true, 404},
		{"429", []reply{{status: 429}}, false, 429},
		{"503", []reply{{status: 503}}, false, 503},
		{"timeout", []reply{{content: `{"a":"late"}`, delay: 300 * time.Millisecond}}, false, 0},
		{"malformed", []reply{{content: `{"a":`}}, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _, _ := fakeChat(t, tt.replies...)
			c := llm.New(llm.Config{BaseURL: srv.URL + "/v1", Model: "m", Timeout: 100 * time.Millisecond, Retries: 1, Backoff: time.Millisecond})
			var out thing
			err := c.ChatJSON(context.Background(), "s", "u", schema, &out)
			if err == nil || llm.Rejected(err) != tt.rejected || llm.Status(err) != tt.status {
				t.Fatalf("err %v: rejected %v, status %d; want %v, %d", err, llm.Rejected(err), llm.Status(err), tt.rejected, tt.status)
			}
		})
	}
	if llm.Rejected(context.Canceled) || llm.Status(nil) != 0 {
		t.Fatal("a cancellation is not a rejection")
	}
}
