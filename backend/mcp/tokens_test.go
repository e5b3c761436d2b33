package mcp

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"
	"github.com/clawboo/desktop/internal/testkit"

	"github.com/mark3labs/mcp-go/mcp"
)

// A run token's session is bound to its run whatever the URL says: no
// query is bound, its own signed query works, another identity's signed
// query and an unsigned one are 401, and each server sees only the flags
// it uses.
func TestRunTokenBindsTheSession(t *testing.T) {
	h := newTestHub(t, Options{})
	srv := httptest.NewServer(h)
	defer srv.Close()
	run := Binding{TeamID: "team-a", AgentID: "alice", Delegate: true, ReadOnly: true}
	tok, revoke, err := h.IssueRunToken(run)
	if err != nil {
		t.Fatal(err)
	}
	defer revoke()
	if tok == testToken || len(tok) < 43 {
		t.Fatalf("run token %q", tok)
	}
	plain, revokePlain, _ := h.IssueRunToken(Binding{TeamID: "team-a", AgentID: "alice"})
	defer revokePlain()
	for _, c := range []struct{ tok, server, query, want string }{
		{tok, TeamChat, "", `{"teamId":"team-a","agentId":"alice","delegate":true,"Transport":"http"}`},
		{tok, Memory, "", `{"teamId":"team-a","agentId":"alice","Transport":"http"}`},
		{tok, TeamChat, h.Signer().Query(serverBinding(TeamChat, run)), `{"teamId":"team-a","agentId":"alice","delegate":true,"Transport":"http"}`},
		{plain, Tasks, "", `{"teamId":"team-a","agentId":"alice","Transport":"http"}`},
	} {
		url := srv.URL + "/mcp/" + c.server
		if c.query != "" {
			url += "?" + c.query
		}
		sid := openSession(t, url, c.tok)
		if code, got := whoami(t, url, c.tok, sid); got != c.want {
			t.Fatalf("%s: %d %s, want %s", url, code, got, c.want)
		}
	}
	// Tasks gets the read-only flag: its writes are hidden (a plain run
	// reaches the tool, which has no board here).
	for tk, want := range map[string]string{tok: "tool 'create_task' not found", plain: "the board is not available"} {
		sid := openSession(t, srv.URL+"/mcp/tasks", tk)
		_, _, body := testkit.MCPPost(t, http.MethodPost, srv.URL+"/mcp/tasks", tk, sid,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_task","arguments":{"title":"x"}}}`)
		if !strings.Contains(body, want) {
			t.Fatalf("create_task answered %s, want %q", body, want)
		}
	}
	for _, q := range []string{
		// another, validly signed
		h.Signer().Query(Binding{TeamID: "team-b", AgentID: "mallory"}),
		// the team, without the agent
		h.Signer().Query(Binding{TeamID: "team-a"}),
		// flags Tasks does not carry
		h.Signer().Query(run),
		// unsigned
		"team=team-a&agent=alice",
	} {
		if code, _, body := testkit.MCPPost(t, http.MethodPost, srv.URL+"/mcp/tasks?"+q, tok, "", testkit.MCPInitialize); code != http.StatusUnauthorized {
			t.Fatalf("run token with %s: %d %s", q, code, body)
		}
	}
	if _, _, err := h.IssueRunToken(Binding{}); err == nil {
		t.Fatal("an unbound run token was issued")
	}
	if _, _, err := h.IssueRunToken(Binding{AgentID: "a\x1fb"}); err == nil {
		t.Fatal("a run token with a bad id was issued")
	}
}

// Revoking a run token (its run ended) refuses new sessions, the sessions
// it opened and a request already in flight; other tokens are untouched.
func TestRevokedRunTokenIsRefused(t *testing.T) {
	h := newTestHub(t, Options{})
	release := make(chan struct{})
	started, outcome := make(chan struct{}, 1), make(chan string, 1)
	h.servers[Tasks].AddTool(mcp.NewTool("slow"), toolcall.Handler(func(ctx context.Context, _ Caller, _ struct{}) *mcp.CallToolResult {
		started <- struct{}{}
		select {
		case <-ctx.Done():
			outcome <- "cancelled"
		case <-release:
			outcome <- "finished"
		}
		return toolcall.JSON("over")
	}))
	defer close(release)
	srv := httptest.NewServer(h)
	defer srv.Close()
	url := srv.URL + "/mcp/tasks"
	tok, revoke, err := h.IssueRunToken(Binding{TeamID: "team-a", AgentID: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	other, revokeOther, _ := h.IssueRunToken(Binding{TeamID: "team-b", AgentID: "bob"})
	defer revokeOther()
	sid, otherSid := openSession(t, url, tok), openSession(t, url, other)
	installSid := openSession(t, url, testToken)
	if h.LiveRunTokens() != 2 {
		t.Fatal(h.LiveRunTokens())
	}

	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		testkit.MCPPost(t, http.MethodPost, url, tok, sid, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow","arguments":{}}}`)
	}()
	<-started
	revoke()
	revoke() // idempotent
	select {
	case got := <-outcome:
		if got != "cancelled" {
			t.Fatalf("the call in flight when the run ended %s", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the call in flight when the run ended went on")
	}
	wg.Wait()
	if code, _ := whoami(t, url, tok, sid); code != http.StatusUnauthorized {
		t.Fatalf("revoked token in its own session: %d", code)
	}
	if code, _, _ := testkit.MCPPost(t, http.MethodPost, url, tok, "", testkit.MCPInitialize); code != http.StatusUnauthorized {
		t.Fatalf("revoked token, new session: %d", code)
	}
	if h.LiveRunTokens() != 1 {
		t.Fatal(h.LiveRunTokens())
	}
	if code, got := whoami(t, url, other, otherSid); code != 200 || !strings.Contains(got, "bob") {
		t.Fatalf("another run's token: %d %s", code, got)
	}
	if code, got := whoami(t, url, testToken, installSid); code != 200 || got != `{"Transport":"http"}` {
		t.Fatalf("the install token: %d %s", code, got)
	}
}

// The install token stays unbound without a query (a person's own
// client), and the gateway token is a different secret with the same
// powers, stable for the same install token and key.
func TestInstallAndGatewayTokens(t *testing.T) {
	h := newTestHub(t, Options{})
	srv := httptest.NewServer(h)
	defer srv.Close()
	url := srv.URL + "/mcp/memory"
	gw := h.creds.gatewayToken()
	if gw == "" || gw == testToken || strings.Contains(gw, testToken) {
		t.Fatalf("gateway token %q", gw)
	}
	for _, tok := range []string{testToken, gw} {
		sid := openSession(t, url, tok)
		if code, got := whoami(t, url, tok, sid); code != 200 || got != `{"Transport":"http"}` {
			t.Fatalf("%d %s", code, got)
		}
	}
	a, err := h.AttachGateway("http://127.0.0.1:1")
	if err != nil || !strings.Contains(a.Clients[ClientOpenClaw].Text, "Bearer "+gw) || strings.Contains(a.Clients[ClientOpenClaw].Text, testToken) {
		t.Fatalf("gateway attach %v:\n%s", err, a.Clients[ClientOpenClaw].Text)
	}
	again := newTestHub(t, Options{})
	if again.creds.gatewayToken() != gw {
		t.Fatal("the gateway token changed across hubs with the same install token")
	}
	ra, revoke, err := h.AttachRun("http://127.0.0.1:1", Binding{TeamID: "t", AgentID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	defer revoke()
	for _, c := range ra.Clients {
		if strings.Contains(c.Text, testToken) || strings.Contains(c.Text, gw) || c.Env[TokenEnv] == testToken {
			t.Fatalf("a run's attachment holds the install or gateway token: %+v", c)
		}
	}
	if _, _, err := h.AttachRun("http://127.0.0.1:1", Binding{}); err == nil {
		t.Fatal("an unbound run attachment was built")
	}
}

// Rotation saves the new token first, then serves it: the old install and
// gateway tokens (and their sessions) are refused, the new ones work, run
// tokens carry on, and a save that fails changes nothing.
func TestRotateToken(t *testing.T) {
	var saved string
	fail := false
	h := newTestHub(t, Options{SaveToken: func(_ context.Context, tok string) error {
		if fail {
			return errors.New("vault locked")
		}
		saved = tok
		return nil
	}})
	srv := httptest.NewServer(h)
	defer srv.Close()
	url := srv.URL + "/mcp/tasks"
	oldGW := h.creds.gatewayToken()
	oldSid := openSession(t, url, testToken)
	runTok, revoke, _ := h.IssueRunToken(Binding{TeamID: "t", AgentID: "a"})
	defer revoke()
	runSid := openSession(t, url, runTok)

	masked, err := h.RotateToken(context.Background())
	if err != nil || len(saved) < 43 || masked != MaskToken(saved) || strings.Contains(masked, saved[:8]) {
		t.Fatalf("rotate: %q %v (saved %d bytes)", masked, err, len(saved))
	}
	for _, tok := range []string{testToken, oldGW} {
		if code, _, _ := testkit.MCPPost(t, http.MethodPost, url, tok, "", testkit.MCPInitialize); code != http.StatusUnauthorized {
			t.Fatalf("an old token after rotation: %d", code)
		}
	}
	if code, _ := whoami(t, url, testToken, oldSid); code != http.StatusUnauthorized {
		t.Fatalf("an old session after rotation: %d", code)
	}
	newGW := h.creds.gatewayToken()
	if newGW == oldGW || newGW == saved {
		t.Fatal("the gateway token did not rotate with the install token")
	}
	for _, tok := range []string{saved, newGW} {
		sid := openSession(t, url, tok)
		if code, got := whoami(t, url, tok, sid); code != 200 || got != `{"Transport":"http"}` {
			t.Fatalf("the new token: %d %s", code, got)
		}
	}
	if code, _ := whoami(t, url, runTok, runSid); code != 200 {
		t.Fatalf("a run token after rotation: %d", code)
	}
	a, _ := h.Attach("http://127.0.0.1:1", Binding{}, false)
	if a.Clients[ClientCodex].Env[TokenEnv] != saved {
		t.Fatal("Attach still shows the old token")
	}

	fail = true
	if _, err := h.RotateToken(context.Background()); err == nil {
		t.Fatal("a rotation whose save failed succeeded")
	}
	if sid := openSession(t, url, saved); sid == "" {
		t.Fatal("a failed rotation changed the token")
	}
}

// A session belongs to the token that opened it: another token cannot use
// or end it, a run token's sessions go with the token, and what expired
// is forgotten as new sessions open.
func TestSessionTiedToItsToken(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	h := newTestHub(t, Options{Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }})
	srv := httptest.NewServer(h)
	defer srv.Close()
	tasks := srv.URL + "/mcp/tasks"
	runTok, revoke, _ := h.IssueRunToken(Binding{TeamID: "t", AgentID: "a"})
	defer revoke()
	sid := openSession(t, tasks, testToken)
	for _, id := range []string{sid, "mcp-session-unrecorded"} {
		if code, _ := whoami(t, tasks, runTok, id); code != http.StatusNotFound {
			t.Fatalf("another token's session %s: %d", id, code)
		}
	}
	if code, _, _ := testkit.MCPPost(t, http.MethodDelete, tasks, runTok, sid, ""); code == http.StatusOK {
		t.Fatal("another token ended the session")
	}
	if code, _ := whoami(t, tasks, testToken, sid); code != 200 {
		t.Fatalf("the session after a foreign DELETE: %d", code)
	}
	openSession(t, tasks, runTok)
	if h.sessions.count() != 2 {
		t.Fatal(h.sessions.count())
	}
	revoke()
	if h.sessions.count() != 1 {
		t.Fatalf("a revoked token's session is still recorded (%d)", h.sessions.count())
	}
	mu.Lock()
	now = now.Add(sessionIdle + time.Second)
	mu.Unlock()
	openSession(t, tasks, testToken)
	if n := h.sessions.count(); n != 1 {
		t.Fatalf("%d sessions recorded, want 1 (the expired one forgotten)", n)
	}
}

// The table is bounded: past its cap the least recently used id goes.
func TestSessionTableIsBounded(t *testing.T) {
	now := time.Unix(0, 0)
	tab := newSessionTable(time.Hour, 3, func() time.Time { return now }, slog.New(slog.DiscardHandler))
	o := sessionOwner{binding: Binding{TeamID: "t"}}
	var ids []string
	for range 3 {
		now = now.Add(time.Second)
		ids = append(ids, tab.open(Tasks, o))
	}
	now = now.Add(time.Second)
	tab.check(Tasks, ids[0], o) // the first is used again
	now = now.Add(time.Second)
	ids = append(ids, tab.open(Tasks, o))
	if tab.count() != 3 || tab.check(Tasks, ids[1], o) != sessionUnknown || tab.check(Tasks, ids[0], o) != sessionOK {
		t.Fatalf("count %d", tab.count())
	}
}
