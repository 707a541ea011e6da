package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// rawSession drives a server by writing bytes to its stdin, for what an MCP
// client library would never send (or would send for us).
type rawSession struct {
	t     *testing.T
	stdin io.WriteCloser
	lines chan string
}

func startRaw(t *testing.T) *rawSession {
	t.Helper()
	stdout, stdin, _, _, _ := serveIn(t, options{args: []string{"--agent-id", "raw"}})
	s := newRawSession(t, stdout, stdin)
	s.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	s.reply(0)
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

// newRawSession reads the server's stdout line by line.
func newRawSession(t *testing.T, stdout io.Reader, stdin io.WriteCloser) *rawSession {
	s := &rawSession{t: t, stdin: stdin, lines: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	return s
}

func (s *rawSession) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.stdin, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

// rawReply is a JSON-RPC response as the server wrote it.
type rawReply struct {
	ID     int             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// reply waits for the response to request id.
func (s *rawSession) reply(id int) rawReply {
	s.t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				s.t.Fatalf("the server closed stdout before answering %d", id)
			}
			if !utf8.ValidString(line) {
				s.t.Fatalf("the server wrote a line that is not UTF-8: %q", line)
			}
			var r rawReply
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				s.t.Fatalf("not JSON on stdout: %q", line)
			}
			if r.ID == id && (r.Result != nil || r.Error != nil) {
				return r
			}
		case <-timeout:
			s.t.Fatalf("no answer to request %d", id)
		}
	}
}

// TestInputMustBeText: a request whose strings are not text (invalid UTF-8,
// or a \u escape of half a surrogate pair) gets a parse error naming the
// problem, and nothing is stored; encoding/json would have replaced the bytes
// with U+FFFD and the fact would have been published with a changed text.
func TestInputMustBeText(t *testing.T) {
	s := startRaw(t)
	publish := func(id int, content string) string {
		return `{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{"name":"publish_fact","arguments":{"content":"` +
			content + `","category":"adr"}}}`
	}
	tests := []struct {
		content, bad, want string // want: the message, with %d for where bad starts in the line
	}{
		{"caf\xe9 au lait", "\xe9", "Parse error: the message is not valid UTF-8: byte 0xE9 at offset %d is not part of a UTF-8 character; send text as UTF-8"},
		{"half \xf0\x9f", "\xf0", "byte 0xF0 at offset %d is not part of a UTF-8 character"},
		{`lone \udc80 low`, `\udc80`, `Parse error: the message holds \udc80 at offset %d, half of a UTF-16 surrogate pair, which stands for no character`},
		{`lone \ud83d high`, `\ud83d`, `the message holds \ud83d at offset %d,`},
		{`reversed \ude80\ud83d pair`, `\ude80`, `the message holds \ude80 at offset %d,`},
	}
	for i, tt := range tests {
		line := publish(i+1, tt.content)
		want := fmt.Sprintf(tt.want, strings.Index(line, tt.bad))
		s.send(line)
		r := s.reply(i + 1)
		if r.Error == nil || r.Error.Code != -32700 || !strings.Contains(r.Error.Message, want) {
			t.Errorf("%q: %+v %s, want parse error containing %q", tt.content, r.Error, r.Result, want)
		}
	}
	// A notification that is not text is dropped; the session goes on, and
	// text that is (an escaped pair, an escaped backslash before a u) is taken.
	s.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":99,\"reason\":\"\xff\"}}")
	// An id that is not text is answered with a null id, never echoed.
	s.send("{\"jsonrpc\":\"2.0\",\"id\":\"a\xffb\",\"method\":\"tools/list\"}")
	if r := s.reply(0); r.Error == nil || r.Error.Code != -32700 {
		t.Fatalf("a request whose id is not text: %+v", r)
	}
	s.send(publish(10, `rocket \ud83d\ude80 and a path C:\\udc80`))
	if r := s.reply(10); r.Error != nil || !strings.Contains(string(r.Result), `rocket 🚀 and a path C:\\udc80`) {
		t.Fatalf("valid text: %+v %s", r.Error, r.Result)
	}
	s.send(`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"list_facts","arguments":{"category":"adr"}}}`)
	if r := s.reply(11); r.Error != nil || !strings.Contains(string(r.Result), `"total":1`) {
		t.Fatalf("only the valid fact is stored: %+v %s", r.Error, r.Result)
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// TestStoredTextRefusesControlCharacters: content made of NUL or terminal
// escapes is refused, naming the character and where it is, in every tool
// that stores free text (tags already were).
func TestStoredTextRefusesControlCharacters(t *testing.T) {
	s := startIn(t, options{args: []string{"--agent-id", "ctl", "--block-tools"}})
	var f factResult
	s.ok("publish_fact", map[string]any{"fact_id": "f", "content": "Clean.", "category": "adr"}, &f)
	var m memoryResult
	s.ok("remember", map[string]any{"content": "Clean."}, &m)
	const at0 = " at byte 0: remove it"
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"publish_fact", map[string]any{"content": "\x1b[2J\x1b[H", "category": "adr"}, "content holds control character U+001B (ESC)" + at0},
		{"remember", map[string]any{"content": "\x00\x00\x00"}, "content holds control character U+0000 (NUL)" + at0},
		{"remember", map[string]any{"content": "ok", "source": "web\a"}, "source holds control character U+0007 (BEL) at byte 3"},
		{"write_note", map[string]any{"text": "issue: \u009b31m red"}, "text holds control character U+009B (CSI) at byte 7"},
		{"memory_block_append", map[string]any{"label": "persona", "text": "x\x7f"}, "text holds control character U+007F (DEL) at byte 1"},
		{"memory_block_create", map[string]any{"label": "b", "description": "d\x1b"}, "description of block b holds control character U+001B (ESC) at byte 1"},
		{"memory", map[string]any{"command": "insert", "path": "/memories/persona", "insert_line": 0, "insert_text": "x\x7f"}, "insert_text holds control character U+007F (DEL) at byte 1"},
		{"memory", map[string]any{"command": "create", "path": "/memories/b", "file_text": "x\x1b"}, "file_text holds control character U+001B (ESC) at byte 1"},
		{"retract_fact", map[string]any{"fact_id": "f", "reason": "\x1b]0;x\a"}, "reason holds control character U+001B (ESC)" + at0},
		{"forget", map[string]any{"id": m.ID, "reason": "gone\x00"}, "reason holds control character U+0000 (NUL) at byte 4"},
	}
	for _, tt := range tests {
		s.fail(tt.tool, tt.args, "EINVALID", tt.want)
	}
	var facts factsResult
	s.ok("list_facts", map[string]any{"category": "adr"}, &facts)
	if len(facts.Facts) != 1 || !facts.Facts[0].Active() {
		t.Fatalf("a refused write changed the facts: %+v", facts.Facts)
	}
}

