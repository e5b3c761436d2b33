package native

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// DefaultMaxTurns bounds a run whose config does not say.
const DefaultMaxTurns = 16

// maxMaxTurns keeps a hand-edited config from making a run unbounded.
const maxMaxTurns = 500

// TasksAccess is how much of the board an agent sees over clawboo-tasks.
// In JSON it is true, false or "read", as the seed's config stores it.
type TasksAccess string

// Tasks access levels.
const (
	TasksOff  TasksAccess = "off"
	TasksOn   TasksAccess = "on"
	TasksRead TasksAccess = "read" // list_tasks and get_task only
)

// MarshalJSON writes true, false or "read".
func (t TasksAccess) MarshalJSON() ([]byte, error) {
	switch t {
	case TasksOn:
		return []byte("true"), nil
	case TasksRead:
		return []byte(`"read"`), nil
	default:
		return []byte("false"), nil
	}
}

// UnmarshalJSON accepts true, false or "read" and nothing else.
func (t *TasksAccess) UnmarshalJSON(b []byte) error {
	switch strings.TrimSpace(string(b)) {
	case "true":
		*t = TasksOn
	case "false", "null":
		*t = TasksOff
	case `"read"`:
		*t = TasksRead
	default:
		return fmt.Errorf("tasks must be true, false or \"read\", not %s", b)
	}
	return nil
}

// ToolSwitches are the tool surfaces an agent gets beyond the file tools.
type ToolSwitches struct {
	Memory   bool        `json:"memory"`
	Tools    bool        `json:"tools"`
	Tasks    TasksAccess `json:"tasks"`
	TeamChat bool        `json:"teamchat"`
	// Shell is the run_command switch; absent means off (see shell.go for
	// the tool's other preconditions).
	Shell *bool `json:"shell,omitempty"`
}

// Fallback is one more provider and model to try when the primary is
// down (auth, rate limit, overload or network before any output).
type Fallback struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
}

// AgentConfig is one native agent's settings; the host loads it per agent
// and hands it over validated. SystemPrompt is the stable prompt tier.
type AgentConfig struct {
	SystemPrompt    string       `json:"systemPrompt"`
	PrimaryProvider string       `json:"primaryProvider"`
	PrimaryModel    string       `json:"primaryModel"`
	Fallbacks       []Fallback   `json:"fallbacks,omitempty"`
	EnvVar          string       `json:"envVar"`
	Tools           ToolSwitches `json:"tools"`
	MaxTurns        int          `json:"maxTurns,omitempty"`
	BudgetUSD       *float64     `json:"budgetUsd,omitempty"`
}

// DefaultSystemPrompt is the stable tier of an agent nobody configured.
const DefaultSystemPrompt = "You are a Clawboo agent. Work the task you are given carefully and report what you did in a short final answer."

// DefaultConfig is the config of an agent without one (or with a corrupt
// one): Anthropic's claude-haiku-4-5, the board read-only, the other MCP
// tools on, no shell.
func DefaultConfig() AgentConfig {
	return AgentConfig{
		SystemPrompt:    DefaultSystemPrompt,
		PrimaryProvider: "anthropic",
		PrimaryModel:    "claude-haiku-4-5",
		EnvVar:          "ANTHROPIC_API_KEY",
		Tools:           ToolSwitches{Memory: true, Tools: true, Tasks: TasksRead, TeamChat: true},
		MaxTurns:        DefaultMaxTurns,
	}
}

// Validate says what is wrong with a config, if anything.
func (c AgentConfig) Validate() error {
	var errs []error
	if strings.TrimSpace(c.PrimaryProvider) == "" {
		errs = append(errs, errors.New("primaryProvider is required"))
	}
	if strings.TrimSpace(c.PrimaryModel) == "" {
		errs = append(errs, errors.New("primaryModel is required"))
	}
	for i, f := range c.Fallbacks {
		if strings.TrimSpace(f.Provider) == "" || strings.TrimSpace(f.Model) == "" {
			errs = append(errs, fmt.Errorf("fallback %d needs a provider and a model", i))
		}
	}
	switch c.Tools.Tasks {
	case "", TasksOff, TasksOn, TasksRead:
	default:
		errs = append(errs, fmt.Errorf("tools.tasks %q is not true, false or \"read\"", string(c.Tools.Tasks)))
	}
	if c.MaxTurns < 0 || c.MaxTurns > maxMaxTurns {
		errs = append(errs, fmt.Errorf("maxTurns %d is outside 0..%d", c.MaxTurns, maxMaxTurns))
	}
	if c.BudgetUSD != nil && *c.BudgetUSD < 0 {
		errs = append(errs, errors.New("budgetUsd must not be negative"))
	}
	return errors.Join(errs...)
}

// withDefaults fills the optional fields.
func (c AgentConfig) withDefaults() AgentConfig {
	if c.MaxTurns == 0 {
		c.MaxTurns = DefaultMaxTurns
	}
	if c.Tools.Tasks == "" {
		c.Tools.Tasks = TasksOff
	}
	return c
}

// ParseConfig reads a stored config. A value that does not decode or does
// not validate gives DefaultConfig, so a corrupt setting can never stop an
// agent from running.
func ParseConfig(raw []byte) AgentConfig {
	var c AgentConfig
	if err := json.Unmarshal(raw, &c); err != nil || c.Validate() != nil {
		return DefaultConfig()
	}
	return c.withDefaults()
}

// effective is the config a run uses: the host's if it validates, the
// default otherwise.
func effective(c AgentConfig) AgentConfig {
	if c.Validate() != nil {
		return DefaultConfig()
	}
	return c.withDefaults()
}
