package llm

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/fakes/fakeprovider"
)

const (
	msgPath  = "/v1/messages"
	chatPath = "/v1/chat/completions"
	testKey  = "sk-test-SECRET-123456"
)

// rig is a fake provider on a real listener plus the variables that point
// the providers at it.
type rig struct {
	fake *fakeprovider.Server
	srv  *httptest.Server
	env  map[string]string
}

func newRig(t *testing.T) *rig {
	t.Helper()
	f := fakeprovider.New()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return &rig{fake: f, srv: srv, env: map[string]string{
		"ANTHROPIC_BASE_URL": srv.URL,
		"OPENAI_BASE_URL":    srv.URL + "/v1",
		"OLLAMA_BASE_URL":    srv.URL,
	}}
}

func (r *rig) getenv(k string) string { return r.env[k] }

func (r *rig) provider(t *testing.T, id string) Provider {
	t.Helper()
	p, err := New(id, testKey, r.getenv)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// collect drains a stream.
func collect(t *testing.T, s Stream) ([]Event, error) {
	t.Helper()
	defer s.Close()
	var evs []Event
	for {
		ev, ok := s.Next()
		if !ok {
			return evs, s.Err()
		}
		evs = append(evs, ev)
	}
}

func run(t *testing.T, p Provider, req Request) ([]Event, error) {
	t.Helper()
	s, err := p.Stream(context.Background(), req)
	if err != nil {
		return nil, err
	}
	return collect(t, s)
}

func textOf(evs []Event, kind EventKind) string {
	var b strings.Builder
	for _, e := range evs {
		if e.Kind == kind {
			b.WriteString(e.Text)
		}
	}
	return b.String()
}

func calls(evs []Event) []ToolCall {
	var out []ToolCall
	for _, e := range evs {
		if e.Kind == EvToolCall {
			out = append(out, *e.Call)
		}
	}
	return out
}

func body(t *testing.T, r fakeprovider.Request) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := r.JSON(&m); err != nil {
		t.Fatalf("request body: %v\n%s", err, r.Body)
	}
	return m
}

var testTools = []Tool{
	{Name: "list_files", Description: "List files.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
	{Name: "read_file", Description: "Read a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)},
}

func baseReq() Request {
	return Request{
		Model:    "m-1",
		System:   "You are a test.\n\nToday: 2026-11-29",
		Messages: []Message{{Role: User, Content: []Block{{Type: Text, Text: "hello"}}}},
		Tools:    testTools,
	}
}
