package runtimes

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
)

// install runs an install and returns its events as "type:code" tokens plus
// the events themselves.
func (w *world) install(ctx context.Context, id executor.ID) (string, []InstallEvent) {
	w.t.Helper()
	run, err := w.cat.BeginInstall(id)
	if err != nil {
		w.t.Fatal(err)
	}
	var evs []InstallEvent
	run(ctx, func(ev InstallEvent) { evs = append(evs, ev) })
	var toks []string
	for _, ev := range evs {
		switch ev.Type {
		case "output":
			continue
		case "error":
			toks = append(toks, "error:"+ev.Code)
		case "progress":
			toks = append(toks, "progress:"+ev.Step)
		case "complete":
			tok := "complete"
			if ev.Warning != "" {
				tok += ":warning"
			}
			toks = append(toks, tok)
		}
	}
	return strings.Join(toks, ","), evs
}

func outputLines(evs []InstallEvent) string {
	var b []string
	for _, ev := range evs {
		if ev.Type == "output" {
			b = append(b, ev.Line)
		}
	}
	return strings.Join(b, "\n")
}

func TestNpmInstallFlows(t *testing.T) {
	cases := []struct {
		name, npm string
		want      string
	}{
		{"success", `echo "added 1 package: $*"; printf '#!/bin/sh\n' > "${0%/*}/claude"; chmod +x "${0%/*}/claude"`, "progress:installing,complete"},
		{"binary still missing", `echo "added 1 package"`, "progress:installing,complete:warning"},
		{
			"eacces", `echo "npm ERR! code EACCES" >&2; echo "npm ERR! Error: EACCES: permission denied, mkdir '/usr/lib/node_modules'" >&2; exit 243`,
			"progress:installing,error:EACCES,error:EXIT_243",
		},
		{"failure", `echo "npm ERR! 404 Not Found" >&2; exit 1`, "progress:installing,error:EXIT_1"},
		{"cannot start", "", "progress:installing,error:SPAWN_ERROR"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			if tc.npm != "" {
				w.program("", "npm", tc.npm)
			} else {
				// An executable that cannot be executed: a bad interpreter.
				p := filepath.Join(w.bin, "npm")
				_ = os.WriteFile(p, []byte("#!/nonexistent/interpreter\n"), 0o755)
				w.res.Invalidate()
			}
			got, evs := w.install(context.Background(), executor.ClaudeCode)
			if got != tc.want {
				t.Fatalf("got %s\n%+v", got, evs)
			}
			if tc.name == "success" && !strings.Contains(outputLines(evs), "added 1 package: install -g @anthropic-ai/claude-code@2") {
				t.Fatalf("npm was not asked for the pinned package: %q", outputLines(evs))
			}
			if tc.name == "eacces" {
				var msg string
				for _, ev := range evs {
					if ev.Code == "EACCES" {
						msg = ev.Message
					}
				}
				if !strings.Contains(msg, "sudo npm install -g @anthropic-ai/claude-code@2") || !strings.Contains(msg, "nvm") {
					t.Fatalf("EACCES advice: %q", msg)
				}
			}
			if tc.name == "success" {
				if e := w.entry(executor.ClaudeCode); e.ConnectionState != StateNeedsAuth {
					t.Fatalf("after install: %s", e.ConnectionState)
				}
			}
		})
	}
}

func TestNpmMissing(t *testing.T) {
	w := newWorld(t)
	if got, _ := w.install(context.Background(), executor.Codex); got != "progress:installing,error:NPM_MISSING" {
		t.Fatal(got)
	}
}

