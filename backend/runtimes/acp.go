package runtimes

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/proc"
	"github.com/clawboo/desktop/backend/slug"
)

// Families of runtimes, as GET /api/runtimes names them.
const (
	FamilyCLI    = "cli"    // a CLI adapted by hand (Claude Code, Codex, Hermes)
	FamilyNative = "native" // Clawboo's own loop
	FamilyACP    = "acp"    // any agent that speaks the Agent Client Protocol
	FamilyMock   = "mock"
)

// ACPPrefix begins every ACP runtime's id.
const ACPPrefix = "acp-"

// ACPCommand is how an ACP agent is started: a program (a name found on
// PATH or an absolute path) and its arguments, never a shell line, and the
// names of the keys it reads.
type ACPCommand struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
	EnvVars []string `json:"envVars"`
	// PassEnv are settings of the server's environment the agent reads
	// (its provider's base URL, its config folder), passed when set.
	PassEnv []string `json:"passEnv,omitempty"`
	// Custom says a person added it (it can be removed).
	Custom bool `json:"custom"`
}

// ACPDescriptors is the catalog of known ACP agents, listed whether they
// are installed or not (launch commands as each agent documents them).
func ACPDescriptors() []Descriptor {
	acp := func(id, name, command string, args []string, pkg, docs string, kind AuthKind, envVar string, providers ...string) Descriptor {
		d := Descriptor{
			ID: executor.ID(ACPPrefix + id), Name: name, Family: FamilyACP, AuthKind: kind, AltEnvVars: []string{},
			DocsURL: docs, HealthBin: ptr(command), Providers: append([]string{}, providers...),
			ACP: &ACPCommand{Command: command, Args: args, EnvVars: []string{}},
		}
		if envVar != "" {
			d.EnvVar, d.ACP.EnvVars = ptr(envVar), []string{envVar}
		}
		if pkg != "" {
			d.Installer, d.Package, d.InstallCommand = InstallNpm, pkg, ptr("npm install -g "+pkg)
		}
		return d
	}
	gemini := acp("gemini", "Gemini CLI", "gemini", []string{"--acp"}, "@google/gemini-cli@0", "https://github.com/google-gemini/gemini-cli", AuthAPIKey, "GEMINI_API_KEY", "google")
	opencode := acp("opencode", "OpenCode", "opencode", []string{"acp"}, "opencode-ai@1", "https://opencode.ai/docs/acp/", AuthAgent, "")
	opencode.ACP.EnvVars, opencode.LoginCommand = []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY"}, ptr("opencode auth login")
	copilot := acp("copilot", "GitHub Copilot CLI", "copilot", []string{"--acp"}, "@github/copilot@1", "https://docs.github.com/copilot/how-tos/copilot-cli", AuthAgent, "")
	copilot.LoginCommand = ptr("copilot (then /login)")
	claude := acp("claude", "Claude Code (ACP)", "claude-code-acp", []string{}, "@zed-industries/claude-code-acp@0", "https://github.com/zed-industries/claude-code-acp", AuthAPIKey, "ANTHROPIC_API_KEY", "anthropic")
	gemini.ACP.PassEnv = []string{"GOOGLE_GEMINI_BASE_URL", "GEMINI_CLI_HOME"}
	opencode.ACP.PassEnv = []string{"OPENCODE_CONFIG", "OPENCODE_CONFIG_DIR", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"}
	claude.ACP.PassEnv = []string{
		"ANTHROPIC_BASE_URL", "CLAUDE_CONFIG_DIR", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "DISABLE_AUTOUPDATER",
		"DISABLE_TELEMETRY", "DISABLE_ERROR_REPORTING", "CLAUDE_CODE_MAX_RETRIES",
	}
	goose := acp("goose", "Goose", "goose", []string{"acp"}, "", "https://block.github.io/goose/docs/getting-started/installation", AuthAgent, "")
	goose.LoginCommand = ptr("goose configure")
	return []Descriptor{gemini, opencode, copilot, claude, goose}
}

// Errors a custom ACP agent is refused with (400s).
var (
	ErrACPName    = errors.New("name is required (at most 60 characters)")
	ErrACPCommand = errors.New("command must be an absolute path to a program, or a program found on PATH")
	ErrACPShell   = errors.New("no shell syntax: the command and each argument are passed to the program as they are")
	ErrACPEnvName = errors.New("key names are variable names (A-Z, 0-9 and _), and not one Clawboo sets itself")
	ErrACPArgs    = errors.New("at most 32 arguments of at most 1,000 characters each")
)

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)

// shellSyntax is what would mean something only to a shell.
const shellSyntax = "|&;<>$`\\\"'*?[]{}~#()\n\r\x00"

