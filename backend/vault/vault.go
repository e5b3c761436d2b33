// Package vault owns provider API keys: where they are stored, how a run's
// key is resolved, and which runtimes the user has disconnected.
//
// Keys live in the OS keychain (go-keyring: Secret Service, macOS Keychain,
// Windows Credential Manager). When the keychain does not work, they live in
// <Home>/secrets/runtime-keys.json, AES-256-GCM encrypted under a 32-byte
// master key, in the reference implementation's format.
//
// Invariants:
//   - A secret never reaches a log, an error message, or disk in plaintext.
//     Errors name the slot (the env var name), never the value. The vault
//     keeps no plaintext in memory beyond the call that needs it.
//   - Nothing blocks forever on the keychain. The backend is chosen by a
//     canary in a goroutine bounded by ProbeTimeout (Open returns at once);
//     every later keychain call is bounded by CallTimeout, and at most
//     maxKeychainCalls goroutines can be stuck in a hung keychain at once.
//   - Has and Presence answer from memory (plus a stat): they never decrypt
//     and never call the keychain, so listings stay fast.
//   - Reads fail closed: a wrong master key, a tampered file or a keychain
//     timeout gives ("", false), never a panic or partial plaintext.
//   - A write never silently destroys other keys: a runtime-keys.json that
//     exists but cannot be parsed is left alone and the write is refused.
//   - A user who never stores a key gets no files: secrets/ and master.key
//     are created on the first write.
//   - Resolution is env > vault > OpenClaw .env, except for a disconnected
//     runtime, which gets the vault only.
//   - Task secrets (tasksecrets.go) are their own namespace: a task secret
//     is never a provider key, never read from the environment, and
//     listed by name only.
package vault

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Backend says where stored keys live, so the UI can tell the user.
type Backend string

// The two places a key can be stored.
const (
	BackendKeychain Backend = "keychain"
	BackendFile     Backend = "file"
)

// Source says where a resolved key came from, so a listing can show why a
// runtime reads as connected.
type Source string

// Resolution sources, highest priority first; SourceNone means not found.
const (
	SourceEnv      Source = "env"
	SourceVault    Source = "vault"
	SourceOpenClaw Source = "openclaw"
	SourceNone     Source = ""
)

// Environment variables the vault understands.
const (
	// EnvMasterKey overrides <Home>/secrets/master.key.
	EnvMasterKey = "CLAWBOO_SECRETS_MASTER_KEY"
	// EnvBackend set to "file" skips the keychain (headless servers, tests).
	EnvBackend = "CLAWBOO_VAULT"
)

// Default bounds on the keychain, which can hang on a locked keyring.
const (
	DefaultProbeTimeout = 3 * time.Second
	DefaultCallTimeout  = 3 * time.Second
	// maxKeychainCalls bounds goroutines stuck in keychain calls: such a
	// call cannot be cancelled, so a hung keyring must not leak without end.
	maxKeychainCalls = 4
)

// ErrClosed is returned by calls made after Close.
var ErrClosed = errors.New("vault is closed")

// Keyring is the OS keychain (go-keyring's three functions). It is an
// interface so tests pass fakes and never touch the user's real keychain.
type Keyring interface {
	Set(service, user, password string) error
	Get(service, user string) (string, error) // go-keyring's keyring.ErrNotFound when missing
	Delete(service, user string) error
}

// Options configure Open.
type Options struct {
	Home    string              // secrets live in <Home>/secrets (0700), created on first write
	Getenv  func(string) string // the process environment (nil = os.Getenv)
	Keyring Keyring             // nil = the real go-keyring
	// ForceFile skips the keychain (set from CLAWBOO_VAULT=file, for
	// headless servers and tests). Open also honours CLAWBOO_VAULT itself.
	ForceFile    bool
	ProbeTimeout time.Duration // keychain start-up probe bound, default 3s
	CallTimeout  time.Duration // every later keychain call, default 3s
	Log          *slog.Logger
	OnChange     func() // called (from any goroutine) after presence or backend changes
}

// Status tells the UI where keys are kept and, for the file, why.
type Status struct {
	Backend Backend `json:"backend"`
	// Detail explains the choice in plain words, e.g. why the keychain
	// was not used; empty when the keychain works.
	Detail string `json:"detail"`
	// Probing is true while the keychain canary runs (at most ProbeTimeout).
	Probing bool `json:"probing"`
}

