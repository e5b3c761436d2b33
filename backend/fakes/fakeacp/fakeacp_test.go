package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

func TestSessionsAndUpdates(t *testing.T) {
	f := start(t)
	resp := f.initialize()
	if resp.ProtocolVersion != 1 || resp.AgentInfo == nil || resp.AgentInfo.Name != "fakeacp" || resp.AgentCapabilities.LoadSession {
		t.Fatalf("initialize = %+v", resp)
	}
	_, err := f.conn.NewSession(f.ctx, acp.NewSessionRequest{Cwd: "relative/dir", McpServers: []acp.McpServer{}})
	var re *acp.RequestError
	if !errors.As(err, &re) || re.Code != -32602 {
		t.Fatalf("session/new with a relative cwd: %v, want invalid params", err)
	}
	sid := f.newSession()
	if sid != "fake-session-1" {
		t.Fatalf("session id %q", sid)
	}
	f.expectSaid(sid, "no directives here", "ok")
	f.expectSaid(sid, "some prompt\n  !say hi\\nthere\n!session", "hi\nthere", "fake-session-1")

	_, u0 := f.client.mark()
	f.expectSaid(sid, "!plan A|B|C\n!tool t1 ls -la\n!toolresult t1 done\n!usage 10 100 0.25")
	f.client.mu.Lock()
	ups := f.client.updates[u0:]
	f.client.mu.Unlock()
	if len(ups) != 4 {
		t.Fatalf("got %d updates, want 4", len(ups))
	}
	if p := ups[0].Plan; p == nil || len(p.Entries) != 3 || p.Entries[0].Status != acp.PlanEntryStatusInProgress ||
		p.Entries[2].Content != "C" || p.Entries[2].Status != acp.PlanEntryStatusPending {
		t.Fatalf("plan update %+v", ups[0])
	}
	if tc := ups[1].ToolCall; tc == nil || tc.ToolCallId != "t1" || tc.Title != "ls -la" || tc.Kind != acp.ToolKindExecute {
		t.Fatalf("tool_call update %+v", ups[1])
	}
	if tu := ups[2].ToolCallUpdate; tu == nil || tu.ToolCallId != "t1" || *tu.Status != acp.ToolCallStatusCompleted ||
		len(tu.Content) != 1 || tu.Content[0].Content.Content.Text.Text != "done" {
		t.Fatalf("tool_call_update %+v", ups[2])
	}
	if uu := ups[3].UsageUpdate; uu == nil || uu.Used != 10 || uu.Size != 100 || uu.Cost.Amount != 0.25 || uu.Cost.Currency != "USD" {
		t.Fatalf("usage_update %+v", ups[3])
	}

	if reason, _ := f.prompt(sid, "!stop max_tokens\n!say never"); reason != acp.StopReasonMaxTokens {
		t.Fatalf("!stop: %q", reason)
	}
	f.expectSaid(sid, "!bogus\n!flood x", "unknown directive: !bogus", `directive error: !flood: want a count from 0 to 1073741824, got "x"`)
	f.expectSaid(sid, "!garbage\n!say after", "after")
}

func TestClientRequests(t *testing.T) {
	f := start(t)
	f.initialize()
	sid := f.newSession()

	f.expectSaid(sid, "!ask rm -rf /tmp/x", "permission: allow-once")
	f.client.mu.Lock()
	ask := f.client.asks[0]
	f.client.mu.Unlock()
	if ask.ToolCall.ToolCallId != "ask-1" || *ask.ToolCall.Title != "rm -rf /tmp/x" || len(ask.Options) != 3 ||
		ask.Options[1].OptionId != "allow-always" || ask.Options[2].Kind != acp.PermissionOptionKindRejectOnce {
		t.Fatalf("permission request %+v", ask)
	}

	f.expectSaid(sid, "!write ../notes.txt one\\ntwo", "write ok")
	f.client.mu.Lock()
	w := f.client.writes[0]
	f.client.mu.Unlock()
	if w.Path != "../notes.txt" || w.Content != "one\ntwo" || w.SessionId != sid {
		t.Fatalf("write request %+v", w)
	}

	f.expectSaid(sid, "!read a.txt\n!read missing", "read: content of a.txt",
		`read error: {"code":-32602,"message":"Invalid params","data":{"error":"no such file"}}`)
	f.expectSaid(sid, "!term echo hi there", "term exit=0 output=hi")
	f.client.mu.Lock()
	tr := f.client.terms[0]
	f.client.mu.Unlock()
	if tr.Command != "echo" || strings.Join(tr.Args, ",") != "hi,there" || tr.Cwd != nil {
		t.Fatalf("terminal/create %+v", tr)
	}
}

func TestFlood(t *testing.T) {
	f := start(t)
	f.initialize()
	sid := f.newSession()
	reason, said := f.prompt(sid, "!flood 2000")
	if reason != acp.StopReasonEndTurn || len(said) != 2000 {
		t.Fatalf("flood: stop %q, %d chunks", reason, len(said))
	}
}

