package hermes

import (
	"testing"

	"github.com/clawboo/desktop/backend/config"
)

// Hermes's providers are config's, under Hermes's names: the key slot and
// default model come from the one provider table, in the order tried.
func TestProvidersAreConfigsUnderHermesNames(t *testing.T) {
	got := Providers()
	want := []struct{ flag, provider string }{{"openrouter", "openrouter"}, {"anthropic", "anthropic"}, {"openai-api", "openai"}}
	if len(got) != len(want) {
		t.Fatalf("%+v", got)
	}
	for i, w := range want {
		p, ok := config.ProviderByID(w.provider)
		if !ok || got[i].ID != w.flag || got[i].EnvVar != p.EnvVar || got[i].DefaultModel != p.DefaultModel || p.EnvVar == "" {
			t.Errorf("%d: %+v, config %+v", i, got[i], p)
		}
	}
	// A config naming either name finds the key; an unknown one none.
	for name, env := range map[string]string{"openai": "OPENAI_API_KEY", "OpenAI-API": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "nous": ""} {
		if v := envVarOf(name); v != env {
			t.Errorf("envVarOf(%s) = %q, want %q", name, v, env)
		}
	}
	c, ok := Choose("", "", func(v string) string {
		if v == "ANTHROPIC_API_KEY" {
			return "k"
		}
		return ""
	})
	if !ok || c.Flag != "anthropic" || c.Model != "claude-haiku-4-5" || c.EnvVar != "ANTHROPIC_API_KEY" {
		t.Fatalf("%+v", c)
	}
}
