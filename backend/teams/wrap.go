package teams

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// A post reaches another agent's context wrapped, so the reader can tell
// peer text from its own instructions and from the person it works for:
//
//	[Inter-session message · from=<id> · kind=<k> · seq=<n> · isUser=false]
//	| first line of the body
//	| second line
//
// The header is built only from values this package controls (a validated
// agent id, a fixed kind, a number); every body line is prefixed with
// "| ", and a header-like text inside the body is neutralised, so a post
// can neither end its own quote nor forge another post's header.

// fakeHeader matches the start of a header written inside a body, however
// it is spaced or cased.
var fakeHeader = regexp.MustCompile(`(?i)\[\s*inter[\s_-]*session[\s_-]+message`)

// lineBreaks are the sequences read as a new line: all become "\n", so
// each gets its "| " prefix.
var lineBreaks = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\u0085", "\n", "\u2028", "\n", "\u2029", "\n", "\v", "\n", "\f", "\n")

// Wrap renders a stored post for a reader.
func Wrap(p Post) string {
	var b strings.Builder
	b.WriteString("[Inter-session message · from=")
	b.WriteString(p.Author)
	b.WriteString(" · kind=")
	b.WriteString(p.Kind)
	b.WriteString(" · seq=")
	b.WriteString(strconv.FormatInt(p.Seq, 10))
	b.WriteString(" · isUser=")
	b.WriteString(strconv.FormatBool(p.Kind == "user"))
	b.WriteString("]")
	body := p.Body
	if p.Kind == KindDelegate {
		body = "delegate to " + p.Assignee + ":\n" + body
	}
	for _, line := range strings.Split(neutralise(body), "\n") {
		b.WriteString("\n| ")
		b.WriteString(line)
	}
	return b.String()
}

// neutralise makes body safe to quote: line breaks normalised, other
// control and bidi-override characters dropped, embedded headers marked
// as quoted.
func neutralise(body string) string {
	body = lineBreaks.Replace(body)
	body = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case unicode.IsControl(r), r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
			return -1
		}
		return r
	}, body)
	return fakeHeader.ReplaceAllString(body, "[quoted inter-session message")
}

// Quote renders text written by an agent for another agent's prompt
// outside a post (a child's summary in a [Task Update]): neutralised like
// a post's body, every line prefixed with indent and "| ".
func Quote(body, indent string) string {
	var b strings.Builder
	for i, line := range strings.Split(neutralise(body), "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(indent + "| " + line)
	}
	return b.String()
}

// fakeTag matches the opening of a delegation tag (<delegate, <plan,
// <step) however it is spaced or cased.
var fakeTag = regexp.MustCompile(`(?i)<\s*/?\s*(delegate|plan|step)\b`)

// QuoteLine renders one line of agent-written text inside a prompt's list
// (a task's title in the team board): neutralised like a post's body, its
// line breaks folded to " / ", delegation tags defused, and quoted as a
// Go string literal, so it reads as data and can neither start a line of
// its own nor pass for a tag or a header.
func QuoteLine(s string) string {
	s = strings.Join(strings.Fields(strings.ReplaceAll(neutralise(s), "\n", " / ")), " ")
	s = fakeTag.ReplaceAllStringFunc(s, func(m string) string { return "‹" + strings.TrimPrefix(m, "<") })
	return strconv.Quote(s)
}
