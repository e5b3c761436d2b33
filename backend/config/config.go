// Package config owns where Clawboo keeps its state and how the process
// environment is read.
//
// Invariants:
//   - Every path the product writes lives under one home folder: --home, else
//     $CLAWBOO_HOME, else ~/.clawboo. Nothing else decides a path. The one
//     exception is the optional XDG autostart entry (autostart.go), whose
//     place the desktop session decides, written only when a person turns
//     "start at login" on.
//   - The environment is read once, into a Config value, by Load. Nothing in
//     backend reads os.Getenv on a hot path; tests build a Config directly.
//   - Parsing never fails silently: a malformed value is an error naming the
//     variable, not a quiet default.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Environment variable names the product understands.
const (
	EnvHome          = "CLAWBOO_HOME"
	EnvEnableMock    = "CLAWBOO_ENABLE_MOCK_RUNTIME"
	EnvMockWorktrees = "CLAWBOO_MOCK_WORKTREES"
	EnvIdleTimeout   = "CLAWBOO_RUN_IDLE_TIMEOUT"
	EnvVault         = "CLAWBOO_VAULT"
	DefaultIdleLimit = 30 * time.Minute
	// EnvRoutineOpenClawTimeout bounds an OpenClaw routine fire (default
	// DefaultRoutineOpenClawLimit), as the reference's watchdog.
	EnvRoutineOpenClawTimeout   = "CLAWBOO_ROUTINE_OPENCLAW_TIMEOUT_MS"
	DefaultRoutineOpenClawLimit = 10 * time.Minute
	// EnvPumpEvery sets the team dispatch pump's period (default a
	// minute); tests shorten it to watch what the pump does.
	EnvPumpEvery = "CLAWBOO_TEAM_PUMP_EVERY"
)

// Config is the process-wide configuration, resolved once at start-up.
type Config struct {
	// Home is the absolute folder holding the database, secrets, worktrees
	// and runtime homes.
	Home string
	// EnableMock offers the clawboo-mock runtime. True only when
	// CLAWBOO_ENABLE_MOCK_RUNTIME is exactly "1".
	EnableMock bool
	// MockWorktrees makes that mock declare worktrees and write in the
	// run's folder (!write), for board tests and the keyless demo; the
	// seed's mock has none. True only when CLAWBOO_MOCK_WORKTREES is
	// exactly "1".
	MockWorktrees bool
	// IdleTimeout aborts a run that emits nothing for this long.
	IdleTimeout time.Duration
	// RoutineOpenClawTimeout stops an OpenClaw routine fire that runs
	// longer.
	RoutineOpenClawTimeout time.Duration
	// PumpEvery is the team dispatch pump's period (0: the default).
	PumpEvery time.Duration
	// FileVault keeps keys in the encrypted file even when an OS keychain
	// is available (CLAWBOO_VAULT=file).
	FileVault bool
}

// Getenv is the shape of os.Getenv, injected so tests never touch the real
// environment.
type Getenv func(string) string

// Load resolves the configuration from an explicit home (empty for the
// default) and the environment.
func Load(home string, getenv Getenv) (Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	h, err := ResolveHome(home, getenv)
	if err != nil {
		return Config{}, err
	}
	idle := DefaultIdleLimit
	if v := getenv(EnvIdleTimeout); v != "" {
		idle, err = parseDuration(v)
		if err != nil {
			return Config{}, fmt.Errorf("%s: %w", EnvIdleTimeout, err)
		}
	}
	routineLimit := DefaultRoutineOpenClawLimit
	if v := getenv(EnvRoutineOpenClawTimeout); v != "" {
		routineLimit, err = parseDuration(v)
		if err != nil {
			return Config{}, fmt.Errorf("%s: %w", EnvRoutineOpenClawTimeout, err)
		}
	}
	var pump time.Duration
	if v := getenv(EnvPumpEvery); v != "" {
		if pump, err = parseDuration(v); err != nil {
			return Config{}, fmt.Errorf("%s: %w", EnvPumpEvery, err)
		}
	}
	var fileVault bool
	switch v := getenv(EnvVault); v {
	case "", "auto", "keychain":
	case "file":
		fileVault = true
	default:
		return Config{}, fmt.Errorf("%s: %q is not one of auto, keychain, file", EnvVault, v)
	}
	return Config{
		Home:          h,
		EnableMock:    getenv(EnvEnableMock) == "1",
		MockWorktrees: getenv(EnvMockWorktrees) == "1",
		IdleTimeout:   idle,
		FileVault:     fileVault,
		PumpEvery:     pump,

		RoutineOpenClawTimeout: routineLimit,
	}, nil
}

// ResolveHome applies the home precedence: explicit flag, $CLAWBOO_HOME,
// then ~/.clawboo. The result is absolute and cleaned.
func ResolveHome(flag string, getenv Getenv) (string, error) {
	h := flag
	if h == "" {
		h = getenv(EnvHome)
	}
	if h == "" {
		userHome := getenv("HOME")
		if userHome == "" {
			var err error
			if userHome, err = os.UserHomeDir(); err != nil {
				return "", fmt.Errorf("resolve home folder: %w", err)
			}
		}
		h = filepath.Join(userHome, ".clawboo")
	}
	abs, err := filepath.Abs(h)
	if err != nil {
		return "", fmt.Errorf("resolve home folder %q: %w", h, err)
	}
	return abs, nil
}

// parseDuration accepts a Go duration ("90s", "30m") or a bare number of
// milliseconds, and refuses anything not positive.
func parseDuration(v string) (time.Duration, error) {
	if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
		if ms <= 0 {
			return 0, errors.New("must be positive")
		}
		return time.Duration(ms) * time.Millisecond, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("not a duration: %q", v)
	}
	if d <= 0 {
		return 0, errors.New("must be positive")
	}
	return d, nil
}

// DBPath is the SQLite database file.
func (c Config) DBPath() string { return filepath.Join(c.Home, "clawboo.db") }

// PortFile records the port `clawboo serve` chose, for other tools to find.
func (c Config) PortFile() string { return filepath.Join(c.Home, "api-port.txt") }

// RuntimeHome is the folder a runtime keeps its managed state in under a
// Clawboo home, <home>/runtimes/<id> (Codex and Hermes homes, Claude
// Code's scratch folders, native transcripts, OpenClaw's device identity).
// It takes the bare home rather than a Config because adapters are handed
// only the home; id is the runtime's executor.ID as a string (config
// imports nothing of backend).
func RuntimeHome(home, id string) string { return filepath.Join(home, "runtimes", id) }

// EnsureHome creates the home folder with owner-only permissions.
func (c Config) EnsureHome() error {
	if err := os.MkdirAll(c.Home, 0o700); err != nil {
		return fmt.Errorf("create home %s: %w", c.Home, err)
	}
	return nil
}