// CustomACP checks a person's ACP agent and makes its descriptor: the
// program is found (absolute, or on PATH through find), nothing in it is
// shell syntax, and the key names are plain variable names. taken says
// whether an id is in use; the id is "acp-" and a slug of the name.
func CustomACP(name, command string, args, envVars []string, find func(string) (string, bool), taken func(executor.ID) bool) (Descriptor, error) {
	name, command = strings.TrimSpace(name), strings.TrimSpace(command)
	vars, err := checkACP(name, command, args, envVars, find)
	if err != nil {
		return Descriptor{}, err
	}
	id := executor.ID(ACPPrefix + slug.Of(name, "agent"))
	for n := 2; taken(id); n++ {
		id = executor.ID(fmt.Sprintf("%s%s-%d", ACPPrefix, slug.Of(name, "agent"), n))
	}
	return SavedACP(id, name, ACPCommand{Command: command, Args: args, EnvVars: vars}), nil
}

// ACPError is a refusal of a person's ACP agent, naming the field it is
// about as the API spells it (name, command, args, envVars), so the page
// puts the words by that field; errors.Is finds the ErrACP… inside.
type ACPError struct {
	Field string
	Err   error
}

func (e *ACPError) Error() string { return e.Err.Error() }
func (e *ACPError) Unwrap() error { return e.Err }

// checkACP checks each field of a person's ACP agent (name and command
// already trimmed) and returns its key names without repeats.
func checkACP(name, command string, args, envVars []string, find func(string) (string, bool)) ([]string, error) {
	if name == "" || len(name) > 60 || strings.ContainsAny(name, "\n\r\x00") {
		return nil, &ACPError{"name", ErrACPName}
	}
	if command == "" || strings.ContainsAny(command, shellSyntax+" \t") {
		return nil, &ACPError{"command", ErrACPShell}
	}
	if len(args) > 32 {
		return nil, &ACPError{"args", ErrACPArgs}
	}
	for _, a := range args {
		if len(a) > 1000 {
			return nil, &ACPError{"args", ErrACPArgs}
		}
		if strings.ContainsAny(a, shellSyntax) {
			return nil, &ACPError{"args", ErrACPShell}
		}
	}
	if err := checkProgram(command, find); err != nil {
		return nil, &ACPError{"command", err}
	}
	vars := []string{}
	for _, v := range envVars {
		// A provider's key (ANTHROPIC_API_KEY, …) may be named: the person
		// gives it to this program on purpose. Other host-owned names
		// (PATH, CLAUDE_CONFIG_DIR, LD_PRELOAD, …) may not.
		if !envName.MatchString(v) || (proc.HostOwned(v) && !providerKey(v)) || slices.Contains(proc.BaseEnv(), v) {
			return nil, &ACPError{"envVars", ErrACPEnvName}
		}
		if !slices.Contains(vars, v) {
			vars = append(vars, v)
		}
	}
	return vars, nil
}

// SavedACP is the descriptor of a person's ACP agent as it was stored
// (checked when it was added; its program may since have gone, and then
// it lists as not installed).
func SavedACP(id executor.ID, name string, c ACPCommand) Descriptor {
	health := c.Command
	c.Custom, c.Args, c.EnvVars = true, append([]string{}, c.Args...), append([]string{}, c.EnvVars...)
	return Descriptor{
		ID: id, Name: name, Family: FamilyACP, AuthKind: AuthAgent, AltEnvVars: []string{}, Providers: []string{},
		HealthBin: &health, DocsURL: "https://agentclientprotocol.com/", ACP: &c,
	}
}

// shells would run their arguments as a command line, which is what "no
// shell" rules out; so would env, which starts whatever follows it.
var shells = []string{"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "busybox", "env", "cmd", "cmd.exe", "powershell", "pwsh"}

// checkProgram: an absolute path must exist and be executable; a bare
// name must be found; a relative path with a folder is refused; a shell is
// refused however it is named.
func checkProgram(command string, find func(string) (string, bool)) error {
	if slices.Contains(shells, strings.ToLower(filepath.Base(command))) {
		return ErrACPShell
	}
	if filepath.IsAbs(command) {
		if !proc.IsExecutableFile(command) {
			return fmt.Errorf("%w: %s is not an executable file", ErrACPCommand, command)
		}
		return nil
	}
	if strings.ContainsRune(command, '/') {
		return ErrACPCommand
	}
	if _, ok := find(command); !ok {
		return fmt.Errorf("%w: %s was not found", ErrACPCommand, command)
	}
	return nil
}

// providerKey reports whether name is a provider's API key variable.
func providerKey(name string) bool {
	return slices.ContainsFunc(config.Providers, func(p config.Provider) bool { return p.EnvVar != "" && p.EnvVar == name })
}
