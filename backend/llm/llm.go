// Package llm is the native runtime's view of model providers: one small
// streaming interface over the official Anthropic and OpenAI Go SDKs (the
// OpenAI client also serves the OpenAI-compatible providers and Ollama)
// for the providers of config's table (the one list of providers, their
// key variables and API roots), error classes, fallback routing and a
// turn's price (from config's one price table, exact models only).
//
// Invariants:
//   - A Stream yields events in order and ends with exactly one Done (or an
//     error from Err after Next returns false); nothing after it.
//   - Errors are classified (auth, rate_limit, overloaded, network,
//     bad_request, context_overflow, unknown); only auth, rate_limit,
//     overloaded and network before any output may fall back.
//   - Keys are values passed in by the caller; nothing here reads the
//     environment or logs a key.
//   - The rate-limit headers of every answer (anthropic-ratelimit-*,
//     x-ratelimit-*, retry-after on a 429) go, as at most four RateLimit
//     windows, to the RateLimitFunc of the call's context
//     (WithRateLimits); streams and errors are the same with or without
//     one. Only response headers are read.
package llm

import (
	"context"
	"encoding/json"
)

// Role of a message in a conversation.
type Role string

// Roles.
const (
	User      Role = "user"
	Assistant Role = "assistant"
)

// BlockType is the kind of one piece of a message.
type BlockType string

// Block types.
const (
	Text       BlockType = "text"
	Thinking   BlockType = "thinking"
	ToolUse    BlockType = "tool_use"
	ToolResult BlockType = "tool_result"
)

// Block is one piece of a message. Text for text and thinking; ID, Name
// and Input for tool_use; ID (the tool_use's), Text and IsError for
// tool_result.
type Block struct {
	Type    BlockType       `json:"type"`
	Text    string          `json:"text,omitempty"`
	ID      string          `json:"id,omitempty"`
	Name    string          `json:"name,omitempty"`
	Input   json.RawMessage `json:"input,omitempty"`
	IsError bool            `json:"isError,omitempty"`
}

// Message is one turn of the conversation.
type Message struct {
	Role    Role    `json:"role"`
	Content []Block `json:"content"`
}

// Tool is a function the model may call. InputSchema is a JSON Schema
// object.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// Request is one model call. System is the stable tier; Tools arrive
// already sorted by name, and the caller keeps both byte-identical across
// the turns of a conversation.
type Request struct {
	Model     string
	System    string
	Messages  []Message
	Tools     []Tool
	MaxTokens int
}

// Usage is one response's token counts.
type Usage struct {
	InputTokens      int64 `json:"inputTokens"`
	OutputTokens     int64 `json:"outputTokens"`
	CacheReadTokens  int64 `json:"cacheReadTokens,omitempty"`
	CacheWriteTokens int64 `json:"cacheWriteTokens,omitempty"`
}

// EventKind says what a stream event carries.
type EventKind string

// Event kinds.
const (
	EvText     EventKind = "text"      // Text is a delta of the answer
	EvThinking EventKind = "thinking"  // Text is a delta of reasoning
	EvToolCall EventKind = "tool_call" // Call is one complete tool call
	EvDone     EventKind = "done"      // Usage and StopReason of the response
)

// ToolCall is a complete tool call from the model.
type ToolCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// Event is one step of a streamed response.
type Event struct {
	Kind       EventKind
	Text       string
	Call       *ToolCall
	Usage      Usage
	StopReason string // end_turn, tool_use, max_tokens, …
}

// Stream is a response as it arrives. Next blocks for the next event and
// returns false at the end; Err then says why it ended early (nil after
// Done). Close releases the connection; it is safe to call more than once.
type Stream interface {
	Next() (Event, bool)
	Err() error
	Close() error
}

// Provider starts streamed model calls.
type Provider interface {
	// ID is the provider id (anthropic, openai, ollama, …).
	ID() string
	Stream(ctx context.Context, req Request) (Stream, error)
}
