package vault

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/zalando/go-keyring"
)

// MaxSecretSize bounds a stored key; provider keys are far smaller, and
// keychains degrade (or refuse) with big values.
const MaxSecretSize = 8 << 10

// ErrInvalid matches (errors.Is) a refused name or secret: the caller's
// mistake (an HTTP 400), not a storage failure.
var ErrInvalid = errors.New("invalid vault input")

type invalidError string

func (e invalidError) Error() string        { return string(e) }
func (e invalidError) Is(target error) bool { return target == ErrInvalid }

// validName accepts environment variable names: ^[A-Z][A-Z0-9_]{0,63}$.
// A refused name is not echoed, in case a key was pasted into it.
func validName(name string) error {
	ok := len(name) >= 1 && len(name) <= 64 && name[0] >= 'A' && name[0] <= 'Z'
	for i := 1; ok && i < len(name); i++ {
		c := name[i]
		ok = c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
	}
	if !ok {
		return invalidError("invalid key name: use an environment variable name (A–Z, 0–9 and _, starting with a letter, at most 64 characters)")
	}
	return nil
}

// cleanSecret trims surrounding whitespace (a pasted key often ends in a
// newline) and refuses what cannot be a key. Messages name the slot only.
func cleanSecret(name, secret string) (string, error) {
	s := strings.TrimSpace(secret)
	switch {
	case s == "":
		return "", invalidError(name + ": the key is empty")
	case len(s) > MaxSecretSize:
		return "", invalidError(fmt.Sprintf("%s: the key is longer than %d KiB", name, MaxSecretSize>>10))
	case !utf8.ValidString(s):
		return "", invalidError(name + ": the key is not valid UTF-8 text")
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return "", invalidError(name + ": the key contains a line break or another control character")
	}
	return s, nil
}

// Set stores secret under name (an env var name such as
// ANTHROPIC_API_KEY) in the chosen backend, waiting (bounded by ctx) for
// the keychain probe if it is still running.
func (v *Vault) Set(ctx context.Context, name, secret string) error {
	if err := validName(name); err != nil {
		return err
	}
	secret, err := cleanSecret(name, secret)
	if err != nil {
		return err
	}
	b, err := v.await(ctx)
	if err != nil {
		return fmt.Errorf("store %s: %w", name, err)
	}
	had := v.Has(name)
	if b == BackendKeychain {
		_, err := v.kcall(ctx, v.callTimeout, func() (string, error) {
			return "", v.kr.Set(keychainService, name, secret)
		})
		if err != nil {
			return fmt.Errorf("store %s in the keychain: %w", name, scrub(err, secret))
		}
		v.mark(name, true)
		// An older copy in the file (from a start without a keychain)
		// must not resurface as a stale key if the keychain is later
		// unavailable.
		if v.files.has(name) {
			if err := v.fileDelete(name); err != nil {
				v.log.Warn("vault: cannot remove an older file copy of a key", "name", name, "err", err)
			}
		}
	} else if err := v.fileSet(name, secret); err != nil {
		return fmt.Errorf("store %s: %w", name, err)
	}
	if !had {
		v.changed()
	}
	return nil
}

// Delete removes name from the vault; deleting a missing key is not an
// error. With the keychain backend, a copy left in the encrypted file
// (from a start when the keychain was unavailable) is removed too, so the
// key cannot resurface.
func (v *Vault) Delete(ctx context.Context, name string) error {
	if err := validName(name); err != nil {
		return err
	}
	b, err := v.await(ctx)
	if err != nil {
		return fmt.Errorf("delete %s: %w", name, err)
	}
	had := v.Has(name)
	if b == BackendKeychain {
		_, err := v.kcall(ctx, v.callTimeout, func() (string, error) {
			return "", v.kr.Delete(keychainService, name)
		})
		if err != nil && !errors.Is(err, keyring.ErrNotFound) {
			return fmt.Errorf("delete %s from the keychain: %w", name, err)
		}
		v.mark(name, false)
		if v.files.has(name) {
			if err := v.fileDelete(name); err != nil {
				return fmt.Errorf("delete %s: %w", name, err)
			}
		}
	} else if err := v.fileDelete(name); err != nil {
		return fmt.Errorf("delete %s: %w", name, err)
	}
	if had {
		v.changed()
	}
	return nil
}

// Has reports whether name is stored, without decrypting or calling the
// keychain: the keychain index and the file's entries are in memory, so
// listings cost microseconds. With the keychain backend the encrypted
// file still counts: it is read as a fallback.
func (v *Vault) Has(name string) bool {
	if validName(name) != nil {
		return false
	}
	v.mu.RLock()
	kc := v.backend == BackendKeychain && v.kcNames[name]
	v.mu.RUnlock()
	return kc || v.files.has(name)
}

// Get returns the stored secret. It fails closed: any error (wrong master
// key, tampered file, keychain timeout, ctx done) gives ("", false).
func (v *Vault) Get(ctx context.Context, name string) (string, bool) {
	if validName(name) != nil {
		return "", false
	}
	b, err := v.await(ctx)
	if err != nil {
		return "", false
	}
	if b == BackendKeychain {
		ver := v.version(name)
		s, err := v.kcall(ctx, v.callTimeout, func() (string, error) {
			return v.kr.Get(keychainService, name)
		})
		switch {
		case err == nil && s != "":
			if v.observe(name, ver, true) {
				v.writeIndex()
				v.changed()
			}
			return s, true
		case err == nil || errors.Is(err, keyring.ErrNotFound):
			if v.observe(name, ver, false) {
				v.writeIndex()
				v.changed()
			}
			// Not in the keychain: fall through to the file, which may
			// hold keys from a start when the keychain was unavailable.
		default:
			v.log.Warn("vault: keychain read failed", "name", name, "err", err)
			return "", false
		}
	}
	return v.fileGet(name)
}
