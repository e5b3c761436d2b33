package config

import "testing"

// The table is the one source of each provider's facts, so every row must
// carry all of them: a key slot (but Ollama's), an API root with its
// override variable, and the default model an agent gets.
func TestProvidersTableIsComplete(t *testing.T) {
	if len(Providers) != 11 || Providers[0].ID != "anthropic" {
		t.Fatalf("KNOWN_PROVIDERS is eleven, Anthropic first: %d", len(Providers))
	}
	for _, p := range Providers {
		if p.Name == "" || p.BaseURL == "" || p.BaseURLEnv == "" || p.DefaultModel == "" {
			t.Errorf("%s: incomplete row %+v", p.ID, p)
		}
		if p.Keyless() != (p.ID == "ollama") {
			t.Errorf("%s: only Ollama is keyless", p.ID)
		}
		if p.OpenAICompatible == (p.ID == "anthropic") {
			t.Errorf("%s: only Anthropic speaks Messages", p.ID)
		}
		if got, ok := ProviderByID(p.ID); !ok || got.EnvVar != p.EnvVar {
			t.Errorf("ProviderByID(%s) = %+v %v", p.ID, got, ok)
		}
	}
	if _, ok := ProviderByID("acme"); ok {
		t.Error("acme is not a provider")
	}
}
