package hosts

import (
	"context"
	"regexp"
	"slices"
	"sort"
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
	// Runtimes are the runtime ids whose program the host has.
	Runtimes []string
}

// probeCommand is the fixed text run on the host to learn what it is.
const probeCommand = `uname -s; uname -m; getconf _NPROCESSORS_ONLN; sed -n 's/^MemTotal: *\([0-9]*\) kB$/\1/p' /proc/meminfo`

// programName is a program a probe may look for: a plain name, so it is
// safe in the probe's shell text.
var programName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// probeText is probeCommand and a look for each program (runtime id →
// program name; names that are not plain are left out).
func probeText(programs map[string]string) string {
	var b strings.Builder
	b.WriteString(probeCommand)
	names := make([]string, 0, len(programs))
	for _, p := range programs {
		if programName.MatchString(p) && !slices.Contains(names, p) {
			names = append(names, p)
		}
	}
	sort.Strings(names)
	if len(names) > 0 {
		b.WriteString("; for p in " + strings.Join(names, " ") + `; do command -v "$p" >/dev/null 2>&1 && echo "rt:$p"; done; true`)
	}
	return b.String()
}

// Probe connects to d and says what it is and which of programs (runtime
// id → program name) it has, or why it cannot be used.
func (s *SSH) Probe(ctx context.Context, d Destination, programs map[string]string) Probe {
	out, err := s.Exec(ctx, d, probeText(programs))
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
	var f []string
	found := map[string]bool{}
	for _, w := range strings.Fields(out.Stdout) {
		if name, ok := strings.CutPrefix(w, "rt:"); ok {
			found[name] = true
		} else {
			f = append(f, w)
		}
	}
	if len(f) < 3 {
		return Probe{State: Unreachable, Reason: "the host did not say what it is (is it a Unix machine with a POSIX shell?)"}
	}
	info := Info{OS: strings.ToLower(f[0]), Arch: arch(f[1])}
	info.Cores, _ = strconv.Atoi(f[2])
	if len(f) > 3 {
		kb, _ := strconv.ParseInt(f[3], 10, 64)
		info.MemoryBytes = kb << 10
	}
	p := Probe{State: Ready, Info: info, Runtimes: []string{}}
	for id, prog := range programs {
		if found[prog] {
			p.Runtimes = append(p.Runtimes, id)
		}
	}
	sort.Strings(p.Runtimes)
	return p
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
