package mcp

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawboo/desktop/internal/testkit"
)

const whoamiBody = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`

// openSession initializes a legacy session and returns its id (fatal unless
// the server answered 200 with one).
func openSession(t *testing.T, url, token string) string {
	t.Helper()
	code, sid, body := testkit.MCPPost(t, http.MethodPost, url, token, "", testkit.MCPInitialize)
	if code != http.StatusOK || sid == "" {
		t.Fatalf("initialize %s: %d %q %s", url, code, sid, body)
	}
	return sid
}

// whoami calls the test hub's whoami tool in a session; "" with the status
// when the server refused.
func whoami(t *testing.T, url, token, sid string) (int, string) {
	t.Helper()
	code, _, body := testkit.MCPPost(t, http.MethodPost, url, token, sid, whoamiBody)
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

// Session ids are the Hub's: an unknown (well-formed) id, another
// server's, another binding's, and one idle past the TTL are all 404, on
// POST and on GET (the listening stream); a deleted one is gone. (Another
// token's: TestSessionTiedToItsToken.)
func TestSessionIDsAreTracked(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	h := newTestHub(t, Options{Now: clock})
	srv := httptest.NewServer(h)
	defer srv.Close()
	tasks, memory := srv.URL+"/mcp/tasks", srv.URL+"/mcp/memory"
	bound := tasks + "?" + h.Signer().Query(Binding{TeamID: "t"})

	sid := openSession(t, tasks, testToken)
	if code, got := whoami(t, tasks, testToken, sid); code != 200 || got == "" {
		t.Fatalf("own session: %d", code)
	}
	for name, c := range map[string]struct{ url, token, sid string }{
		"unknown id":       {tasks, testToken, "mcp-session-6f1c2b0e-8a53-4c1e-9d5e-0b7f8a9c1d2e"},
		"another server":   {memory, testToken, sid},
		"another binding":  {bound, testToken, sid},
		"malformed id":     {tasks, testToken, "nope"},
		"a minted-like id": {tasks, testToken, "mcp-session-" + strings.Repeat("0", 32)},
	} {
		if code, _ := whoami(t, c.url, c.token, c.sid); code != http.StatusNotFound {
			t.Fatalf("%s: %d, want 404", name, code)
		}
		// A GET (the listening stream) is checked too.
		if code, _, _ := testkit.MCPPost(t, http.MethodGet, c.url, c.token, c.sid, ""); code != http.StatusNotFound {
			t.Fatalf("GET with %s: %d, want 404", name, code)
		}
	}
	// Its owner can end it.
	if code, _, _ := testkit.MCPPost(t, http.MethodDelete, tasks, testToken, sid, ""); code != http.StatusOK {
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
	if code, _, _ := testkit.MCPPost(t, http.MethodGet, tasks, testToken, sid, ""); code != http.StatusNotFound {
		t.Fatalf("GET on an idle session: %d, want 404", code)
	}
	// A fresh initialize works.
	sid = openSession(t, tasks, testToken)
	if code, _ := whoami(t, tasks, testToken, sid); code != 200 {
		t.Fatal(code)
	}
}
