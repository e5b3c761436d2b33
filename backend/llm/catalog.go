package llm

import (
	"fmt"
	"net/http"
	"strings"
)

// Family is the wire dialect a provider speaks, and so the SDK that
// serves it.
type Family string

// Families.
const (
	FamilyAnthropic Family = "anthropic" // Messages API (anthropic-sdk-go)
	FamilyOpenAI    Family = "openai"    // Chat Completions (openai-go)
)

// ProviderInfo is one row of KNOWN_PROVIDERS: where a provider lives and
// which variables name its key and its base-URL override. The override
// variables are the health check's, so a proxy set for one is used by both.
type ProviderInfo struct {
	ID         string
	EnvVar     string // key variable; empty for keyless Ollama
	BaseURL    string // default API root, without a trailing slash
	BaseURLEnv string // overrides BaseURL when set
	Family     Family
}

// Keyless reports whether the provider needs no key (Ollama).
func (p ProviderInfo) Keyless() bool { return p.EnvVar == "" }

// KnownProviders is seed 004's KNOWN_PROVIDERS in its order. It returns a
// fresh slice: the package keeps no mutable state.
func KnownProviders() []ProviderInfo {
	return []ProviderInfo{
		{ID: "anthropic", EnvVar: "ANTHROPIC_API_KEY", BaseURL: "https://api.anthropic.com", BaseURLEnv: "ANTHROPIC_BASE_URL", Family: FamilyAnthropic},
		{ID: "openai", EnvVar: "OPENAI_API_KEY", BaseURL: "https://api.openai.com/v1", BaseURLEnv: "OPENAI_BASE_URL", Family: FamilyOpenAI},
		{ID: "openrouter", EnvVar: "OPENROUTER_API_KEY", BaseURL: "https://openrouter.ai/api/v1", BaseURLEnv: "OPENROUTER_BASE_URL", Family: FamilyOpenAI},
		{ID: "ollama", BaseURL: "http://localhost:11434", BaseURLEnv: "OLLAMA_BASE_URL", Family: FamilyOpenAI},
		{ID: "google", EnvVar: "GEMINI_API_KEY", BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai", BaseURLEnv: "GEMINI_BASE_URL", Family: FamilyOpenAI},
		{ID: "xai", EnvVar: "XAI_API_KEY", BaseURL: "https://api.x.ai/v1", BaseURLEnv: "XAI_BASE_URL", Family: FamilyOpenAI},
		{ID: "groq", EnvVar: "GROQ_API_KEY", BaseURL: "https://api.groq.com/openai/v1", BaseURLEnv: "GROQ_BASE_URL", Family: FamilyOpenAI},
		{ID: "mistral", EnvVar: "MISTRAL_API_KEY", BaseURL: "https://api.mistral.ai/v1", BaseURLEnv: "MISTRAL_BASE_URL", Family: FamilyOpenAI},
		{ID: "together", EnvVar: "TOGETHER_API_KEY", BaseURL: "https://api.together.xyz/v1", BaseURLEnv: "TOGETHER_BASE_URL", Family: FamilyOpenAI},
		{ID: "cerebras", EnvVar: "CEREBRAS_API_KEY", BaseURL: "https://api.cerebras.ai/v1", BaseURLEnv: "CEREBRAS_BASE_URL", Family: FamilyOpenAI},
		{ID: "moonshot", EnvVar: "MOONSHOT_API_KEY", BaseURL: "https://api.moonshot.ai/v1", BaseURLEnv: "MOONSHOT_BASE_URL", Family: FamilyOpenAI},
	}
}

// Lookup finds a known provider by id.
func Lookup(id string) (ProviderInfo, bool) {
	for _, p := range KnownProviders() {
		if p.ID == id {
			return p, true
		}
	}
	return ProviderInfo{}, false
}

// EnvVarFor is the key variable of a provider: "" for Ollama and for ids
// that are not known.
func EnvVarFor(id string) string {
	p, _ := Lookup(id)
	return p.EnvVar
}

// Base is the provider's API root after its override variable, without a
// trailing slash. For Ollama it is the OpenAI-compatible root (…/v1),
// whether or not the override already ends in /v1; for Anthropic it is
// the host root the SDK appends v1/messages to.
func (p ProviderInfo) Base(getenv func(string) string) string {
	base := p.BaseURL
	if getenv != nil {
		if v := strings.TrimSpace(getenv(p.BaseURLEnv)); v != "" {
			base = v
		}
	}
	base = strings.TrimRight(base, "/")
	switch {
	case p.Keyless():
		return strings.TrimSuffix(base, "/v1") + "/v1"
	case p.Family == FamilyAnthropic:
		return strings.TrimSuffix(base, "/v1")
	}
	return base
}

// ollamaKey is what Ollama's OpenAI-compatible endpoint is given as a key;
// it ignores it, the SDK requires one.
const ollamaKey = "ollama"

// New returns the client of a known provider with key, its base URL read
// through getenv (nil reads nothing). SDK retries are off: the Router
// decides what happens after a failure. An id outside KnownProviders fails
// with "unknown provider: <id>".
func New(providerID, key string, getenv func(string) string) (Provider, error) {
	p, ok := Lookup(providerID)
	if !ok {
		return nil, fmt.Errorf("unknown provider: %s", providerID)
	}
	if p.Keyless() && key == "" {
		key = ollamaKey
	}
	hc := &http.Client{} // streams run as long as the model talks; ctx bounds them
	switch p.Family {
	case FamilyAnthropic:
		return newAnthropic(p.ID, p.Base(getenv), key, hc), nil
	default:
		return newOpenAI(p.ID, p.Base(getenv), key, hc), nil
	}
}
