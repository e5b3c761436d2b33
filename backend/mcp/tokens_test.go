package mcp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// legacyVersion is a protocol version with sessions (initialize and
// Mcp-Session-Id), as the CLIs speak it.
const legacyVersion = "2025-06-18"

// rawMCP is one JSON-RPC POST to url with token and (when not empty) a
// session id; it returns the status, the session id the server answered
// with, and the body.
func rawMCP(t *testing.T, method, url, token, sid, body string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", legacyVersion)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	// A GET that opened a stream is read no further than its headers.
	var b []byte
	if method != http.MethodGet || resp.StatusCode != http.StatusOK {
		b, _ = io.ReadAll(resp.Body)
	}
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(b)
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + legacyVersion +
	`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

const whoamiBody = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`

// openSession initializes a legacy session and returns its id (fatal unless
// the server answered 200 with one).
func openSession(t *testing.T, url, token string) string {
	t.Helper()
	code, sid, body := rawMCP(t, http.MethodPost, url, token, "", initBody)
	if code != http.StatusOK || sid == "" {
		t.Fatalf("initialize %s: %d %q %s", url, code, sid, body)
	}
	return sid
}

// whoami calls the test hub's whoami tool in a session; "" with the status
// when the server refused.
func whoami(t *testing.T, url, token, sid string) (int, string) {
	t.Helper()
	code, _, body := rawMCP(t, http.MethodPost, url, token, sid, whoamiBody)
	if code != http.StatusOK {
		return code, ""
	}
	i := strings.Index(body, `{\"`)
	j := strings.LastIndex(body, `}"`)
	if i < 0 || j < i {
		t.Fatalf("whoami answered %s", body)
	}
	return code, strings.ReplaceAll(body[i:j+1], `\"`, `"`)
}

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
		_, _, body := rawMCP(t, http.MethodPost, srv.URL+"/mcp/tasks", tk, sid,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_task","arguments":{"title":"x"}}}`)
		if !strings.Contains(body, want) {
			t.Fatalf("create_task answered %s, want %q", body, want)
		}
	}
	for _, q := range []string{
		h.Signer().Query(Binding{TeamID: "team-b", AgentID: "mallory"}), // another, validly signed
		h.Signer().Query(Binding{TeamID: "team-a"}),                     // the team, without the agent
		h.Signer().Query(run),                                           // flags Tasks does not carry
		"team=team-a&agent=alice",                                       // unsigned
	} {
		if code, _, body := rawMCP(t, http.MethodPost, srv.URL+"/mcp/tasks?"+q, tok, "", initBody); code != http.StatusUnauthorized {
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
	h.servers[Tasks].AddTool(mcp.NewTool("slow"), handler(func(ctx context.Context, _ Caller, _ struct{}) *mcp.CallToolResult {
		started <- struct{}{}
		select {
		case <-ctx.Done():
			outcome <- "cancelled"
		case <-release:
			outcome <- "finished"
		}
		return jsonResult("over")
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
		rawMCP(t, http.MethodPost, url, tok, sid, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow","arguments":{}}}`)
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
	if code, _, _ := rawMCP(t, http.MethodPost, url, tok, "", initBody); code != http.StatusUnauthorized {
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
		if code, _, _ := rawMCP(t, http.MethodPost, url, tok, "", initBody); code != http.StatusUnauthorized {
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

// Session ids are the Hub's: an unknown (well-formed) id, another
// server's, another token's or binding's, and one idle past the TTL are
// all 404; a client ends only its own session.
func TestSessionIDsAreTracked(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	h := newTestHub(t, Options{Now: clock})
	srv := httptest.NewServer(h)
	defer srv.Close()
	tasks, memory := srv.URL+"/mcp/tasks", srv.URL+"/mcp/memory"
	runTok, revoke, _ := h.IssueRunToken(Binding{TeamID: "t", AgentID: "a"})
	defer revoke()
	bound := tasks + "?" + h.Signer().Query(Binding{TeamID: "t"})

	sid := openSession(t, tasks, testToken)
	if code, got := whoami(t, tasks, testToken, sid); code != 200 || got == "" {
		t.Fatalf("own session: %d", code)
	}
	for name, c := range map[string]struct{ url, token, sid string }{
		"unknown id":        {tasks, testToken, "mcp-session-6f1c2b0e-8a53-4c1e-9d5e-0b7f8a9c1d2e"},
		"another server":    {memory, testToken, sid},
		"another token":     {tasks, runTok, sid},
		"another binding":   {bound, testToken, sid},
		"malformed id":      {tasks, testToken, "nope"},
		"a minted-like id":  {tasks, testToken, "mcp-session-" + strings.Repeat("0", 32)},
		"a run token's own": {tasks, runTok, "mcp-session-unrecorded"},
	} {
		if code, _ := whoami(t, c.url, c.token, c.sid); code != http.StatusNotFound {
			t.Fatalf("%s: %d, want 404", name, code)
		}
		// A GET (the listening stream) is checked too.
		if code, _, _ := rawMCP(t, http.MethodGet, c.url, c.token, c.sid, ""); code != http.StatusNotFound {
			t.Fatalf("GET with %s: %d, want 404", name, code)
		}
	}
	// Another owner cannot end the session; its owner can.
	if code, _, _ := rawMCP(t, http.MethodDelete, tasks, runTok, sid, ""); code == http.StatusOK {
		t.Fatal("another token ended the session")
	}
	if code, _ := whoami(t, tasks, testToken, sid); code != 200 {
		t.Fatalf("session after a foreign DELETE: %d", code)
	}
	if code, _, _ := rawMCP(t, http.MethodDelete, tasks, testToken, sid, ""); code != http.StatusOK {
		t.Fatalf("DELETE: %d", code)
	}
	if code, _ := whoami(t, tasks, testToken, sid); code != http.StatusNotFound {
		t.Fatalf("a deleted session: %d", code)
	}

	// Idle TTL: used within it a session lives on; idle past it, it is gone.
	sid = openSession(t, tasks, testToken)
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	advance(sessionIdle - time.Minute)
	if code, _ := whoami(t, tasks, testToken, sid); code != 200 {
		t.Fatalf("a session used within the TTL: %d", code)
	}
	advance(sessionIdle - time.Minute)
	if code, _ := whoami(t, tasks, testToken, sid); code != 200 {
		t.Fatalf("a session kept alive: %d", code)
	}
	advance(sessionIdle + time.Second)
	if code, _ := whoami(t, tasks, testToken, sid); code != http.StatusNotFound {
		t.Fatalf("an idle session: %d, want 404", code)
	}
	if code, _, _ := rawMCP(t, http.MethodGet, tasks, testToken, sid, ""); code != http.StatusNotFound {
		t.Fatalf("GET on an idle session: %d, want 404", code)
	}
	// A fresh initialize works, and the table forgets what expired.
	sid = openSession(t, tasks, testToken)
	if code, _ := whoami(t, tasks, testToken, sid); code != 200 {
		t.Fatal(code)
	}
	advance(sessionIdle + time.Second)
	openSession(t, tasks, testToken)
	if n := h.sessions.count(); n != 1 {
		t.Fatalf("%d sessions recorded, want 1", n)
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
