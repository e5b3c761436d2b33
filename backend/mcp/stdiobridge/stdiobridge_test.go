package stdiobridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestBridgeSpeaksMCP: the whole exchange, the session kept, server
// notifications forwarded, and every request (the closing DELETE too)
// carrying the token.
func TestBridgeSpeaksMCP(t *testing.T) {
	e := newEndpoint(t)
	r := startBridge(t, e.url, goodToken)

	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	if err := json.Unmarshal(r.initialize(), &init); err != nil || init.ServerInfo.Name != "clawboo-test" || init.ProtocolVersion != "2025-06-18" {
		t.Fatalf("initialize result %+v (%v)", init, err)
	}

	r.send(`{"jsonrpc":"2.0","id":"list-1","method":"tools/list"}`)
	var list mcp.ListToolsResult
	if err := json.Unmarshal(r.result(`"list-1"`), &list); err != nil || len(list.Tools) != 2 {
		t.Fatalf("tools/list: %+v (%v)", list, err)
	}

	r.send(callEcho(3, "hello through the bridge"))
	m, notes := r.response("3")
	if got := echoed(t, m.Result); got != "hello through the bridge" {
		t.Fatalf("echo returned %q", got)
	}
	if len(notes) != 1 || notes[0] != "notifications/message" {
		t.Fatalf("notifications before the echo's answer: %v, want the tool's log message", notes)
	}

	// A request still in flight at EOF is answered before Run returns.
	r.send(callEcho(4, "last words"))
	r.eof()
	if got := echoed(t, r.result("4")); got != "last words" {
		t.Fatalf("echo returned %q", got)
	}

	refused, deletes := e.counts()
	if len(refused) != 0 || deletes != 1 {
		t.Fatalf("refused %v and %d authorised DELETEs; want none refused and the session closed once", refused, deletes)
	}
}

