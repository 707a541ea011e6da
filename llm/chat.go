package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	openai "github.com/sashabaranov/go-openai"
)

// Schema is the reply a call asks for: the JSON schema it must follow
// (structured output) and, optionally, how long and how varied it may be.
// The sampling settings ride here because ChatFunc, the seam every service
// and test fake shares, carries one description of the reply per call;
// their zero values keep a call as deterministic and as long as before.
type Schema struct {
	Name        string          // a short identifier, e.g. "write_request"
	Description string          // what the object is
	JSON        json.RawMessage // the schema itself
	// Temperature is the sampling temperature; 0 means near-deterministic
	// (see determinism).
	Temperature float64
	// MaxTokens bounds the reply's length in tokens; 0 leaves it to the
	// server. A reply cut off by it is ErrTruncated.
	MaxTokens int
}

// RefusalError is a model declining to answer. Retrying does not help.
type RefusalError struct{ Message string }

// Error implements error.
func (e *RefusalError) Error() string { return "model refused: " + e.Message }

// ErrTruncated is a reply cut off by the token limit: its JSON is incomplete.
var ErrTruncated = errors.New("model reply was cut off by the token limit")

// DecodeError is a reply that is not the JSON object the schema asked for.
type DecodeError struct {
	Reply string
	Err   error
}

// Error implements error.
func (e *DecodeError) Error() string {
	return fmt.Sprintf("model reply is not valid JSON for the schema: %v (reply %.200q)", e.Err, e.Reply)
}

// Unwrap returns the decoding error.
func (e *DecodeError) Unwrap() error { return e.Err }

// determinism is the temperature sent for structured calls: go-openai drops
// a zero temperature from requests, which servers then read as their default.
const determinism = 0.01

// ChatJSON sends a system and a user message, asks the server to constrain
// the reply to schema (OpenAI structured outputs, strict), and decodes the
// reply into out, rejecting unknown fields. Rate limits and server errors are
// retried with backoff; a refusal, a truncated reply and a reply that does
// not decode are returned as *RefusalError, ErrTruncated and *DecodeError.
func (c *Client) ChatJSON(ctx context.Context, system, user string, schema Schema, out any) error {
	req := openai.ChatCompletionRequest{
		Model: c.cfg.Model,
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: system},
			{Role: openai.ChatMessageRoleUser, Content: user},
		},
		Temperature: determinism,
		// max_tokens, not max_completion_tokens: the local servers this
		// client is for (Ollama, llama.cpp, older vLLM) read only
		// max_tokens, and OpenAI's chat models still accept it.
		//lint:ignore SA1019 the deprecated field is the one local servers read
		MaxTokens: schema.MaxTokens,
		ResponseFormat: &openai.ChatCompletionResponseFormat{
			Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
				Name: schema.Name, Description: schema.Description, Schema: schema.JSON, Strict: true,
			},
		},
	}
	if schema.Temperature > 0 {
		req.Temperature = float32(schema.Temperature)
	}
	var resp openai.ChatCompletionResponse
	err := c.retry(ctx, func() (err error) {
		resp, err = c.api.CreateChatCompletion(ctx, req)
		return err
	})
	if err != nil {
		return fmt.Errorf("chat completion: %w", err)
	}
	if len(resp.Choices) == 0 {
		return errors.New("chat completion: the server returned no choices")
	}
	choice := resp.Choices[0]
	switch {
	case choice.Message.Refusal != "":
		return &RefusalError{Message: choice.Message.Refusal}
	case choice.FinishReason == openai.FinishReasonLength:
		return ErrTruncated
	}
	return decodeStrict(choice.Message.Content, out)
}

// decodeStrict decodes one JSON object into out, refusing unknown fields and
// trailing data.
func decodeStrict(reply string, out any) error {
	dec := json.NewDecoder(bytes.NewReader([]byte(reply)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		return &DecodeError{Reply: reply, Err: err}
	}
	if dec.More() {
		return &DecodeError{Reply: reply, Err: errors.New("data after the JSON object")}
	}
	return nil
}
