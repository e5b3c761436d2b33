package runtimes

import (
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/executor"
)

// AuthKind is how a runtime authenticates.
type AuthKind string

// Auth kinds.
const (
	AuthAPIKey AuthKind = "api-key"
	AuthOAuth  AuthKind = "oauth"
	AuthNone   AuthKind = "none"
	// AuthAgent: the agent keeps its own login (its LoginCommand); Clawboo
	// cannot see it, so the runtime is ready once installed, and keys in
	// its slots are passed when connected.
	AuthAgent AuthKind = "agent-login"
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

// Installer is how a CLI runtime is installed.
type Installer string

// Installers.
const (
	InstallNpm Installer = "npm"
	InstallPip Installer = "pip"
)

// Descriptor is the static, public description of a runtime.
type Descriptor struct {
	ID             executor.ID `json:"id"`
	Name           string      `json:"name"`
	Family         string      `json:"family"`
	BuiltIn        bool        `json:"builtIn"`
	AuthKind       AuthKind    `json:"authKind"`
	EnvVar         *string     `json:"envVar"`
	AltEnvVars     []string    `json:"altEnvVars"`
	InstallCommand *string     `json:"installCommand"`
	DocsURL        string      `json:"docsUrl"`
	HealthBin      *string     `json:"healthBin"`
	LoginCommand   *string     `json:"loginCommand"`
	// Installer and Package drive Install; the command above is what a
	// person would type.
	Installer Installer `json:"-"`
	Package   string    `json:"-"`
	// Providers a key can be connected for (built-in native: all of them).
	Providers []string `json:"providers"`
	// ACP is how an ACP agent is started (family acp only).
	ACP *ACPCommand `json:"acp,omitempty"`
}

func ptr(s string) *string { return &s }

// slots are the vault slots a runtime reads: its env var and the alternates.
func (d Descriptor) slots() []string {
	var out []string
	if d.EnvVar != nil {
		out = append(out, *d.EnvVar)
	}
	return append(out, d.AltEnvVars...)
}

// Descriptors is the catalog of connectable runtimes (seed 002's
// per-runtime matrix) and the ACP agents' (ACPDescriptors). OpenClaw is
// connected differently and is not here; a person's own ACP agents are
// added to a Catalog as it runs (AddACP).
func Descriptors() []Descriptor {
	return append(builtinDescriptors(), ACPDescriptors()...)
}

func builtinDescriptors() []Descriptor {
	var nativeAlt, nativeProviders []string
	for _, p := range config.Providers {
		nativeProviders = append(nativeProviders, p.ID)
		if p.EnvVar != "" && p.EnvVar != "ANTHROPIC_API_KEY" {
			nativeAlt = append(nativeAlt, p.EnvVar)
		}
	}
	return []Descriptor{
		{
			ID: executor.ClaudeCode, Name: "Claude Code", Family: FamilyCLI, AuthKind: AuthAPIKey, EnvVar: ptr("ANTHROPIC_API_KEY"), AltEnvVars: []string{},
			InstallCommand: ptr("npm install -g @anthropic-ai/claude-code@2"), Installer: InstallNpm, Package: "@anthropic-ai/claude-code@2",
			DocsURL: "https://docs.claude.com/en/docs/claude-code/overview", HealthBin: ptr("claude"), Providers: []string{"anthropic"},
		},
		{
			ID: executor.Codex, Name: "Codex", Family: FamilyCLI, AuthKind: AuthOAuth, AltEnvVars: []string{},
			InstallCommand: ptr("npm install -g @openai/codex@0"), Installer: InstallNpm, Package: "@openai/codex@0",
			DocsURL: "https://developers.openai.com/codex/cli", HealthBin: ptr("codex"), LoginCommand: ptr("codex login"), Providers: []string{},
		},
		{
			ID: executor.Hermes, Name: "Hermes", Family: FamilyCLI, AuthKind: AuthAPIKey, EnvVar: ptr("OPENROUTER_API_KEY"), AltEnvVars: []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY"},
			InstallCommand: ptr("pipx install 'hermes-agent<1'"), Installer: InstallPip, Package: "hermes-agent<1",
			DocsURL: "https://hermes-agent.nousresearch.com/docs", HealthBin: ptr("hermes"), Providers: []string{"openrouter", "anthropic", "openai"},
		},
		{
			ID: executor.Native, Name: "Clawboo Native", Family: FamilyNative, BuiltIn: true, AuthKind: AuthAPIKey, EnvVar: ptr("ANTHROPIC_API_KEY"),
			AltEnvVars: nativeAlt, DocsURL: "https://docs.claw.boo/runtimes/native", Providers: nativeProviders,
		},
	}
}

// mockDescriptor describes clawboo-mock for its runtimes[] entry only.
func mockDescriptor() Descriptor {
	return Descriptor{
		ID: executor.Mock, Name: "Mock (fault injection)", Family: FamilyMock, BuiltIn: true, AuthKind: AuthNone, AltEnvVars: []string{},
		DocsURL: "https://docs.claw.boo/reference/packages/adapters", Providers: []string{},
	}
}

// DeriveState is seed 002's state table.
func DeriveState(installed bool, kind AuthKind, hasCredential, loggedIn bool) ConnectionState {
	switch {
	case !installed:
		return StateNotInstalled
	case kind == AuthNone, kind == AuthAgent:
		return StateReady
	case kind == AuthOAuth && loggedIn, kind == AuthAPIKey && hasCredential:
		return StateReady
	case kind == AuthOAuth:
		return StateNeedsLogin
	default:
		return StateNeedsAuth
	}
}
