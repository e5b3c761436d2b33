package runtimes

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/vault"
)

// Ollama is keyless, so nothing of it belongs in the secrets vault (seed
// 002: connecting it stores nothing). It is set up by OLLAMA_BASE_URL in
// the environment or, for a local Ollama the environment does not name,
// by a setting outside the vault: the address the user saved, kept in the
// settings table. OllamaURL.Getenv overlays that setting on the
// environment, so every reader (the catalog, the vault's presence, the
// agents' readiness, the native router's base URL) sees one value and a
// Disconnect silences it as it silences the environment.

// OllamaEnv is the variable that sets Ollama up.
const OllamaEnv = "OLLAMA_BASE_URL"

// SettingOllamaURL is the settings key of the saved Ollama address.
const SettingOllamaURL = "ollama-base-url"

// maxOllamaURL bounds a saved address.
const maxOllamaURL = 2048

// OllamaURL is the saved Ollama address, held in memory so a read costs
// no query; Set persists it through save first.
type OllamaURL struct {
	save func(ctx context.Context, url string) error // "" deletes
	mu   sync.Mutex                                  // one Set at a time
	v    atomic.Pointer[string]
	env  atomic.Pointer[func(string) string] // the environment under the overlay
}

// SourceSetting is where a keyless Ollama's address comes from when it is
// the saved setting rather than the environment.
const SourceSetting = "setting"

// FromSetting reports that OLLAMA_BASE_URL, as the overlay answers it, is
// the saved address: the environment under the overlay does not set it.
func (o *OllamaURL) FromSetting() bool {
	if o == nil || o.Get() == "" {
		return false
	}
	env := o.env.Load()
	return env == nil || strings.TrimSpace((*env)(OllamaEnv)) == ""
}

// NewOllamaURL holds initial (the stored setting, "" for none) and saves
// changes with save.
func NewOllamaURL(initial string, save func(ctx context.Context, url string) error) *OllamaURL {
	o := &OllamaURL{save: save}
	o.v.Store(&initial)
	return o
}

// Get is the saved address ("" when none is saved).
func (o *OllamaURL) Get() string {
	if o == nil {
		return ""
	}
	return *o.v.Load()
}

// Set saves raw as the address ("" clears it). It must be an http(s) URL
// with a host and nothing secret in it (no user or password).
func (o *OllamaURL) Set(ctx context.Context, raw string) error {
	v, err := CheckOllamaURL(raw)
	if err != nil {
		return err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.save(ctx, v); err != nil {
		return err
	}
	o.v.Store(&v)
	return nil
}

// CheckOllamaURL trims and validates an address for Set; "" is allowed
// (it clears the setting).
func CheckOllamaURL(raw string) (string, error) {
	v := strings.TrimSpace(raw)
	if v == "" {
		return "", nil
	}
	u, err := url.Parse(v)
	switch {
	case len(v) > maxOllamaURL:
		return "", badRequest("the Ollama URL is longer than %d characters", maxOllamaURL)
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return "", badRequest("the Ollama URL must look like http://localhost:11434")
	case u.User != nil:
		return "", badRequest("the Ollama URL must not carry a user or password")
	}
	return strings.TrimRight(v, "/"), nil
}

// Getenv is next with OLLAMA_BASE_URL falling back to the saved address,
// so the environment wins and the setting fills in.
func (o *OllamaURL) Getenv(next func(string) string) func(string) string {
	o.env.Store(&next)
	return func(name string) string {
		v := next(name)
		if name == OllamaEnv && strings.TrimSpace(v) == "" {
			return o.Get()
		}
		return v
	}
}

// MoveOllamaOutOfVault moves an address an older Connect recorded in the
// vault into the setting (unless one is saved already) and deletes the
// vault's copy, so no Ollama state is left among the secrets.
func MoveOllamaOutOfVault(ctx context.Context, v *vault.Vault, o *OllamaURL) error {
	if v == nil || !v.Has(OllamaEnv) {
		return nil
	}
	old, ok := v.Get(ctx, OllamaEnv)
	if !ok {
		// Unreadable now (a keychain that timed out, say): keep it, and
		// try again at the next start rather than lose the address.
		return fmt.Errorf("read the vault's Ollama URL: unavailable")
	}
	if o.Get() == "" {
		if _, err := CheckOllamaURL(old); err == nil {
			if err := o.Set(ctx, old); err != nil {
				return fmt.Errorf("save the Ollama URL: %w", err)
			}
		}
	}
	if err := v.Delete(ctx, OllamaEnv); err != nil {
		return fmt.Errorf("delete the vault's Ollama URL: %w", err)
	}
	return nil
}

// OllamaURL is the saved Ollama address ("" when none is saved).
func (c *Catalog) OllamaURL() string { return c.opts.Ollama.Get() }

// SetOllamaURL saves the Ollama address ("" clears it) and answers the
// native runtime's recomputed state. The address is configuration, not a
// secret: it goes to the settings table, never the vault.
func (c *Catalog) SetOllamaURL(ctx context.Context, raw string) (ConnectionState, error) {
	if c.opts.Ollama == nil {
		return "", fmt.Errorf("this server cannot save an Ollama URL")
	}
	if err := c.opts.Ollama.Set(ctx, raw); err != nil {
		return "", err
	}
	c.opts.OnChange()
	return c.state(ctx, executor.Native), nil
}
