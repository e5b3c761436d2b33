package worktree

import (
	"strconv"
	"strings"
)

// DiffPaths lists the file each section of a unified diff (as Diff returns
// it) is about, one per "diff --git" section in order: the new side's path,
// or the old side's for a deleted file. Git's C-quoted names ("b/t\tab")
// are unquoted. A section whose name cannot be read yields "" so indexes
// still line up with the sections.
//
// It is the one list of files a review may point at: a line comment's path
// must be one of these, so a request can never name a file outside the
// change (or outside the repository).
func DiffPaths(diff string) []string {
	out := []string{}
	type section struct{ plus, minus, renamed, header string }
	var cur *section
	inHunk := false
	flush := func() {
		if cur == nil {
			return
		}
		p := cur.plus
		for _, alt := range []string{cur.renamed, cur.minus, cur.header} {
			if p == "" {
				p = alt
			}
		}
		out = append(out, p)
	}
	for _, line := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "diff --git "):
			flush()
			cur = &section{header: headerPath(strings.TrimPrefix(line, "diff --git "))}
			inHunk = false
		case cur == nil:
		case strings.HasPrefix(line, "@@"):
			inHunk = true
		case inHunk:
		case strings.HasPrefix(line, "+++ "):
			cur.plus = sidePath(strings.TrimPrefix(line, "+++ "), "b/")
		case strings.HasPrefix(line, "--- "):
			cur.minus = sidePath(strings.TrimPrefix(line, "--- "), "a/")
		case strings.HasPrefix(line, "rename to "):
			cur.renamed = unquote(strings.TrimPrefix(line, "rename to "))
		case strings.HasPrefix(line, "copy to "):
			cur.renamed = unquote(strings.TrimPrefix(line, "copy to "))
		}
	}
	flush()
	return out
}

// sidePath reads a ---/+++ name: /dev/null is none, a name with a space
// carries a trailing tab, and the side's prefix is dropped.
func sidePath(s, prefix string) string {
	s = strings.TrimSuffix(s, "\t")
	if s == "/dev/null" {
		return ""
	}
	s = unquote(s)
	if !strings.HasPrefix(s, prefix) {
		return ""
	}
	return strings.TrimPrefix(s, prefix)
}

// headerPath reads "a/X b/X" (or its quoted form) when it is unambiguous:
// both sides name the same file. Renames are read from their own lines.
func headerPath(s string) string {
	if strings.HasPrefix(s, `"`) {
		a, rest, ok := quotedToken(s)
		if !ok || !strings.HasPrefix(rest, " ") {
			return ""
		}
		b := unquote(strings.TrimPrefix(rest, " "))
		if strings.HasPrefix(a, "a/") && strings.HasPrefix(b, "b/") && a[2:] == b[2:] {
			return b[2:]
		}
		return ""
	}
	// Unquoted: "a/" + X + " b/" + X, so the two halves have one length.
	if len(s)%2 == 0 || len(s) < 7 {
		return ""
	}
	half := (len(s) - 1) / 2
	a, b := s[:half], s[half+1:]
	if s[half] != ' ' || !strings.HasPrefix(a, "a/") || !strings.HasPrefix(b, "b/") || a[2:] != b[2:] {
		return ""
	}
	return b[2:]
}

// quotedToken splits a leading C-quoted string off s.
func quotedToken(s string) (string, string, bool) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			v, err := strconv.Unquote(s[:i+1])
			return v, s[i+1:], err == nil
		}
	}
	return "", "", false
}

// unquote undoes git's C-style quoting ("\303\274", "\t", "\""); a name
// that is not quoted is returned as it is.
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		if v, err := strconv.Unquote(s); err == nil {
			return v
		}
		return ""
	}
	return s
}
