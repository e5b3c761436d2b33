package backend

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/adapters/openclaw"
	"github.com/clawboo/desktop/backend/api"
	"github.com/clawboo/desktop/backend/approval"
)

// TestOpenClawCardWakesOnApprovals: the card's status stream wakes when a
// Gateway exec approval is asked and again when it is settled (it shows
// the pending count), not only on connection changes.
func TestOpenClawCardWakesOnApprovals(t *testing.T) {
	b := e2eBackend(t, map[string]string{})
	if b.openClaw == nil {
		t.Fatal("the openclaw service is not wired")
	}
	wake := b.openClaw.SubscribeStatus()
	defer wake.Close()
	drain := func() {
		for {
			select {
			case <-wake.C():
			case <-time.After(100 * time.Millisecond):
				return
			}
		}
	}
	drain()
	waitWake := func(what string) {
		t.Helper()
		select {
		case <-wake.C():
		case <-time.After(5 * time.Second):
			t.Fatalf("no wake when %s", what)
		}
	}
	ctx := context.Background()
	done := make(chan bool, 1)
	go func() {
		ok, _ := b.openClaw.svc.Ask(ctx, openclaw.Question{Title: "OpenClaw asks to run a command", Command: "ls"}, time.Minute)
		done <- ok
	}()
	waitWake("the approval is asked")
	var ps []approval.Request
	for deadline := time.Now().Add(5 * time.Second); len(ps) == 0; time.Sleep(5 * time.Millisecond) {
		if ps, _ = b.Approvals.Pending(ctx); time.Now().After(deadline) {
			t.Fatal("no pending approval")
		}
	}
	drain()
	if _, err := b.Approvals.Resolve(ctx, ps[0].ID, approval.Approve, "page", ""); err != nil {
		t.Fatal(err)
	}
	if !<-done {
		t.Fatal("an approved request must allow")
	}
	waitWake("the approval is settled")
}

// TestOpenClawJSONIsTheAdapters: the API's card types are filled from the
// adapter's by struct conversion, which ignores tags; the JSON the UI sees
// must be the adapter's, field for field, and the card's keys are the ones
// frontend/src/lib/api reads.
func TestOpenClawJSONIsTheAdapters(t *testing.T) {
	var st openclaw.Status
	fill(reflect.ValueOf(&st).Elem())
	var act openclaw.Activity
	fill(reflect.ValueOf(&act).Elem())
	var reg openclaw.Registered
	fill(reflect.ValueOf(&reg).Elem())
	for _, c := range []struct {
		name         string
		adapter, api any
	}{
		{"status", st, toAPIStatus(st)},
		{"activity", act, toAPIActivity(act)},
		{"registered", reg, api.OpenClawRegistered(reg)},
		{"settings", st.Settings, api.OpenClawSettings(st.Settings)},
	} {
		a, err := json.Marshal(c.adapter)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(c.api)
		if err != nil {
			t.Fatal(err)
		}
		if string(a) != string(b) {
			t.Errorf("%s: the API's JSON differs from the adapter's\nadapter %s\napi     %s", c.name, a, b)
		}
	}
	var keys map[string]json.RawMessage
	b, _ := json.Marshal(toAPIStatus(st))
	if err := json.Unmarshal(b, &keys); err != nil {
		t.Fatal(err)
	}
	want := []string{"connection", "settings", "health", "defaultAgent", "agents", "liveRuns", "pendingApprovals", "mcpServers", "mcpRegistered"}
	if len(keys) != len(want) {
		t.Errorf("card keys %v, want %v", reflect.ValueOf(keys).MapKeys(), want)
	}
	for _, k := range want {
		if keys[k] == nil {
			t.Errorf("the card has no %q", k)
		}
	}
	// The zero card keeps its empty lists as [] and {} (the UI iterates them).
	var empty map[string]json.RawMessage
	b, _ = json.Marshal(toAPIStatus(openclaw.Status{Agents: []openclaw.Agent{}, MCPServers: map[string]string{}}))
	if json.Unmarshal(b, &empty); string(empty["agents"]) != "[]" || string(empty["mcpServers"]) != "{}" {
		t.Errorf("empty card %s", b)
	}
}

// fill sets every field it reaches to a non-zero value, so a field added
// to one side only shows in the JSON comparison.
func fill(v reflect.Value) {
	if v.Type() == reflect.TypeFor[json.RawMessage]() {
		v.SetBytes([]byte(`{"k":1}`))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("x-" + v.Type().Name())
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(7)
	case reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0))
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k)
		fill(e)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem())
		v.Set(p)
	}
}
