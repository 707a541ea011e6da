package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/server"
)

// serveStdio serves MCP on stdin/stdout until stdin closes or ctx ends. Only
// protocol messages go to stdout; logs go to stderr.
func serveStdio(ctx context.Context, cfg *Config, stdin io.Reader, stdout, stderr io.Writer) error {
	logger := newLogger(cfg, stderr)
	a, err := openApp(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer a.Close()
	logger.Info("serving MCP on stdio", "data_dir", cfg.DataDir, "agent_id", cfg.Identity.AgentID, "version", buildVersion())
	if isTerminal(stdin) { // a person ran it by hand, and would otherwise see nothing happen
		fmt.Fprintln(stderr, "memory-mcp is waiting for an MCP client on stdin: a client such as Claude Desktop, Claude Code or "+
			"Cursor starts it (see the README); Ctrl-D or Ctrl-C ends it. \"memory-mcp --help\" lists the commands.")
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var watching sync.WaitGroup
	watching.Go(func() { a.subs.Watch(a.context(ctx), a.db, a.blocks, logger, 500*time.Millisecond) })
	if cfg.Consolidation.Interval > 0 {
		logger.Info("consolidation scheduled", "interval", cfg.Consolidation.Interval, "lease", cfg.Consolidation.Lease)
		watching.Go(func() { a.consolidation.Schedule(ctx, cfg.Identity) })
	}
	switch {
	case cfg.FineTune.Every > 0 && !cfg.Identity.Human:
		// A run re-embeds every agent's memories: an agent's server must
		// not apply its settings to the others'.
		logger.Warn("finetune-every is set, but scheduled fine-tuning runs only in a human operator's server (--human) or the team server (serve): not scheduled")
	case cfg.FineTune.Every > 0:
		watching.Go(func() { scheduleFineTune(ctx, cfg, a.db, logger, cfg.Identity) })
	}
	if cfg.Backup.Dir != "" {
		watching.Go(func() { scheduleBackup(ctx, cfg, a.db, logger) })
	}
	defer func() { // the watcher and the scheduler use the database: they stop before the deferred Close
		cancel()
		watching.Wait()
	}()

	out := &lockedOutput{w: stdout}
	s := server.NewStdioServer(a.server)
	s.SetErrorLogger(log.New(stderr, "mcp: ", 0))
	s.SetContextFunc(a.context)
	return s.Listen(ctx, &textInput{r: bufio.NewReader(stdin), out: out, log: logger}, out)
}

// lockedOutput writes each message to stdout whole: mcp-go writes a message
// in one Write, and textInput answers the messages it refuses through the
// same lock, so the two never interleave.
type lockedOutput struct {
	mu sync.Mutex
	w  io.Writer
}

func (o *lockedOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.w.Write(p)
}

// textInput hands mcp-go the client's messages, one line each, and refuses
// those whose strings are not text. mcp-go decodes messages with
// encoding/json, which replaces invalid UTF-8, and a \u escape of half a
// surrogate pair, with U+FFFD before any handler sees them, so a tool would
// store a different text than was sent and cannot tell. Such a request gets a
// JSON-RPC parse error (-32700) with its id instead; a notification is
// dropped (it takes no answer) and logged. A line that is not JSON at all
// goes through, and mcp-go answers it.
type textInput struct {
	r   *bufio.Reader
	out io.Writer
	log *slog.Logger
	buf []byte // what is left of the current line
	err error  // the error that ended the input, returned once buf is read
}

func (t *textInput) Read(p []byte) (int, error) {
	for len(t.buf) == 0 {
		if t.err != nil {
			return 0, t.err
		}
		line, err := t.r.ReadBytes('\n')
		t.err = err
		if problem := notText(line); problem != "" && t.refuse(line, problem) {
			continue
		}
		if id, problem := invalidRequest(line); problem != "" {
			t.answer(rpcError(id, -32600, "Invalid Request: "+problem))
			continue
		}
		t.buf = line
	}
	n := copy(p, t.buf)
	t.buf = t.buf[n:]
	return n, nil
}

// refuse answers a request whose text is broken with a parse error naming
// the problem, and reports whether it took the line out of the input.
func (t *textInput) refuse(line []byte, problem string) bool {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(line, &msg) != nil {
		return false // not JSON: mcp-go says so
	}
	if msg.Method == "" {
		// A response to a request of ours: it takes no answer, and this
		// server sends none that matter (no sampling, elicitation or roots).
		t.log.Warn("dropped a response from the client", "problem", problem)
		return true
	}
	if len(msg.ID) == 0 || string(msg.ID) == "null" {
		t.log.Warn("dropped a notification", "method", msg.Method, "problem", problem)
		return true
	}
	t.answer(rpcError(msg.ID, -32700, "Parse error: "+problem))
	return true
}

// answer writes a reply of the server's own to stdout.
func (t *textInput) answer(reply []byte) {
	if _, err := t.out.Write(append(reply, '\n')); err != nil {
		t.log.Warn("answer a refused message", "err", err)
	}
}

// rpcError is a JSON-RPC error answering the request with id. An id that is
// not text cannot be echoed; JSON-RPC answers null then.
func rpcError(id json.RawMessage, code int, message string) []byte {
	if len(id) == 0 || notText(id) != "" {
		id = json.RawMessage("null")
	}
	reply, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": message}})
	if err != nil { // an id that is valid JSON text always marshals
		reply, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": message}})
	}
	return reply
}

// notText says why a JSON message cannot be read as text without changing
// it ("" when it can): invalid UTF-8, which JSON text may not hold (RFC 8259
// section 8.1), or a \u escape of half a UTF-16 surrogate pair, which stands
// for no character (I-JSON, RFC 7493, forbids it).
func notText(line []byte) string {
	if !utf8.Valid(line) {
		i := invalidAt(line)
		return fmt.Sprintf("the message is not valid UTF-8: byte 0x%02X at offset %d is not part of a UTF-8 character; send text as UTF-8", line[i], i)
	}
	// Outside strings valid JSON has no backslash, so every one starts an
	// escape; \\ is skipped whole so that its second backslash starts none.
	for i := 0; i < len(line)-1; i++ {
		if line[i] != '\\' {
			continue
		}
		if line[i+1] != 'u' {
			i++
			continue
		}
		r, ok := hex4(line, i+2)
		switch {
		case !ok:
			return "" // malformed: mcp-go's parser says so
		case r >= 0xd800 && r <= 0xdbff:
			if low, ok := hex4(line, i+8); ok && i+7 < len(line) && line[i+6] == '\\' && line[i+7] == 'u' && low >= 0xdc00 && low <= 0xdfff {
				i += 11
				continue
			}
			return lone(line[i:i+6], i)
		case r >= 0xdc00 && r <= 0xdfff:
			return lone(line[i:i+6], i)
		}
		i += 5
	}
	return ""
}

func lone(escape []byte, at int) string {
	return fmt.Sprintf("the message holds %s at offset %d, half of a UTF-16 surrogate pair, which stands for no character; "+
		"escape a character outside the Basic Multilingual Plane as a whole pair (\\ud83d\\ude80) or send it as UTF-8", escape, at)
}

// hex4 reads four hex digits at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[i:i+4]), 16, 16)
	return rune(n), err == nil
}

// invalidAt returns the offset of the first byte of b that does not start a
// valid UTF-8 character.
func invalidAt(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(b)
}
