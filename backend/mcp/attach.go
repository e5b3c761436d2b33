package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"
)

// Attach configuration: the one place that knows how each runtime is told
// where Clawboo's MCP servers are. Every form names the same servers at
// <BaseURL>/mcp/{tasks,memory,tools,teamchat}; a bound run's URLs carry
// its signed binding, and the token (the install token for a person's own
// client, a run token for a run, the gateway token for OpenClaw) travels
// as a bearer token — in the file for clients that can only read it there,
// in the child's environment for Codex, which can read it from one.

// Clients that have an attach form.
const (
	ClientClaude   = "claude"   // Claude Code: --mcp-config JSON (inline or a file, e.g. .mcp.json)
	ClientCodex    = "codex"    // Codex: [mcp_servers.<name>] in $CODEX_HOME/config.toml
	ClientHermes   = "hermes"   // Hermes: $HERMES_HOME/mcp.json
	ClientOpenClaw = "openclaw" // OpenClaw: the Gateway config's mcp.servers
	ClientJSON     = "json"     // any other client (Cursor and the like)
)

// Clients lists the attach forms in the order they are shown.
var Clients = []string{ClientClaude, ClientCodex, ClientHermes, ClientOpenClaw, ClientJSON}

// TokenEnv is the environment variable that carries the token to a Codex
// child (a run token there; the install token is stored in the vault slot
// of the same name).
const TokenEnv = "CLAWBOO_MCP_TOKEN"

// openClawServers are the servers registered with an OpenClaw Gateway. Its
// sessions reach them unbound (the Gateway config is shared by all its
// agents, so no URL there can carry one agent's binding), and an unbound
// session can neither post to team chat nor delegate, so TeamChat is left
// out, as the reference does.
var openClawServers = []string{Tasks, Memory, Tools}

// OpenClawServers lists the servers registered with an OpenClaw Gateway.
func OpenClawServers() []string { return slices.Clone(openClawServers) }

// AttachOptions say where the servers are and who attaches.
type AttachOptions struct {
	BaseURL string // e.g. http://127.0.0.1:18790 (a trailing slash is fine)
	Token   string // the attach token
	// Binding is the run's identity; the zero Binding attaches unbound (a
	// person's own client). OpenClaw's form is always unbound.
	Binding Binding
	Signer  Signer // signs Binding; unused when unbound
	// Masked shows the token as "••••" + its last 4 characters, for
	// display: the result can then be shown but not used.
	Masked bool
}

// ClientConfig is one runtime's attach configuration.
type ClientConfig struct {
	Format string `json:"format"` // "json" or "toml"
	Text   string `json:"text"`   // ready to paste or write
	// Env is what the runtime's environment must carry (Codex: the token).
	Env map[string]string `json:"env,omitempty"`
	// Where says where the text goes.
	Where string `json:"where"`
}

// Attach is every runtime's form of the same servers.
type Attach struct {
	BaseURL string                  `json:"baseUrl"`
	Servers []string                `json:"servers"` // full names, "clawboo-tasks", …
	Clients map[string]ClientConfig `json:"clients"`
	// URLs maps each full server name to its URL (binding included), for
	// drivers that pass servers one by one (Codex's per-thread config).
	URLs map[string]string `json:"-"`
}

// MaskToken is how a token is shown: "••••" and its last 4 characters.
func MaskToken(tok string) string {
	if len(tok) <= 8 {
		return "••••"
	}
	return "••••" + tok[len(tok)-4:]
}

// ServerName is a server's name in attach configs ("clawboo-tasks").
func ServerName(name string) string { return "clawboo-" + name }

// BuildAttach builds every runtime's attach configuration.
func BuildAttach(o AttachOptions) (Attach, error) {
	base := strings.TrimRight(o.BaseURL, "/")
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		return Attach{}, fmt.Errorf("mcp attach: base URL %q is not http(s)", o.BaseURL)
	}
	if o.Token == "" {
		return Attach{}, errors.New("mcp attach: no attach token")
	}
	if o.Binding != (Binding{}) && (!toolcall.ValidID(o.Binding.TeamID) || !toolcall.ValidID(o.Binding.AgentID) || len(o.Signer.key) == 0) {
		return Attach{}, errors.New("mcp attach: the binding has an invalid id or no signing key")
	}
	tok := o.Token
	if o.Masked {
		tok = MaskToken(tok)
	}
	bound := map[string]string{}
	unbound := map[string]string{}
	for _, name := range Names {
		bound[ServerName(name)] = serverURL(base, name, o.Signer, serverBinding(name, o.Binding))
		unbound[ServerName(name)] = serverURL(base, name, o.Signer, Binding{})
	}
	return assemble(base, tok, bound, unbound), nil
}

// Paths are a's server URLs without their base (each "/mcp/<name>?<its
// signed binding>"): what a run carries to another computer, which
// reaches the same servers at another base (Rebase).
func (a Attach) Paths() map[string]string {
	out := make(map[string]string, len(a.URLs))
	for name, u := range a.URLs {
		out[name] = strings.TrimPrefix(u, a.BaseURL)
	}
	return out
}

