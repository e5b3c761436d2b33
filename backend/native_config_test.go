package backend

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/adapters/native"
	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/fakes/fakeprovider"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/supervisor"
)

// An ad-hoc native run (no agent) and a run of a stored agent created with
// no overrides get the same config, and so the same request on the wire:
// one type, one default (they once had two default prompts).
func TestNativeAdHocAndStoredAgentGetTheSameDefaults(t *testing.T) {
	fake := fakeprovider.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	b := nativeBackend(t, map[string]string{"ANTHROPIC_API_KEY": "sk-ant-test", "ANTHROPIC_BASE_URL": srv.URL})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	name, rt := "Plain", "clawboo-native"
	agent, err := b.Agents.Create(ctx, agents.Input{Name: &name, Runtime: &rt})
	if err != nil {
		t.Fatal(err)
	}
	adHoc, stored := b.nativeConfig(ctx, ""), b.nativeConfig(ctx, agent.ID)
	if !reflect.DeepEqual(adHoc, native.DefaultConfig()) || !reflect.DeepEqual(stored, adHoc) {
		t.Fatalf("ad hoc %+v\nstored %+v", adHoc, stored)
	}
	if agent.Config == nil || !reflect.DeepEqual(*agent.Config, adHoc) {
		t.Fatalf("the API's config %+v", agent.Config)
	}

	type wire struct {
		Model  string          `json:"model"`
		System json.RawMessage `json:"system"`
	}
	var seen []wire
	for _, agentID := range []string{"", agent.ID} {
		fake.Push("/v1/messages", fakeprovider.Text("done"))
		h, err := b.Supervisor.Start(ctx, supervisor.StartParams{RuntimeID: executor.Native, AgentID: agentID, Message: "hi", SessionKey: "agent:x:chat"})
		if err != nil {
			t.Fatal(err)
		}
		if run, err := h.Wait(ctx); err != nil || run.Status != store.RunSucceeded {
			t.Fatalf("agent %q: %+v %v", agentID, run, err)
		}
		reqs := fake.RequestsTo("/v1/messages")
		var w wire
		if err := reqs[len(reqs)-1].JSON(&w); err != nil {
			t.Fatal(err)
		}
		seen = append(seen, w)
	}
	if seen[0].Model != "claude-haiku-4-5" || string(seen[0].System) != string(seen[1].System) || seen[0].Model != seen[1].Model {
		t.Fatalf("ad hoc %s %s\nstored %s %s", seen[0].Model, seen[0].System, seen[1].Model, seen[1].System)
	}
}
