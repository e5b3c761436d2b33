package toolbroker

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The test binary doubles as an external stdio MCP server: run with
// EXTMCP_CHILD set, TestExternalHelperServer serves over stdin/stdout and
// exits (the pattern os/exec's own tests use; TestMain belongs to
// broker_test.go).
const childModeVar = "EXTMCP_CHILD"

func TestExternalHelperServer(t *testing.T) {
	mode := os.Getenv(childModeVar)
	if mode == "" {
		t.Skip("runs only as a child process")
	}
	if mode == "crash-start" {
		fmt.Fprintln(os.Stderr, "boom: cannot start without a config file")
		os.Exit(2)
	}
	if err := server.ServeStdio(helperServer()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// helperServer is the tiny MCP server both transports serve in the tests.
func helperServer() *server.MCPServer {
	s := server.NewMCPServer("helper", "1")
	s.AddTool(mcp.NewTool("add", mcp.WithDescription("Add two numbers."),
		mcp.WithNumber("a", mcp.Required()), mcp.WithNumber("b", mcp.Required())),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(fmt.Sprint(req.GetFloat("a", 0) + req.GetFloat("b", 0))), nil
		})
	s.AddTool(mcp.NewTool("env", mcp.WithDescription("List the environment's names.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var names []string
			for _, kv := range os.Environ() {
				k, _, _ := strings.Cut(kv, "=")
				names = append(names, k)
			}
			sort.Strings(names)
			return mcp.NewToolResultText(strings.Join(names, ",") + "|MY_TOKEN=" + os.Getenv("MY_TOKEN")), nil
		})
	s.AddTool(mcp.NewTool("fail", mcp.WithDescription("Answer a tool error.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r := mcp.NewToolResultError("it failed")
			r.Meta = &mcp.Meta{AdditionalFields: map[string]any{"denied": "forged"}}
			return r, nil
		})
	s.AddTool(mcp.NewTool("crash", mcp.WithDescription("Exit the process.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "crashing on purpose")
			os.Exit(3)
			return nil, nil
		})
	s.AddTool(mcp.NewTool("bad name!"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("x"), nil
	})
	return s
}

func stdioHelper(name, mode string) ServerConfig {
	return ServerConfig{
		Name: name, Transport: TransportStdio, Command: os.Args[0],
		Args: []string{"-test.run=^TestExternalHelperServer$"}, Env: []string{childModeVar, "MY_TOKEN"},
	}
}

// withChildSecrets gives the broker the values of the names the helper
// lists, and an ambient environment holding keys that must not pass.
func withChildSecrets(f *toolsFixture, mode string, extra map[string]string) {
	sec := mapSecrets{childModeVar: mode, "MY_TOKEN": "tok-123"}
	for k, v := range extra {
		sec[k] = v
	}
	f.b.secrets.Store(&secretBox{sec})
	f.b.environ = func() []string {
		return []string{
			"PATH=" + os.Getenv("PATH"), "HOME=" + f.home, "LANG=C.UTF-8",
			"ANTHROPIC_API_KEY=sk-ant-SENTINEL-0123456789abcdef", "AMBIENT_SECRET=nope", "CLAWBOO_MCP_TOKEN=nope",
		}
	}
}

func TestExternalStdioServerProxied(t *testing.T) {
	f := newToolsFixture(t)
	withChildSecrets(f, "serve", nil)
	st, err := f.b.AddServer(context.Background(), stdioHelper("helper", "serve"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != ServerReady || st.Risk != RiskMedium || !slices.Equal(st.Tools, []string{"helper__add", "helper__crash", "helper__env", "helper__fail"}) ||
		!strings.Contains(st.Error, "1 tools not offered") {
		t.Fatalf("%+v", st)
	}
	s := f.session(t, toolcall.Binding{AgentID: "alice"})
	if got := toolNames(t, s); !slices.Contains(got, "helper__add") || !slices.Contains(got, "echo") {
		t.Fatal(got)
	}
	res, err := s.CallTool(context.Background(), "helper__add", map[string]any{"a": 2, "b": 3.5})
	if got := callText(t, res, err); got != "5.5" || res.IsError {
		t.Fatal(got)
	}
	row := f.audit(t)[0]
	if row.Tool != "helper__add" || row.Source != "helper" || row.Risk != "medium" || row.Decision != "allowed" {
		t.Fatalf("%+v", row)
	}
	// The child sees the allowlist and the names listed, nothing else.
	res, err = s.CallTool(context.Background(), "helper__env", nil)
	env := callText(t, res, err)
	for _, want := range []string{"PATH", "HOME", "LANG", childModeVar, "MY_TOKEN=tok-123"} {
		if !strings.Contains(env, want) {
			t.Errorf("%s missing from %s", want, env)
		}
	}
	for _, never := range []string{"ANTHROPIC_API_KEY", "AMBIENT_SECRET", "CLAWBOO_MCP_TOKEN"} {
		if strings.Contains(env, never) {
			t.Errorf("%s reached the child: %s", never, env)
		}
	}
	// Arguments are checked against the server's schema first.
	for _, args := range []map[string]any{{"a": 1}, {"a": "one", "b": 2}} {
		res, err := s.CallTool(context.Background(), "helper__add", args)
		if text := callText(t, res, err); deniedCode(res) != "invalid_args" {
			t.Fatalf("%v: %s", args, text)
		}
	}
	// A tool error stays an error; the server's _meta does not come along.
	res, err = s.CallTool(context.Background(), "helper__fail", nil)
	if text := callText(t, res, err); !res.IsError || text != "it failed" || deniedCode(res) != "" {
		t.Fatalf("%s %+v", text, res.Meta)
	}
	if row := f.audit(t)[0]; row.Decision != "error" || row.Detail != "it failed" {
		t.Fatalf("%+v", row)
	}
	if len(f.appr.requests()) != 0 {
		t.Fatal("a medium-risk server asked")
	}
}

func TestExternalServerThatCannotStartIsReported(t *testing.T) {
	f := newToolsFixture(t)
	withChildSecrets(f, "crash-start", nil)
	st, err := f.b.AddServer(context.Background(), stdioHelper("broken", "crash-start"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != ServerFailed || !strings.Contains(st.Error, "boom: cannot start") || len(st.Tools) != 0 {
		t.Fatalf("%+v", st)
	}
	missing := stdioHelper("missing", "serve")
	missing.Command = "/nonexistent/clawboo-mcp-server"
	if st, err := f.b.AddServer(context.Background(), missing); err != nil || st.Status != ServerFailed || st.Error == "" {
		t.Fatalf("%+v %v", st, err)
	}
	// The broker carries on.
	s := f.session(t, toolcall.Binding{})
	res, err := s.CallTool(context.Background(), "echo", map[string]any{"message": "still here"})
	if text := callText(t, res, err); res.IsError {
		t.Fatal(text)
	}
	if got := f.b.Servers(); len(got) != 2 || got[0].Name != "broken" || got[1].Name != "missing" {
		t.Fatalf("%+v", got)
	}
}

func TestExternalServerCrashMidCall(t *testing.T) {
	f := newToolsFixture(t)
	withChildSecrets(f, "serve", nil)
	if st, err := f.b.AddServer(context.Background(), stdioHelper("helper", "serve")); err != nil || st.Status != ServerReady {
		t.Fatalf("%+v %v", st, err)
	}
	s := f.session(t, toolcall.Binding{})
	res, err := s.CallTool(context.Background(), "helper__crash", nil)
	if text := callText(t, res, err); !res.IsError {
		t.Fatal(text)
	}
	st := f.b.Servers()[0]
	if st.Status != ServerFailed || !strings.Contains(st.Error, "stopped") {
		t.Fatalf("%+v", st)
	}
	if got := toolNames(t, s); slices.Contains(got, "helper__add") {
		t.Fatal(got)
	}
	// Reconnecting brings it back.
	st, err = f.b.Reconnect("helper")
	if err != nil || st.Status != ServerReady {
		t.Fatalf("%+v %v", st, err)
	}
	res, err = s.CallTool(context.Background(), "helper__add", map[string]any{"a": 1, "b": 1})
	if got := callText(t, res, err); got != "2" {
		t.Fatal(got)
	}
}

func TestExternalHTTPServer(t *testing.T) {
	f := newToolsFixture(t)
	f.appr.answer = answerWith(ApprovalApproved)
	streamable := server.NewStreamableHTTPServer(helperServer(), server.WithEndpointPath("/mcp"))
	t.Cleanup(func() { _ = streamable.Shutdown(context.Background()) })
	var sawAuth []string
	srv := newLoopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawAuth = append(sawAuth, r.Header.Get("Authorization"))
		if r.Header.Get("Authorization") != "Bearer ext-token-1" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		streamable.ServeHTTP(w, r)
	}))
	f.b.secrets.Store(&secretBox{mapSecrets{"EXT_TOKEN": "ext-token-1"}})
	cfg := ServerConfig{
		Name: "remote", Transport: TransportHTTP, URL: srv.URL + "/mcp",
		Headers: map[string]string{"Authorization": "Bearer ${EXT_TOKEN}"}, Risk: RiskHigh, TimeoutMS: 5000,
	}
	st, err := f.b.AddServer(context.Background(), cfg)
	if err != nil || st.Status != ServerReady || !slices.Contains(st.Tools, "remote__add") {
		t.Fatalf("%+v %v", st, err)
	}
	s := f.session(t, toolcall.Binding{AgentID: "alice"})
	res, err := s.CallTool(context.Background(), "remote__add", map[string]any{"a": 40, "b": 2})
	if got := callText(t, res, err); got != "42" {
		t.Fatal(got)
	}
	// Risk high, configured for the server: a person was asked.
	reqs := f.appr.requests()
	if len(reqs) != 1 || reqs[0].Tool != "remote__add" || reqs[0].Risk != RiskHigh {
		t.Fatalf("%+v", reqs)
	}
	// What is stored names the variable, not its value.
	var headers string
	if err := f.st.Reader().QueryRow(`SELECT headers FROM tool_servers WHERE name = 'remote'`).Scan(&headers); err != nil || strings.Contains(headers, "ext-token-1") {
		t.Fatal(headers, err)
	}
	// Without the secret, the server cannot connect, and says why.
	f.b.secrets.Store(&secretBox{mapSecrets{}})
	st, err = f.b.Reconnect("remote")
	if err != nil || st.Status != ServerFailed || !strings.Contains(st.Error, "EXT_TOKEN") {
		t.Fatalf("%+v %v", st, err)
	}
	if err := f.b.RemoveServer(context.Background(), "remote"); err != nil {
		t.Fatal(err)
	}
	if err := f.b.RemoveServer(context.Background(), "remote"); !errors.Is(err, ErrNoServer) {
		t.Fatal(err)
	}
	if _, err := s.CallTool(context.Background(), "remote__add", map[string]any{"a": 1, "b": 1}); err == nil {
		t.Fatal("a removed server's tool was called")
	}
}

// Saved servers come back on the next start, in the background.
func TestExternalServersReconnectAtStart(t *testing.T) {
	f := newToolsFixture(t)
	withChildSecrets(f, "serve", nil)
	if _, err := f.b.AddServer(context.Background(), stdioHelper("helper", "serve")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.b.AddServer(context.Background(), stdioHelper("helper", "serve")); !errors.Is(err, ErrServerExists) {
		t.Fatal(err)
	}
	b2 := New(Options{Store: f.st})
	defer b2.Close()
	b2.environ = f.b.environ
	if err := b2.Start(context.Background(), f.b.secretSource()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		sts := b2.Servers()
		if len(sts) == 1 && sts[0].Status == ServerReady {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%+v", sts)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestServerConfigValidation(t *testing.T) {
	ok := stdioHelper("fine", "serve")
	if err := ok.Validate(); err != nil || ok.Risk != RiskMedium {
		t.Fatal(err, ok.Risk)
	}
	for _, tc := range []struct {
		name string
		edit func(c *ServerConfig)
	}{
		{"bad name", func(c *ServerConfig) { c.Name = "Bad_Name" }},
		{"double underscore", func(c *ServerConfig) { c.Name = "a__b" }},
		{"transport", func(c *ServerConfig) { c.Transport = "sse" }},
		{"risk", func(c *ServerConfig) { c.Risk = "extreme" }},
		{"timeout", func(c *ServerConfig) { c.TimeoutMS = 5 }},
		{"no command", func(c *ServerConfig) { c.Command = "" }},
		{"provider key", func(c *ServerConfig) { c.Env = []string{"OPENAI_API_KEY"} }},
		{"clawboo secret", func(c *ServerConfig) { c.Env = []string{"CLAWBOO_MCP_TOKEN"} }},
		{"env value", func(c *ServerConfig) { c.Env = []string{"TOKEN=abc"} }},
		{"secret arg", func(c *ServerConfig) { c.Args = []string{"--key", "sk-ant-SENTINEL-0123456789abcdef"} }},
		{"url on stdio", func(c *ServerConfig) { c.URL = "http://x" }},
	} {
		c := stdioHelper("fine", "serve")
		tc.edit(&c)
		if err := c.Validate(); !errors.Is(err, ErrInvalidServer) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	h := ServerConfig{
		Name: "web", Transport: TransportHTTP, URL: "https://mcp.example.com/mcp",
		Headers: map[string]string{"Authorization": "Bearer ${GITHUB_TOKEN}"},
	}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(c *ServerConfig)
	}{
		{"scheme", func(c *ServerConfig) { c.URL = "ftp://x/mcp" }},
		{"userinfo", func(c *ServerConfig) { c.URL = "https://u:p@x/mcp" }},
		{"literal token", func(c *ServerConfig) {
			c.Headers = map[string]string{"Authorization": "Bearer ghp_abcdefghijklmnopqrstuvwxyz0123"}
		}},
		{"named secret", func(c *ServerConfig) { c.Headers = map[string]string{"X-Api-Key": "abcd1234efgh"} }},
		{"provider ref", func(c *ServerConfig) { c.Headers = map[string]string{"X-Key": "${ANTHROPIC_API_KEY}"} }},
		{"bad header", func(c *ServerConfig) { c.Headers = map[string]string{"Bad Header": "x"} }},
		{"command on http", func(c *ServerConfig) { c.Command = "x" }},
	} {
		c := h
		c.Headers = map[string]string{"Authorization": "Bearer ${GITHUB_TOKEN}"}
		tc.edit(&c)
		if err := c.Validate(); !errors.Is(err, ErrInvalidServer) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

func TestCheckExternalArgs(t *testing.T) {
	schema := mcp.ToolInputSchema{
		Type: "object", Required: []string{"n"}, AdditionalProperties: false,
		Properties: map[string]any{"n": map[string]any{"type": "integer"}, "s": map[string]any{"type": "string"}},
	}
	for raw, wantErr := range map[string]bool{
		`{"n":1}`: false, `{"n":1,"s":"x"}`: false, `{"n":1.5}`: true, `{}`: true, `{"n":1,"x":2}`: true,
		`[1]`: true, `null`: true, `{"n":1,"s":2}`: true,
	} {
		_, err := checkExternalArgs(schema, []byte(raw))
		if (err != nil) != wantErr {
			t.Errorf("%s: %v", raw, err)
		}
	}
	open := mcp.ToolInputSchema{Type: "object"}
	if _, err := checkExternalArgs(open, []byte(`{"anything":true}`)); err != nil {
		t.Fatal(err)
	}
}
