package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
)

// envelope is what the server reads of a JSON-RPC message before mcp-go
// does: enough to refuse it early, to name it in the access log and the
// metrics, and to know a notification stream when it opens one.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name string `json:"name"` // tools/call, prompts/get
		Meta struct {
			ProtocolVersion string `json:"io.modelcontextprotocol/protocolVersion"` // 2026-07-28 and later
		} `json:"_meta"`
	} `json:"params"`
}

// sessionless reports whether a message may come without a session id: an
// initialize (which opens one), or a message of a revision without
// sessions (2026-07-28), named in the header or the message's _meta.
func (e envelope) sessionless(r *http.Request) bool {
	return e.Method == "initialize" || mcp.IsModernProtocol(r.Header.Get(server.HeaderKeyProtocolVersion)) ||
		mcp.IsModernProtocol(e.Params.Meta.ProtocolVersion)
}

// rpc checks each request to /mcp before mcp-go sees it, and answers what
// it refuses itself, each with a JSON-RPC error saying why:
//   - a body larger than max (413);
//   - a batch, which no revision served here has (2025-06-18 removed them);
//     a flood of messages in one request is thereby one refusal;
//   - a message whose strings are not text (invalid UTF-8, half a
//     surrogate pair), which mcp-go would silently change (see textInput);
//   - a session id the caller did not open (404, as for an unknown one);
//   - a message but initialize naming no session, in a revision that has
//     them (400, as the spec says; mcp-go answers 404);
//   - a message that is no JSON-RPC request: no method, or an id that is
//     not a string or a number (400, Invalid Request);
//   - a DELETE, which ends a session, naming none (400; mcp-go would fail
//     to end the session "" and answer 500). In 2026-07-28, which has no
//     sessions, mcp-go answers every DELETE 405.
//
// A notification stream (a GET, or subscriptions/listen) is exempt from the
// write timeout and is ended when the server stops.
func rpc(max int64, streams *streams, sess *sessions, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ex := exchangeFrom(r.Context())
		id := r.Header.Get(server.HeaderKeySessionID)
		if id != "" && (r.Method == http.MethodGet || r.Method == http.MethodDelete) {
			who, _ := memory.IdentityFrom(r.Context())
			if !sess.owns(id, who.AgentID) {
				http.Error(w, "no such session: start a new one with initialize", http.StatusNotFound)
				return
			}
		}
		if id == "" && r.Method == http.MethodDelete && !mcp.IsModernProtocol(r.Header.Get(server.HeaderKeyProtocolVersion)) {
			http.Error(w, "a DELETE ends a session: name it in the "+server.HeaderKeySessionID+" header", http.StatusBadRequest)
			return
		}
		stream := r.Method == http.MethodGet
		if r.Method == http.MethodPost {
			body, env, status, reply := readMessage(w, r, max)
			if reply != nil {
				ex.refused = true
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				w.Write(reply)
				return
			}
			ex.method, ex.tool = env.Method, env.Params.Name
			if id == "" && env.Method != "" && !env.sessionless(r) {
				// mcp-go looks the empty id up and answers 404, which tells a
				// client its session ended; the spec answers a missing one 400.
				ex.refused = true
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				w.Write(rpcError(env.ID, -32600, "Bad Request: a request after initialize names its session in the "+
					server.HeaderKeySessionID+" header (initialize's answer gave it)"))
				return
			}
			stream = env.Method == "subscriptions/listen"
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		if stream {
			ctx, done, ok := streams.open(r.Context())
			if !ok {
				http.Error(w, "the server is stopping", http.StatusServiceUnavailable)
				return
			}
			defer done()
			// A stream lasts as long as the client listens; the write
			// timeout would cut it.
			http.NewResponseController(w).SetWriteDeadline(time.Time{})
			r = r.WithContext(ctx)
		}
		next.ServeHTTP(w, r)
	})
}

