package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/executor"
)

// fakeOpenClaw is a scripted OpenClawService.
type fakeOpenClaw struct {
	mu       sync.Mutex
	settings OpenClawSettings
	updates  []OpenClawSettingsUpdate
	baseURL  string
	feed     *bus.Broker[OpenClawActivity]
	wake     *bus.Broker[struct{}]
}

func (f *fakeOpenClaw) Settings(context.Context) OpenClawSettings {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.settings
}

func (f *fakeOpenClaw) SaveSettings(_ context.Context, u OpenClawSettingsUpdate) (OpenClawSettings, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.updates = append(f.updates, u)
	if u.URL != nil && *u.URL == "nope" {
		return OpenClawSettings{}, fmt.Errorf("%w: the Gateway URL must be ws://", ErrOpenClawSettings)
	}
	if u.URL != nil {
		f.settings.URL = *u.URL
	}
	if u.Token != nil {
		f.settings.TokenSet, f.settings.TokenMasked = *u.Token != "", "••••"+(*u.Token)[max(0, len(*u.Token)-4):]
	}
	return f.settings, nil
}

func (f *fakeOpenClaw) Status(context.Context) OpenClawStatus {
	return OpenClawStatus{Connection: OpenClawConnection{Status: "connected"}}
}

func (f *fakeOpenClaw) SubscribeStatus() *bus.Subscription[struct{}] { return f.wake.Subscribe(1) }

func (f *fakeOpenClaw) RegisterMCP(_ context.Context, baseURL string) (OpenClawRegistered, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.baseURL = baseURL
	return OpenClawRegistered{Servers: []string{"clawboo-tasks", "clawboo-memory", "clawboo-tools"}}, nil
}

func (f *fakeOpenClaw) Activity() []OpenClawActivity {
	return []OpenClawActivity{{SessionKey: "agent:main:cron", Event: executor.Event{Kind: executor.KindToolCall, Name: "exec"}}}
}

func (f *fakeOpenClaw) SubscribeActivity() *bus.Subscription[OpenClawActivity] {
	return f.feed.Subscribe(4)
}

func TestOpenClawRoutesWithoutAServiceAre503(t *testing.T) {
	f := newFixture(t, nil)
	for _, p := range []string{"/api/openclaw/settings", "/api/openclaw/status", "/api/openclaw/activity"} {
		if code, _, b := f.do(t, "GET", p, ""); code != http.StatusServiceUnavailable || errorOf(t, b) == "" {
			t.Fatalf("%s: %d %s", p, code, b)
		}
	}
}

func TestOpenClawRoutes(t *testing.T) {
	f := newFixture(t, nil)
	svc := &fakeOpenClaw{feed: bus.New[OpenClawActivity](0), wake: bus.New[struct{}](0)}
	defer svc.feed.Close()
	defer svc.wake.Close()
	f.api.opts.OpenClaw = svc

	code, _, b := f.do(t, "PUT", "/api/openclaw/settings", `{"url":"  ws://127.0.0.1:18789 ","token":" secret-token-abcd\n"}`)
	s := decode[OpenClawSettings](t, b)
	if code != http.StatusOK || s.URL != "ws://127.0.0.1:18789" || !s.TokenSet || s.TokenMasked != "••••abcd" {
		t.Fatalf("put %d %s", code, b)
	}
	if u := svc.updates[0]; *u.Token != "secret-token-abcd" {
		t.Fatalf("the token was not trimmed: %q", *u.Token)
	}
	// A field left out is left alone.
	f.do(t, "PUT", "/api/openclaw/settings", `{"url":"ws://h:1"}`)
	if svc.updates[1].Token != nil {
		t.Fatal("an absent token was passed as a change")
	}
	if code, _, b := f.do(t, "PUT", "/api/openclaw/settings", `{"url":"nope"}`); code != http.StatusBadRequest || errorOf(t, b) == "" {
		t.Fatalf("refused settings %d %s", code, b)
	}
	if code, _, _ := f.do(t, "DELETE", "/api/openclaw/settings", ""); code != http.StatusMethodNotAllowed {
		t.Fatalf("delete %d", code)
	}
	if code, _, b := f.do(t, "GET", "/api/openclaw/status", ""); code != http.StatusOK ||
		decode[OpenClawStatus](t, b).Connection.Status != "connected" {
		t.Fatalf("status %d %s", code, b)
	}
	st := f.stream(t, "/api/openclaw/status", "Accept", "text/event-stream")
	n := 0
	readSSE(t, st.Body, func(e sseEvent) bool {
		if e.name != "status" {
			t.Fatalf("status stream event %q", e.name)
		}
		if n++; n == 1 {
			svc.wake.Publish(struct{}{}) // subscribed before the first event was written
		}
		return n < 2 // the first at once, the second on the wake
	})
	st.Body.Close()
	if code, _, b := f.do(t, "POST", "/api/openclaw/mcp", ""); code != http.StatusOK || svc.baseURL == "" {
		t.Fatalf("mcp %d %s base %q", code, b, svc.baseURL)
	}
	code, _, b = f.do(t, "GET", "/api/openclaw/activity", "")
	var list struct{ Activity []map[string]any }
	if err := json.Unmarshal(b, &list); code != http.StatusOK || err != nil || len(list.Activity) != 1 {
		t.Fatalf("activity %d %s", code, b)
	}

	// The stream: the recent entries, then each new one.
	resp := f.stream(t, "/api/openclaw/activity", "Accept", "text/event-stream")
	var names []string
	readSSE(t, resp.Body, func(e sseEvent) bool {
		if names = append(names, e.name); len(names) == 1 {
			// The stream subscribed before it sent the recent entries.
			svc.feed.Publish(OpenClawActivity{SessionKey: "agent:main:chan", Event: executor.Event{Kind: executor.KindToolResult}})
		}
		return len(names) < 2
	})
	resp.Body.Close()
	if len(names) != 2 || names[0] != "recent" || names[1] != "activity" {
		t.Fatalf("stream events %v", names)
	}
}
