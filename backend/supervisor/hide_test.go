package supervisor

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/redact"
)

// TestEveryFieldOfAnEventIsRedacted (issue 26 §2.5b): a task secret's value,
// or a key-shaped string, in a tool or call name, the model, a code, the
// session or a quota window's strings is hidden like one in the text.
func TestEveryFieldOfAnEventIsRedacted(t *testing.T) {
	const value = "tsk_SENTINEL_value_9f2c"
	const key = "sk-ant-api03-SENTINELkeyVALUE0123456789abcdef"
	h := redact.Values(map[string]string{"STRIPE_TEST_KEY": value})
	for _, leak := range []string{value, key} {
		ev := executor.Event{
			Kind: executor.KindToolCall, ToolCallID: "call_" + leak, Name: "tool_" + leak, Model: leak,
			Code: leak, Session: leak,
			Quota: &executor.QuotaWindow{Account: leak, Window: "five_hour", Source: leak, Status: "rejected"},
		}
		if leak == value {
			// The text fields hide a task's values here; key shapes in text
			// are each adapter's to scrub (it knows its own keys).
			ev.Text, ev.Output, ev.Message, ev.Summary, ev.Detail, ev.Input = leak, leak, leak, leak, leak, json.RawMessage(`{"a":"`+leak+`"}`)
		}
		got := scrubNames(hideEvent(h, ev))
		b, _ := json.Marshal(got)
		if strings.Contains(string(b), leak) {
			t.Fatalf("%s survived: %s", leak, b)
		}
		if got.Quota == ev.Quota {
			t.Fatal("the adapter's quota window was changed in place")
		}
	}
	// Plain values are left alone.
	plain := executor.Event{Name: "Bash", Model: "claude-opus-4", Session: "0d8f1c2e-6b1a-4c7e-9b1e-2f3a4b5c6d7e"}
	if got := scrubNames(hideEvent(h, plain)); got.Name != plain.Name || got.Model != plain.Model || got.Session != plain.Session {
		t.Fatalf("plain fields changed: %+v", got)
	}
}
