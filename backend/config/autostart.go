package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Autostart is the optional "start at login": an XDG autostart entry,
// $XDG_CONFIG_HOME/autostart/clawboo.desktop (else ~/.config/autostart),
// that a Linux desktop session runs at login. Off by default: only Set
// writes the file, and only the file says it is on. It runs the binary
// that wrote it (its absolute path) with no arguments, i.e. the desktop app.
//
// It is the one path written outside the home folder, because the desktop
// session decides where autostart entries live.
type Autostart struct {
	Getenv Getenv
	// GOOS is the operating system ("" = runtime.GOOS); tests set it.
	GOOS string
	// Executable is the running binary ("" = os.Executable).
	Executable string
}

// AutostartFile is the entry's file name in the autostart folder.
const AutostartFile = "clawboo.desktop"

// ErrAutostartUnsupported is Set's answer off Linux.
var ErrAutostartUnsupported = errors.New("start at login is only offered on Linux (an XDG autostart entry); " +
	"on macOS add Clawboo in System Settings → General → Login Items, on Windows put a shortcut in shell:startup")

// Supported reports whether this system takes XDG autostart entries.
func (a Autostart) Supported() bool {
	goos := a.GOOS
	if goos == "" {
		goos = runtime.GOOS
	}
	return goos == "linux"
}

// Path is the entry's file: XDG_CONFIG_HOME when it is an absolute path
// (the spec ignores a relative one), else $HOME/.config.
func (a Autostart) Path() (string, error) {
	getenv := a.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	dir := getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) {
		home := getenv("HOME")
		if !filepath.IsAbs(home) {
			return "", errors.New("start at login: neither XDG_CONFIG_HOME nor HOME is an absolute path")
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "autostart", AutostartFile), nil
}

// Enabled reports whether the entry is there.
func (a Autostart) Enabled() (bool, error) {
	if !a.Supported() {
		return false, nil
	}
	p, err := a.Path()
	if err != nil {
		return false, err
	}
	_, err = os.Stat(p)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	default:
		return false, fmt.Errorf("start at login: %w", err)
	}
}

// Set writes the entry (on) or removes it (off); removing one that is not
// there is fine. Off Linux it is ErrAutostartUnsupported.
func (a Autostart) Set(on bool) error {
	if !a.Supported() {
		return ErrAutostartUnsupported
	}
	p, err := a.Path()
	if err != nil {
		return err
	}
	if !on {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("start at login: %w", err)
		}
		return nil
	}
	exe := a.Executable
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return fmt.Errorf("start at login: the running binary: %w", err)
		}
	}
	if !filepath.IsAbs(exe) {
		return fmt.Errorf("start at login: %q is not an absolute path", exe)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("start at login: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), AutostartFile+".*")
	if err != nil {
		return fmt.Errorf("start at login: %w", err)
	}
	_, err = tmp.WriteString(AutostartEntry(exe))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("start at login: %w", err)
	}
	return nil
}

// AutostartEntry is the desktop entry that runs exe at login.
func AutostartEntry(exe string) string {
	return "[Desktop Entry]\n" +
		"Type=Application\n" +
		"Name=Clawboo\n" +
		"Comment=Start Clawboo at login\n" +
		"Exec=" + desktopExecQuote(exe) + "\n" +
		"Icon=clawboo\n" +
		"Terminal=false\n" +
		"X-GNOME-Autostart-enabled=true\n"
}

// desktopExecQuote quotes a program path for a desktop entry's Exec key
// (Desktop Entry Specification, "The Exec key"): in double quotes when it
// holds a reserved character, with ", `, $ and \ escaped, and % doubled
// always (a field code otherwise); then the string escapes of the value
// type double every backslash once more.
func desktopExecQuote(exe string) string {
	exe = strings.ReplaceAll(exe, "%", "%%")
	if strings.ContainsAny(exe, " \t\n\"'\\><~|&;$*?#()`") {
		var b strings.Builder
		b.WriteByte('"')
		for _, r := range exe {
			if strings.ContainsRune("\"`$\\", r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		b.WriteByte('"')
		exe = b.String()
	}
	return strings.ReplaceAll(exe, `\`, `\\`)
}