// Rebase is the attach of a run another computer carried here: its
// servers' paths (Paths) at base, with its run token. Every server must be
// there, each path on its own server; the signature in a path is the other
// computer's to check, so nothing here can widen it.
func Rebase(base, token string, paths map[string]string) (Attach, error) {
	base = strings.TrimRight(base, "/")
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		return Attach{}, fmt.Errorf("mcp attach: base URL %q is not http(s)", base)
	}
	if token == "" {
		return Attach{}, errors.New("mcp attach: no attach token")
	}
	if len(paths) != len(Names) {
		return Attach{}, fmt.Errorf("mcp attach: %d server paths, not %d", len(paths), len(Names))
	}
	bound := map[string]string{}
	unbound := map[string]string{}
	for _, name := range Names {
		p, ok := paths[ServerName(name)]
		own := "/mcp/" + name
		if !ok || (p != own && !strings.HasPrefix(p, own+"?")) || strings.ContainsAny(p, " \t\r\n#") {
			return Attach{}, fmt.Errorf("mcp attach: no valid path for %s", ServerName(name))
		}
		bound[ServerName(name)] = base + p
		unbound[ServerName(name)] = base + own
	}
	return assemble(base, token, bound, unbound), nil
}

// assemble is every runtime's form of the servers at bound (unbound for
// OpenClaw), with tok as the bearer token.
func assemble(base, tok string, bound, unbound map[string]string) Attach {
	bearer := map[string]string{"Authorization": "Bearer " + tok}
	a := Attach{BaseURL: base, URLs: bound, Clients: map[string]ClientConfig{}}
	for _, name := range Names {
		a.Servers = append(a.Servers, ServerName(name))
	}

	claude := map[string]any{}
	hermes := map[string]any{}
	for name, u := range bound {
		claude[name] = map[string]any{"type": "http", "url": u, "headers": bearer}
		hermes[name] = map[string]any{"url": u, "headers": bearer}
	}
	openclaw := map[string]any{}
	for _, name := range openClawServers {
		openclaw[ServerName(name)] = map[string]any{"url": unbound[ServerName(name)], "transport": "streamable-http", "headers": bearer}
	}
	a.Clients[ClientClaude] = ClientConfig{
		Format: "json", Text: jsonText(map[string]any{"mcpServers": claude}),
		Where: "claude --mcp-config '<this JSON>' (inline or a file), or a project's .mcp.json",
	}
	a.Clients[ClientCodex] = ClientConfig{
		Format: "toml", Text: codexTOML(bound), Env: map[string]string{TokenEnv: tok},
		Where: "$CODEX_HOME/config.toml (default ~/.codex/config.toml), with " + TokenEnv + " in Codex's environment",
	}
	a.Clients[ClientHermes] = ClientConfig{
		Format: "json", Text: jsonText(map[string]any{"mcpServers": hermes}),
		Where: "$HERMES_HOME/mcp.json",
	}
	a.Clients[ClientOpenClaw] = ClientConfig{
		Format: "json", Text: jsonText(map[string]any{"mcp": map[string]any{"servers": openclaw}}),
		Where: "merged into the Gateway's openclaw.json (or one `openclaw mcp set <name> '<entry>'` per server); unbound, without TeamChat",
	}
	a.Clients[ClientJSON] = ClientConfig{
		Format: "json", Text: jsonText(map[string]any{"mcpServers": hermes}),
		Where: "an MCP client's JSON config (the common mcpServers form: url and headers per server)",
	}
	return a
}

// serverBinding narrows a run's binding to what a server uses: only
// TeamChat is told about delegation and only Tasks about read-only, so a
// flag never reaches a server it means nothing to.
func serverBinding(name string, b Binding) Binding {
	if name != TeamChat {
		b.Delegate = false
	}
	if name != Tasks {
		b.ReadOnly = false
	}
	return b
}

func serverURL(base, name string, s Signer, b Binding) string {
	u := base + "/mcp/" + name
	if q := s.Query(b); q != "" {
		u += "?" + q
	}
	return u
}

func jsonText(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil { // maps of strings cannot fail
		panic(err)
	}
	return string(b) + "\n"
}

// codexTOML is one [mcp_servers.<name>] table per server, sorted by name.
func codexTOML(urls map[string]string) string {
	names := make([]string, 0, len(urls))
	for n := range urls {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "[mcp_servers.%s]\nurl = %s\nbearer_token_env_var = %s\n", n, tomlString(urls[n]), tomlString(TokenEnv))
	}
	return b.String()
}

// tomlString is a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Attach builds the attach configuration of the install token, for a
// person's own MCP clients (masked, for display). Runtimes never get it:
// a run attaches with AttachRun, the OpenClaw Gateway with AttachGateway.
func (h *Hub) Attach(baseURL string, b Binding, masked bool) (Attach, error) {
	return BuildAttach(AttachOptions{BaseURL: baseURL, Token: h.creds.installToken(), Binding: b, Signer: h.signer, Masked: masked})
}

// AttachRun is one run's attachment: every server with a run token bound
// to b (see IssueRunToken) and b's signed query on the URLs. The caller
// calls revoke when the run ends; until then the token works, after it
// nothing does.
func (h *Hub) AttachRun(baseURL string, b Binding) (a Attach, revoke func(), err error) {
	tok, revoke, err := h.IssueRunToken(b)
	if err != nil {
		return Attach{}, nil, err
	}
	a, err = BuildAttach(AttachOptions{BaseURL: baseURL, Token: tok, Binding: b, Signer: h.signer})
	if err != nil {
		revoke()
		return Attach{}, nil, err
	}
	return a, revoke, nil
}

// AttachGateway is the OpenClaw Gateway's attachment: unbound, with the
// gateway token (not the install token; see credentials).
func (h *Hub) AttachGateway(baseURL string) (Attach, error) {
	return BuildAttach(AttachOptions{BaseURL: baseURL, Token: h.creds.gatewayToken(), Signer: h.signer})
}
