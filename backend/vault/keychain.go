package vault

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/zalando/go-keyring"
)

// keychainService is the service attribute of every keychain item; the
// user attribute is the env var name.
const keychainService = "clawboo"

// ErrKeychainTimeout matches (errors.Is) a keychain call that did not
// answer in time, typically a locked keyring waiting on an unlock prompt.
var ErrKeychainTimeout = errors.New("the keychain did not answer")

type timeoutError struct {
	after time.Duration
	busy  bool // no free slot: earlier calls are still stuck
}

func (e timeoutError) Error() string {
	if e.busy {
		return fmt.Sprintf("the keychain did not answer in %s — it may be locked (earlier calls are still waiting)", e.after)
	}
	return fmt.Sprintf("the keychain did not answer in %s — it may be locked", e.after)
}

func (e timeoutError) Is(target error) bool { return target == ErrKeychainTimeout }

// errNoSessionBus: on Linux without a session bus, godbus would autolaunch
// a dbus-daemon (and a keyring daemon) that outlive the process; the vault
// refuses instead.
var errNoSessionBus = errors.New("no D-Bus session bus")

var errProbeMismatch = errors.New("the keychain returned a different value than was stored")

// kcall runs one keychain operation in a worker goroutine bounded by
// timeout (and ctx). A worker stuck in a hung keychain cannot be
// cancelled, so workers hold a token from v.sem: at most maxKeychainCalls
// can ever be stuck, and callers beyond that get a timeout, not a hang.
func (v *Vault) kcall(ctx context.Context, timeout time.Duration, fn func() (string, error)) (string, error) {
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	select {
	case v.sem <- struct{}{}:
	case <-tctx.Done():
		return "", callErr(ctx, timeout, true)
	}
	type result struct {
		s   string
		err error
	}
	ch := make(chan result, 1)
	go func() {
		defer func() { <-v.sem }()
		defer func() {
			if p := recover(); p != nil {
				ch <- result{err: errors.New("the keychain library panicked")}
			}
		}()
		s, err := fn()
		ch <- result{s, err}
	}()
	select {
	case r := <-ch:
		return r.s, r.err
	case <-tctx.Done():
		return "", callErr(ctx, timeout, false)
	}
}

func callErr(ctx context.Context, timeout time.Duration, busy bool) error {
	if err := ctx.Err(); err != nil {
		return err // the caller gave up; not the keychain's fault
	}
	return timeoutError{after: timeout, busy: busy}
}

// scrub replaces a keychain error whose text contains the secret. No
// keychain is known to echo one, but the vault's promise must not depend
// on that. The vault's own errors (timeouts, ctx) cannot hold it.
func scrub(err error, secret string) error {
	if err == nil || errors.Is(err, ErrKeychainTimeout) || errors.Is(err, context.Canceled) ||
		errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), secret) {
		return err
	}
	return errors.New("the keychain refused the key (details withheld: they contained the key)")
}

// osKeyring is the real go-keyring, guarded against autolaunching a
// session bus on Linux.
type osKeyring struct{ busErr error }

func newOSKeyring(getenv func(string) string) Keyring {
	return osKeyring{busErr: sessionBusMissing(getenv)}
}

func (k osKeyring) Set(service, user, password string) error {
	if k.busErr != nil {
		return k.busErr
	}
	return keyring.Set(service, user, password)
}

func (k osKeyring) Get(service, user string) (string, error) {
	if k.busErr != nil {
		return "", k.busErr
	}
	return keyring.Get(service, user)
}

func (k osKeyring) Delete(service, user string) error {
	if k.busErr != nil {
		return k.busErr
	}
	return keyring.Delete(service, user)
}

// sessionBusMissing mirrors godbus's address discovery (the variable, then
// /run/user/<uid>/bus or dbus-session) on systems that use the Secret
// Service, and reports errNoSessionBus where godbus would autolaunch.
func sessionBusMissing(getenv func(string) string) error {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		return nil
	}
	if a := getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" && a != "autolaunch:" {
		return nil
	}
	run := filepath.Join("/run/user", strconv.Itoa(os.Getuid()))
	for _, name := range []string{"bus", "dbus-session"} {
		if _, err := os.Stat(filepath.Join(run, name)); err == nil {
			return nil
		}
	}
	return errNoSessionBus
}

// explain turns a probe failure into the plain words Status().Detail shows.
func explain(err error) string {
	var opErr *net.OpError
	msg := err.Error()
	var why string
	switch {
	case errors.Is(err, ErrKeychainTimeout):
		why = msg
	case errors.Is(err, errNoSessionBus):
		why = "no D-Bus session bus"
	case errors.As(err, &opErr):
		why = "the D-Bus session bus cannot be reached"
	case strings.Contains(msg, "org.freedesktop.secrets") || strings.Contains(msg, "not provided by any .service files"):
		why = "no Secret Service on the session bus"
	case strings.Contains(msg, "unlock"):
		why = "the login keyring is locked"
	default:
		why = msg
		if len(why) > 160 {
			why = why[:160] + "…"
		}
	}
	return "keychain unavailable (" + why + "); keys are kept in an encrypted file"
}
