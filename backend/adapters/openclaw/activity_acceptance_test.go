package openclaw

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/fakes/fakeresponses"
)

// Tool activity from a run Clawboo did not start (another operator client
// talking to the Gateway, as a chat channel or cron job would) shows in
// the watcher; text does not.
func TestRealActivityFromRunsWeDidNotStart(t *testing.T) {
	e := newRealEnv(t, fakeresponses.Rule{Match: "foreign-read", Steps: []fakeresponses.Step{
		{Call: &fakeresponses.Call{Tool: "^read$", Args: `{"path":"` + filepath.Join(realGateway(t).Work, "hello.txt") + `"}`}},
		{Text: "foreign done"},
	}})
	w := &Watcher{Client: e.c, Ours: e.a.LiveSessions}
	ctx, cancel := context.WithCancel(context.Background())
	wait := w.Start(ctx)
	defer func() { cancel(); wait() }()
	feed := w.Subscribe(64)
	defer feed.Close()

	id, err := LoadIdentity(filepath.Join(t.TempDir(), "other"))
	if err != nil {
		t.Fatal(err)
	}
	other := NewClient(ClientOptions{Identity: id, Settings: func(context.Context) Settings {
		return Settings{URL: e.g.URL, Token: sentinelToken}
	}})
	other.Start()
	defer other.Close()
	rctx, rcancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer rcancel()
	if err := e.c.Request(rctx, "agents.list", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := other.Request(rctx, "chat.send", map[string]any{
		"sessionKey": "agent:main:channel-x", "message": "foreign-read",
		"idempotencyKey": newIdempotencyKey(), "deliver": false,
	}, nil); err != nil {
		t.Fatal(err)
	}
	var call, result Activity
	for call.Event.Kind == "" || result.Event.Kind == "" {
		select {
		case a := <-feed.C():
			switch a.Event.Kind {
			case executor.KindToolCall:
				call = a
			case executor.KindToolResult:
				result = a
			default:
				t.Fatalf("non-tool activity %+v", a)
			}
		case <-rctx.Done():
			t.Fatalf("no tool activity; recent %+v", w.Recent())
		}
	}
	if call.SessionKey != "agent:main:channel-x" || call.Agent != "main" || call.Event.Name != "read" ||
		!strings.Contains(result.Event.Output, "hello from the workspace file") {
		t.Fatalf("activity call %+v result %+v", call, result)
	}
}

func TestRealWriteContextSetsAnAgentFile(t *testing.T) {
	e := newRealEnv(t, slowText("ctx-hold", 6, 300*time.Millisecond))
	r, id := e.start(t, "ctx-hold", "")
	seen := firstText(t, r)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const body = "# Team rules\n\nAlways write tests. marker-ctx-55\n"
	if err := r.WriteContext(ctx, "AGENTS.md", body); err != nil {
		t.Fatal(err)
	}
	var got struct {
		File struct {
			Content string `json:"content"`
		} `json:"file"`
	}
	if err := e.c.Request(ctx, "agents.files.get", map[string]any{"agentId": "main", "name": "AGENTS.md"}, &got); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got.File.Content, "marker-ctx-55") {
		t.Fatalf("AGENTS.md is %q", got.File.Content)
	}
	e.collect(t, r, id, seen...)
}
