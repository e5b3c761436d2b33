package native

import (
	"encoding/json"
	"testing"
)

// The JSON of AgentConfig is the stored column and the API's "config"
// object at once, so its shape is pinned here byte for byte: maxTurns and
// budgetUsd always present, shell and custom only when set, tasks as
// true/false/"read", teamchat spelled as the seed spells it.
func TestAgentConfigJSONShape(t *testing.T) {
	b, err := json.Marshal(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"systemPrompt":"` + DefaultSystemPrompt + `","primaryProvider":"anthropic","primaryModel":"claude-haiku-4-5",` +
		`"envVar":"ANTHROPIC_API_KEY","tools":{"memory":true,"tools":true,"tasks":"read","teamchat":true},` +
		`"participantKind":"agent","maxTurns":16,"budgetUsd":null}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	var back AgentConfig
	if err := json.Unmarshal(b, &back); err != nil || back.Validate() != nil || back.Tools.Tasks != TasksRead || !back.Tools.TeamChat {
		t.Fatalf("%+v %v", back, err)
	}
	if _, err := json.Marshal(AgentConfig{}); err == nil {
		t.Fatal("a config without tools.tasks encoded")
	}
}

// A run never uses a config that fails the schema: it gets the default.
func TestEffectiveConfig(t *testing.T) {
	good := DefaultConfig()
	good.PrimaryProvider, good.PrimaryModel, good.MaxTurns = "openai", "gpt-4o", 3
	if got := effective(good); got.PrimaryModel != "gpt-4o" || got.MaxTurns != 3 {
		t.Fatalf("valid config replaced: %+v", got)
	}
	for _, bad := range []AgentConfig{{}, {SystemPrompt: "broken"}, func() AgentConfig { c := good; c.MaxTurns = MaxMaxTurns + 1; return c }()} {
		if got := effective(bad); got.PrimaryModel != "claude-haiku-4-5" || got.SystemPrompt != DefaultSystemPrompt {
			t.Fatalf("%+v ran as %+v", bad, got)
		}
	}
}
