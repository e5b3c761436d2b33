package hosts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Build is a headless Clawboo for one platform, shipped beside the desktop
// (`make package`: <dir>/clawboo-<os>-<arch> and its .sha256).
type Build struct {
	Path string
	Sum  string // SHA-256, hex
}

// Builds finds the build for a host's OS and architecture in dir, checked
// against its published sum; ok false when none ships.
func Builds(dir string) func(goos, arch string) (Build, error) {
	return func(goos, arch string) (Build, error) {
		name := "clawboo-" + goos + "-" + arch
		if !plain.MatchString(goos) || !plain.MatchString(arch) || dir == "" {
			return Build{}, fmt.Errorf("no Clawboo build for %s/%s ships with this one", goos, arch)
		}
		p := filepath.Join(dir, name)
		want, err := os.ReadFile(p + ".sha256")
		if err != nil {
			return Build{}, fmt.Errorf("no Clawboo build for %s/%s ships with this one (looked in %s)", goos, arch, dir)
		}
		sum, err := fileSum(p)
		if err != nil {
			return Build{}, err
		}
		if f := strings.Fields(string(want)); len(f) == 0 || f[0] != sum {
			return Build{}, fmt.Errorf("the Clawboo build for %s/%s does not match its published checksum: not sent", goos, arch)
		}
		return Build{Path: p, Sum: sum}, nil
	}
}

var (
	plain   = regexp.MustCompile(`^[a-z0-9_]{1,16}$`)
	hexSum  = regexp.MustCompile(`^[0-9a-f]{64}$`)
	version = regexp.MustCompile(`(?m)^clawboo (\S+)$`)
)

func fileSum(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hostBinary is where the host's Clawboo lives, in the host user's home.
const hostBinary = `"$HOME/.clawboo-host/bin/clawboo"`

// HostVersion is the version of the Clawboo installed on the host ("" when
// none is).
func (s *SSH) HostVersion(ctx context.Context, d Destination) (string, error) {
	out, err := s.Exec(ctx, d, hostBinary+` version 2>/dev/null; true`)
	if err != nil {
		return "", err
	}
	if m := version.FindStringSubmatch(out.Stdout); m != nil {
		return m[1], nil
	}
	return "", nil
}

// Found answers which of programs (runtime id → program name) the host's
// Clawboo finds there: its PATH and the per-user install folders, as its
// runs look for them (a login shell's PATH often lacks ~/.local/bin).
func (s *SSH) Found(ctx context.Context, d Destination, programs map[string]string) ([]string, error) {
	var names []string
	for _, p := range programs {
		if programName.MatchString(p) && !slices.Contains(names, p) {
			names = append(names, p)
		}
	}
	sort.Strings(names)
	out, err := s.Exec(ctx, d, hostBinary+` host --find `+strings.Join(names, " "))
	if err == nil && out.Code != 0 {
		err = fmt.Errorf("the host's Clawboo did not look for its runtimes: %s", orWords(lastLine(out.Stderr), fmt.Sprintf("exit %d", out.Code)))
	}
	if err != nil {
		return nil, err
	}
	found := map[string]bool{}
	for _, w := range strings.Fields(out.Stdout) {
		if name, ok := strings.CutPrefix(w, "rt:"); ok {
			found[name] = true
		}
	}
	ids := []string{}
	for id, prog := range programs {
		if found[prog] {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// Install streams b to the host and puts it in place once the host checked
// its sum: a transfer cut short or changed on the way is never run.
func (s *SSH) Install(ctx context.Context, d Destination, b Build) error {
	if !hexSum.MatchString(b.Sum) {
		return fmt.Errorf("bad checksum %q", b.Sum)
	}
	f, err := os.Open(b.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	script := `set -e; umask 077; d="$HOME/.clawboo-host/bin"; mkdir -p "$d"; cat > "$d/clawboo.new"; ` +
		`if ! echo "` + b.Sum + `  $d/clawboo.new" | sha256sum -c - >/dev/null 2>&1; then rm -f "$d/clawboo.new"; ` +
		`echo "the copy's checksum did not match" >&2; exit 3; fi; chmod 700 "$d/clawboo.new"; mv -f "$d/clawboo.new" "$d/clawboo"`
	out, err := s.ExecWith(ctx, d, script, f)
	if err != nil {
		return err
	}
	if out.Code != 0 {
		return fmt.Errorf("installing Clawboo on the host failed: %s", orWords(lastLine(out.Stderr), fmt.Sprintf("exit %d", out.Code)))
	}
	return nil
}