// Vault is the one handle on stored keys; it is safe for concurrent use.
type Vault struct {
	dir          string // <Home>/secrets
	getenv       func(string) string
	kr           Keyring
	log          *slog.Logger
	onChange     func()
	probeTimeout time.Duration
	callTimeout  time.Duration
	envKey       []byte // the parsed CLAWBOO_SECRETS_MASTER_KEY, or nil

	sem     chan struct{} // one token per goroutine inside the keychain
	decided chan struct{} // closed once the backend is chosen
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup // the probe and index verifier (never keychain workers)

	files    *keyFile
	openclaw *dotEnv

	mu       sync.RWMutex
	backend  Backend
	detail   string
	probing  bool
	kcNames  map[string]bool   // names stored in the keychain (the index)
	kcVer    map[string]uint64 // bumped per write of a name: stale observations are dropped
	disc     map[string]bool   // disconnected runtimes
	fileKey  []byte            // master.key once read or made
	indexMu  sync.Mutex        // serializes keychain-index.json writes
	discMu   sync.Mutex        // serializes disconnected-runtimes.json writes
	keyMu    sync.Mutex        // serializes master key creation
	closeOne sync.Once
}

// Open prepares the vault. It fails only for an invalid
// CLAWBOO_SECRETS_MASTER_KEY or an unreadable master key file, and never
// blocks on the keychain: the canary runs in the background.
func Open(opts Options) (*Vault, error) {
	if opts.Home == "" {
		return nil, errors.New("vault: Home is required")
	}
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	v := &Vault{
		dir:          filepath.Join(opts.Home, "secrets"),
		getenv:       getenv,
		kr:           opts.Keyring,
		log:          opts.Log,
		onChange:     opts.OnChange,
		probeTimeout: opts.ProbeTimeout,
		callTimeout:  opts.CallTimeout,
		sem:          make(chan struct{}, maxKeychainCalls),
		decided:      make(chan struct{}),
		kcVer:        map[string]uint64{},
	}
	if v.log == nil {
		v.log = slog.New(slog.DiscardHandler)
	}
	if v.probeTimeout <= 0 {
		v.probeTimeout = DefaultProbeTimeout
	}
	if v.callTimeout <= 0 {
		v.callTimeout = DefaultCallTimeout
	}
	if v.kr == nil {
		// The guard reads the real environment: that is what godbus reads.
		v.kr = newOSKeyring(os.Getenv)
	}
	if raw := getenv(EnvMasterKey); raw != "" {
		key, err := parseMasterKey(raw)
		if err != nil {
			return nil, err
		}
		v.envKey = key
	} else {
		key, err := readMasterKeyFile(v.path(masterKeyFile))
		if err != nil {
			return nil, err
		}
		v.fileKey = key
	}
	v.files = newKeyFile(v.path(keysFile))
	v.openclaw = newDotEnv(openClawEnvPath(getenv))
	v.disc = v.loadDisconnected()
	v.kcNames = v.loadIndex()
	v.ctx, v.cancel = context.WithCancel(context.Background())

	force := opts.ForceFile || strings.EqualFold(strings.TrimSpace(getenv(EnvBackend)), "file")
	if force {
		v.backend = BackendFile
		v.detail = "the keychain is switched off (" + EnvBackend + "=file); keys are kept in an encrypted file"
		close(v.decided)
		return v, nil
	}
	v.backend = BackendKeychain
	v.detail = "checking whether the OS keychain answers"
	v.probing = true
	v.wg.Add(1)
	go v.probe()
	return v, nil
}

// Status reports the backend and why; it never waits.
func (v *Vault) Status() Status {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return Status{Backend: v.backend, Detail: v.detail, Probing: v.probing}
}

// OpenClawEnvPath is the OpenClaw .env the chain reads, so a caller can
// watch it and refresh listings when it changes ("" when no home is known).
func (v *Vault) OpenClawEnvPath() string { return v.openclaw.path }

// Close stops the background probe and verifier. Goroutines stuck inside
// a hung keychain call cannot be stopped; they are bounded and exit when
// the keychain answers.
func (v *Vault) Close() error {
	v.closeOne.Do(func() {
		v.cancel()
		v.wg.Wait()
	})
	return nil
}

// await blocks until the backend is chosen, the caller gives up, or the
// vault closes.
func (v *Vault) await(ctx context.Context) (Backend, error) {
	select {
	case <-v.decided:
	default:
		select {
		case <-v.decided:
		case <-ctx.Done():
			return "", fmt.Errorf("the vault is still checking the keychain: %w", ctx.Err())
		case <-v.ctx.Done():
			return "", ErrClosed
		}
	}
	if v.ctx.Err() != nil {
		return "", ErrClosed
	}
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.backend, nil
}

// changed tells the owner that presence or the backend changed. It is
// never called with a lock held.
func (v *Vault) changed() {
	if v.onChange != nil {
		v.onChange()
	}
}

func (v *Vault) path(name string) string { return filepath.Join(v.dir, name) }
