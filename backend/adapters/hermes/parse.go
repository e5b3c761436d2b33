package hermes

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// FrameKind is what one line of Hermes output means.
type FrameKind int

// Frame kinds.
const (
	// FrameText is response text (a stdout line).
	FrameText FrameKind = iota
	// FrameSession carries the session id (the resume handle).
	FrameSession
	// FrameError is the "Error: <message>" line quiet mode writes to stderr
	// when a failed turn produced no response.
	FrameError
	// FrameDiagnostic is any other stderr line (a traceback, a warning):
	// kept only to explain a failure.
	FrameDiagnostic
)

// Frame is one parsed line.
type Frame struct {
	Kind FrameKind
	// Text is the response text with its newline (FrameText), the error
	// message (FrameError) or the line (FrameDiagnostic).
	Text string
	// Session is the session id (FrameSession).
	Session string
}

// sessionLine is the line quiet mode ends stderr with (`session_id: <id>`),
// spelled as loosely as the reference driver accepts it.
var sessionLine = regexp.MustCompile(`(?i)^\s*session[\s_-]?id\s*:\s*(\S+)\s*$`)

// ParseStdout reads one stdout line. In quiet mode stdout is the final
// response only, so every line is text (blank lines too: they are the
// response's paragraph breaks); a line that is exactly a session line, or a
// JSON object carrying a session id or a message (older drivers' framing),
// is read as that instead.
func ParseStdout(line string) Frame {
	if m := sessionLine.FindStringSubmatch(line); m != nil {
		return Frame{Kind: FrameSession, Session: m[1]}
	}
	if t := strings.TrimSpace(line); strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}") {
		if f, ok := parseJSONFrame(t); ok {
			return f
		}
	}
	return Frame{Kind: FrameText, Text: line + "\n"}
}

// parseJSONFrame reads {"session_id": …} or {"type": "…message…", "text"|
// "content"|"message": "…"}; anything else is not a frame.
func parseJSONFrame(s string) (Frame, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(s), &m) != nil {
		return Frame{}, false
	}
	str := func(k string) string {
		var v string
		if raw, ok := m[k]; ok && json.Unmarshal(raw, &v) == nil {
			return v
		}
		return ""
	}
	for _, k := range []string{"session_id", "sessionId"} {
		if id := strings.TrimSpace(str(k)); id != "" && !strings.ContainsAny(id, " \t") {
			return Frame{Kind: FrameSession, Session: id}, true
		}
	}
	typ := strings.ToLower(str("type"))
	if strings.Contains(typ, "message") || strings.Contains(typ, "assistant") {
		for _, k := range []string{"text", "content", "message"} {
			if v := str(k); v != "" {
				return Frame{Kind: FrameText, Text: v + "\n"}, true
			}
		}
	}
	return Frame{}, false
}

// ParseStderr reads one stderr line: the session line, quiet mode's
// "Error: " line, or a diagnostic.
func ParseStderr(line string) Frame {
	if m := sessionLine.FindStringSubmatch(line); m != nil {
		return Frame{Kind: FrameSession, Session: m[1]}
	}
	if msg, ok := strings.CutPrefix(strings.TrimSpace(line), "Error:"); ok {
		return Frame{Kind: FrameError, Text: strings.TrimSpace(msg)}
	}
	return Frame{Kind: FrameDiagnostic, Text: line}
}

// Transcript is a whole recorded run, parsed: what an adapter would report.
type Transcript struct {
	Text     string   // the response, lines joined
	Session  string   // the last session id seen
	Errors   []string // "Error:" messages
	Stderr   []string // diagnostics
	ExitCode int
}

// ParseTranscript parses a recording in the testdata format: one line per
// output line, prefixed "out: " (stdout) or "err: " (stderr; "out:" and
// "err:" alone are empty lines), and a final "exit: N".
func ParseTranscript(rec string) Transcript {
	var t Transcript
	var text strings.Builder
	for _, l := range strings.Split(strings.TrimRight(rec, "\n"), "\n") {
		tag, body, _ := strings.Cut(l, ":")
		body = strings.TrimPrefix(body, " ")
		var f Frame
		switch tag {
		case "out":
			f = ParseStdout(body)
		case "err":
			f = ParseStderr(body)
		case "exit":
			n, err := strconv.Atoi(strings.TrimSpace(body))
			if err != nil {
				n = -1
			}
			t.ExitCode = n
			continue
		default:
			continue
		}
		switch f.Kind {
		case FrameText:
			text.WriteString(f.Text)
		case FrameSession:
			t.Session = f.Session
		case FrameError:
			t.Errors = append(t.Errors, f.Text)
		case FrameDiagnostic:
			if strings.TrimSpace(f.Text) != "" {
				t.Stderr = append(t.Stderr, f.Text)
			}
		}
	}
	t.Text = text.String()
	return t
}
