package native

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
)

// The programs run_command refuses before anyone is asked (see shell.go).

// Denylist. Names are compared by base name, lowercased, with a version
// suffix stripped for the interpreter families (python3.12 → python).
var (
	// Shells and shell-like interpreters: always denied.
	deniedShells = set("sh", "bash", "zsh", "fish", "dash", "ksh", "mksh", "csh", "tcsh", "ash", "busybox",
		"pwsh", "powershell", "cmd", "tclsh", "wish", "expect", "osascript", "rc", "es", "nu", "xonsh", "elvish")
	// Privilege and namespace tools.
	deniedPrivilege = set("sudo", "su", "doas", "pkexec", "runuser", "chroot", "nsenter", "unshare", "setpriv",
		"capsh", "sg", "newgrp", "systemd-run", "machinectl")
	// Wrappers that run another program (which would dodge this list).
	deniedWrappers = set("env", "xargs", "nohup", "setsid", "timeout", "nice", "ionice", "stdbuf", "time",
		"watch", "flock", "chrt", "taskset", "unbuffer", "script", "strace", "ltrace", "gdb", "exec", "command",
		"parallel", "entr")
	// awk's program is always inline code.
	deniedAlways = set("awk", "gawk", "mawk", "nawk")
)

var versionSuffix = regexp.MustCompile(`[0-9][0-9.]*$`)

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func progName(p string) string { return strings.ToLower(filepath.Base(p)) }

// deniedProgram reports why argv (resolved to path) may not run, or "".
func deniedProgram(argv []string, path string) string {
	names := []string{progName(argv[0]), progName(path)}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		names = append(names, progName(real))
	}
	for _, n := range names {
		if why := deniedName(n, argv[1:]); why != "" {
			return why
		}
	}
	if interp, args, ok := shebang(path); ok {
		if why := deniedName(progName(interp), args); why != "" {
			return "the script's interpreter is refused: " + why
		}
	}
	return ""
}

// deniedName checks one program name with its arguments.
func deniedName(name string, args []string) string {
	base := versionSuffix.ReplaceAllString(name, "")
	switch {
	case deniedShells[name] || deniedShells[base]:
		return name + " is a shell; run the program itself instead"
	case deniedPrivilege[name]:
		return name + " changes privileges or namespaces"
	case deniedWrappers[name]:
		return name + " runs another program; run that program directly"
	case deniedAlways[name]:
		return name + " runs inline code"
	}
	inline := func(flags ...string) string {
		for _, a := range args {
			for _, f := range flags {
				if a == f || (strings.HasPrefix(f, "--") && strings.HasPrefix(a, f+"=")) {
					return name + " " + f + " runs inline code"
				}
				// A cluster of short flags, e.g. perl -ne, python -Ic.
				if len(f) == 2 && f[0] == '-' && len(a) > 2 && a[0] == '-' && a[1] != '-' && isLetters(a[1:]) && strings.ContainsRune(a[1:], rune(f[1])) {
					return name + " " + a + " runs inline code"
				}
			}
		}
		return ""
	}
	switch base {
	case "python", "pypy", "python-config":
		return inline("-c")
	case "node", "nodejs":
		return inline("-e", "-p", "--eval", "--print")
	case "perl":
		return inline("-e", "-E")
	case "ruby", "lua", "luajit", "rscript", "r":
		return inline("-e")
	case "php":
		return inline("-r")
	case "bun":
		return inline("-e", "-p", "--eval", "--print")
	case "deno":
		if len(args) > 0 && args[0] == "eval" {
			return "deno eval runs inline code"
		}
		return inline("--eval")
	case "find":
		for _, a := range args {
			switch a {
			case "-exec", "-execdir", "-ok", "-okdir":
				return "find " + a + " runs other programs"
			}
		}
	case "git":
		return deniedGit(args)
	}
	return ""
}

func isLetters(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// deniedGit refuses git invocations that can run arbitrary programs: a
// configuration override on the command line (-c, --config-env: core.*
// hooks, aliases with "!", pagers, ssh commands, filters…), and the
// transport options that name a program to run.
func deniedGit(args []string) string {
	// Global options come before the subcommand.
	for i := 0; i < len(args) && strings.HasPrefix(args[i], "-"); i++ {
		a := args[i]
		switch {
		case a == "-c" || (strings.HasPrefix(a, "-c") && !strings.HasPrefix(a, "--")):
			return "git -c overrides configuration (hooks, aliases, pagers) and is refused"
		case a == "--config-env" || strings.HasPrefix(a, "--config-env="):
			return "git --config-env is refused"
		case a == "-C":
			i++ // its folder argument
		}
	}
	for _, a := range args {
		switch {
		case a == "--upload-pack" || strings.HasPrefix(a, "--upload-pack="),
			a == "--receive-pack" || strings.HasPrefix(a, "--receive-pack="),
			a == "--exec" || strings.HasPrefix(a, "--exec="),
			a == "--ext-diff", a == "--open-files-in-pager" || strings.HasPrefix(a, "--open-files-in-pager="):
			return "git " + strings.SplitN(a, "=", 2)[0] + " runs another program"
		}
	}
	return ""
}

// shebang reads a script's first line: the interpreter and its arguments,
// looking through /usr/bin/env (and env -S).
func shebang(path string) (interp string, args []string, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil, false
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, 512).ReadString('\n')
	if err != nil && line == "" {
		return "", nil, false
	}
	if len(line) > 512 {
		line = line[:512]
	}
	rest, found := strings.CutPrefix(line, "#!")
	if !found {
		return "", nil, false
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return "", nil, false
	}
	interp, args = fields[0], fields[1:]
	if progName(interp) == "env" {
		for len(args) > 0 && strings.HasPrefix(args[0], "-") {
			args = args[1:]
		}
		if len(args) == 0 {
			return interp, nil, true
		}
		interp, args = args[0], args[1:]
	}
	return interp, args, true
}
