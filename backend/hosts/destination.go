package hosts

import (
	"errors"
	"net"
	"strconv"
	"strings"
)

// ErrDestination refuses a destination ssh should not be handed.
var ErrDestination = errors.New("a host is `user@host`, `host:port`, `user@host:port` or a Host alias of your ~/.ssh/config " +
	"(letters, digits and . _ - @ : [ ] only)")

// maxDestination bounds a destination's length.
const maxDestination = 255

// Destination is what a person typed, checked, and how ssh is given it.
type Destination struct {
	Text string // as typed (trimmed)
	// Target is the argument ssh gets: the text itself, or an
	// ssh://user@host:port URI when a port was given (ssh takes no
	// host:port form of its own).
	Target string
}

// ParseDestination checks a destination and says how to hand it to ssh.
func ParseDestination(s string) (Destination, error) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > maxDestination || strings.HasPrefix(s, "-") {
		return Destination{}, ErrDestination
	}
	for _, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-@:[]", r)
		if !ok {
			return Destination{}, ErrDestination
		}
	}
	user, hostport, hasUser := strings.Cut(s, "@")
	if !hasUser {
		user, hostport = "", s
	}
	if hasUser && (user == "" || strings.ContainsAny(user, ":[]@") || strings.HasPrefix(user, "-")) {
		return Destination{}, ErrDestination
	}
	host, port, err := splitPort(hostport)
	if err != nil || host == "" || strings.HasPrefix(host, "-") || strings.Contains(host, "@") {
		return Destination{}, ErrDestination
	}
	d := Destination{Text: s, Target: s}
	if port != "" {
		at := ""
		if hasUser {
			at = user + "@"
		}
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		d.Target = "ssh://" + at + host + ":" + port
	}
	return d, nil
}

// splitPort splits host[:port] (an IPv6 address in brackets).
func splitPort(s string) (host, port string, err error) {
	if strings.HasPrefix(s, "[") || strings.Count(s, ":") == 1 {
		if !strings.Contains(s, "]") && strings.Count(s, ":") == 0 {
			return s, "", nil
		}
		h, p, err := net.SplitHostPort(s)
		if err != nil {
			if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
				return s[1 : len(s)-1], "", nil
			}
			return "", "", err
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return "", "", ErrDestination
		}
		return h, p, nil
	}
	if strings.ContainsAny(s, "[]") {
		return "", "", ErrDestination
	}
	return s, "", nil // a name, or a bare IPv6 address
}
