package hosts

import (
	"context"
	"regexp"
	"strconv"
	"strings"
)

// State is where a host stands, as GET /api/hosts says it.
type State string

// States.
const (
	Ready           State = "ready"
	Connecting      State = "connecting"
	Unreachable     State = "unreachable"
	UnknownHostKey  State = "unknown-host-key"
	HostKeyChanged  State = "host-key-changed"
	VersionMismatch State = "version-mismatch"
)

// Info is what a host is.
type Info struct {
	OS          string `json:"os"`
	Arch        string `json:"arch"`
	Cores       int    `json:"cores"`
	MemoryBytes int64  `json:"memoryBytes"`
}

// Probe is one look at a host.
type Probe struct {
	State State
	// Reason says in words why a host is not ready.
	Reason string
	// Fingerprint is the key a person is asked to accept (UnknownHostKey).
	Fingerprint string
	Info        Info
}

// probeCommand is the fixed text run on the host to learn what it is.
const probeCommand = `uname -s; uname -m; getconf _NPROCESSORS_ONLN; sed -n 's/^MemTotal: *\([0-9]*\) kB$/\1/p' /proc/meminfo`

// Probe connects to d and says what it is, or why it cannot be used.
func (s *SSH) Probe(ctx context.Context, d Destination) Probe {
	out, err := s.Exec(ctx, d, probeCommand)
	if err != nil {
		return Probe{State: Unreachable, Reason: err.Error()}
	}
	if out.Code != 0 {
		p := classify(out.Stderr)
		if p.State == UnknownHostKey {
			fp, err := s.Fingerprint(ctx, d)
			if err != nil {
				return Probe{State: Unreachable, Reason: "its host key is not known, and reading it failed: " + err.Error()}
			}
			p.Fingerprint = fp
		}
		return p
	}
	f := strings.Fields(out.Stdout)
	if len(f) < 3 {
		return Probe{State: Unreachable, Reason: "the host did not say what it is (is it a Unix machine with a POSIX shell?)"}
	}
	info := Info{OS: strings.ToLower(f[0]), Arch: arch(f[1])}
	info.Cores, _ = strconv.Atoi(f[2])
	if len(f) > 3 {
		kb, _ := strconv.ParseInt(f[3], 10, 64)
		info.MemoryBytes = kb << 10
	}
	return Probe{State: Ready, Info: info}
}

// arch names a machine as Go does (the host binaries are built per GOARCH).
func arch(uname string) string {
	switch uname {
	case "x86_64", "amd64":
		return "amd64"
	case "aarch64", "arm64":
		return "arm64"
	}
	return strings.ToLower(uname)
}

var atLines = regexp.MustCompile(`(?m)^@+.*$\n?`)

// classify reads why ssh failed from its own words.
func classify(stderr string) Probe {
	text := strings.TrimSpace(stderr)
	switch {
	case strings.Contains(text, "REMOTE HOST IDENTIFICATION HAS CHANGED"):
		return Probe{State: HostKeyChanged, Reason: changedWords(text)}
	case strings.Contains(text, "Host key verification failed"),
		strings.Contains(text, "host key is known for"):
		return Probe{State: UnknownHostKey, Reason: "this host's key is not known yet: check its fingerprint and accept it once"}
	case text == "":
		return Probe{State: Unreachable, Reason: "ssh failed without saying why"}
	}
	return Probe{State: Unreachable, Reason: "ssh: " + cut(lastLine(text), 300)}
}

// changedWords is ssh's own warning of a changed key, without its frame
// of @ signs, and what Clawboo does about it.
func changedWords(text string) string {
	var keep []string
	for _, l := range strings.Split(atLines.ReplaceAllString(text, "@@@ WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! @@@\n"), "\n") {
		l = strings.TrimSpace(strings.Trim(l, "@ "))
		if l == "" || strings.HasPrefix(l, "Please contact") || strings.HasPrefix(l, "Add correct host key") ||
			strings.HasPrefix(l, "Offending") || strings.HasPrefix(l, "remove with") || strings.HasPrefix(l, "ssh-keygen -f") {
			continue
		}
		if len(keep) == 0 || keep[len(keep)-1] != l {
			keep = append(keep, l)
		}
	}
	return cut(strings.Join(keep, " "), 900) + " Clawboo refuses this host until its key is sorted out by hand."
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
