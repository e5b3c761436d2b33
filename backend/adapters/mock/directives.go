package mock

import (
	"strconv"
	"strings"
	"time"
)

// Directive is one `!word arg` line of a mock run's message or context.
type Directive struct {
	Name string
	Arg  string
}

// Caps and defaults from the seed, plus our !flood extension.
const (
	MaxDelay         = 10 * time.Minute
	DefaultSilent    = time.Second
	DefaultSlowStart = 500 * time.Millisecond
	DefaultLoop      = 3
	MaxLoop          = 50
	DefaultFlood     = 1000
	MaxFlood         = 1_000_000
	maxIndent        = 16
	maxWord          = 32
)

// Parse reads directives from text, one per line: a `!word` at the start of
// a line, optionally indented by up to 16 spaces or tabs, with the rest of
// the line (trimmed) as its argument. Every other line is prose and ignored.
// Unknown words are returned too; the runner ignores them. Parsing is a
// single linear pass: no backtracking on hostile input.
func Parse(text string) []Directive {
	var out []Directive
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		if d, ok := parseLine(strings.TrimSuffix(line, "\r")); ok {
			out = append(out, d)
		}
	}
	return out
}

func parseLine(line string) (Directive, bool) {
	i := 0
	for i < len(line) && i < maxIndent && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i >= len(line) || line[i] != '!' {
		return Directive{}, false
	}
	i++
	start := i
	for i < len(line) && i-start < maxWord && isWord(line[i]) {
		i++
	}
	if i == start {
		return Directive{}, false
	}
	return Directive{Name: line[start:i], Arg: strings.TrimSpace(line[i:])}, true
}

func isWord(c byte) bool {
	return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// delayArg reads a millisecond delay, falling back to def when the argument
// is absent or not a number, and clamping to [0, MaxDelay].
func delayArg(arg string, def time.Duration) time.Duration {
	ms, err := strconv.ParseInt(firstField(arg), 10, 64)
	if err != nil {
		return def
	}
	d := time.Duration(ms) * time.Millisecond
	if ms < 0 || d < 0 {
		return 0
	}
	if ms > int64(MaxDelay/time.Millisecond) {
		return MaxDelay
	}
	return d
}

// countArg reads a count, falling back to def and clamping to [0, max].
func countArg(arg string, def, max int) int {
	n, err := strconv.Atoi(firstField(arg))
	if err != nil {
		return def
	}
	if n < 0 {
		return 0
	}
	if n > max {
		return max
	}
	return n
}

func firstField(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}