func TestCancel(t *testing.T) {
	f := start(t)
	f.initialize()
	sid := f.newSession()
	done := make(chan acp.StopReason, 1)
	go func() {
		resp, err := f.conn.Prompt(f.ctx, acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock("!say hanging\n!hang\n!say never")}})
		if err != nil {
			t.Errorf("prompt: %v", err)
		}
		done <- resp.StopReason
	}()
	f.client.waitFor(t, "the turn to hang", func() bool { return len(f.client.chunks) == 1 })
	if err := f.conn.Cancel(f.ctx, acp.CancelNotification{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	select {
	case reason := <-done:
		if reason != acp.StopReasonCancelled {
			t.Fatalf("stop reason %q, want cancelled", reason)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the hanging turn did not end on session/cancel")
	}
	f.expectSaid(sid, "!say still here", "still here")
}

// TestCancelDuringPermission cancels a turn waiting on !ask, with a client
// that answers the pending request cancelled (as ACP asks) and with one that
// never answers (the fake gives up cancelGrace after the cancel).
func TestCancelDuringPermission(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answers bool
		said    string
	}{
		{"client answers cancelled", true, "permission: cancelled"},
		{"client never answers", false, "permission error: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := start(t)
			cancelSent := make(chan struct{})
			f.client.answer = func(ctx context.Context) acp.RequestPermissionOutcome {
				if tc.answers {
					<-cancelSent
				} else {
					<-ctx.Done() // ended by the fake's $/cancel_request
				}
				return acp.RequestPermissionOutcome{Cancelled: &acp.RequestPermissionOutcomeCancelled{Outcome: "cancelled"}}
			}
			f.initialize()
			sid := f.newSession()
			done := make(chan acp.StopReason, 1)
			go func() {
				resp, _ := f.conn.Prompt(f.ctx, acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock("!ask deploy\n!say never")}})
				done <- resp.StopReason
			}()
			f.client.waitFor(t, "the permission request", func() bool { return len(f.client.asks) == 1 })
			if err := f.conn.Cancel(f.ctx, acp.CancelNotification{SessionId: sid}); err != nil {
				t.Fatal(err)
			}
			close(cancelSent)
			if reason := <-done; reason != acp.StopReasonCancelled {
				t.Fatalf("stop reason %q, want cancelled", reason)
			}
			if said := f.client.chunksSince(0); len(said) != 1 || !strings.HasPrefix(said[0], tc.said) {
				t.Fatalf("said %q, want %q...", said, tc.said)
			}
		})
	}
}

func TestVersionAndCapabilities(t *testing.T) {
	f := start(t, "FAKEACP_VERSION=2", "FAKEACP_LOAD=1", "FAKEACP_MCP_HTTP=1")
	resp := f.initialize()
	if resp.ProtocolVersion != 2 || !resp.AgentCapabilities.LoadSession || !resp.AgentCapabilities.McpCapabilities.Http {
		t.Fatalf("initialize = %+v", resp)
	}
	if _, err := f.conn.LoadSession(f.ctx, acp.LoadSessionRequest{SessionId: "old-one", Cwd: t.TempDir(), McpServers: []acp.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	f.expectSaid("old-one", "!session", "old-one")
}

func TestRecordAndExit(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "rec.jsonl")
	f := start(t, "FAKEACP_RECORD="+rec, "FAKEACP_TEST_SECRET=s3cret")
	f.initialize()
	sid := f.newSession()
	f.expectSaid(sid, "!exit 7")
	if code := f.wait(); code != 7 {
		t.Fatalf("exit code %d, want 7", code)
	}
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	var methods []string
	var env struct {
		Names []string          `json:"names"`
		Env   map[string]string `json:"env"`
	}
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("record line %q: %v", line, err)
		}
		methods = append(methods, m.Method)
		if i == 0 {
			_ = json.Unmarshal(m.Params, &env)
		}
	}
	if got := strings.Join(methods, ","); got != "$env,initialize,session/new,session/prompt" {
		t.Fatalf("recorded %s", got)
	}
	if env.Env["FAKEACP_TEST_SECRET"] != "s3cret" || len(env.Names) != len(env.Env) {
		t.Fatalf("$env line %+v", env)
	}
}

func TestCrash(t *testing.T) {
	f := start(t)
	f.initialize()
	sid := f.newSession()
	if _, err := f.conn.Prompt(f.ctx, acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock("!crash")}}); err == nil {
		t.Fatal("prompt answered despite !crash")
	}
	if code := f.wait(); code != 3 {
		t.Fatalf("exit code %d, want 3", code)
	}
}

func TestGarbageInit(t *testing.T) {
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "FAKEACP_MODE=garbage-init")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_, _ = io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`+"\n")
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "this is not json {\n" {
		t.Fatalf("read %q, %v", line, err)
	}
	_ = stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v", err)
	}
}
