// Package llm is the thin client over OpenAI-compatible servers (OpenAI,
// Ollama, vLLM, llama.cpp server) used by the embedder and the LLM stages.
// Every stage that uses it also has a deterministic offline path; nothing here
// is required for memory-mcp to work.
package llm

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Config names an OpenAI-compatible endpoint.
type Config struct {
	BaseURL string        // including /v1, e.g. http://localhost:11434/v1
	APIKey  string        // may be empty for local servers
	Model   string        // model name as the server knows it
	Timeout time.Duration // per request; 0 means 60s
	Retries int           // extra attempts on 429 and 5xx; 0 means 3, negative means none
	Backoff time.Duration // the first wait between attempts, doubled after each; 0 means 250ms
}

// Client is an OpenAI-compatible client bound to one model.
type Client struct {
	api *openai.Client
	cfg Config
}

// New returns a client for cfg.
func New(cfg Config) *Client {
	oc := openai.DefaultConfig(cfg.APIKey)
	if cfg.BaseURL != "" {
		oc.BaseURL = cfg.BaseURL
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	oc.HTTPClient = &http.Client{Timeout: cfg.Timeout}
	switch {
	case cfg.Retries == 0:
		cfg.Retries = 3
	case cfg.Retries < 0:
		cfg.Retries = 0
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = 250 * time.Millisecond
	}
	return &Client{api: openai.NewClientWithConfig(oc), cfg: cfg}
}

// Model returns the configured model name.
func (c *Client) Model() string { return c.cfg.Model }

// retry runs fn until it succeeds, fails with an error that retrying cannot
// fix, or runs out of attempts, backing off exponentially with jitter
// (250ms, 500ms, 1s, ... by default) between attempts.
func (c *Client) retry(ctx context.Context, fn func() error) error {
	backoff := c.cfg.Backoff
	for attempt := 0; ; attempt++ {
		err := fn()
		if err == nil || attempt >= c.cfg.Retries || !Retryable(err) {
			return err
		}
		wait := backoff + time.Duration(rand.Int64N(int64(backoff/2)+1))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		backoff *= 2
	}
}

// Retryable reports whether err is worth retrying: rate limits (429), server
// errors (5xx) and transport failures, but not bad requests or auth failures.
func Retryable(err error) bool {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return apiErr.HTTPStatusCode == http.StatusTooManyRequests || apiErr.HTTPStatusCode >= 500
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.HTTPStatusCode == http.StatusTooManyRequests || reqErr.HTTPStatusCode >= 500
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	return true // network errors: connection refused, reset, timeout of one request
}

// Rejected reports whether err is the server refusing the request itself:
// an HTTP status other than 429 and 5xx (a bad request, a wrong or missing
// key, an unknown model). Neither retrying nor waiting helps; the
// configuration or the request must change. Timeouts, transport failures,
// rate limits and server errors are not rejections.
func Rejected(err error) bool {
	return Status(err) != 0 && !Retryable(err)
}

// Status returns the HTTP status of the server's answer err carries, or 0.
func Status(err error) int {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return apiErr.HTTPStatusCode
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.HTTPStatusCode
	}
	return 0
}

// ChatFunc is the LLM seam of every service: one structured chat call whose
// JSON reply is decoded into out (Client.ChatJSON is the real one; tests
// pass fakes).
type ChatFunc func(ctx context.Context, system, user string, schema Schema, out any) error
