package runtimes

import (
	"context"

	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/executor"
)

// Entry is one runtime as GET /api/runtimes lists it.
type Entry struct {
	Descriptor
	ParticipantKind string                `json:"participantKind"`
	Capabilities    executor.Capabilities `json:"capabilities"`
	Health          executor.Health       `json:"health"`
	Installed       bool                  `json:"installed"`
	BinPath         *string               `json:"binPath"`
	HasCredential   bool                  `json:"hasCredential"`
	// CredentialSource is where the credential comes from: env, vault,
	// openclaw, or login (Codex); null without one.
	CredentialSource *string         `json:"credentialSource"`
	LoggedIn         bool            `json:"loggedIn"`
	Disconnected     bool            `json:"disconnected"`
	ConnectionState  ConnectionState `json:"connectionState"`
	// CanRun says this build has the runtime's adapter.
	CanRun     bool             `json:"canRun"`
	Installing bool             `json:"installing"`
	Keys       []ProviderStatus `json:"keys"`
}

// ProviderStatus is one provider key slot of a runtime.
type ProviderStatus struct {
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	EnvVar    *string `json:"envVar"`
	Keyless   bool    `json:"keyless"`
	Connected bool    `json:"connected"`
	Source    *string `json:"source"`
}

func (c *Catalog) entry(ctx context.Context, d Descriptor) Entry {
	e := Entry{Descriptor: d, ParticipantKind: "agent", Keys: []ProviderStatus{}}
	adapter, registered := executor.Adapter(nil), false
	if c.opts.Registry != nil {
		adapter, registered = c.opts.Registry.Get(d.ID)
	}
	e.CanRun = registered
	c.mu.Lock()
	e.Installing = c.installing[d.ID]
	c.mu.Unlock()

	// Installed: built-in, or its binary resolves.
	if d.BuiltIn {
		e.Installed = true
	} else if d.HealthBin != nil {
		if p, ok := c.find(*d.HealthBin); ok {
			e.Installed, e.BinPath = true, &p
		}
	}
	if c.opts.Vault != nil {
		e.Disconnected = c.opts.Vault.Disconnected(string(d.ID))
	}

	// Credentials.
	switch d.AuthKind {
	case AuthOAuth:
		if c.codex.loggedIn() {
			e.LoggedIn, e.HasCredential = true, true
			e.CredentialSource = ptr("login")
		}
	case AuthAPIKey, AuthAgent:
		for _, p := range c.keySlots(d) {
			e.Keys = append(e.Keys, p)
			if p.Connected && !e.HasCredential {
				e.HasCredential, e.CredentialSource = true, p.Source
			}
		}
	}
	e.ConnectionState = DeriveState(e.Installed, d.AuthKind, e.HasCredential, e.LoggedIn)

	if registered {
		e.Capabilities = adapter.Capabilities()
		e.Health = executor.ProbeHealth(ctx, adapter)
	} else {
		// What a runtime can do is its adapter's word alone; one not
		// registered in this process (a catalog without a registry, in
		// tests: the composition root registers every runtime) claims
		// nothing.
		e.Capabilities = executor.Capabilities{Models: []string{}}
		e.Health = c.derivedHealth(d, e)
	}
	return e
}

// keySlots lists the provider slots a runtime can use and whether each is
// connected. A keyless provider (Ollama) is connected by its base URL: set
// in the environment (seed 004) or saved as a setting (OllamaURL, read
// through the environment overlay; it reports as "setting"); a Disconnect
// silences both, as it does ambient keys.
func (c *Catalog) keySlots(d Descriptor) []ProviderStatus {
	var out []ProviderStatus
	for _, id := range d.Providers {
		p, ok := config.ProviderByID(id)
		if !ok {
			continue
		}
		st := ProviderStatus{ID: p.ID, Name: p.Name, Keyless: p.Keyless()}
		if !p.Keyless() {
			st.EnvVar = ptr(p.EnvVar)
		}
		if c.opts.Vault != nil {
			if src := c.opts.Vault.Presence(string(d.ID), slotOf(p)); src != "" {
				st.Connected, st.Source = true, ptr(string(src))
				if p.Keyless() && src == "env" && c.opts.Ollama.FromSetting() {
					st.Source = ptr(SourceSetting)
				}
			}
		}
		out = append(out, st)
	}
	return out
}

// slotOf is the vault slot that says a provider is connected: its key, or
// for a keyless provider its base URL.
func slotOf(p config.Provider) string {
	if p.Keyless() {
		return p.BaseURLEnv
	}
	return p.EnvVar
}

// derivedHealth is the health of a runtime whose adapter is not in this
// process: CLI runtimes are healthy when their binary is found; the native
// runtime when any provider key (or a local Ollama) is connected.
func (c *Catalog) derivedHealth(d Descriptor, e Entry) executor.Health {
	switch {
	case d.HealthBin != nil && !e.Installed:
		return executor.Health{OK: false, Message: *d.HealthBin + " not found on PATH or in the user install folders"}
	case d.HealthBin != nil:
		return executor.Health{OK: true}
	case d.AuthKind == AuthAPIKey && !e.HasCredential:
		return executor.Health{OK: false, Message: "no provider key connected"}
	default:
		return executor.Health{OK: true}
	}
}
