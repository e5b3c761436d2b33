package hosts

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
)

// ErrKeyKnown refuses trusting a host that already has a known key: a
// changed key is never replaced (or joined) by Clawboo.
var ErrKeyKnown = errors.New("this host already has a known key, and it does not match what the host shows now: " +
	"Clawboo never replaces a known key; if the host was really replaced, remove its old key from known_hosts yourself")

// ErrFingerprintChanged refuses trusting a key that is not the one shown.
var ErrFingerprintChanged = errors.New("the host now shows a different key than the fingerprint you accepted: nothing was trusted; check the host before trying again")

// hostKey is one key a host offered.
type hostKey struct {
	Line        string // as ssh-keyscan printed it: a known_hosts line
	Fingerprint string // SHA256:…
	Type        string // ED25519, ECDSA, RSA
}

// preferred orders key types as shown to a person: the first found is
// the fingerprint the person is asked about.
var preferred = []string{"ED25519", "ECDSA", "RSA"}

// address is the host name and port ssh would connect to for d, as the
// person's ~/.ssh/config resolves it (`ssh -G`).
func (s *SSH) address(ctx context.Context, d Destination) (host, port string, err error) {
	out, err := s.run(ctx, "ssh", append(s.options(), "-G", "--", d.Target), nil)
	if err != nil {
		return "", "", err
	}
	if out.Code != 0 {
		return "", "", fmt.Errorf("ssh cannot read its configuration for %s: %s", d.Text, lastLine(out.Stderr))
	}
	sc := bufio.NewScanner(strings.NewReader(out.Stdout))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), " ")
		switch k {
		case "hostname":
			host = v
		case "port":
			port = v
		}
	}
	if host == "" || port == "" || strings.HasPrefix(host, "-") {
		return "", "", fmt.Errorf("ssh gave no address for %s", d.Text)
	}
	return host, port, nil
}

// keys reads the host's keys as the network shows them now.
func (s *SSH) keys(ctx context.Context, d Destination) ([]hostKey, error) {
	host, port, err := s.address(ctx, d)
	if err != nil {
		return nil, err
	}
	if s.known(ctx, host, port) {
		return nil, ErrKeyKnown
	}
	scan, err := s.run(ctx, "ssh-keyscan", []string{"-T", "10", "-p", port, "-t", "ed25519,ecdsa,rsa", "--", host}, nil)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, l := range strings.Split(scan.Stdout, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("%s:%s offered no host key: %s", host, port, orWords(lastLine(scan.Stderr), "nothing answered"))
	}
	var keys []hostKey
	for _, l := range lines {
		fp, err := s.run(ctx, "ssh-keygen", []string{"-l", "-E", "sha256", "-f", "-"}, strings.NewReader(l+"\n"))
		if err != nil {
			return nil, err
		}
		f := strings.Fields(fp.Stdout)
		if fp.Code != 0 || len(f) < 4 {
			continue
		}
		keys = append(keys, hostKey{Line: l, Fingerprint: f[1], Type: strings.Trim(f[len(f)-1], "()")})
	}
	sortKeys(keys)
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s:%s offered no key ssh-keygen could read", host, port)
	}
	return keys, nil
}

// sortKeys puts the preferred key types first (an unknown type last).
func sortKeys(keys []hostKey) {
	rank := func(t string) int {
		if i := slices.Index(preferred, t); i >= 0 {
			return i
		}
		return len(preferred)
	}
	slices.SortStableFunc(keys, func(a, b hostKey) int { return rank(a.Type) - rank(b.Type) })
}

// known reports whether Clawboo's known_hosts or the person's holds a key
// for host:port.
func (s *SSH) known(ctx context.Context, host, port string) bool {
	name := host
	if port != "22" {
		name = "[" + host + "]:" + port
	}
	files := []string{s.KnownHosts()}
	if u, err := user.Current(); err == nil {
		files = append(files, filepath.Join(u.HomeDir, ".ssh", "known_hosts"))
	}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			continue
		}
		if out, err := s.run(ctx, "ssh-keygen", []string{"-F", name, "-f", f}, nil); err == nil && out.Code == 0 {
			return true
		}
	}
	return false
}

// Fingerprint is the SHA-256 fingerprint a person is asked to accept.
func (s *SSH) Fingerprint(ctx context.Context, d Destination) (string, error) {
	keys, err := s.keys(ctx, d)
	if err != nil {
		return "", err
	}
	return keys[0].Fingerprint, nil
}

// Trust writes the host's key to Clawboo's known_hosts when it is still
// the one whose fingerprint the person accepted.
func (s *SSH) Trust(ctx context.Context, d Destination, fingerprint string) error {
	keys, err := s.keys(ctx, d)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if k.Fingerprint == strings.TrimSpace(fingerprint) {
			f, err := os.OpenFile(s.KnownHosts(), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
			if err != nil {
				return err
			}
			_, werr := f.WriteString(k.Line + "\n")
			if err := f.Close(); werr == nil {
				werr = err
			}
			return werr
		}
	}
	return ErrFingerprintChanged
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func orWords(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
