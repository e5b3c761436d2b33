package native

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/llm"
	"github.com/clawboo/desktop/backend/redact"
)

// TranscriptVersion is the version of the stored transcript format.
const TranscriptVersion = 1

// ResumeChars bounds the history a resumed run sends: older user-text
// groups are dropped first.
const ResumeChars = 240_000

// Transcript is one session as stored: {version: 1, sessionId, messages}
// plus the key it belongs to and, after max_turns, the handoff note the
// successor session starts from.
type Transcript struct {
	Version    int           `json:"version"`
	SessionID  string        `json:"sessionId"`
	SessionKey string        `json:"sessionKey,omitempty"`
	Messages   []llm.Message `json:"messages"`
	// Handoff is set when the session ended at max_turns: the next run of
	// the same key starts a fresh session carrying only this note.
	Handoff string `json:"handoff,omitempty"`
}

// sessions stores one agent's transcripts under
// <home>/runtimes/clawboo-native/<agentId>/sessions.
type sessions struct{ dir string }

func newSessions(home, agentID string) (sessions, bool) {
	if home == "" {
		return sessions{}, false
	}
	if agentID == "" {
		agentID = "_default"
	}
	return sessions{dir: filepath.Join(config.RuntimeHome(home, string(executor.Native)), safeName(agentID), "sessions")}, true
}

// safeName keeps an id usable as one path element.
func safeName(s string) string {
	ok := len(s) <= 80 && s != "." && s != ".."
	for _, r := range s {
		if !(r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	h := sha256.Sum256([]byte(s))
	return "h" + hex.EncodeToString(h[:12])
}

// keyPrefix is the file-name prefix of a session key's sessions:
// native-<hash>-<generation>.json, a successor taking the next
// generation.
func keyPrefix(key string) string {
	h := sha256.Sum256([]byte(key))
	return "native-" + hex.EncodeToString(h[:8]) + "-"
}

func randomSessionID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "native-" + hex.EncodeToString(b[:])
}

func (s sessions) path(id string) string { return filepath.Join(s.dir, id+".json") }

// latest finds the newest session of key, if any.
func (s sessions) latest(key string) (Transcript, int, bool) {
	prefix := keyPrefix(key)
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return Transcript{}, 0, false
	}
	best := -1
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !strings.HasPrefix(name, prefix) {
			continue
		}
		if g, err := strconv.Atoi(name[len(prefix):]); err == nil && g > best {
			best = g
		}
	}
	if best < 0 {
		return Transcript{}, 0, false
	}
	t, err := s.load(prefix + strconv.Itoa(best))
	if err != nil || t.SessionKey != key {
		// Unreadable (or a hash collision): start a new generation.
		return Transcript{}, best + 1, false
	}
	return t, best, true
}

func (s sessions) load(id string) (Transcript, error) {
	b, err := os.ReadFile(s.path(id))
	if err != nil {
		return Transcript{}, err
	}
	var t Transcript
	if err := json.Unmarshal(b, &t); err != nil {
		return Transcript{}, fmt.Errorf("transcript %s: %w", id, err)
	}
	if t.Version != TranscriptVersion {
		return Transcript{}, fmt.Errorf("transcript %s: version %d", id, t.Version)
	}
	return t, nil
}

// save writes t atomically (temp file, then rename), with the run's task
// secrets hidden in every string (a resumed session reads "[secret NAME]"
// where a command printed the value; the agent can read it again).
func (s sessions) save(t Transcript, hide *redact.Hider) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	b = hide.HideJSON(b)
	f, err := os.CreateTemp(s.dir, ".tmp-*.json")
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), s.path(t.SessionID)); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	return nil
}

// isUserText reports a user message that opens a group: one carrying text
// rather than only tool results.
func isUserText(m llm.Message) bool {
	if m.Role != llm.User {
		return false
	}
	for _, b := range m.Content {
		if b.Type == llm.ToolResult {
			return false
		}
	}
	return true
}

func messageChars(m llm.Message) int {
	n := 0
	for _, b := range m.Content {
		n += len(b.Text) + len(b.Input) + len(b.Name) + len(b.ID)
	}
	return n
}

// trimHistory keeps the newest user-text groups that fit in max chars,
// cutting only where a user-text message opens a group so a tool call
// and its result are never separated. The newest group is always kept.
func trimHistory(msgs []llm.Message, max int) []llm.Message {
	total := 0
	for _, m := range msgs {
		total += messageChars(m)
	}
	start := 0
	for total > max {
		next := -1
		for i := start + 1; i < len(msgs); i++ {
			if isUserText(msgs[i]) {
				next = i
				break
			}
		}
		if next < 0 {
			break
		}
		for _, m := range msgs[start:next] {
			total -= messageChars(m)
		}
		start = next
	}
	// A history must open with a user-text message.
	for start < len(msgs) && !isUserText(msgs[start]) {
		start++
	}
	return msgs[start:]
}

// closeOpenCalls answers tool calls the run ended before answering, so a
// resumed history is one a provider accepts.
func closeOpenCalls(msgs []llm.Message) []llm.Message {
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != llm.Assistant {
		return msgs
	}
	var res []llm.Block
	for _, b := range msgs[len(msgs)-1].Content {
		if b.Type == llm.ToolUse {
			res = append(res, llm.Block{Type: llm.ToolResult, ID: b.ID, Text: "not run: the run ended first", IsError: true})
		}
	}
	if len(res) == 0 {
		return msgs
	}
	return append(msgs, llm.Message{Role: llm.User, Content: res})
}

// appendUser adds user blocks, merging into a trailing user message so
// roles keep alternating.
func appendUser(msgs []llm.Message, blocks ...llm.Block) []llm.Message {
	if n := len(msgs); n > 0 && msgs[n-1].Role == llm.User {
		last := msgs[n-1]
		last.Content = append(append([]llm.Block(nil), last.Content...), blocks...)
		out := append([]llm.Message(nil), msgs[:n-1]...)
		return append(out, last)
	}
	return append(msgs, llm.Message{Role: llm.User, Content: blocks})
}

// handoffNote is what a successor session starts from after max_turns.
func handoffNote(task, lastText string, turns int) string {
	const limit = 4000
	if len(lastText) > limit {
		lastText = "…" + lastText[len(lastText)-limit:]
	}
	if len(task) > limit {
		task = task[:limit] + "…"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Handoff from the previous session, which stopped after %d turns without finishing.\n", turns)
	b.WriteString("Task:\n" + task + "\n")
	if strings.TrimSpace(lastText) != "" {
		b.WriteString("Its last words:\n" + lastText + "\n")
	}
	b.WriteString("Continue from there; check the working folder and the board for what is already done.")
	return b.String()
}
