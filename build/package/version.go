package main

// The package's version (from the binary's own) and its dependencies (from
// the binary's ELF header).

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// DebVersion maps a `git describe --tags --always --dirty` string to a
// Debian version, which must start with a digit and sort in release order:
//
//	v1.2.3                      1.2.3
//	v1.2.3-rc.1                 1.2.3~rc.1                  (before 1.2.3)
//	v1.2.3-5-gabc1234           1.2.3+git20261202.5.abc1234 (after 1.2.3, before 1.2.4)
//	abc1234 (no tag yet)        0.0.0~git20261202.abc1234   (before any release)
//	any of these, -dirty        ... with .dirty (or +dirty) appended
//
// date is the commit's date (YYYYMMDD), so untagged builds sort by time.
func DebVersion(git, date string) (string, error) {
	if !regexp.MustCompile(`^[0-9]{8}$`).MatchString(date) {
		return "", fmt.Errorf("date %q is not YYYYMMDD", date)
	}
	base, dirty := strings.CutSuffix(git, "-dirty")
	if untaggedRe.MatchString(base) {
		v := "0.0.0~git" + date + "." + base
		if dirty {
			v += ".dirty"
		}
		return v, nil
	}
	m := taggedRe.FindStringSubmatch(base)
	if m == nil {
		return "", fmt.Errorf("cannot make a Debian version of %q (want a git describe of a tag like v1.2.3, or a commit hash); set VERSION=1.2.3", git)
	}
	v := m[1]
	if m[2] != "" {
		v += "~" + m[2]
	}
	sep := "+"
	if m[3] != "" {
		v += "+git" + date + "." + m[3] + "." + m[4]
		sep = "."
	}
	if dirty {
		v += sep + "dirty"
	}
	return v, nil
}

// binaryVersion asks the binary for the version it was built with, so the
// package's version is always the one `clawboo version` prints.
func binaryVersion(bin string) (string, error) {
	cmd := exec.Command(bin, "version")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent"} // no display, no CLAWBOO_*
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s version: %w (pass -version to package a binary this machine cannot run)", bin, err)
	}
	v, ok := strings.CutPrefix(strings.TrimSpace(string(out)), name+" ")
	if !ok || v == "" || strings.ContainsAny(v, " \n") {
		return "", fmt.Errorf("%s version printed %q, want \"clawboo <version>\"", bin, out)
	}
	return v, nil
}

// buildTime is the time stamped on every file: SOURCE_DATE_EPOCH if set,
// else HEAD's commit time, so the same commit packages to the same bytes.
func buildTime(root string) (time.Time, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		out, err := exec.Command("git", "-C", root, "log", "-1", "--format=%ct").Output()
		if err != nil {
			return time.Time{}, fmt.Errorf("HEAD's commit time (git log in %s): %w; set SOURCE_DATE_EPOCH", root, err)
		}
		s = strings.TrimSpace(string(out))
	}
	sec, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("build time %q: %w", s, err)
	}
	return time.Unix(sec, 0).UTC(), nil
}

// inspect reads the binary's ELF header: its Debian architecture and the
// runtime packages of the libraries it links against.
func inspect(bin string) (arch string, depends []string, err error) {
	f, err := elf.Open(bin)
	if err != nil {
		return "", nil, fmt.Errorf("%s is not a Linux binary: %w", bin, err)
	}
	defer f.Close()
	switch {
	case f.Machine == elf.EM_X86_64:
		arch = "amd64"
	case f.Machine == elf.EM_AARCH64:
		arch = "arm64"
	case f.Machine == elf.EM_386:
		arch = "i386"
	case f.Machine == elf.EM_ARM:
		arch = "armhf"
	case f.Machine == elf.EM_RISCV && f.Class == elf.ELFCLASS64:
		arch = "riscv64"
	case f.Machine == elf.EM_PPC64 && f.ByteOrder.String() == "LittleEndian":
		arch = "ppc64el"
	case f.Machine == elf.EM_S390:
		arch = "s390x"
	default:
		return "", nil, fmt.Errorf("%s: no Debian architecture for ELF machine %v", bin, f.Machine)
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", bin, err)
	}
	if !contains(libs, "libwebkit2gtk-4.1.so.0") {
		return "", nil, fmt.Errorf("%s does not link WebKitGTK 4.1: package the desktop build (make build: -tags desktop,production,webkit2_41), not the headless one", bin)
	}
	seen := map[string]bool{}
	for _, lib := range libs {
		dep, ok := runtimeDeps[lib]
		if !ok {
			return "", nil, fmt.Errorf("%s links %s, which has no runtime package in build/package's runtimeDeps table: add it (dpkg -S the library, then dpkg-shlibdeps for its version)", bin, lib)
		}
		if lib == "libc.so.6" {
			if v, err := glibcFloor(f); err != nil {
				return "", nil, fmt.Errorf("%s: %w", bin, err)
			} else if v != "" {
				dep += " (>= " + v + ")"
			}
		}
		if !seen[dep] {
			seen[dep] = true
			depends = append(depends, dep)
		}
	}
	sort.Strings(depends)
	return arch, depends, nil
}

// glibcFloor is the highest GLIBC_x.y symbol version the binary imports:
// the libc6 it needs at least.
func glibcFloor(f *elf.File) (string, error) {
	syms, err := f.ImportedSymbols()
	if err != nil {
		return "", err
	}
	best := ""
	for _, s := range syms {
		v, ok := strings.CutPrefix(s.Version, "GLIBC_")
		if ok && regexp.MustCompile(`^[0-9]+(\.[0-9]+)*$`).MatchString(v) && versionLess(best, v) {
			best = v
		}
	}
	return best, nil
}

func versionLess(a, b string) bool {
	if a == "" {
		return true
	}
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) || i < len(pb); i++ {
		var x, y int
		if i < len(pa) {
			x, _ = strconv.Atoi(pa[i])
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
