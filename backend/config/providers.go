package config

import "strings"

// Provider is one model provider the native runtime can route to, and
// whose key the Runtimes panel can connect and verify. It is plain data
// shared by the vault (slot names), the runtime catalog (connect, health
// check), the agents' configs (default model, key slot) and the provider
// clients (backend/llm): this table is the one place these facts live.
type Provider struct {
	ID   string
	Name string
	// EnvVar is the key's vault slot and environment variable; empty for a
	// keyless provider (Ollama).
	EnvVar string
	// BaseURL is the API root the SDKs use (OpenAI-compatible providers end
	// in /v1 or their equivalent). Ollama's is its native root.
	BaseURL string
	// BaseURLEnv overrides BaseURL (for proxies and tests); the names the
	// official SDKs and CLIs already honour where they exist.
	BaseURLEnv string
	// OpenAICompatible providers speak the Chat Completions dialect; the
	// others (Anthropic) the Messages API.
	OpenAICompatible bool
	// DefaultModel is what an agent on this provider runs when it names
	// none: the reference's specialist defaults for the first five, each
	// provider's small general model for the rest.
	DefaultModel string
}

// Providers is KNOWN_PROVIDERS of seed 004, in its order (the order also
// decides an agent's default provider).
var Providers = []Provider{
	{ID: "anthropic", Name: "Anthropic", EnvVar: "ANTHROPIC_API_KEY", BaseURL: "https://api.anthropic.com", BaseURLEnv: "ANTHROPIC_BASE_URL", DefaultModel: "claude-haiku-4-5"},
	{ID: "openai", Name: "OpenAI", EnvVar: "OPENAI_API_KEY", BaseURL: "https://api.openai.com/v1", BaseURLEnv: "OPENAI_BASE_URL", OpenAICompatible: true, DefaultModel: "gpt-4o-mini"},
	{ID: "openrouter", Name: "OpenRouter", EnvVar: "OPENROUTER_API_KEY", BaseURL: "https://openrouter.ai/api/v1", BaseURLEnv: "OPENROUTER_BASE_URL", OpenAICompatible: true, DefaultModel: "openai/gpt-4o-mini"},
	{ID: "ollama", Name: "Ollama (local)", BaseURL: "http://localhost:11434", BaseURLEnv: "OLLAMA_BASE_URL", OpenAICompatible: true, DefaultModel: "llama3.2"},
	{ID: "google", Name: "Google Gemini", EnvVar: "GEMINI_API_KEY", BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai", BaseURLEnv: "GEMINI_BASE_URL", OpenAICompatible: true, DefaultModel: "gemini-2.0-flash"},
	{ID: "xai", Name: "xAI", EnvVar: "XAI_API_KEY", BaseURL: "https://api.x.ai/v1", BaseURLEnv: "XAI_BASE_URL", OpenAICompatible: true, DefaultModel: "grok-3-mini"},
	{ID: "groq", Name: "Groq", EnvVar: "GROQ_API_KEY", BaseURL: "https://api.groq.com/openai/v1", BaseURLEnv: "GROQ_BASE_URL", OpenAICompatible: true, DefaultModel: "llama-3.3-70b-versatile"},
	{ID: "mistral", Name: "Mistral", EnvVar: "MISTRAL_API_KEY", BaseURL: "https://api.mistral.ai/v1", BaseURLEnv: "MISTRAL_BASE_URL", OpenAICompatible: true, DefaultModel: "mistral-small-latest"},
	{ID: "together", Name: "Together AI", EnvVar: "TOGETHER_API_KEY", BaseURL: "https://api.together.xyz/v1", BaseURLEnv: "TOGETHER_BASE_URL", OpenAICompatible: true, DefaultModel: "meta-llama/Llama-3.3-70B-Instruct-Turbo"},
	{ID: "cerebras", Name: "Cerebras", EnvVar: "CEREBRAS_API_KEY", BaseURL: "https://api.cerebras.ai/v1", BaseURLEnv: "CEREBRAS_BASE_URL", OpenAICompatible: true, DefaultModel: "llama-3.3-70b"},
	{ID: "moonshot", Name: "Moonshot", EnvVar: "MOONSHOT_API_KEY", BaseURL: "https://api.moonshot.ai/v1", BaseURLEnv: "MOONSHOT_BASE_URL", OpenAICompatible: true, DefaultModel: "moonshot-v1-8k"},
}

// ProviderByID finds a known provider.
func ProviderByID(id string) (Provider, bool) {
	for _, p := range Providers {
		if p.ID == id {
			return p, true
		}
	}
	return Provider{}, false
}

// ProviderEnvVars are the key slots of every keyed provider, in order.
func ProviderEnvVars() []string {
	var out []string
	for _, p := range Providers {
		if p.EnvVar != "" {
			out = append(out, p.EnvVar)
		}
	}
	return out
}

// Keyless reports a provider that needs no key.
func (p Provider) Keyless() bool { return p.EnvVar == "" }

// Base is the provider's API root after the override variable, without a
// trailing slash.
func (p Provider) Base(getenv Getenv) string {
	if v := strings.TrimSpace(getenv(p.BaseURLEnv)); v != "" {
		return strings.TrimRight(v, "/")
	}
	return p.BaseURL
}
