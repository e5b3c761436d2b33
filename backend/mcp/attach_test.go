package mcp

import (
	"encoding/json"
	"maps"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
)

type serverEntry struct {
	Type      string            `json:"type"`
	Transport string            `json:"transport"`
	URL       string            `json:"url"`
	Headers   map[string]string `json:"headers"`
}

func decodeServers(t *testing.T, text string, path ...string) map[string]serverEntry {
	t.Helper()
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &raw); err != nil {
		t.Fatalf("%v in %s", err, text)
	}
	for _, p := range path[:len(path)-1] {
		if err := json.Unmarshal(raw[p], &raw); err != nil {
			t.Fatal(err)
		}
	}
	var out map[string]serverEntry
	if err := json.Unmarshal(raw[path[len(path)-1]], &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestAttachEveryRuntimeForm(t *testing.T) {
	signer := NewSigner([]byte("attach-test-key-0123456789"))
	tok := "tok-0123456789abcdefWXYZ"
	run := Binding{TeamID: "team-1", AgentID: "agent-1", Delegate: true, ReadOnly: true}
	a, err := BuildAttach(AttachOptions{BaseURL: "http://127.0.0.1:18795/", Token: tok, Binding: run, Signer: signer})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"clawboo-tasks", "clawboo-memory", "clawboo-tools", "clawboo-teamchat"}
	if a.BaseURL != "http://127.0.0.1:18795" || !slices.Equal(a.Servers, names) {
		t.Fatalf("%+v", a)
	}
	if got := slices.Sorted(maps.Keys(a.Clients)); !slices.Equal(got, slices.Sorted(slices.Values(Clients))) {
		t.Fatal(got)
	}
	// Each server's URL carries the run's binding, narrowed to what that
	// server uses, and the signature verifies.
	for _, name := range Names {
		u, err := url.Parse(a.URLs[ServerName(name)])
		if err != nil || u.Path != "/mcp/"+name {
			t.Fatal(u, err)
		}
		b, ok := signer.FromQuery(u.Query())
		if !ok || b.TeamID != "team-1" || b.AgentID != "agent-1" || b.Delegate != (name == TeamChat) || b.ReadOnly != (name == Tasks) {
			t.Fatalf("%s: %+v %v", name, b, ok)
		}
	}
	bearer := "Bearer " + tok

	claude := decodeServers(t, a.Clients[ClientClaude].Text, "mcpServers")
	for _, n := range names {
		e := claude[n]
		if e.Type != "http" || e.URL != a.URLs[n] || e.Headers["Authorization"] != bearer {
			t.Fatalf("claude %s: %+v", n, e)
		}
	}
	for _, c := range []string{ClientHermes, ClientJSON} {
		for _, n := range names {
			if e := decodeServers(t, a.Clients[c].Text, "mcpServers")[n]; e.URL != a.URLs[n] || e.Headers["Authorization"] != bearer {
				t.Fatalf("%s %s: %+v", c, n, e)
			}
		}
	}
	oc := decodeServers(t, a.Clients[ClientOpenClaw].Text, "mcp", "servers")
	if len(oc) != 3 {
		t.Fatalf("openclaw servers: %v", oc)
	}
	for _, n := range []string{"clawboo-tasks", "clawboo-memory", "clawboo-tools"} {
		e := oc[n]
		if e.URL != "http://127.0.0.1:18795/mcp/"+strings.TrimPrefix(n, "clawboo-") || e.Transport != "streamable-http" || e.Headers["Authorization"] != bearer {
			t.Fatalf("openclaw %s (must be unbound): %+v", n, e)
		}
	}

	codex := a.Clients[ClientCodex]
	if codex.Format != "toml" || codex.Env[TokenEnv] != tok || strings.Contains(codex.Text, tok) {
		t.Fatalf("%+v", codex)
	}
	tables := regexp.MustCompile(`(?m)^\[mcp_servers\.(clawboo-[a-z]+)\]\nurl = "([^"]+)"\nbearer_token_env_var = "CLAWBOO_MCP_TOKEN"$`).FindAllStringSubmatch(codex.Text, -1)
	if len(tables) != 4 {
		t.Fatalf("%s", codex.Text)
	}
	for _, m := range tables {
		if a.URLs[m[1]] != m[2] {
			t.Fatalf("%s: %s", m[1], m[2])
		}
	}

	// Unbound: no query at all.
	u, err := BuildAttach(AttachOptions{BaseURL: "http://localhost:1", Token: tok})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range u.URLs {
		if strings.Contains(v, "?") {
			t.Fatal(v)
		}
	}
	// Refusals.
	for _, o := range []AttachOptions{
		{BaseURL: "127.0.0.1:18790", Token: tok},
		{BaseURL: "http://127.0.0.1:18790"},
		{BaseURL: "http://127.0.0.1:18790", Token: tok, Binding: Binding{AgentID: "a b"}, Signer: signer},
		{BaseURL: "http://127.0.0.1:18790", Token: tok, Binding: Binding{AgentID: "a"}},
	} {
		if _, err := BuildAttach(o); err == nil {
			t.Fatalf("accepted %+v", o)
		}
	}
}