// TestMalformedJSONRPCIsAnswered: on stdio, a message that is no JSON-RPC
// request is answered with Invalid Request (-32600): one without a method
// (mcp-go took it for a notification and said nothing), one whose id is an
// object, an array or a boolean (mcp-go echoed it), or null on a request
// (mcp-go took it for a notification). The session goes on.
func TestMalformedJSONRPCIsAnswered(t *testing.T) {
	s := startRaw(t)
	for _, tt := range []struct{ line, want string }{
		{`{"jsonrpc":"2.0"}`, `names no "method"`},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, "the id must be a string or a number"},
		{`{"jsonrpc":"2.0","id":[2],"method":"tools/list"}`, "the id must be a string or a number"},
		{`{"jsonrpc":"2.0","id":true,"method":"tools/list"}`, "the id must be a string or a number"},
		{`{"jsonrpc":"2.0","id":null,"method":"tools/list"}`, "not null"},
	} {
		s.send(tt.line)
		// Each is answered with a null id: an id that is no id is not echoed.
		if r := s.reply(0); r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, tt.want) {
			t.Errorf("%s: %+v, want Invalid Request saying %q", tt.line, r.Error, tt.want)
		}
	}
	s.send(`{"jsonrpc":"2.0","id":5}`)
	if r := s.reply(5); r.Error == nil || r.Error.Code != -32600 {
		t.Errorf("a message with an id and no method: %+v", r.Error)
	}
	s.send(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"list_conflicts","arguments":{"limit":-1}}}`)
	if r := s.reply(6); !strings.Contains(string(r.Result), "limit -1 is out of range") {
		t.Errorf("list_conflicts with a negative limit: %s", r.Result)
	}
	s.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"consolidate_memory","arguments":{"older_than":"  "}}}`)
	if r := s.reply(7); !strings.Contains(string(r.Result), "older_than is blank") {
		t.Errorf("consolidate_memory with a blank older_than: %s", r.Result)
	}
	s.send(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"record_distillation","arguments":` +
		`{"task_id":"T-1","outcome":"completed","memory_tool_calls":{"search_memory":"three"}}}}`)
	if r := s.reply(8); !strings.Contains(string(r.Result), `argument \"memory_tool_calls.search_memory\" must be an integer, not string`) {
		t.Errorf("a wrong type inside a map: %s", r.Result)
	}
}
