package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAutostartWritesAndRemovesTheEntry(t *testing.T) {
	xdg := t.TempDir()
	a := Autostart{Getenv: env(map[string]string{"XDG_CONFIG_HOME": xdg, "HOME": "/nonexistent"}), GOOS: "linux", Executable: "/opt/clawboo/bin/clawboo"}
	p, err := a.Path()
	if err != nil || p != filepath.Join(xdg, "autostart", "clawboo.desktop") {
		t.Fatalf("path %q %v", p, err)
	}
	if on, err := a.Enabled(); on || err != nil {
		t.Fatalf("off by default: %v %v", on, err)
	}
	if err := a.Set(false); err != nil {
		t.Fatalf("removing an entry that is not there: %v", err)
	}
	if err := a.Set(true); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"[Desktop Entry]\n", "Type=Application\n", "Name=Clawboo\n", "Exec=/opt/clawboo/bin/clawboo\n"} {
		if !strings.Contains(string(b), want) {
			t.Fatalf("entry lacks %q:\n%s", want, b)
		}
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v", st.Mode())
	}
	if on, err := a.Enabled(); !on || err != nil {
		t.Fatalf("on after Set(true): %v %v", on, err)
	}
	if err := a.Set(false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the entry is still there: %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(p)); len(ents) != 0 {
		t.Fatalf("left behind: %v", ents)
	}
}

func TestAutostartPathFallsBackToHome(t *testing.T) {
	home := t.TempDir()
	for _, xdg := range []string{"", "relative/dir"} {
		a := Autostart{Getenv: env(map[string]string{"XDG_CONFIG_HOME": xdg, "HOME": home})}
		if p, err := a.Path(); err != nil || p != filepath.Join(home, ".config", "autostart", "clawboo.desktop") {
			t.Fatalf("XDG_CONFIG_HOME=%q: %q %v", xdg, p, err)
		}
	}
	if _, err := (Autostart{Getenv: env(nil)}).Path(); err == nil {
		t.Fatal("no HOME and no XDG_CONFIG_HOME must be an error")
	}
}

func TestAutostartDefaultsToTheRunningBinary(t *testing.T) {
	a := Autostart{Getenv: env(map[string]string{"XDG_CONFIG_HOME": t.TempDir()}), GOOS: "linux"}
	if err := a.Set(true); err != nil {
		t.Fatal(err)
	}
	p, _ := a.Path()
	b, _ := os.ReadFile(p)
	exe, _ := os.Executable()
	if !strings.Contains(string(b), "Exec="+desktopExecQuote(exe)+"\n") {
		t.Fatalf("Exec is not %s:\n%s", exe, b)
	}
}

func TestAutostartRefusedOffLinux(t *testing.T) {
	xdg := t.TempDir()
	a := Autostart{Getenv: env(map[string]string{"XDG_CONFIG_HOME": xdg}), GOOS: "darwin", Executable: "/Applications/Clawboo"}
	if a.Supported() {
		t.Fatal("darwin is not supported")
	}
	if err := a.Set(true); !errors.Is(err, ErrAutostartUnsupported) {
		t.Fatalf("want ErrAutostartUnsupported, got %v", err)
	}
	if on, err := a.Enabled(); on || err != nil {
		t.Fatalf("%v %v", on, err)
	}
	if ents, _ := os.ReadDir(xdg); len(ents) != 0 {
		t.Fatalf("wrote %v off Linux", ents)
	}
}

func TestDesktopExecQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/bin/clawboo":      "/usr/bin/clawboo",
		"/home/a b/clawboo":     `"/home/a b/clawboo"`,
		`/x/it's "q"/$HOME`:     `"/x/it's \\"q\\"/\\$HOME"`,
		"/x/100%/clawboo":       "/x/100%%/clawboo",
		`/x/back\slash/clawboo`: `"/x/back\\\\slash/clawboo"`,
		"/x/tick`/clawboo":      "\"/x/tick\\\\`/clawboo\"",
	} {
		if got := desktopExecQuote(in); got != want {
			t.Errorf("quote(%q) = %s, want %s", in, got, want)
		}
	}
}
