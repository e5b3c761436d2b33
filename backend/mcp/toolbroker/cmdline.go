package toolbroker

import (
	"regexp"
	"strings"
)

// plainArg is an argument a POSIX shell reads as itself.
var plainArg = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// CommandLine is a stdio server's program and arguments as one shell-quoted
// line ("" for an HTTP server): exactly what runs, for a person to read.
func (c ServerConfig) CommandLine() string {
	if c.Transport != TransportStdio || c.Command == "" {
		return ""
	}
	parts := make([]string, 0, 1+len(c.Args))
	for _, a := range append([]string{c.Command}, c.Args...) {
		if plainArg.MatchString(a) {
			parts = append(parts, a)
		} else {
			parts = append(parts, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
		}
	}
	return strings.Join(parts, " ")
}
