package review

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxDiff bounds the diff a prompt carries (60 KiB).
const MaxDiff = 60 << 10

// maxAnswer bounds how much of an answer is searched for JSON, and
// maxStarts how many '{' are tried, so a hostile answer costs little.
const (
	maxAnswer = 256 << 10
	maxStarts = 512
)

// Prompt is the critic's message: what to do, the task as its author wrote
// it, the diff (cut at MaxDiff, at a line, with a note), and the one shape
// of answer that is read.
func Prompt(r Request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are the reviewer of task %s. Another session made the change below and its verify command passed. "+
		"Review the committed diff (the working folder is a detached checkout of it; do not change files) for real defects: "+
		"security holes, crashes, data loss, a wrong algorithm, or acceptance criteria of the task that are not met.\n\n", r.TaskID)
	fmt.Fprintf(&b, "Task: %s\n", strings.TrimSpace(r.Title))
	if d := strings.TrimSpace(r.Description); d != "" {
		b.WriteString("\n--- task description (with its acceptance criteria) ---\n" + d + "\n--- end of task description ---\n")
	}
	diff, cut := clipDiff(r.Diff, MaxDiff)
	b.WriteString("\n=== BEGIN DIFF ===\n" + diff)
	if !strings.HasSuffix(diff, "\n") {
		b.WriteString("\n")
	}
	if cut {
		fmt.Fprintf(&b, "[diff cut at %d KiB: read the rest in the working folder]\n", MaxDiff>>10)
	}
	b.WriteString("=== END DIFF ===\n\n")
	b.WriteString("Answer with ONLY a JSON object, no prose:\n" +
		`{"findings":[{"severity":"security|crash|data_loss|wrong_algorithm|missing_ac|style|perf|test_gap|other","file":"path","line":1,"note":"what is wrong and how to fix it"}]}` +
		"\nUse an empty list when you find nothing. security, crash, data_loss, wrong_algorithm and missing_ac send the work back; use them only for real defects.\n")
	return b.String()
}

// clipDiff cuts s to at most max bytes, at the last line end before it.
func clipDiff(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	s = s[:max]
	if i := strings.LastIndexByte(s, '\n'); i > 0 {
		return s[:i+1], true
	}
	for !utf8.ValidString(s) && len(s) > 0 {
		s = s[:len(s)-1]
	}
	return s, true
}

// notJSON is the finding an unreadable answer becomes.
const notJSON = "the critic's answer was not JSON"

// Parse reads the critic's answer: the whole text as JSON, else the last
// object with a "findings" key found in it (inside a ```json fence or after
// prose). An answer with no such object is one "other" finding saying so,
// which never blocks.
func Parse(answer string) []Finding {
	if len(answer) > maxAnswer {
		answer = answer[:maxAnswer]
	}
	if fs, ok := decode(strings.TrimSpace(answer)); ok {
		return fs
	}
	var found []Finding
	ok := false
	starts := 0
	for i := 0; i < len(answer) && starts < maxStarts; i++ {
		if answer[i] != '{' {
			continue
		}
		starts++
		dec := json.NewDecoder(strings.NewReader(answer[i:]))
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			continue
		}
		if fs, good := decode(string(raw)); good {
			found, ok = fs, true
			i += int(dec.InputOffset()) - 1 // the next candidate starts after this object
		}
	}
	if ok {
		return found
	}
	return []Finding{{Severity: Other, Note: notJSON}}
}

// rawFinding accepts the shape the prompt asks for and the reference's
// (title, body, filePath, startLine); line may be a number or a string.
type rawFinding struct {
	Severity  string          `json:"severity"`
	File      string          `json:"file"`
	FilePath  string          `json:"filePath"`
	Line      json.RawMessage `json:"line"`
	StartLine json.RawMessage `json:"startLine"`
	Note      string          `json:"note"`
	Title     string          `json:"title"`
	Body      string          `json:"body"`
}

