package llm

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/clawboo/desktop/backend/config"
)

// Family is the wire dialect a provider speaks, and so the SDK that
// serves it.
type Family string

// Families.
const (
	FamilyAnthropic Family = "anthropic" // Messages API (anthropic-sdk-go)
	FamilyOpenAI    Family = "openai"    // Chat Completions (openai-go)
)

// family is the dialect of a known provider: config's table marks the
// OpenAI-compatible ones; the rest (Anthropic) speak Messages.
func family(p config.Provider) Family {
	if p.OpenAICompatible {
		return FamilyOpenAI
	}
	return FamilyAnthropic
}

// base is the provider's API root as its SDK wants it, after the override
// variable (config.Provider.Base): for Ollama the OpenAI-compatible root
// (…/v1), whether or not the override already ends in /v1; for Anthropic
// the host root the SDK appends v1/messages to. A nil getenv reads nothing.
func base(p config.Provider, getenv func(string) string) string {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	b := p.Base(getenv)
	switch {
	case p.Keyless():
		return strings.TrimSuffix(b, "/v1") + "/v1"
	case family(p) == FamilyAnthropic:
		return strings.TrimSuffix(b, "/v1")
	}
	return b
}

// ollamaKey is what Ollama's OpenAI-compatible endpoint is given as a key;
// it ignores it, the SDK requires one.
const ollamaKey = "ollama"

// New returns the client of a known provider with key, its base URL read
// through getenv (nil reads nothing). SDK retries are off: the Router
// decides what happens after a failure. An id outside config.Providers fails
// with "unknown provider: <id>".
func New(providerID, key string, getenv func(string) string) (Provider, error) {
	p, ok := config.ProviderByID(providerID)
	if !ok {
		return nil, fmt.Errorf("unknown provider: %s", providerID)
	}
	if p.Keyless() && key == "" {
		key = ollamaKey
	}
	hc := &http.Client{} // streams run as long as the model talks; ctx bounds them
	switch family(p) {
	case FamilyAnthropic:
		return newAnthropic(p.ID, base(p, getenv), key, hc), nil
	default:
		return newOpenAI(p.ID, base(p, getenv), key, hc), nil
	}
}
