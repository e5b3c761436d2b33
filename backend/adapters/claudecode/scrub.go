package claudecode

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/redact"
)

// scrubber removes a run's own secrets (exact values) from everything it
// emits, and secret-looking tokens from tool output, which is where a
// command like `env` would print them.
type scrubber struct{ secrets []string }

func newScrubber(secrets ...string) scrubber {
	var s scrubber
	for _, v := range secrets {
		if len(v) >= 8 { // shorter values would scrub ordinary words
			s.secrets = append(s.secrets, v)
		}
	}
	return s
}

const hidden = "[REDACTED]"

func (s scrubber) str(v string) string {
	for _, sec := range s.secrets {
		if strings.Contains(v, sec) {
			v = strings.ReplaceAll(v, sec, hidden)
		}
	}
	return v
}

func (s scrubber) raw(v json.RawMessage) json.RawMessage {
	for _, sec := range s.secrets {
		if bytes.Contains(v, []byte(sec)) {
			v = bytes.ReplaceAll(v, []byte(sec), []byte(hidden))
		}
	}
	return v
}

// event scrubs every text field of ev.
func (s scrubber) event(ev executor.Event) executor.Event {
	ev.Text = s.str(ev.Text)
	ev.Input = s.raw(ev.Input)
	ev.Message = s.str(ev.Message)
	ev.Summary = s.str(ev.Summary)
	ev.Detail = s.str(ev.Detail)
	if ev.Kind == executor.KindToolResult {
		ev.Output = redact.Secrets(s.str(ev.Output))
	}
	return ev
}
