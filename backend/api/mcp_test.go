package api

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/mcp"
	"github.com/clawboo/desktop/internal/testkit"
)

func TestMCPConfigMasksTheToken(t *testing.T) {
	const token = "api-test-attach-token-0123456789-LAST"
	hub, err := mcp.New(mcp.Options{Token: token, BindingKey: []byte("api-test-binding-key-0123456789")})
	if err != nil {
		t.Fatal(err)
	}
	defer hub.Close()
	srv := httptest.NewServer(authedAPI(t, Options{MCP: hub}))
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/api/mcp/config")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if strings.Contains(string(body), token) || strings.Contains(string(body), token[:16]) {
		t.Fatalf("the response holds the token: %s", body)
	}
	var got struct {
		BaseURL string                      `json:"baseUrl"`
		Servers []string                    `json:"servers"`
		Clients map[string]mcp.ClientConfig `json:"clients"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	// The base URL is the address the request came in on: the MCP servers
	// share this listener.
	if got.BaseURL != srv.URL || strings.Join(got.Servers, ",") != "clawboo-tasks,clawboo-memory,clawboo-tools,clawboo-teamchat" {
		t.Fatalf("%+v", got)
	}
	for _, c := range mcp.Clients {
		cc, ok := got.Clients[c]
		if !ok || cc.Text == "" || cc.Where == "" {
			t.Fatalf("%s: %+v", c, cc)
		}
	}
	if !strings.Contains(got.Clients[mcp.ClientClaude].Text, srv.URL+"/mcp/teamchat") ||
		!strings.Contains(got.Clients[mcp.ClientClaude].Text, "Bearer ••••LAST") ||
		got.Clients[mcp.ClientCodex].Env[mcp.TokenEnv] != "••••LAST" {
		t.Fatalf("%+v", got.Clients)
	}

	// A wired base URL wins; a webview request without one gets the default.
	a := authedAPI(t, Options{MCP: hub, MCPBaseURL: func() string { return "http://127.0.0.1:18801" }})
	rec := httptest.NewRecorder()
	a.ServeHTTP(rec, httptest.NewRequest("GET", "http://127.0.0.1/api/mcp/config", nil))
	if !strings.Contains(rec.Body.String(), `"baseUrl":"http://127.0.0.1:18801"`) {
		t.Fatal(rec.Body.String())
	}
	rec = httptest.NewRecorder()
	req := httptest.NewRequest("GET", "http://wails/api/mcp/config", nil)
	New(Options{MCP: hub}).ServeHTTP(rec, req.WithContext(MarkInProcess(req.Context())))
	if !strings.Contains(rec.Body.String(), `"baseUrl":"http://127.0.0.1:18790"`) {
		t.Fatal(rec.Body.String())
	}

	// No hub: 503, as JSON; a POST: 405.
	rec = httptest.NewRecorder()
	authedAPI(t, Options{}).ServeHTTP(rec, httptest.NewRequest("GET", "http://127.0.0.1/api/mcp/config", nil))
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), `"error"`) {
		t.Fatal(rec.Code, rec.Body.String())
	}
	rec = httptest.NewRecorder()
	a.ServeHTTP(rec, httptest.NewRequest("POST", "http://127.0.0.1/api/mcp/config", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Fatal(rec.Code)
	}
}

// /mcp/* sits behind the API's own gate: a foreign Host is 403 even with
// the right token (DNS rebinding), a cross-site browser POST is 403, and
// a loopback request without the token is 401.
func TestMCPMountGates(t *testing.T) {
	const token = "api-test-attach-token-0123456789"
	hub, err := mcp.New(mcp.Options{Token: token, BindingKey: []byte("api-test-binding-key-0123456789")})
	if err != nil {
		t.Fatal(err)
	}
	defer hub.Close()
	srv := httptest.NewServer(authedAPI(t, Options{MCP: hub}))
	defer srv.Close()
	init := testkit.MCPInitialize
	for _, tc := range []struct {
		name string
		hdr  map[string]string
		code int
	}{
		{"foreign host", map[string]string{"Host": "rebind.example", "Authorization": "Bearer " + token}, 403},
		{"cross-site", map[string]string{"Origin": "http://evil.example", "Authorization": "Bearer " + token}, 403},
		{"no token", nil, 401},
		{"wrong token", map[string]string{"Authorization": "Bearer " + token + "x"}, 401},
		{"ok", map[string]string{"Authorization": "Bearer " + token}, 200},
	} {
		req, _ := http.NewRequest("POST", srv.URL+"/mcp/tasks", strings.NewReader(init))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range tc.hdr {
			if k == "Host" {
				req.Host = v
			} else {
				req.Header.Set(k, v)
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.code {
			t.Errorf("%s: %d %s", tc.name, resp.StatusCode, b)
		}
	}
}

// POST /api/mcp/token/rotate replaces the install token: stored first,
// served at once, the old one refused; the answer shows it masked only.
func TestMCPTokenRotate(t *testing.T) {
	const token = "api-test-attach-token-0123456789-LAST"
	var saved string
	hub, err := mcp.New(mcp.Options{
		Token: token, BindingKey: []byte("api-test-binding-key-0123456789"),
		SaveToken: func(_ context.Context, tok string) error { saved = tok; return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer hub.Close()
	srv := httptest.NewServer(authedAPI(t, Options{MCP: hub}))
	defer srv.Close()
	init := func(tok string) int {
		req, _ := http.NewRequest("POST", srv.URL+"/mcp/tasks", strings.NewReader(testkit.MCPInitialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if init(token) != 200 {
		t.Fatal("the token before rotation")
	}
	resp, err := http.Post(srv.URL+"/api/mcp/token/rotate", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(saved) < 43 || strings.Contains(string(body), saved) || strings.Contains(string(body), saved[:12]) ||
		!strings.Contains(string(body), `"token":"••••`+saved[len(saved)-4:]+`"`) {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if init(token) != 401 || init(saved) != 200 {
		t.Fatal("the old token is still served, or the new one is not")
	}
	rec := httptest.NewRecorder()
	authedAPI(t, Options{MCP: hub}).ServeHTTP(rec, httptest.NewRequest("GET", "http://127.0.0.1/api/mcp/token/rotate", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Fatal(rec.Code)
	}
	rec = httptest.NewRecorder()
	req := httptest.NewRequest("POST", "http://127.0.0.1/api/mcp/token/rotate", strings.NewReader("{}"))
	req.Header.Set("Content-Type", "application/json")
	authedAPI(t, Options{}).ServeHTTP(rec, req)
	if rec.Code != http.StatusServiceUnavailable {
		t.Fatal(rec.Code)
	}
}
