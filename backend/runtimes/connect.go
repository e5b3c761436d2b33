package runtimes

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/vault"
)

// UserError is a refusal with the HTTP status and words the API returns.
type UserError struct {
	Status int
	Msg    string
}

func (e *UserError) Error() string { return e.Msg }

func badRequest(format string, a ...any) error {
	return &UserError{Status: http.StatusBadRequest, Msg: fmt.Sprintf(format, a...)}
}

// ConnectResult is the answer to Connect and Disconnect.
type ConnectResult struct {
	OK              bool            `json:"ok"`
	ConnectionState ConnectionState `json:"connectionState"`
	LoginCommand    *string         `json:"loginCommand,omitempty"`
	Warning         string          `json:"warning,omitempty"`
}

// slotFor picks the vault slot a key goes to: the runtime's own env var, or
// the named provider's when the runtime accepts it. A keyless provider has
// no slot.
func slotFor(d Descriptor, provider string) (config.Provider, error) {
	if provider == "" {
		if d.EnvVar == nil {
			return config.Provider{}, badRequest("runtime '%s' takes no key", d.ID)
		}
		for _, id := range d.Providers {
			if p, _ := config.ProviderByID(id); p.EnvVar == *d.EnvVar {
				return p, nil
			}
		}
		return config.Provider{EnvVar: *d.EnvVar}, nil
	}
	p, ok := config.ProviderByID(provider)
	if !ok {
		return p, badRequest("unknown provider '%s'", provider)
	}
	for _, id := range d.Providers {
		if id == provider {
			return p, nil
		}
	}
	return p, badRequest("runtime '%s' does not use %s keys", d.ID, p.Name)
}

// Connect stores a key for a runtime (seed 002 steps 3 and 4). The key is
// trimmed and goes only to the vault. Codex connects by `codex login` and
// answers needs-login; a keyless provider (Ollama) is a no-op that stores
// nothing and re-reports the state (Ollama is set up by OLLAMA_BASE_URL or
// the saved address, see OllamaURL), lifting only an earlier Disconnect,
// which the user's Connect asks to undo. With no key but a provider, a key
// already resolvable from the environment or OpenClaw is reused.
func (c *Catalog) Connect(ctx context.Context, id executor.ID, apiKey, provider string) (ConnectResult, error) {
	d, ok := c.Descriptor(id)
	if !ok {
		return ConnectResult{}, ErrUnknownRuntime
	}
	if d.AuthKind == AuthOAuth {
		return ConnectResult{OK: true, ConnectionState: c.state(ctx, id), LoginCommand: d.LoginCommand}, nil
	}
	if d.AuthKind == AuthNone {
		return ConnectResult{OK: true, ConnectionState: c.state(ctx, id)}, nil
	}
	p, err := slotFor(d, provider)
	if err != nil {
		return ConnectResult{}, err
	}
	apiKey = strings.TrimSpace(apiKey)
	if p.Keyless() {
		return c.reconnected(ctx, d, p)
	}
	if apiKey == "" {
		if provider == "" {
			return ConnectResult{}, badRequest("apiKey is required")
		}
		existing, src := c.opts.Vault.Resolve(ctx, "", p.EnvVar)
		if src == "" || existing == "" {
			return ConnectResult{}, badRequest("no existing key found for %s — paste one to connect", provider)
		}
		apiKey = existing
	}
	if err := c.opts.Vault.Set(ctx, p.EnvVar, apiKey); err != nil {
		if errors.Is(err, vault.ErrInvalid) {
			return ConnectResult{}, badRequest("%v", err)
		}
		return ConnectResult{}, fmt.Errorf("store the key: %w", err)
	}
	return c.reconnected(ctx, d, p)
}

func (c *Catalog) reconnected(ctx context.Context, d Descriptor, p config.Provider) (ConnectResult, error) {
	if err := c.opts.Vault.SetDisconnected(string(d.ID), false); err != nil {
		return ConnectResult{}, fmt.Errorf("clear the disconnect: %w", err)
	}
	c.opts.OnChange()
	res := ConnectResult{OK: true, ConnectionState: c.state(ctx, d.ID)}
	if !p.Keyless() && c.opts.Vault.Presence(string(d.ID), p.EnvVar) == vault.SourceEnv {
		// The seed's order puts the environment first; say so rather than
		// let a pasted key look used when it is not.
		res.Warning = p.EnvVar + " is also set in Clawboo's environment, and that value is used before the stored key."
	}
	return res, nil
}

// Disconnect deletes every key slot the runtime reads and marks it
// disconnected, so ambient keys (environment, OpenClaw) do not silently
// re-credential it until the next Connect. The CLI stays installed.
func (c *Catalog) Disconnect(ctx context.Context, id executor.ID) (ConnectResult, error) {
	d, ok := c.Descriptor(id)
	if !ok {
		return ConnectResult{}, ErrUnknownRuntime
	}
	if d.AuthKind != AuthAPIKey && d.AuthKind != AuthAgent {
		return ConnectResult{OK: true, ConnectionState: c.state(ctx, id), LoginCommand: d.LoginCommand}, nil
	}
	for _, slot := range c.slots(d) {
		if err := c.opts.Vault.Delete(ctx, slot); err != nil {
			return ConnectResult{}, fmt.Errorf("delete the key: %w", err)
		}
	}
	if err := c.opts.Vault.SetDisconnected(string(id), true); err != nil {
		return ConnectResult{}, fmt.Errorf("record the disconnect: %w", err)
	}
	c.opts.OnChange()
	return ConnectResult{OK: true, ConnectionState: c.state(ctx, id)}, nil
}

// slots are every vault slot a runtime reads: its keys, and the base URLs
// of its keyless providers (which an older Connect recorded there).
func (c *Catalog) slots(d Descriptor) []string {
	out := d.slots()
	for _, id := range d.Providers {
		if p, ok := config.ProviderByID(id); ok && p.Keyless() {
			out = append(out, p.BaseURLEnv)
		}
	}
	return out
}

func (c *Catalog) state(ctx context.Context, id executor.ID) ConnectionState {
	e, _ := c.Entry(ctx, id)
	return e.ConnectionState
}
