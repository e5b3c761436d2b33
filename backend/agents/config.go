package agents

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/clawboo/desktop/backend/config"
)

// Limits of the native AgentConfig schema (seed 004).
const (
	MaxSystemPrompt  = 32 << 10 // bytes
	MaxFallbacks     = 4
	DefaultMaxTurns  = 16
	MaxMaxTurns      = 100
	MaxBudgetUSD     = 1e9
	maxIdentifierLen = 256
)

// TaskAccess is tools.tasks: the board attached read-write (true), not at
// all (false), or read-only ("read": list_tasks and get_task only). It
// crosses JSON exactly as the seed spells it.
type TaskAccess string

// Task access levels. The zero value is not one of them, so a stored
// config without tools.tasks fails validation instead of guessing.
const (
	TasksOn   TaskAccess = "on"
	TasksOff  TaskAccess = "off"
	TasksRead TaskAccess = "read"
)

// MarshalJSON writes true, false or "read".
func (t TaskAccess) MarshalJSON() ([]byte, error) {
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
func (t *TaskAccess) UnmarshalJSON(b []byte) error {
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

// Tools switches the native run's tool surface on and off.
type Tools struct {
	Memory   bool       `json:"memory"`
	Tools    bool       `json:"tools"`
	Tasks    TaskAccess `json:"tasks"`
	Teamchat bool       `json:"teamchat"`
	// Shell is optional and absent from the default, so absent means off:
	// a shell never arrives switched on.
	Shell  *bool    `json:"shell,omitempty"`
	Custom []string `json:"custom,omitempty"` // reserved
}

// Fallback is one routing fallback: tried, in order, when the primary
// fails before yielding anything.
type Fallback struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
}

// Config is the native runtime's per-agent configuration (seed 004's
// AgentConfig without the identity fields, which the agent row owns). It
// holds the env var NAME of the primary key, never a key.
type Config struct {
	SystemPrompt    string     `json:"systemPrompt"`
	PrimaryProvider string     `json:"primaryProvider"`
	PrimaryModel    string     `json:"primaryModel"`
	Fallbacks       []Fallback `json:"fallbacks,omitempty"`
	EnvVar          string     `json:"envVar"`
	Tools           Tools      `json:"tools"`
	ParticipantKind string     `json:"participantKind"`
	MaxTurns        int        `json:"maxTurns"`
	// BudgetUSD set mints an agent-scope hard-cap budget; nil keeps the
	// system's track-and-warn default.
	BudgetUSD *float64 `json:"budgetUsd"`
}

// DefaultSystemPrompt is the stable prompt tier of the default config.
const DefaultSystemPrompt = "You are a helpful, careful teammate working inside Clawboo. Be concise and say what you did."

// DefaultConfig is what an agent without a stored config runs with, and
// what a corrupt stored config falls back to: Anthropic's
// claude-haiku-4-5, read-only Tasks, the other tools on, no shell.
func DefaultConfig() Config {
	return Config{
		SystemPrompt:    DefaultSystemPrompt,
		PrimaryProvider: "anthropic",
		PrimaryModel:    "claude-haiku-4-5",
		EnvVar:          "ANTHROPIC_API_KEY",
		Tools:           Tools{Memory: true, Tools: true, Tasks: TasksRead, Teamchat: true},
		ParticipantKind: "agent",
		MaxTurns:        DefaultMaxTurns,
	}
}

// defaultModels are the specialist defaults per provider, used when an
// agent names a provider but no model. The first five are the reference's
// table; the rest are each provider's small general model.
var defaultModels = map[string]string{
	"anthropic":  "claude-haiku-4-5",
	"openai":     "gpt-4o-mini",
	"openrouter": "openai/gpt-4o-mini",
	"ollama":     "llama3.2",
	"google":     "gemini-2.0-flash",
	"xai":        "grok-3-mini",
	"groq":       "llama-3.3-70b-versatile",
	"mistral":    "mistral-small-latest",
	"together":   "meta-llama/Llama-3.3-70B-Instruct-Turbo",
	"cerebras":   "llama-3.3-70b",
	"moonshot":   "moonshot-v1-8k",
}

// DefaultModel is the model an agent on provider gets when none is named
// ("" for an unknown provider).
func DefaultModel(provider string) string { return defaultModels[provider] }

// envVarFor is the key slot of a known provider ("" for keyless Ollama or
// an unknown provider).
func envVarFor(provider string) string {
	p, _ := config.ProviderByID(provider)
	return p.EnvVar
}

var (
	envVarPattern   = regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,63}$`)
	providerPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
)

// ValidationError lists every problem of a config, by field, without
// echoing values (a key pasted into the wrong field must not come back).
type ValidationError struct{ Problems []string }

func (e *ValidationError) Error() string { return "invalid config: " + strings.Join(e.Problems, "; ") }

// Is makes a ValidationError match ErrInvalid.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalid }

// Validate checks c against the seed's schema. An unknown provider id is
// allowed (the schema accepts any string) and reported by Warnings.
func Validate(c Config) error {
	var p []string
	add := func(format string, a ...any) { p = append(p, fmt.Sprintf(format, a...)) }
	if len(c.SystemPrompt) > MaxSystemPrompt {
		add("systemPrompt is over %d bytes", MaxSystemPrompt)
	}
	if !providerPattern.MatchString(c.PrimaryProvider) {
		add("primaryProvider must be a provider id (lowercase letters, digits, '.', '_' or '-')")
	}
	if !validModel(c.PrimaryModel) {
		add("primaryModel must be a model name of 1 to %d printable characters", maxIdentifierLen)
	}
	if len(c.Fallbacks) > MaxFallbacks {
		add("at most %d fallbacks", MaxFallbacks)
	}
	for i, f := range c.Fallbacks {
		if !providerPattern.MatchString(f.Provider) {
			add("fallbacks[%d].provider must be a provider id", i)
		}
		if !validModel(f.Model) {
			add("fallbacks[%d].model must be a model name", i)
		}
	}
	if c.EnvVar != "" && !envVarPattern.MatchString(c.EnvVar) {
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
	if p != nil {
		return &ValidationError{Problems: p}
	}
	return nil
}

func validModel(m string) bool {
	if m == "" || len(m) > maxIdentifierLen {
		return false
	}
	for _, r := range m {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

// Warnings flags what the schema allows but routing will refuse: a
// provider id outside KNOWN_PROVIDERS.
func Warnings(c Config) []string {
	var out []string
	if _, ok := config.ProviderByID(c.PrimaryProvider); !ok && c.PrimaryProvider != "" {
		out = append(out, fmt.Sprintf("unknown provider '%s': runs will fail to route until it is one of the known providers", c.PrimaryProvider))
	}
	for i, f := range c.Fallbacks {
		if _, ok := config.ProviderByID(f.Provider); !ok && f.Provider != "" {
			out = append(out, fmt.Sprintf("fallbacks[%d]: unknown provider '%s' is skipped when routing", i, f.Provider))
		}
	}
	return out
}

// decodeOnto decodes a JSON object over base, so absent fields keep base's
// values. strict refuses unknown fields (API input); stored values are
// read leniently so a newer build's extra fields do not void them.
func decodeOnto(base Config, raw []byte, strict bool) (Config, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if strict {
		dec.DisallowUnknownFields()
	}
	c := base
	// Slices and the optional switch are replaced, never merged element
	// by element.
	c.Fallbacks = append([]Fallback(nil), base.Fallbacks...)
	c.Tools.Custom = append([]string(nil), base.Tools.Custom...)
	if err := dec.Decode(&c); err != nil {
		return Config{}, fmt.Errorf("%w: config: %s", ErrInvalid, jsonProblem(err))
	}
	if dec.More() {
		return Config{}, fmt.Errorf("%w: config: unexpected data after the object", ErrInvalid)
	}
	return c, nil
}

// jsonProblem describes a decoding error by position and field, never by
// the offending value.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		return fmt.Sprintf("%s must be a %s", te.Field, te.Type)
	case errors.As(err, &se):
		return fmt.Sprintf("malformed JSON at byte %d", se.Offset)
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		return strings.TrimPrefix(err.Error(), "json: ")
	case strings.Contains(err.Error(), "tools.tasks"):
		return `tools.tasks must be true, false or "read"`
	}
	return "must be a JSON object matching the agent config"
}

// ParseStored reads a stored config and validates it; any problem is an
// error (the caller falls back to the default).
func ParseStored(raw []byte) (Config, error) {
	c, err := decodeOnto(DefaultConfig(), raw, false)
	if err != nil {
		return Config{}, err
	}
	if err := Validate(c); err != nil {
		return Config{}, err
	}
	return c, nil
}