func TestAttachMaskedNeverHoldsTheToken(t *testing.T) {
	tok := "secret-token-0123456789-abcdWXYZ"
	a, err := BuildAttach(AttachOptions{BaseURL: "http://127.0.0.1:18790", Token: tok, Masked: true})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(a)
	if strings.Contains(string(b), tok) || strings.Contains(string(b), tok[:12]) {
		t.Fatalf("masked config holds the token: %s", b)
	}
	if !strings.Contains(a.Clients[ClientClaude].Text, `"Bearer ••••WXYZ"`) || a.Clients[ClientCodex].Env[TokenEnv] != "••••WXYZ" {
		t.Fatalf("%+v", a.Clients)
	}
	if MaskToken("short") != "••••" {
		t.Fatal(MaskToken("short"))
	}
}

// TestAttachConfigConnects uses the generated config as a client would:
// every URL and header reaches its server as the run's binding.
func TestAttachConfigConnects(t *testing.T) {
	h := newTestHub(t, Options{})
	srv := httptest.NewServer(h)
	defer srv.Close()
	a, err := h.Attach(srv.URL, Binding{TeamID: "t1", AgentID: "a1", Delegate: true}, false)
	if err != nil {
		t.Fatal(err)
	}
	claude := decodeServers(t, a.Clients[ClientClaude].Text, "mcpServers")
	for _, name := range Names {
		e := claude[ServerName(name)]
		c, err := httpClient(t, e.URL, e.Headers)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := `{"teamId":"t1","agentId":"a1","Transport":"http"}`
		if name == TeamChat {
			want = `{"teamId":"t1","agentId":"a1","delegate":true,"Transport":"http"}`
		}
		if got := mustCall(t, c, "whoami", nil); got != want {
			t.Fatalf("%s: %s", name, got)
		}
	}
	// The masked form does not get in.
	m, _ := h.Attach(srv.URL, Binding{}, true)
	e := decodeServers(t, m.Clients[ClientClaude].Text, "mcpServers")[ServerName(Tasks)]
	if _, err := httpClient(t, e.URL, e.Headers); err == nil {
		t.Fatal("a masked token was accepted")
	}
}

// A run carried to another computer is the same attachment at another
// base: Rebase of Paths gives every form with the same bindings and
// token, and a path that is not its server's is refused.
func TestRebaseIsTheSameAttachAtAnotherBase(t *testing.T) {
	signer := NewSigner([]byte("attach-test-key-0123456789"))
	tok := "tok-0123456789abcdefWXYZ"
	run := Binding{TeamID: "team-1", AgentID: "agent-1", Delegate: true}
	here, err := BuildAttach(AttachOptions{BaseURL: "http://127.0.0.1:18795", Token: tok, Binding: run, Signer: signer})
	if err != nil {
		t.Fatal(err)
	}
	want, err := BuildAttach(AttachOptions{BaseURL: "http://127.0.0.1:40001", Token: tok, Binding: run, Signer: signer})
	if err != nil {
		t.Fatal(err)
	}
	there, err := Rebase("http://127.0.0.1:40001/", tok, here.Paths())
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(there.URLs, want.URLs) || there.BaseURL != want.BaseURL {
		t.Fatalf("rebased URLs %v, want %v", there.URLs, want.URLs)
	}
	for _, c := range Clients {
		if there.Clients[c].Text != want.Clients[c].Text || !maps.Equal(there.Clients[c].Env, want.Clients[c].Env) {
			t.Fatalf("%s: %q, want %q", c, there.Clients[c].Text, want.Clients[c].Text)
		}
	}
	for name, paths := range map[string]map[string]string{
		"another server's path": func() map[string]string {
			p := maps.Clone(here.Paths())
			p[ServerName(Tasks)] = p[ServerName(Memory)]
			return p
		}(),
		"a full URL": func() map[string]string {
			p := maps.Clone(here.Paths())
			p[ServerName(Tasks)] = "http://evil/mcp/tasks"
			return p
		}(),
		"a server missing": func() map[string]string {
			p := maps.Clone(here.Paths())
			delete(p, ServerName(Tools))
			return p
		}(),
	} {
		if _, err := Rebase("http://127.0.0.1:40001", tok, paths); err == nil {
			t.Fatalf("%s was rebased", name)
		}
	}
	if _, err := Rebase("http://127.0.0.1:40001", "", here.Paths()); err == nil {
		t.Fatal("rebased without a token")
	}
}