// readMessage reads a POST's body and its envelope. When it refuses the
// message it returns the status and the JSON-RPC error to answer with.
func readMessage(w http.ResponseWriter, r *http.Request, max int64) ([]byte, envelope, int, []byte) {
	var env envelope
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, env, http.StatusRequestEntityTooLarge, rpcError(nil, -32600,
			fmt.Sprintf("Invalid Request: the body is larger than %d bytes (max-request-bytes); send less per request", max))
	case err != nil:
		return nil, env, http.StatusBadRequest, rpcError(nil, -32700, "Parse error: the body could not be read: "+err.Error())
	}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return nil, env, http.StatusBadRequest, rpcError(nil, -32600,
			"Invalid Request: batches are not accepted (protocol 2025-06-18 and later have none): send one JSON-RPC message per request")
	}
	if json.Unmarshal(body, &env) != nil {
		return body, env, 0, nil // not JSON-RPC at all: mcp-go says so
	}
	if problem := notText(body); problem != "" {
		return nil, env, http.StatusBadRequest, rpcError(env.ID, -32700, "Parse error: "+problem)
	}
	if id, problem := invalidRequest(body); problem != "" {
		return nil, env, http.StatusBadRequest, rpcError(id, -32600, "Invalid Request: "+problem)
	}
	return body, env, 0, nil
}

// invalidRequest says why a JSON object is no JSON-RPC request,
// notification or response ("" when it is one), with the id to answer
// with. mcp-go takes a message without a method for a notification and
// answers nothing, and echoes an id of any JSON type, where JSON-RPC 2.0
// allows a string, a number or null and answers an invalid request with an
// error.
func invalidRequest(msg []byte) (json.RawMessage, string) {
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil || m == nil {
		return nil, "" // not an object: mcp-go says so
	}
	id, hasID := m["id"]
	if hasID {
		switch t := bytes.TrimSpace(id); {
		case len(t) == 0, t[0] == '{', t[0] == '[', t[0] == 't', t[0] == 'f':
			return nil, "the id must be a string or a number"
		case string(t) == "null" && !isNotification(m["method"]):
			// mcp-go takes it for a notification and never answers, so
			// the caller would wait for good. MCP forbids a null id; a
			// notification's (some clients send one) is let through.
			return nil, "the id must be a string or a number, not null (a notification has no id)"
		}
	}
	_, hasMethod := m["method"]
	_, hasResult := m["result"]
	_, hasError := m["error"]
	if !hasMethod && !(hasID && (hasResult || hasError)) {
		return id, `the message names no "method": a request has a method (and an id), a notification a method alone`
	}
	return nil, ""
}

// isNotification reports whether method (JSON) names a notification.
func isNotification(method json.RawMessage) bool {
	var name string
	return json.Unmarshal(method, &name) == nil && strings.HasPrefix(name, "notifications/")
}

// owns reports whether session id is open and was opened by agent.
func (s *sessions) owns(id, agent string) bool {
	return sessionView{s: s, owner: agent}.mine(id)
}

// streams are the notification streams open now, to end when the server
// stops: a stream runs until its client leaves, and would otherwise hold a
// graceful shutdown until its timeout.
type streams struct {
	mu     sync.Mutex
	ending bool
	live   map[*context.CancelFunc]struct{}
}

func newStreams() *streams { return &streams{live: map[*context.CancelFunc]struct{}{}} }

// open registers a stream and returns its context, ended by end; false once
// the server is stopping.
func (s *streams) open(parent context.Context) (context.Context, func(), bool) {
	ctx, cancel := context.WithCancel(parent)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ending {
		cancel()
		return nil, nil, false
	}
	key := &cancel
	s.live[key] = struct{}{}
	return ctx, func() {
		cancel()
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.live, key)
	}, true
}

// end ends every open stream and refuses new ones.
func (s *streams) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ending = true
	for c := range s.live {
		(*c)()
	}
}

// exchange is what the access log and the metrics record of one request;
// the layers that learn each part fill it in.
type exchange struct {
	agent        string // the caller, once authenticated
	method, tool string // the JSON-RPC method, and the tool or prompt it names
	refused      bool   // answered by the server's own checks, before mcp-go
}

type exchangeKey struct{}

// exchangeFrom returns the request's exchange, or a throwaway one when no
// access log runs.
func exchangeFrom(ctx context.Context) *exchange {
	if ex, ok := ctx.Value(exchangeKey{}).(*exchange); ok {
		return ex
	}
	return &exchange{}
}
