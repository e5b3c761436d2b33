package llm

import (
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/fakes/fakeprovider"
)

func TestProvidersInOrder(t *testing.T) {
	var ids []string
	for _, p := range config.Providers {
		ids = append(ids, p.ID)
	}
	if got := strings.Join(ids, ","); got != "anthropic,openai,openrouter,ollama,google,xai,groq,mistral,together,cerebras,moonshot" {
		t.Fatalf("order = %s", got)
	}
	for id, want := range map[string]string{"anthropic": "ANTHROPIC_API_KEY", "google": "GEMINI_API_KEY", "moonshot": "MOONSHOT_API_KEY", "ollama": "", "nope": ""} {
		if p, _ := config.ProviderByID(id); p.EnvVar != want {
			t.Errorf("EnvVar of %s = %q", id, p.EnvVar)
		}
	}
}

func TestDefaultBaseURLs(t *testing.T) {
	want := map[string]string{
		"anthropic":  "https://api.anthropic.com",
		"openai":     "https://api.openai.com/v1",
		"openrouter": "https://openrouter.ai/api/v1",
		"ollama":     "http://localhost:11434/v1",
		"google":     "https://generativelanguage.googleapis.com/v1beta/openai",
		"xai":        "https://api.x.ai/v1",
		"groq":       "https://api.groq.com/openai/v1",
		"mistral":    "https://api.mistral.ai/v1",
		"together":   "https://api.together.xyz/v1",
		"cerebras":   "https://api.cerebras.ai/v1",
		"moonshot":   "https://api.moonshot.ai/v1",
	}
	for _, p := range config.Providers {
		if got := base(p, nil); got != want[p.ID] {
			t.Errorf("%s: %s", p.ID, got)
		}
	}
}

func TestUnknownProvider(t *testing.T) {
	_, err := New("acme", "k", nil)
	if err == nil || err.Error() != "unknown provider: acme" {
		t.Fatalf("err = %v", err)
	}
	_, err = NewRouter([]Candidate{{Provider: "acme", Model: "x", Key: "k"}}, nil)
	if err == nil || err.Error() != "unknown provider: acme" {
		t.Fatalf("router err = %v", err)
	}
}

// Every provider follows its override variable: the request lands on the
// fake under the prefix the variable names.
func TestBaseURLOverrides(t *testing.T) {
	r := newRig(t)
	for _, p := range config.Providers {
		t.Run(p.ID, func(t *testing.T) {
			prefix := "/" + p.ID + "/v1"
			path := prefix + "/chat/completions"
			if family(p) == FamilyAnthropic {
				prefix, path = "/"+p.ID, "/"+p.ID+"/v1/messages"
			}
			env := map[string]string{p.BaseURLEnv: r.srv.URL + prefix + "/"}
			r.fake.Push(path, fakeprovider.Text("hi from "+p.ID))
			prov, err := New(p.ID, testKey, func(k string) string { return env[k] })
			if err != nil {
				t.Fatal(err)
			}
			if prov.ID() != p.ID {
				t.Errorf("ID = %s", prov.ID())
			}
			evs, err := run(t, prov, baseReq())
			if err != nil || textOf(evs, EvText) != "hi from "+p.ID {
				t.Fatalf("%v %v", evs, err)
			}
			if n := len(r.fake.RequestsTo(path)); n != 1 {
				t.Errorf("requests to %s = %d", path, n)
			}
		})
	}
}
