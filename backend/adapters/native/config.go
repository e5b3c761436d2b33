package native

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"
)

// AgentConfig is the one native agent config: what the agents service
// stores (its JSON is the stored column and the API's "config" object, seed
// 004's AgentConfig without the identity fields the agent row owns) and
// what a run reads. It holds the env var NAME of the primary key, never a
// key. An ad-hoc run (no agent) and a stored agent without overrides both
// get DefaultConfig, so they cannot drift apart.
type AgentConfig struct {
	SystemPrompt    string       `json:"systemPrompt"`
	PrimaryProvider string       `json:"primaryProvider"`
	PrimaryModel    string       `json:"primaryModel"`
	Fallbacks       []Fallback   `json:"fallbacks,omitempty"`
	EnvVar          string       `json:"envVar"`
	Tools           ToolSwitches `json:"tools"`
	ParticipantKind string       `json:"participantKind"`
	MaxTurns        int          `json:"maxTurns"`
	// BudgetUSD set mints an agent-scope hard-cap budget (the agents
	// service keeps it); nil keeps the system's track-and-warn default.
	BudgetUSD *float64 `json:"budgetUsd"`
}

// Limits of the schema (seed 004).
const (
	MaxSystemPrompt  = 32 << 10 // bytes
	MaxFallbacks     = 4
	DefaultMaxTurns  = 16
	MaxMaxTurns      = 100
	MaxBudgetUSD     = 1e9
	MaxIdentifierLen = 256 // a provider id's or model name's bytes
)

// TasksAccess is tools.tasks: the board attached read-write, not at all,
// or read-only (list_tasks and get_task only). In JSON it is true, false or
// "read", as the seed spells it.
type TasksAccess string

// Task access levels. The zero value is not one of them, so a stored
// config without tools.tasks fails validation instead of guessing.
const (
	TasksOn   TasksAccess = "on"
	TasksOff  TasksAccess = "off"
	TasksRead TasksAccess = "read"
)

// MarshalJSON writes true, false or "read".
func (t TasksAccess) MarshalJSON() ([]byte, error) {
	switch t {
	case TasksOn:
		return []byte("true"), nil
	case TasksOff:
		return []byte("false"), nil
	case TasksRead:
		return []byte(`"read"`), nil
	}
	return nil, fmt.Errorf("tools.tasks: unknown value %q", string(t))
}

// UnmarshalJSON reads true, false or "read"; anything else is an error.
func (t *TasksAccess) UnmarshalJSON(b []byte) error {
	switch string(bytes.TrimSpace(b)) {
	case "true":
		*t = TasksOn
	case "false":
		*t = TasksOff
	case `"read"`:
		*t = TasksRead
	default:
		return errors.New(`tools.tasks must be true, false or "read"`)
	}
	return nil
}

// ToolSwitches are the tool surfaces an agent gets beyond the file tools.
type ToolSwitches struct {
	Memory   bool        `json:"memory"`
	Tools    bool        `json:"tools"`
	Tasks    TasksAccess `json:"tasks"`
	TeamChat bool        `json:"teamchat"`
	// Shell is the run_command switch, absent from the default, so absent
	// means off: a shell never arrives switched on (see shell.go for the
	// tool's other preconditions).
	Shell  *bool    `json:"shell,omitempty"`
	Custom []string `json:"custom,omitempty"` // reserved
}

// Fallback is one more provider and model to try, in order, when the
// primary fails before yielding anything (auth, rate limit, overload or
// network).
type Fallback struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
}

// DefaultSystemPrompt is the stable prompt tier of the default config (the
// UI's agent form shows the same words).
const DefaultSystemPrompt = "You are a helpful, careful teammate working inside Clawboo. Be concise and say what you did."