func TestPipInstallFlows(t *testing.T) {
	t.Run("pipx preferred", func(t *testing.T) {
		w := newWorld(t)
		w.program("", "python3", "exit 9")
		w.program("", "pipx", `echo "pipx $*"; mkdir -p "$HOME/.local/bin"; printf '#!/bin/sh\n' > "$HOME/.local/bin/hermes"; chmod +x "$HOME/.local/bin/hermes"`)
		got, evs := w.install(context.Background(), executor.Hermes)
		if got != "progress:installing,progress:installing,complete" || outputLines(evs) != "pipx install hermes-agent<1" {
			t.Fatalf("%s %q", got, outputLines(evs))
		}
		if e := w.entry(executor.Hermes); !e.Installed {
			t.Fatal("hermes not found in ~/.local/bin after install")
		}
	})
	t.Run("pip retries an externally managed python", func(t *testing.T) {
		w := newWorld(t)
		w.program("", "python3", `echo "python $*"
case "$*" in *--break-system-packages*) mkdir -p "$HOME/.local/bin"; printf '#!/bin/sh\n' > "$HOME/.local/bin/hermes"; chmod +x "$HOME/.local/bin/hermes"; exit 0;; esac
echo "error: externally-managed-environment" >&2; exit 1`)
		got, evs := w.install(context.Background(), executor.Hermes)
		if got != "progress:installing,progress:installing,progress:retrying,complete" {
			t.Fatalf("%s\n%s", got, outputLines(evs))
		}
		if !strings.Contains(outputLines(evs), "python -m pip install --user hermes-agent<1 --break-system-packages") {
			t.Fatal(outputLines(evs))
		}
	})
	t.Run("pip failure that is not PEP 668 is final", func(t *testing.T) {
		w := newWorld(t)
		w.program("", "python", `echo "no network" >&2; exit 2`)
		if got, _ := w.install(context.Background(), executor.Hermes); got != "progress:installing,progress:installing,error:EXIT_2" {
			t.Fatal(got)
		}
	})
	t.Run("a permission error gets pip's advice, not npm's", func(t *testing.T) {
		w := newWorld(t)
		w.program("", "pipx", `echo "PermissionError: [Errno 13] Permission denied: '/opt/pipx'" >&2; exit 1`)
		got, evs := w.install(context.Background(), executor.Hermes)
		if got != "progress:installing,progress:installing,error:EACCES,error:EXIT_1" {
			t.Fatal(got)
		}
		for _, ev := range evs {
			if ev.Code == "EACCES" && (!strings.Contains(ev.Message, "sudo pipx install 'hermes-agent<1'") || !strings.Contains(ev.Message, "--user") || strings.Contains(ev.Message, "nvm")) {
				t.Fatal(ev.Message)
			}
		}
	})
	t.Run("nothing to install with", func(t *testing.T) {
		w := newWorld(t)
		if got, _ := w.install(context.Background(), executor.Hermes); got != "progress:installing,error:PYTHON_MISSING" {
			t.Fatal(got)
		}
	})
}

func TestInstallRefusals(t *testing.T) {
	w := newWorld(t)
	if _, err := w.cat.BeginInstall(executor.Native); !errors.Is(err, ErrBuiltIn) {
		t.Fatal(err)
	}
	if _, err := w.cat.BeginInstall(executor.Mock); !errors.Is(err, ErrUnknownRuntime) {
		t.Fatal(err)
	}
	if _, err := w.cat.BeginInstall("openclaw"); !errors.Is(err, ErrUnknownRuntime) {
		t.Fatal(err)
	}
	run, err := w.cat.BeginInstall(executor.Codex)
	if err != nil {
		t.Fatal(err)
	}
	if e := w.entry(executor.Codex); !e.Installing {
		t.Fatal("entry does not say installing")
	}
	if _, err := w.cat.BeginInstall(executor.Codex); !errors.Is(err, ErrInstalling) {
		t.Fatalf("second install: %v", err)
	}
	run(context.Background(), func(InstallEvent) {})
	if _, err := w.cat.BeginInstall(executor.Codex); err != nil {
		t.Fatalf("slot not released: %v", err)
	}
}

func TestCancelledInstallKillsTheInstaller(t *testing.T) {
	w := newWorld(t)
	pidFile := filepath.Join(w.home, "npm.pid")
	w.program("", "npm", `echo $$ > "`+pidFile+`"; echo started; exec sleep 300`)
	ctx, cancel := context.WithCancel(context.Background())
	run, err := w.cat.BeginInstall(executor.ClaudeCode)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		run(ctx, func(ev InstallEvent) {
			if ev.Type == "output" && ev.Line == "started" {
				cancel()
			}
		})
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("install did not end after its client left")
	}
	b, _ := os.ReadFile(pidFile)
	if pid := strings.TrimSpace(string(b)); pid == "" {
		t.Fatal("installer never ran")
	} else if _, err := os.Stat("/proc/" + pid); err == nil {
		if st, _ := os.ReadFile("/proc/" + pid + "/stat"); !strings.Contains(string(st), ") Z ") {
			t.Fatalf("installer %s still running", pid)
		}
	}
}

func TestInstallerGetsNoProviderKeys(t *testing.T) {
	w := newWorld(t)
	const sentinel = "sk-ant-SENTINEL-installer-env"
	w.env["ANTHROPIC_API_KEY"] = sentinel
	w.env["npm_config_registry"] = "http://127.0.0.1:1/"
	if _, err := w.cat.Connect(context.Background(), executor.Native, sentinel+"-vault", "openai"); err != nil {
		t.Fatal(err)
	}
	dump := filepath.Join(w.home, "env.txt")
	w.program("", "npm", `env > "`+dump+`"`)
	w.install(context.Background(), executor.ClaudeCode)
	b, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "SENTINEL") {
		t.Fatalf("installer saw a provider key:\n%s", b)
	}
	if !strings.Contains(string(b), "npm_config_registry=") || !strings.Contains(string(b), "HOME=") {
		t.Fatalf("installer lost its own configuration:\n%s", b)
	}
}
