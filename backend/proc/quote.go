package proc

import (
	"regexp"
	"strings"
)

var plainArg = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// QuoteArgv renders argv as a person reads it (an approval card, a log
// line), each item quoted the POSIX shell's way when needed so item
// boundaries are unambiguous. It is for reading only: children are always
// started argv-only, never through a shell.
func QuoteArgv(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if plainArg.MatchString(a) {
			parts[i] = a
		} else {
			parts[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(parts, " ")
}
