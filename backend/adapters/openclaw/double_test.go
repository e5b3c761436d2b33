package openclaw

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// double is a scripted in-process Gateway: the real handshake (challenge,
// signed v3 connect, hello-ok) on a coder/websocket server, requests
// recorded and answered by handlers, events pushed by the test.
type double struct {
	t     testing.TB
	srv   *httptest.Server
	token string

	mu          sync.Mutex
	conns       []*dconn
	reqs        []dreq
	connects    int
	unavailable int // connects answered UNAVAILABLE + close 1013 first
	lastConnect connectParams
	sigOK       bool
	handlers    map[string]func(c *dconn, id string, p json.RawMessage)
}

type dreq struct {
	Method string
	Params json.RawMessage
}

type dconn struct {
	ws  *websocket.Conn
	mu  sync.Mutex
	ctx context.Context
}

func (c *dconn) send(v any) {
	b, _ := json.Marshal(v)
	c.mu.Lock()
	defer c.mu.Unlock()
	_ = c.ws.Write(c.ctx, websocket.MessageText, b)
}

func (c *dconn) ok(id string, payload any) {
	c.send(map[string]any{"type": "res", "id": id, "ok": true, "payload": payload})
}

func (c *dconn) fail(id, code, msg string) {
	c.send(map[string]any{"type": "res", "id": id, "ok": false, "error": map[string]any{"code": code, "message": msg}})
}

func (c *dconn) event(name string, payload any) {
	c.send(map[string]any{"type": "event", "event": name, "payload": payload})
}

const (
	doubleNonce = "nonce-7860083a"
	doubleTS    = int64(1795974169565)
)

func newDouble(t testing.TB) *double {
	d := &double{t: t, token: "double-token-SENTINEL", handlers: map[string]func(*dconn, string, json.RawMessage){}}
	d.srv = httptest.NewServer(http.HandlerFunc(d.serve))
	t.Cleanup(d.srv.Close)
	d.handle("agents.list", func(c *dconn, id string, _ json.RawMessage) {
		c.ok(id, map[string]any{"defaultId": "main", "mainKey": "main", "agents": []any{map[string]any{"id": "main"}}})
	})
	return d
}

func (d *double) url() string { return "ws" + strings.TrimPrefix(d.srv.URL, "http") }

func (d *double) handle(method string, f func(c *dconn, id string, p json.RawMessage)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.handlers[method] = f
}

// requests returns the recorded requests for method ("" = all).
func (d *double) requests(method string) []dreq {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []dreq
	for _, r := range d.reqs {
		if method == "" || r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

// waitRequest waits until a request for method has been seen n times.
func (d *double) waitRequest(method string, n int) []dreq {
	d.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if r := d.requests(method); len(r) >= n {
			return r
		}
		time.Sleep(5 * time.Millisecond)
	}
	d.t.Fatalf("no %d× %s request; saw %+v", n, method, d.requests(""))
	return nil
}

// broadcast sends an event on every live connection.
func (d *double) broadcast(name string, payload any) {
	d.mu.Lock()
	conns := append([]*dconn(nil), d.conns...)
	d.mu.Unlock()
	for _, c := range conns {
		c.event(name, payload)
	}
}

// dropAll closes every connection from the server side.
func (d *double) dropAll() {
	d.mu.Lock()
	conns := d.conns
	d.conns = nil
	d.mu.Unlock()
	for _, c := range conns {
		_ = c.ws.CloseNow()
	}
}

func (d *double) serve(w http.ResponseWriter, r *http.Request) {
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	ctx := r.Context()
	c := &dconn{ws: ws, ctx: ctx}
	c.event("connect.challenge", map[string]any{"nonce": doubleNonce, "ts": doubleTS})
	_, b, err := ws.Read(ctx)
	if err != nil {
		return
	}
	var f struct {
		ID     string        `json:"id"`
		Method string        `json:"method"`
		Params connectParams `json:"params"`
	}
	_ = json.Unmarshal(b, &f)
	p := f.Params
	tok := ""
	if p.Auth != nil {
		tok = p.Auth.Token
	}
	sigOK := VerifyV3(p.Device.PublicKey, p.Device.Signature, SignFields{
		ClientID: p.Client.ID, ClientMode: p.Client.Mode,
		Role: p.Role, Scopes: p.Scopes, SignedAtMs: p.Device.SignedAt, Token: tok, Nonce: p.Device.Nonce, Platform: p.Client.Platform,
	})
	d.mu.Lock()
	d.connects++
	d.lastConnect, d.sigOK = p, sigOK
	starting := d.unavailable > 0
	if starting {
		d.unavailable--
	}
	d.mu.Unlock()
	switch {
	case f.Method != "connect":
		ws.Close(websocket.StatusPolicyViolation, "connect first")
		return
	case starting:
		c.send(map[string]any{"type": "res", "id": f.ID, "ok": false, "error": map[string]any{
			"code":    "UNAVAILABLE",
			"message": "gateway starting; retry shortly", "retryable": true, "retryAfterMs": 20,
		}})
		ws.Close(websocket.StatusTryAgainLater, "gateway starting")
		return
	case tok != d.token:
		c.fail(f.ID, "UNAUTHORIZED", "token mismatch")
		ws.Close(4008, "connect failed")
		return
	case !sigOK || p.Device.Nonce != doubleNonce:
		c.fail(f.ID, "UNAUTHORIZED", "bad device signature")
		ws.Close(4008, "connect failed")
		return
	}
	c.ok(f.ID, map[string]any{
		"type": "hello-ok", "protocol": 4, "server": map[string]any{"version": "double", "connId": "c1"},
		"policy": map[string]any{"tickIntervalMs": 30000},
	})
	d.mu.Lock()
	d.conns = append(d.conns, c)
	d.mu.Unlock()
	for {
		_, b, err := ws.Read(ctx)
		if err != nil {
			return
		}
		var req struct {
			ID     string          `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(b, &req) != nil {
			continue
		}
		d.mu.Lock()
		d.reqs = append(d.reqs, dreq{Method: req.Method, Params: req.Params})
		h := d.handlers[req.Method]
		d.mu.Unlock()
		if h != nil {
			go h(c, req.ID, req.Params)
			continue
		}
		c.ok(req.ID, map[string]any{"ok": true})
	}
}

// client connects a fresh client (fresh identity) to the double.
func (d *double) client(t testing.TB, mutate ...func(*ClientOptions)) *Client {
	t.Helper()
	c := d.unstarted(t, mutate...)
	c.Start()
	return c
}

// unstarted is client before its Start, for a test that must subscribe
// before the first connect.
func (d *double) unstarted(t testing.TB, mutate ...func(*ClientOptions)) *Client {
	t.Helper()
	id, err := LoadIdentity(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	o := ClientOptions{
		Identity: id, MinBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond,
		Settings: func(context.Context) Settings { return Settings{URL: d.url(), Token: d.token} },
	}
	for _, f := range mutate {
		f(&o)
	}
	c := NewClient(o)
	t.Cleanup(c.Close)
	return c
}

func param(t testing.TB, p json.RawMessage, key string) any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(p, &m); err != nil {
		t.Fatalf("params %s: %v", p, err)
	}
	return m[key]
}
