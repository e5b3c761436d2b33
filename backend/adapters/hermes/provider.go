package hermes

import (
	"encoding/json"
	"strings"

	"github.com/clawboo/desktop/backend/config"
)

// Provider is one provider Clawboo can hand Hermes a key for.
type Provider struct {
	ID     string // Hermes's --provider value
	EnvVar string // the key's variable (and vault slot)
	// DefaultModel is passed with -m when the provider was derived from a
	// key and the run names no model (Hermes's own default may belong to
	// another provider).
	DefaultModel string
}

// hermesNames are Hermes's --provider values for config's providers, in
// the order they are tried when no config names one. The key variable and
// the default model are config's (its provider table is the one copy).
var hermesNames = [...]struct{ flag, provider string }{
	{"openrouter", "openrouter"},
	{"anthropic", "anthropic"},
	{"openai-api", "openai"},
}

// Providers are the providers Clawboo can hand Hermes a key for, in the
// order tried.
func Providers() []Provider {
	out := make([]Provider, 0, len(hermesNames))
	for _, n := range hermesNames {
		p, _ := config.ProviderByID(n.provider)
		out = append(out, Provider{ID: n.flag, EnvVar: p.EnvVar, DefaultModel: p.DefaultModel})
	}
	return out
}

// envVarOf maps a config's provider name (Hermes's or config's) to its key.
func envVarOf(provider string) string {
	for _, n := range hermesNames {
		if strings.EqualFold(provider, n.flag) || strings.EqualFold(provider, n.provider) {
			p, _ := config.ProviderByID(n.provider)
			return p.EnvVar
		}
	}
	return ""
}

// keyVar reports a provider key variable, which only the chosen provider's
// key may reach the child as.
func keyVar(name string) bool {
	for _, p := range Providers() {
		if p.EnvVar == name {
			return true
		}
	}
	return false
}

// Choice is how a run reaches a model.
type Choice struct {
	Flag   string // --provider value; "" passes none (the config decides)
	EnvVar string // the one key variable the child gets ("" for none)
	Key    string // its value; never logged
	Model  string // -m value; "" passes none
	// Configured is the provider the home's config.yaml names, if any.
	Configured string
}

// Choose picks the provider: a provider named in the home's config.yaml
// wins (no --provider flag; that provider's key is passed when Clawboo has
// it); otherwise the first connected key in Providers order, with its
// default model unless the run names one. ok is false when neither exists.
func Choose(configured, model string, key func(envVar string) string) (c Choice, ok bool) {
	if configured != "" && !strings.EqualFold(configured, "auto") {
		c = Choice{Configured: configured, Model: model}
		if v := envVarOf(configured); v != "" {
			if k := key(v); k != "" {
				c.EnvVar, c.Key = v, k
			}
		}
		return c, true
	}
	for _, p := range Providers() {
		if k := key(p.EnvVar); k != "" {
			c = Choice{Flag: p.ID, EnvVar: p.EnvVar, Key: k, Model: model}
			if c.Model == "" {
				c.Model = p.DefaultModel
			}
			return c, true
		}
	}
	return Choice{Model: model}, false
}

// handle is the resume handle the host stores: the Hermes session id and
// the agent whose home holds that session (a session lives in one
// HERMES_HOME, so another agent's run must not try to resume it).
type handle struct {
	Agent   string `json:"agent,omitempty"`
	Session string `json:"session"`
}

func encodeHandle(agent, session string) string {
	b, _ := json.Marshal(handle{Agent: agent, Session: session})
	return string(b)
}

// decodeHandle reads a handle; a bare id (not JSON) is a session of an
// unknown agent.
func decodeHandle(s string) handle {
	s = strings.TrimSpace(s)
	var h handle
	if strings.HasPrefix(s, "{") {
		if json.Unmarshal([]byte(s), &h) == nil {
			return h
		}
		return handle{}
	}
	return handle{Session: s}
}

// usableSession is a session id safe to pass as an argument value.
func usableSession(id string) bool {
	return id != "" && len(id) <= 200 && !strings.HasPrefix(id, "-") && !strings.ContainsAny(id, " \t\r\n\x00")
}
