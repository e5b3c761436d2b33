package vault

import (
	"context"
	"errors"
	"sort"
	"strings"
)

// Task secrets are the user's own named values (a test account's token, a
// staging database URL) that a board task asks for by name. They live in
// the same backends as provider keys, under the slot "TASK__<NAME>", so a
// task that names a secret can never be handed a provider key (naming
// ANTHROPIC_API_KEY reads TASK__ANTHROPIC_API_KEY), and the provider-key
// resolution never sees a task secret.
const taskSecretPrefix = "TASK__"

// MaxTaskSecretName bounds a task secret's name (the slot adds the prefix
// to the 64 characters a slot may have).
const MaxTaskSecretName = 64 - len(taskSecretPrefix)

// TaskSecretName checks a task secret's name: an environment variable name
// (A–Z, 0–9 and _, starting with a letter) of at most MaxTaskSecretName
// characters. Which names the host keeps for itself is the caller's rule.
func TaskSecretName(name string) error {
	if len(name) > MaxTaskSecretName {
		return invalidError("invalid secret name: at most 58 characters")
	}
	if err := validName(name); err != nil {
		return invalidError("invalid secret name: use an environment variable name (A–Z, 0–9 and _, starting with a letter)")
	}
	return nil
}

// SetTaskSecret stores a task secret's value under its name.
func (v *Vault) SetTaskSecret(ctx context.Context, name, value string) error {
	if err := TaskSecretName(name); err != nil {
		return err
	}
	if t := strings.TrimSpace(value); t != "" && len(t) < 4 {
		// Output is scrubbed of a task secret's value (redact.Values,
		// which skips shorter ones): a shorter value cannot be hidden.
		return invalidError(name + ": the value is shorter than 4 characters")
	}
	err := v.Set(ctx, taskSecretPrefix+name, value)
	if err != nil && errors.Is(err, ErrInvalid) {
		// Say it in the secret's words: its name, "the value".
		msg := strings.ReplaceAll(err.Error(), taskSecretPrefix+name, name)
		return invalidError(strings.ReplaceAll(msg, "the key", "the value"))
	}
	return err
}

// DeleteTaskSecret removes a task secret; a missing one is not an error.
func (v *Vault) DeleteTaskSecret(ctx context.Context, name string) error {
	if err := TaskSecretName(name); err != nil {
		return err
	}
	return v.Delete(ctx, taskSecretPrefix+name)
}

// TaskSecret reads a task secret's value; it fails closed like Get. Only
// the vault is read: a task secret never comes from the process
// environment or OpenClaw's .env.
func (v *Vault) TaskSecret(ctx context.Context, name string) (string, bool) {
	if TaskSecretName(name) != nil {
		return "", false
	}
	return v.Get(ctx, taskSecretPrefix+name)
}

// HasTaskSecret reports whether a task secret is stored, from memory.
func (v *Vault) HasTaskSecret(name string) bool {
	return TaskSecretName(name) == nil && v.Has(taskSecretPrefix+name)
}

// TaskSecretNames lists the stored task secrets' names, sorted, from
// memory (the keychain index and the file's entries): no value is read.
func (v *Vault) TaskSecretNames() []string {
	seen := map[string]bool{}
	v.mu.RLock()
	if v.backend == BackendKeychain {
		for n := range v.kcNames {
			seen[n] = true
		}
	}
	v.mu.RUnlock()
	_, names := v.files.snapshot()
	for n := range names {
		seen[n] = true
	}
	out := []string{}
	for n := range seen {
		if rest, ok := strings.CutPrefix(n, taskSecretPrefix); ok && TaskSecretName(rest) == nil {
			out = append(out, rest)
		}
	}
	sort.Strings(out)
	return out
}
