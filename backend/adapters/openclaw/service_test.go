package openclaw

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/executor"
)

// memSettings is the settings table in memory.
type memSettings struct {
	mu sync.Mutex
	m  map[string]string
}

func (s *memSettings) GetSetting(_ context.Context, k string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[k], nil
}

func (s *memSettings) PutSetting(_ context.Context, k, v string, _ int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[k] = v
	return nil
}

func (s *memSettings) DeleteSetting(_ context.Context, k string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, k)
	return nil
}

// memTokens is the vault slot in memory; "bad" is refused as the vault
// refuses an invalid secret, "broken" fails as a broken keychain would.
type memTokens struct {
	mu  sync.Mutex
	tok string
}

func (t *memTokens) Resolve(context.Context) (string, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tok == "" {
		return "", ""
	}
	return t.tok, "vault"
}

func (t *memTokens) Set(_ context.Context, tok string) error {
	switch tok {
	case "bad":
		return errors.Join(ErrSettings, errors.New("not a secret"))
	case "broken":
		return errors.New("keychain locked")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.tok = tok
	return nil
}

func (t *memTokens) Delete(context.Context) error { return t.Set(context.Background(), "") }

// envMu guards the tests' environment maps: a started service's client
// reads the environment from its own goroutine.
var envMu sync.Mutex

func newTestService(t *testing.T, env map[string]string, o ServiceOptions) (*Service, *memSettings, *memTokens) {
	t.Helper()
	set, toks := &memSettings{m: map[string]string{}}, &memTokens{}
	o.IdentityDir, o.Settings, o.Tokens = t.TempDir(), set, toks
	o.Getenv = func(k string) string { envMu.Lock(); defer envMu.Unlock(); return env[k] }
	s := NewService(o)
	t.Cleanup(s.Close)
	return s, set, toks
}

// TestServiceSettingsPrecedence: the environment's URL wins over the
// settings table; the token leaves only masked; refusals are ErrSettings.
func TestServiceSettingsPrecedence(t *testing.T) {
	env := map[string]string{}
	var changed atomic.Int32
	s, set, _ := newTestService(t, env, ServiceOptions{Changed: func() { changed.Add(1) }})
	s.Start()
	ctx := context.Background()
	if got := s.Settings(ctx); got != (FormSettings{}) {
		t.Fatalf("fresh %+v", got)
	}
	u, tok := "ws://127.0.0.1:1", "secret-token-abcd"
	got, err := s.SaveSettings(ctx, SettingsUpdate{URL: &u, Token: &tok})
	if err != nil || got.URL != u || got.URLSource != "settings" || !got.TokenSet || got.TokenSource != "vault" ||
		got.TokenMasked != "••••abcd" || func() string { v, _ := set.GetSetting(ctx, URLSetting); return v }() != u || changed.Load() == 0 {
		t.Fatalf("saved %+v %v (changed %d)", got, err, changed.Load())
	}
	envMu.Lock()
	env[URLEnv] = " ws://env:2 " // the service's client reads it concurrently
	envMu.Unlock()
	if got := s.Settings(ctx); got.URL != "ws://env:2" || got.URLSource != "env" {
		t.Fatalf("env %+v", got)
	}
	for _, bad := range []string{"http://h:1", "ws://", "ws://u:p@h:1", "::"} {
		if _, err := s.SaveSettings(ctx, SettingsUpdate{URL: &bad}); !errors.Is(err, ErrSettings) {
			t.Fatalf("%q: %v", bad, err)
		}
	}
	badTok, broken := "bad", "broken"
	if _, err := s.SaveSettings(ctx, SettingsUpdate{Token: &badTok}); !errors.Is(err, ErrSettings) {
		t.Fatalf("refused token: %v", err)
	}
	if _, err := s.SaveSettings(ctx, SettingsUpdate{Token: &broken}); errors.Is(err, ErrSettings) ||
		err == nil || !strings.HasPrefix(err.Error(), "store the Gateway token") {
		t.Fatalf("broken vault: %v", err)
	}
	none := ""
	envMu.Lock()
	delete(env, URLEnv)
	envMu.Unlock()
	if got, err := s.SaveSettings(ctx, SettingsUpdate{URL: &none, Token: &none}); err != nil || got != (FormSettings{}) {
		t.Fatalf("cleared %+v %v", got, err)
	}
}

// TestServiceCard: the card against the scripted Gateway, the status
// subscription woken by approvals asked and settled, and the activity
// feed in the consumer's own type.
func TestServiceCard(t *testing.T) {
	d := newDouble(t)
	release := make(chan bool)
	s, _, toks := newTestService(t, map[string]string{URLEnv: d.url()}, ServiceOptions{
		Ask: func(ctx context.Context, _ Question, _ time.Duration) (bool, error) { return <-release, nil },
	})
	toks.tok = d.token
	type mine struct{ Key string }
	feed := ActivityFeed(s, func(a Activity) mine { return mine{a.SessionKey} })
	got := feed.Subscribe(4)
	wake := s.SubscribeStatus()
	s.Start()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st := s.Status(ctx)
	if st.Connection.Status != StatusConnected || !st.Health.OK || st.DefaultAgent != "main" || len(st.Agents) != 1 ||
		st.Agents[0].ID != "main" || st.MCPServers == nil || st.MCPRegistered || st.Settings.TokenMasked == "" {
		t.Fatalf("card %+v", st)
	}
	drain(wake)
	done := make(chan bool)
	go func() { ok, _ := s.Ask(ctx, Question{Title: "run ls"}, time.Minute); done <- ok }()
	waitOn(t, wake, "asked")
	release <- true
	if !<-done {
		t.Fatal("an allowed approval must allow")
	}
	waitOn(t, wake, "settled")

	s.watcher.Observe(ev("session.tool", `{"runId":"r","sessionKey":"agent:main:cron","stream":"tool","data":{"phase":"start","name":"exec","toolCallId":"c1"}}`))
	select {
	case a := <-got.C():
		if a.Key != "agent:main:cron" || len(s.Activity()) != 1 || s.Activity()[0].Event.Kind != executor.KindToolCall {
			t.Fatalf("activity %+v %+v", a, s.Activity())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no activity")
	}

	// Runs the caller says are ours wake the card; Close ends everything.
	runs := bus.New[string](0)
	WakeOn(s, runs.Subscribe(4), func(id string) bool { return id == string(executor.OpenClaw) })
	drain(wake)
	runs.Publish("codex")
	runs.Publish(string(executor.OpenClaw))
	waitOn(t, wake, "an OpenClaw run changed")
	s.Close()
	s.Close()
	if _, ok := <-got.C(); ok {
		t.Fatal("the feed outlived the service")
	}
	for range wake.C() {
	}
	if runs.Len() != 0 {
		t.Fatal("WakeOn kept its subscription")
	}
}

func TestServiceWithoutWiring(t *testing.T) {
	s := NewService(ServiceOptions{IdentityDir: t.TempDir(), Getenv: func(string) string { return "" }})
	defer s.Close()
	ctx := context.Background()
	if ok, err := s.Ask(ctx, Question{}, time.Second); ok || err == nil {
		t.Fatal("no approvals queue must refuse")
	}
	if _, err := s.RegisterMCP(ctx, "http://127.0.0.1:1"); err == nil {
		t.Fatal("no hub must fail")
	}
	tok := "x"
	if _, err := s.SaveSettings(ctx, SettingsUpdate{Token: &tok}); err == nil {
		t.Fatal("no vault must fail")
	}
}

func drain(s *bus.Subscription[struct{}]) {
	for {
		select {
		case <-s.C():
		case <-time.After(50 * time.Millisecond):
			return
		}
	}
}

func waitOn(t *testing.T, s *bus.Subscription[struct{}], what string) {
	t.Helper()
	select {
	case <-s.C():
	case <-time.After(5 * time.Second):
		t.Fatalf("no wake when %s", what)
	}
}
