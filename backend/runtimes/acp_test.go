package runtimes

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/clawboo/desktop/backend/executor"
)

func TestCustomACPChecksWhatItStarts(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "agent")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	find := func(name string) (string, bool) {
		if name == "onpath" {
			return "/usr/bin/onpath", true
		}
		return "", false
	}
	none := func(executor.ID) bool { return false }
	for _, c := range []struct {
		name, command string
		args, vars    []string
		want          error
	}{
		{"", prog, nil, nil, ErrACPName},
		{"A", "onpath --acp", nil, nil, ErrACPShell},
		{"A", "onpath|tee", nil, nil, ErrACPShell},
		{"A", "./agent", nil, nil, ErrACPCommand},
		{"A", "missing", nil, nil, ErrACPCommand},
		{"A", plain, nil, nil, ErrACPCommand},
		{"A", prog, []string{"`id`"}, nil, ErrACPShell},
		{"A", prog, []string{"a > b"}, nil, ErrACPShell},
		{"A", prog, nil, []string{"PATH"}, ErrACPEnvName},
		{"A", prog, nil, []string{"CLAWBOO_MCP_TOKEN"}, ErrACPEnvName},
		{"A", prog, nil, []string{"1X"}, ErrACPEnvName},
		{"A", prog, nil, []string{"CLAUDE_CONFIG_DIR"}, ErrACPEnvName},
		{"A", prog, nil, []string{"ANTHROPIC_BASE_URL"}, ErrACPEnvName},
		{"A", prog, nil, []string{"LD_PRELOAD"}, ErrACPEnvName},
		{"A", "/bin/sh", []string{"-c", "rm -rf x"}, nil, ErrACPShell},
		{"A", "bash", nil, nil, ErrACPShell},
		{"A", "/usr/bin/env", []string{"agent"}, nil, ErrACPShell},
	} {
		if _, err := CustomACP(c.name, c.command, c.args, c.vars, find, none); !errors.Is(err, c.want) {
			t.Errorf("%q %q %q %q: %v, want %v", c.name, c.command, c.args, c.vars, err, c.want)
		}
	}
	d, err := CustomACP("  My Agent (beta) ", "onpath", []string{"acp", "--model=x/y"}, []string{"MY_KEY", "MY_KEY"}, find, func(id executor.ID) bool { return id == "acp-my-agent-beta" })
	if err != nil {
		t.Fatal(err)
	}
	if d.ID != "acp-my-agent-beta-2" || d.Name != "My Agent (beta)" || d.Family != FamilyACP || !d.ACP.Custom ||
		len(d.ACP.EnvVars) != 1 || d.ACP.Args[1] != "--model=x/y" || d.AuthKind != AuthAgent {
		t.Fatalf("%+v %+v", d, d.ACP)
	}
	if _, err := CustomACP("B", prog, nil, nil, find, none); err != nil {
		t.Fatalf("an absolute program: %v", err)
	}
	// A provider's key is named on purpose: the person gives it to this program.
	if d, err := CustomACP("C", prog, nil, []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY"}, find, none); err != nil || len(d.ACP.EnvVars) != 2 {
		t.Fatalf("provider keys: %v %+v", err, d.ACP)
	}
}

func TestOnlyAPersonsACPAgentIsRemoved(t *testing.T) {
	w := newWorld(t)
	if _, err := w.cat.RemoveACP("acp-gemini"); !errors.Is(err, ErrNotCustom) {
		t.Fatalf("removing a catalog agent: %v", err)
	}
	if _, err := w.cat.RemoveACP("acp-nobody"); !errors.Is(err, ErrUnknownRuntime) {
		t.Fatalf("removing an unknown one: %v", err)
	}
	d := SavedACP("acp-mine", "Mine", ACPCommand{Command: "/bin/true"})
	if err := w.cat.AddACP(d); err != nil {
		t.Fatal(err)
	}
	if err := w.cat.AddACP(d); err == nil {
		t.Fatal("the same id twice")
	}
	if _, err := w.cat.RemoveACP("acp-mine"); err != nil || w.cat.Taken("acp-mine") {
		t.Fatalf("remove: %v", err)
	}
}
