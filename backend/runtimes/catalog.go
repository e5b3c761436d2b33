// Package runtimes is the runtime catalog: what each runtime is, whether it
// is installed and connected, and the public view GET /api/runtimes returns.
//
// Invariants:
//   - The catalog is data (descriptors), built by the composition root; there
//     is no global catalog.
//   - Nothing this package returns ever carries a secret: entries say whether
//     a credential exists, never what it is.
//   - clawboo-mock is never part of the public descriptor list ("available"),
//     even when it is offered as a runtime.
package runtimes

import (
	"context"
	"sync"

	"github.com/clawboo/desktop/backend/executor"
)

// AuthKind is how a runtime authenticates.
type AuthKind string

// Auth kinds.
const (
	AuthAPIKey AuthKind = "api-key"
	AuthOAuth  AuthKind = "oauth"
	AuthNone   AuthKind = "none"
)

// ConnectionState drives the runtime card in the UI.
type ConnectionState string

// Connection states (seed 002).
const (
	StateNotInstalled ConnectionState = "not-installed"
	StateNeedsAuth    ConnectionState = "needs-auth"
	StateNeedsLogin   ConnectionState = "needs-login"
	StateReady        ConnectionState = "ready"
)

// Descriptor is the static, public description of a runtime.
type Descriptor struct {
	ID             executor.ID `json:"id"`
	Name           string      `json:"name"`
	BuiltIn        bool        `json:"builtIn"`
	AuthKind       AuthKind    `json:"authKind"`
	EnvVar         *string     `json:"envVar"`
	AltEnvVars     []string    `json:"altEnvVars"`
	InstallCommand *string     `json:"installCommand"`
	DocsURL        string      `json:"docsUrl"`
	HealthBin      *string     `json:"healthBin"`
}

func ptr(s string) *string { return &s }

// Descriptors is the catalog of runtimes a user can connect (seed 002's
// per-runtime matrix). OpenClaw is connected differently and is not here.
func Descriptors() []Descriptor {
	return []Descriptor{
		{ID: executor.ClaudeCode, Name: "Claude Code", AuthKind: AuthAPIKey, EnvVar: ptr("ANTHROPIC_API_KEY"), AltEnvVars: []string{},
			InstallCommand: ptr("npm install -g @anthropic-ai/claude-code@2"), DocsURL: "https://docs.claude.com/en/docs/claude-code", HealthBin: ptr("claude")},
		{ID: executor.Codex, Name: "Codex", AuthKind: AuthOAuth, AltEnvVars: []string{},
			InstallCommand: ptr("npm install -g @openai/codex@0"), DocsURL: "https://developers.openai.com/codex/cli", HealthBin: ptr("codex")},
		{ID: executor.Hermes, Name: "Hermes", AuthKind: AuthAPIKey, EnvVar: ptr("OPENROUTER_API_KEY"), AltEnvVars: []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY"},
			InstallCommand: ptr("pipx install 'hermes-agent<1'"), DocsURL: "https://hermes-agent.nousresearch.com/docs", HealthBin: ptr("hermes")},
		{ID: executor.Native, Name: "Clawboo Native", BuiltIn: true, AuthKind: AuthAPIKey, EnvVar: ptr("ANTHROPIC_API_KEY"),
			AltEnvVars: []string{"OPENAI_API_KEY", "OPENROUTER_API_KEY"}, DocsURL: "https://docs.claw.boo/runtimes/native"},
	}
}

// mockDescriptor describes clawboo-mock for its runtimes[] entry only.
func mockDescriptor() Descriptor {
	return Descriptor{ID: executor.Mock, Name: "Mock (fault injection)", BuiltIn: true, AuthKind: AuthNone, AltEnvVars: []string{},
		DocsURL: "https://docs.claw.boo/reference/packages/adapters#mock-fault-injection"}
}

// Entry is one runtime as GET /api/runtimes lists it.
type Entry struct {
	Descriptor
	ParticipantKind string                `json:"participantKind"`
	Capabilities    executor.Capabilities `json:"capabilities"`
	Health          executor.Health       `json:"health"`
	Installed       bool                  `json:"installed"`
	BinPath         *string               `json:"binPath"`
	HasCredential   bool                  `json:"hasCredential"`
	ConnectionState ConnectionState       `json:"connectionState"`
}

// Listing is the body of GET /api/runtimes.
type Listing struct {
	Runtimes  []Entry      `json:"runtimes"`
	Available []Descriptor `json:"available"`
}

// Catalog answers what runtimes exist and what state they are in.
type Catalog struct {
	reg   *executor.Registry
	descs map[executor.ID]Descriptor
}

// NewCatalog builds the catalog over the registered adapters.
func NewCatalog(reg *executor.Registry) *Catalog {
	d := map[executor.ID]Descriptor{executor.Mock: mockDescriptor()}
	for _, x := range Descriptors() {
		d[x.ID] = x
	}
	return &Catalog{reg: reg, descs: d}
}

// DeriveState is seed 002's state table.
func DeriveState(installed bool, kind AuthKind, hasCredential, loggedIn bool) ConnectionState {
	switch {
	case !installed:
		return StateNotInstalled
	case kind == AuthNone:
		return StateReady
	case kind == AuthOAuth && loggedIn, kind == AuthAPIKey && hasCredential:
		return StateReady
	case kind == AuthOAuth:
		return StateNeedsLogin
	default:
		return StateNeedsAuth
	}
}

// List returns every registered runtime with its live health (probed
// concurrently, each bounded by executor.HealthTimeout) and the public
// catalog.
func (c *Catalog) List(ctx context.Context) Listing {
	adapters := c.reg.List()
	entries := make([]Entry, len(adapters))
	var wg sync.WaitGroup
	for i, a := range adapters {
		wg.Add(1)
		go func(i int, a executor.Adapter) {
			defer wg.Done()
			entries[i] = c.entry(ctx, a)
		}(i, a)
	}
	wg.Wait()
	return Listing{Runtimes: entries, Available: Descriptors()}
}

func (c *Catalog) entry(ctx context.Context, a executor.Adapter) Entry {
	d, ok := c.descs[a.ID()]
	if !ok {
		d = Descriptor{ID: a.ID(), Name: a.Name(), BuiltIn: true, AuthKind: AuthNone, AltEnvVars: []string{}}
	}
	e := Entry{
		Descriptor:      d,
		ParticipantKind: "agent",
		Capabilities:    a.Capabilities(),
		Health:          executor.ProbeHealth(ctx, a),
		Installed:       d.BuiltIn,
	}
	e.ConnectionState = DeriveState(e.Installed, d.AuthKind, e.HasCredential, false)
	return e
}