// TestBridgeWrongToken: a refused token is a JSON-RPC error with the
// request's id, and the bridge keeps going until stdin ends.
func TestBridgeWrongToken(t *testing.T) {
	e := newEndpoint(t)
	r := startBridge(t, e.url, wrongToken)

	r.send(`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	if msg := r.rpcError("7", mcp.INTERNAL_ERROR); !strings.Contains(msg, "initialize") || !strings.Contains(msg, "401") {
		t.Fatalf("error message %q: want it to name the request and the 401", msg)
	}
	r.send(`{"jsonrpc":"2.0","id":8,"method":"tools/list"}`)
	r.rpcError("8", mcp.INTERNAL_ERROR)
	r.eof()

	if refused, _ := e.counts(); len(refused) != 2 {
		t.Fatalf("the endpoint refused %v, want the two requests", refused)
	}
}

// TestBridgeMalformedLines: bad lines are answered and skipped, empty lines
// and the client's responses produce nothing, and the bridge goes on.
func TestBridgeMalformedLines(t *testing.T) {
	e := newEndpoint(t)
	r := startBridge(t, e.url, goodToken)
	r.initialize()

	for _, bad := range []string{`{not json`, `[1,2]`, `null`, `"text"`} {
		r.send(bad)
		if msg := r.rpcError("null", mcp.PARSE_ERROR); !strings.HasPrefix(msg, "parse error: ") {
			t.Fatalf("%s: message %q", bad, msg)
		}
	}
	r.send(`{"jsonrpc":"2.0","id":{"no":1},"method":"tools/list"}`)
	r.rpcError("null", mcp.INVALID_REQUEST)
	r.send(`{"jsonrpc":"2.0","id":12,"method":42}`)
	r.rpcError("12", mcp.INVALID_REQUEST)

	// Nothing comes of these: the next line out answers id 9.
	r.send("")
	r.send("   \r")
	r.send(`{"jsonrpc":"2.0","id":99,"result":{}}`)
	r.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":98}}`)
	r.send(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
	r.result("9")
	r.eof()
}

// TestBridgeOverlongLine: a line over MaxLine is a parse error, dropped
// unread by the endpoint, and the next request works.
func TestBridgeOverlongLine(t *testing.T) {
	e := newEndpoint(t)
	r := startBridge(t, e.url, goodToken)
	r.initialize()

	head, tail := `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"pad":"`, `"}}`
	long := head + strings.Repeat("x", MaxLine+10-len(head)-len(tail)) + tail
	if len(long) != MaxLine+10 {
		t.Fatalf("the long line is %d bytes", len(long))
	}
	r.send(long)
	if msg := r.rpcError("null", mcp.PARSE_ERROR); !strings.Contains(msg, "too large") {
		t.Fatalf("message %q: want it to say the message is too large", msg)
	}
	r.send(callEcho(6, "still here"))
	if got := echoed(t, r.result("6")); got != "still here" {
		t.Fatalf("echo returned %q", got)
	}
	r.eof()
}

// TestBridgeEndsWithContext: a slow request does not stop the next one,
// and ending ctx ends Run with ctx.Err(), abandoning what is in flight.
func TestBridgeEndsWithContext(t *testing.T) {
	e := newEndpoint(t)
	r := startBridge(t, e.url, goodToken)
	r.initialize()

	r.send(`{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"wait","arguments":{}}}`)
	select {
	case <-e.waiting:
	case <-time.After(deadline):
		t.Fatal("the wait call never reached the endpoint")
	}
	r.send(`{"jsonrpc":"2.0","id":21,"method":"tools/list"}`)
	r.result("21")

	r.cancel() // stdin stays open: ctx alone ends the bridge
	if err := r.wait(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run after cancel = %v, want context.Canceled", err)
	}
	if n := len(r.out.lines); n != 0 {
		t.Fatalf("%d lines written for the abandoned request", n)
	}
}

// TestBridgeScrubsToken: an endpoint that quotes the token back, in a
// plain-text failure or in a JSON-RPC error, never gets it to stdout.
func TestBridgeScrubsToken(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		if r.URL.Path == "/json" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"bad credential %s"}}`, auth)
			return
		}
		http.Error(w, "cannot take "+auth, http.StatusInternalServerError)
	}))
	t.Cleanup(ts.Close)

	for _, path := range []string{"/text", "/json"} {
		r := startBridge(t, ts.URL+path, goodToken)
		r.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		m, _ := r.response("1")
		if m.Error == nil || !strings.Contains(m.Error.Message, "Bearer [redacted]") {
			t.Fatalf("%s: error %+v: want the quoted token redacted", path, m.Error)
		}
		r.eof()
		r.checkOutput()
	}
}

// TestBridgeTokenStaysHome: a redirect to another origin does not carry
// the token.
func TestBridgeTokenStaysHome(t *testing.T) {
	seen := make(chan string, 4)
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Get("Authorization")
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	t.Cleanup(elsewhere.Close)
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(home.Close)

	r := startBridge(t, home.URL+"/mcp", goodToken)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	r.rpcError("1", mcp.INTERNAL_ERROR)
	r.eof()
	if auth := <-seen; auth != "" {
		t.Fatalf("the other origin got Authorization %q", auth)
	}
}

// TestRunRefusesUnusableEndpoint: what cannot work is an error in words
// before anything is read, and the token is not in it.
func TestRunRefusesUnusableEndpoint(t *testing.T) {
	for _, tc := range []struct{ url, token, want string }{
		{"ftp://127.0.0.1/mcp", goodToken, "not an http or https URL"},
		{"127.0.0.1:8080/mcp", goodToken, "not"},
		{"/mcp/tasks", goodToken, "not an http or https URL"},
		{"http:///mcp", goodToken, "names no host"},
		{"http://127.0.0.1/mcp", "", "no token"},
		{"http://127.0.0.1/mcp", "two words", "cannot"},
		{"http://127.0.0.1/mcp", goodToken + "\n", "cannot"},
	} {
		in := &failingReader{t: t}
		err := Run(context.Background(), in, io.Discard, tc.url, tc.token)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Run(%q) = %v, want an error saying %q", tc.url, err, tc.want)
		}
		if err != nil && tc.token != "" && strings.Contains(err.Error(), tc.token) {
			t.Errorf("Run(%q): the error quotes the token: %v", tc.url, err)
		}
	}
}

// TestRunEndsWhenStdoutFails: a client that is gone (stdout fails) ends
// the bridge with an error in words, though stdin stays open.
func TestRunEndsWhenStdoutFails(t *testing.T) {
	pr, pw := io.Pipe()
	defer pr.Close() // the caller closes in
	go func() { _, _ = io.WriteString(pw, "{bad\n") }()
	err := Run(context.Background(), pr, failingWriter{}, "http://127.0.0.1:1/mcp", goodToken)
	if err == nil || !strings.Contains(err.Error(), "writing stdout") {
		t.Fatalf("Run = %v, want a stdout write error", err)
	}
}
