package backend

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/fakes/fakeprovider"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/supervisor"
)

// nativeBackend is a backend on a fresh home whose environment is exactly env.
func nativeBackend(t *testing.T, env map[string]string) *Backend {
	t.Helper()
	return confBackend(t, t.TempDir(), env)
}

func TestNativeIsRegisteredAndHealthFollowsKeys(t *testing.T) {
	ctx := context.Background()
	b := nativeBackend(t, map[string]string{})
	e, ok := b.Catalog.Entry(ctx, executor.Native)
	if !ok || !e.CanRun || e.Health.OK {
		t.Fatalf("without keys: canRun %v health %+v", e.CanRun, e.Health)
	}
	for _, env := range []map[string]string{{"GROQ_API_KEY": "k"}, {"OLLAMA_BASE_URL": "http://127.0.0.1:1"}} {
		b := nativeBackend(t, env)
		if e, _ := b.Catalog.Entry(ctx, executor.Native); !e.CanRun || !e.Health.OK {
			t.Fatalf("%v: health %+v", env, e.Health)
		}
	}
}

// A native run end to end: the vault resolves the key from the
// environment, the router talks to the fake Messages API, the ledger gets
// the turn's cost and the transcript lands under the home.
func TestNativeRunAgainstTheFakeProvider(t *testing.T) {
	fake := fakeprovider.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	fake.Push("/v1/messages", fakeprovider.Text("hello ", "from native"))
	b := nativeBackend(t, map[string]string{"ANTHROPIC_API_KEY": "sk-ant-test", "ANTHROPIC_BASE_URL": srv.URL})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	h, err := b.Supervisor.Start(ctx, supervisor.StartParams{RuntimeID: executor.Native, Message: "say hello", SessionKey: "agent:x:chat"})
	if err != nil {
		t.Fatal(err)
	}
	run, err := h.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != store.RunSucceeded || run.Summary != "hello from native" {
		t.Fatalf("run %+v (error %v)", run, run.Error)
	}
	reqs := fake.RequestsTo("/v1/messages")
	if len(reqs) != 1 || reqs[0].Key != "sk-ant-test" {
		t.Fatalf("provider saw %d requests", len(reqs))
	}
	if run.CostUSD == nil || *run.CostUSD <= 0 {
		t.Fatalf("cost %v", run.CostUSD)
	}
	files, _ := filepath.Glob(filepath.Join(b.Config.Home, "runtimes", "clawboo-native", "*", "sessions", "*.json"))
	if len(files) != 1 {
		t.Fatalf("transcripts %v", files)
	}
	if st, err := os.Stat(files[0]); err != nil || st.Size() == 0 {
		t.Fatal("empty transcript")
	}
}

// The wire round trip of a tool call: the model calls an in-process MCP
// tool, its result goes back as a tool_result for that call, and a later
// turn that no longer fits ends with the typed overflow message.
func TestNativeToolRoundTripAndOverflow(t *testing.T) {
	fake := fakeprovider.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	fake.Push("/v1/messages",
		fakeprovider.Tools(fakeprovider.ToolCall{ID: "toolu_1", Name: "list_tasks", Args: `{}`}),
		fakeprovider.Text("the board is empty"),
		fakeprovider.Overflow())
	b := nativeBackend(t, map[string]string{"ANTHROPIC_API_KEY": "sk-ant-test", "ANTHROPIC_BASE_URL": srv.URL})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := func(msg string) store.Run {
		h, err := b.Supervisor.Start(ctx, supervisor.StartParams{RuntimeID: executor.Native, Message: msg, SessionKey: "agent:y:chat"})
		if err != nil {
			t.Fatal(err)
		}
		run, err := h.Wait(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return run
	}
	if run := start("what is on the board?"); run.Status != store.RunSucceeded || run.Summary != "the board is empty" {
		t.Fatalf("run %+v", run)
	}
	reqs := fake.RequestsTo("/v1/messages")
	var body struct {
		Tools    []struct{ Name string } `json:"tools"`
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type      string `json:"type"`
				ToolUseID string `json:"tool_use_id"`
			} `json:"content"`
		} `json:"messages"`
	}
	if len(reqs) != 2 || reqs[1].JSON(&body) != nil || len(body.Messages) != 3 {
		t.Fatalf("requests %d, body %+v", len(reqs), body)
	}
	if c := body.Messages[2].Content; len(c) == 0 || c[0].Type != "tool_result" || c[0].ToolUseID != "toolu_1" {
		t.Fatalf("tool result not sent back: %+v", body.Messages[2])
	}
	// The same chat resumes, and the provider says it no longer fits.
	run := start("and now?")
	if run.Status != store.RunFailed || run.Error != "The task was too large for the model's context window." {
		t.Fatalf("overflow run %+v", run)
	}
	if err := fake.RequestsTo("/v1/messages")[2].JSON(&body); err != nil || len(body.Messages) != 5 {
		t.Fatalf("resumed request has %d messages", len(body.Messages))
	}
}
