package llm

import (
	"context"
	"errors"
	"io"
	"net"
	"regexp"
	"strings"
	"syscall"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

// Class is a provider error's kind; it decides fallback and how the loop
// ends a run.
type Class string

// Classes.
const (
	ClassAuth            Class = "auth"
	ClassRateLimit       Class = "rate_limit"
	ClassOverloaded      Class = "overloaded"
	ClassNetwork         Class = "network"
	ClassBadRequest      Class = "bad_request"
	ClassContextOverflow Class = "context_overflow"
	ClassUnknown         Class = "unknown"
)

// Fallback reports whether an error of this class, met before any output,
// moves the Router to the next candidate (seed 004: auth, rate_limit,
// overloaded, network).
func (c Class) Fallback() bool {
	switch c {
	case ClassAuth, ClassRateLimit, ClassOverloaded, ClassNetwork:
		return true
	}
	return false
}

// ErrContextOverflow matches (errors.Is) every error of class
// context_overflow, so the loop can end a run cleanly with "The task was
// too large for the model's context window." without parsing messages.
var ErrContextOverflow = errors.New("context window exceeded")

// Error is a classified provider error. Its message never carries the key
// the call was made with.
type Error struct {
	Class    Class
	Provider string // provider id; "" for the Router's own errors
	Status   int    // HTTP status when there was one
	msg      string
	err      error
}

// Error renders "<provider>: <class>: <message>".
func (e *Error) Error() string {
	var b strings.Builder
	if e.Provider != "" {
		b.WriteString(e.Provider + ": ")
	}
	b.WriteString(string(e.Class) + ": " + e.msg)
	return b.String()
}

// Unwrap returns the SDK or transport error underneath.
func (e *Error) Unwrap() error { return e.err }

// Is makes errors.Is(err, ErrContextOverflow) true for the
// context_overflow class.
func (e *Error) Is(target error) bool {
	return target == ErrContextOverflow && e.Class == ClassContextOverflow
}

// wrapErr classifies err for provider and scrubs key from its message.
// Cancellation is passed through untouched: it is the caller's, not the
// provider's.
func wrapErr(provider, key string, err error) error {
	if err == nil {
		return nil
	}
	var le *Error
	if errors.As(err, &le) {
		return err
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	msg := err.Error()
	if m := apiMessage(err); m != "" && !strings.Contains(msg, m) {
		msg += ": " + m
	}
	if key != "" {
		msg = strings.ReplaceAll(msg, key, "[redacted]")
	}
	return &Error{Class: Classify(err), Provider: provider, Status: statusOf(err), msg: msg, err: err}
}

// apiMessage is the provider's own error message, which the OpenAI SDK's
// Error() leaves out.
func apiMessage(err error) string {
	var oe *openai.Error
	if errors.As(err, &oe) {
		return oe.Message
	}
	var ae *anthropic.Error
	if errors.As(err, &ae) {
		return ae.Message
	}
	return ""
}

func statusOf(err error) int {
	var ae *anthropic.Error
	if errors.As(err, &ae) {
		return ae.StatusCode
	}
	var oe *openai.Error
	if errors.As(err, &oe) {
		return oe.StatusCode
	}
	return 0
}

// overflowRe matches the providers' context-window messages: Anthropic's
// "prompt is too long", OpenAI's "maximum context length" and
// "context_length_exceeded", and the compat providers' variants.
var overflowRe = regexp.MustCompile(`(?i)prompt is too long|maximum context length|context[_ ]length[_ ]exceeded|context window|too many tokens|input is too long|exceeds the context`)

// networkRe is the reference's network pattern plus Go's transport words.
var networkRe = regexp.MustCompile(`(?i)fetch failed|econnrefused|enotfound|etimedout|network|socket|connection reset|connection refused|broken pipe|unexpected eof|no such host|i/o timeout|tls handshake`)

// Classify names the class of a provider error: from our Error, the SDKs'
// HTTP errors (401/403 auth, 429 rate_limit, 529 and ≥500 overloaded,
// 400/404/422 bad_request; a context-window message wins over the
// status), the error events of a stream, and transport failures (dial,
// reset, EOF mid-stream, timeouts: network). Anything else is unknown.
func Classify(err error) Class {
	if err == nil {
		return ""
	}
	var le *Error
	if errors.As(err, &le) {
		return le.Class
	}
	text := err.Error() + " " + apiMessage(err)
	if overflowRe.MatchString(text) {
		return ClassContextOverflow
	}
	var ae *anthropic.Error
	if errors.As(err, &ae) {
		if c := statusClass(ae.StatusCode); c != "" {
			return c
		}
		return typeClass(string(ae.Type()))
	}
	var oe *openai.Error
	if errors.As(err, &oe) {
		if c := statusClass(oe.StatusCode); c != "" {
			return c
		}
		return typeClass(oe.Type)
	}
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		return typeClass(se.Message)
	}
	if isNetwork(err) || networkRe.MatchString(text) {
		return ClassNetwork
	}
	return ClassUnknown
}

func statusClass(status int) Class {
	switch {
	case status == 401 || status == 403:
		return ClassAuth
	case status == 429:
		return ClassRateLimit
	case status == 529 || status >= 500:
		return ClassOverloaded
	case status == 400 || status == 404 || status == 422:
		return ClassBadRequest
	case status == 408:
		return ClassNetwork
	}
	return ""
}

// typeClass maps an error type carried in a body (an error event after a
// 200, or a compat provider's odd status) to a class.
func typeClass(s string) Class {
	s = strings.ToLower(s)
	switch {
	case strings.Contains(s, "authentication") || strings.Contains(s, "permission") || strings.Contains(s, "invalid_api_key"):
		return ClassAuth
	case strings.Contains(s, "rate_limit") || strings.Contains(s, "rate limit"):
		return ClassRateLimit
	case strings.Contains(s, "overloaded") || strings.Contains(s, "api_error") || strings.Contains(s, "server_error"):
		return ClassOverloaded
	case strings.Contains(s, "invalid_request") || strings.Contains(s, "not_found"):
		return ClassBadRequest
	}
	return ClassUnknown
}

func isNetwork(err error) bool {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne)
}