// decode reads one JSON object with a findings list.
func decode(s string) ([]Finding, bool) {
	if !strings.HasPrefix(s, "{") {
		return nil, false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(s), &obj) != nil {
		return nil, false
	}
	list, has := obj["findings"]
	if !has {
		return nil, false
	}
	var raws []rawFinding
	if bytes.Equal(bytes.TrimSpace(list), []byte("null")) {
		return []Finding{}, true
	}
	if json.Unmarshal(list, &raws) != nil {
		return nil, false
	}
	out := make([]Finding, 0, len(raws))
	for _, r := range raws {
		f := Finding{Severity: severity(r.Severity), File: first(r.File, r.FilePath), Line: line(r.Line, r.StartLine)}
		f.Note = strings.TrimSpace(r.Note)
		if f.Note == "" {
			f.Note = strings.TrimSpace(strings.Trim(strings.TrimSpace(r.Title)+": "+strings.TrimSpace(r.Body), ": "))
		}
		if f.Note == "" {
			f.Note = "(no note)"
		}
		out = append(out, f)
	}
	return out, true
}

// severity normalises a severity word ("Data loss", "data-loss"); one it
// does not know is other.
func severity(s string) Severity {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.NewReplacer(" ", "_", "-", "_").Replace(s)
	switch v := Severity(s); v {
	case Security, Crash, DataLoss, WrongAlgorithm, MissingAC, Style, Perf, TestGap, Other:
		return v
	}
	return Other
}

func line(vals ...json.RawMessage) int {
	for _, v := range vals {
		t := strings.Trim(strings.TrimSpace(string(v)), `"`)
		if n, err := strconv.Atoi(t); err == nil && n > 0 {
			return n
		}
	}
	return 0
}

func first(a, b string) string {
	if a = strings.TrimSpace(a); a != "" {
		return a
	}
	return strings.TrimSpace(b)
}

// maxListed bounds a comment's list of findings, maxNote each note.
const (
	maxListed = 50
	maxNote   = 600
)

// List renders findings one per line: "- [severity] file:line — note".
func List(fs []Finding) string {
	var b strings.Builder
	for i, f := range fs {
		if i == maxListed {
			fmt.Fprintf(&b, "- … and %d more\n", len(fs)-maxListed)
			break
		}
		b.WriteString("- [" + string(f.Severity) + "] ")
		if f.File != "" {
			b.WriteString(f.File)
			if f.Line > 0 {
				b.WriteString(":" + strconv.Itoa(f.Line))
			}
			b.WriteString(" — ")
		}
		note := strings.Join(strings.Fields(f.Note), " ")
		if utf8.RuneCountInString(note) > maxNote {
			note = string([]rune(note)[:maxNote-1]) + "…"
		}
		b.WriteString(note + "\n")
	}
	return b.String()
}

// DebtComment records the findings that do not block.
func DebtComment(fs []Finding) string {
	return "Debt: the critic's review found non-blocking issues, recorded here:\n" + List(fs)
}

// FixMessage is the message of the fix run that follows a blocking review.
func FixMessage(fs []Finding, attempt int) string {
	return fmt.Sprintf("A reviewer found problems in your committed change that block it (fix %d of %d). "+
		"Fix them in this worktree, keep the verify command passing, and finish as before:\n", attempt, MaxFixes) + List(fs)
}

// FixComment notes on the task that a fix run was sent.
func FixComment(fs []Finding, attempt int) string {
	return fmt.Sprintf("The critic blocked the change; sending a fix run (%d of %d) to the same worktree:\n", attempt, MaxFixes) + List(fs)
}

// BlockedComment says why a task is blocked after its fixes ran out.
func BlockedComment(fs []Finding) string {
	return fmt.Sprintf("Blocked by the critic: blocking findings remain after %d fix run(s). A person should decide:\n", MaxFixes) + List(fs)
}