// DefaultConfig is what an agent without a stored config runs with, what a
// corrupt one falls back to, and what an ad-hoc run gets: Anthropic's
// claude-haiku-4-5, read-only Tasks, the other tools on, no shell.
func DefaultConfig() AgentConfig {
	return AgentConfig{
		SystemPrompt:    DefaultSystemPrompt,
		PrimaryProvider: "anthropic",
		PrimaryModel:    "claude-haiku-4-5",
		EnvVar:          "ANTHROPIC_API_KEY",
		Tools:           ToolSwitches{Memory: true, Tools: true, Tasks: TasksRead, TeamChat: true},
		ParticipantKind: "agent",
		MaxTurns:        DefaultMaxTurns,
	}
}

var (
	// Compiled on first use: counted repetitions compile to a state per
	// count, which cost start-up time as package-level vars.
	envVarPattern   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,63}$`) })
	providerPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`) })
)

// Problems lists, by field, what is wrong with c against the seed's
// schema, without echoing values (a key pasted into the wrong field must
// not come back). An unknown provider id is allowed here: the schema
// accepts any id, and the agents service warns about it.
func (c AgentConfig) Problems() []string {
	var p []string
	add := func(format string, a ...any) { p = append(p, fmt.Sprintf(format, a...)) }
	if len(c.SystemPrompt) > MaxSystemPrompt {
		add("systemPrompt is over %d bytes", MaxSystemPrompt)
	}
	if !ValidProviderID(c.PrimaryProvider) {
		add("primaryProvider must be a provider id (lowercase letters, digits, '.', '_' or '-')")
	}
	if !ValidModel(c.PrimaryModel) {
		add("primaryModel must be a model name of 1 to %d printable characters", MaxIdentifierLen)
	}
	if len(c.Fallbacks) > MaxFallbacks {
		add("at most %d fallbacks", MaxFallbacks)
	}
	for i, f := range c.Fallbacks {
		if !ValidProviderID(f.Provider) {
			add("fallbacks[%d].provider must be a provider id", i)
		}
		if !ValidModel(f.Model) {
			add("fallbacks[%d].model must be a model name", i)
		}
	}
	if c.EnvVar != "" && !envVarPattern().MatchString(c.EnvVar) {
		add("envVar must be an environment variable name (A-Z, 0-9, '_'), never a key")
	}
	switch c.Tools.Tasks {
	case TasksOn, TasksOff, TasksRead:
	default:
		add(`tools.tasks must be true, false or "read"`)
	}
	if len(c.Tools.Custom) > 64 {
		add("tools.custom holds at most 64 names")
	}
	if c.ParticipantKind == "" || len(c.ParticipantKind) > 32 {
		add("participantKind must be a short name ('agent')")
	}
	if c.MaxTurns < 1 || c.MaxTurns > MaxMaxTurns {
		add("maxTurns must be from 1 to %d", MaxMaxTurns)
	}
	if b := c.BudgetUSD; b != nil && (math.IsNaN(*b) || math.IsInf(*b, 0) || *b < 0 || *b > MaxBudgetUSD) {
		add("budgetUsd must be a non-negative amount or null")
	}
	return p
}

// Validate is Problems as an error (nil when there are none).
func (c AgentConfig) Validate() error {
	if p := c.Problems(); p != nil {
		return errors.New("invalid config: " + strings.Join(p, "; "))
	}
	return nil
}

// ValidProviderID reports a well-formed provider id (known or not); the
// agents service holds other runtimes' provider names to it too.
func ValidProviderID(id string) bool { return providerPattern().MatchString(id) }

// ValidModel reports a model name of 1 to MaxIdentifierLen printable
// characters.
func ValidModel(m string) bool {
	if m == "" || len(m) > MaxIdentifierLen {
		return false
	}
	for _, r := range m {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

// effective is the config a run uses: the host's if it validates (the
// agents service has already validated a stored one), the default
// otherwise, so a broken config can never stop an agent from running.
func effective(c AgentConfig) AgentConfig {
	if c.Validate() != nil {
		return DefaultConfig()
	}
	return c
}
