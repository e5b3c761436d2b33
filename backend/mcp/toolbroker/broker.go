package toolbroker

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"

	"github.com/clawboo/desktop/backend/redact"
	"github.com/clawboo/desktop/backend/store"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// SecretSource finds a secret a person configured by name: the key a
// built-in tool needs (TAVILY_API_KEY), a ${NAME} in an external server's
// header, an environment variable a person listed for a stdio server.
type SecretSource interface {
	// Has answers without decrypting or blocking: listings call it.
	Has(name string) bool
	Get(ctx context.Context, name string) (string, bool)
}

// envSecretSource reads the process environment; the host replaces it with the
// vault in Start.
type envSecretSource struct{}

func (envSecretSource) Has(name string) bool { return strings.TrimSpace(os.Getenv(name)) != "" }
func (envSecretSource) Get(_ context.Context, name string) (string, bool) {
	v := strings.TrimSpace(os.Getenv(name))
	return v, v != ""
}

// Options wire a Broker. Store nil: the tools that need it are listed as
// unavailable; Approver nil: high-risk tools are refused.
type Options struct {
	Store    *store.Store
	Approver Approver
	Log      *slog.Logger
	Now      func() time.Time
	Version  string
}

// Broker is clawboo-tools' registry and call pipeline.
type Broker struct {
	st       *store.Store
	approver Approver
	log      *slog.Logger
	now      func() time.Time
	version  string
	srv      *server.MCPServer

	secrets   atomic.Pointer[secretBox]
	environ   func() []string // the host's environment, for stdio children
	home      func() (string, error)
	fetch     *fetcher
	tavilyURL string
	audits    atomic.Int64

	// life ends when the broker closes; external connections run under it.
	life    context.Context
	stop    context.CancelFunc
	conns   sync.WaitGroup
	mu      sync.RWMutex
	tools   map[string]*brokerTool
	servers map[string]*extServer
	started bool
	closed  bool
}

type secretBox struct{ s SecretSource }

// New builds the registry with the built-in tools; external servers are
// loaded by Start.
func New(o Options) *Broker {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	b := &Broker{
		st: o.Store, approver: o.Approver, log: o.Log.With("server", "clawboo-tools"), now: o.Now,
		version: o.Version, environ: os.Environ, home: os.UserHomeDir, fetch: newFetcher(),
		tavilyURL: tavilyEndpoint, tools: map[string]*brokerTool{}, servers: map[string]*extServer{},
	}
	b.secrets.Store(&secretBox{envSecretSource{}})
	b.life, b.stop = context.WithCancel(context.Background())
	for _, t := range b.builtins() {
		b.tools[t.def.Name] = t
	}
	return b
}

func (b *Broker) secretSource() SecretSource { return b.secrets.Load().s }

// brokerTool is one entry of the registry.
type brokerTool struct {
	def    mcp.Tool
	risk   Risk
	source string // "builtin" or the external server's name
	// available says whether the tool can be offered now, and if not why.
	available func(ctx context.Context) (bool, string)
	// prepare validates raw arguments into a ready call.
	prepare func(raw json.RawMessage) (*preparedCall, error)
}

// preparedCall is a validated call waiting for the policy's verdict.
type preparedCall struct {
	run    func(ctx context.Context, c toolcall.Caller) (*mcp.CallToolResult, error)
	title  string // for a person: what exactly would happen
	reason string // the agent's "why", when the tool takes one
}

const builtinSource = "builtin"

// Attach registers the registry on the MCP server the hub built for
// clawboo-tools (which must also use Filter as its tool filter).
func (b *Broker) Attach(s *server.MCPServer) {
	b.mu.Lock()
	b.srv = s
	tools := make([]server.ServerTool, 0, len(b.tools))
	for name, t := range b.tools {
		tools = append(tools, server.ServerTool{Tool: t.def, Handler: b.handler(name)})
	}
	b.mu.Unlock()
	s.AddTools(tools...)
}

func (b *Broker) lookup(name string) *brokerTool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.tools[name]
}

func (t *brokerTool) isAvailable(ctx context.Context) (bool, string) {
	if t.available == nil {
		return true, ""
	}
	return t.available(ctx)
}

// Filter hides the tools that are not available now; mcp-go applies it to
// tools/list and to tools/call alike.
func (b *Broker) Filter(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
	out := make([]mcp.Tool, 0, len(tools))
	for _, t := range tools {
		e := b.lookup(t.Name)
		switch {
		case e == nil && strings.Contains(t.Name, "__"):
			continue // an external server's tool left behind by a race with its removal
		case e != nil:
			if ok, _ := e.isAvailable(ctx); !ok {
				continue
			}
		}
		out = append(out, t)
	}
	return out
}

func (b *Broker) handler(name string) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		raw, err := json.Marshal(req.GetRawArguments())
		if err != nil {
			raw = nil
		}
		return b.call(ctx, toolcall.CallerFrom(ctx), name, raw), nil
	}
}

// call is the pipeline every call goes through: availability → arguments
// → policy → run → audit. Whatever happens, one audit row is written.
func (b *Broker) call(ctx context.Context, c toolcall.Caller, name string, raw json.RawMessage) *mcp.CallToolResult {
	start := b.now()
	a := toolAuditRow{Tool: name, AgentID: c.AgentID, TeamID: c.TeamID, Transport: c.Transport, Summary: summarizeArgs(raw)}
	res := b.decide(ctx, c, name, raw, &a)
	a.DurationMS = b.now().Sub(start).Milliseconds()
	b.writeAudit(a)
	return res
}

func (b *Broker) decide(ctx context.Context, c toolcall.Caller, name string, raw json.RawMessage, a *toolAuditRow) *mcp.CallToolResult {
	t := b.lookup(name)
	if t == nil {
		a.Decision, a.Detail = decisionDenied, "unknown tool"
		return toolcall.Denied("unknown_tool", "denied: no tool named "+name, "List the tools again: the set changes when servers come and go.")
	}
	a.Source, a.Risk = t.source, string(t.risk)
	if ok, why := t.isAvailable(ctx); !ok {
		a.Decision, a.Detail = decisionDenied, "unavailable: "+why
		return toolcall.Denied("unavailable", "denied: "+name+" is not available: "+why, "")
	}
	p, err := t.prepare(raw)
	if err != nil {
		a.Decision, a.Detail = decisionDenied, "invalid args: "+err.Error()
		return toolcall.InvalidArgs("%v", err)
	}
	if t.risk == RiskHigh {
		if res := b.approve(ctx, c, t, p, a); res != nil {
			return res
		}
	}
	res, err := p.run(ctx, c)
	switch {
	case err != nil:
		a.Decision, a.Detail = decisionError, err.Error()
		return toolcall.Error(name + ": " + err.Error())
	case res == nil:
		a.Decision = decisionAllowed
		return toolcall.JSON(map[string]any{})
	case res.IsError:
		a.Decision, a.Detail = decisionError, resultTextOf(res)
	default:
		a.Decision = decisionAllowed
	}
	return res
}

// approve asks a person; it returns nil when the call may go ahead, and
// the refusal otherwise. Every path but an explicit yes is a no.
func (b *Broker) approve(ctx context.Context, c toolcall.Caller, t *brokerTool, p *preparedCall, a *toolAuditRow) *mcp.CallToolResult {
	name := t.def.Name
	if b.approver == nil {
		a.Decision, a.Detail = decisionDenied, "no approvals queue to ask"
		return toolcall.Denied("approval_unavailable", "denied: "+name+" needs a person's approval and none can be asked here", "")
	}
	who := c.AgentID
	if who == "" {
		who = "An agent"
	}
	title := p.title
	if title == "" {
		title = "Use " + name
	}
	ans, err := b.approver.Ask(ctx, ApprovalRequest{
		Tool: name, Title: redact.Secrets(who + ": " + title), Args: a.Summary, Risk: t.risk,
		AgentID: c.AgentID, TeamID: c.TeamID, RunID: c.RunID, Reason: redact.Secrets(p.reason),
	})
	a.ApprovalID = ans.ID
	switch {
	case err != nil:
		a.Decision, a.Detail = decisionError, "approval could not be asked: "+err.Error()
		return toolcall.Denied("approval_error", "not approved: the question could not be put to a person ("+err.Error()+")", "")
	case ans.Outcome == ApprovalApproved:
		return nil
	case ans.Outcome == ApprovalDenied:
		a.Decision, a.Detail = decisionDenied, "a person declined"
		msg := "denied: a person declined this " + name + " call"
		if ans.Note != "" {
			msg += ": " + ans.Note
		}
		return toolcall.Denied("approval_denied", msg, "Do not repeat the same call; choose another way or explain why it is needed.")
	default:
		a.Decision, a.Detail = decisionExpired, "not approved in time"
		return toolcall.Denied("approval_expired", "not approved in time: nobody answered, so "+name+" did not run",
			"Ask again only if it is still needed, and say why in the reason.")
	}
}

// resultTextOf is the text of a result's content blocks.
func resultTextOf(res *mcp.CallToolResult) string {
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String()
}

// summarizeArgs is the audit's view of the arguments: compact JSON, scrubbed,
// then cut (scrubbing first, so a cut can never leave half a key behind
// that no longer looks like one).
func summarizeArgs(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var v any
	s := string(raw)
	if json.Unmarshal(raw, &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			s = string(b)
		}
	}
	return cutBytes(redact.Secrets(s), maxAuditSummary)
}

// ToolInfo is one tool as the API lists it.
type ToolInfo struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Risk        Risk            `json:"risk"`
	Source      string          `json:"source"` // "builtin" or the external server's name
	Available   bool            `json:"available"`
	Reason      string          `json:"unavailableReason,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// List is the whole registry, available or not, by name.
func (b *Broker) List(ctx context.Context) []ToolInfo {
	b.mu.RLock()
	tools := make([]*brokerTool, 0, len(b.tools))
	for _, t := range b.tools {
		tools = append(tools, t)
	}
	b.mu.RUnlock()
	out := make([]ToolInfo, 0, len(tools))
	for _, t := range tools {
		ok, why := t.isAvailable(ctx)
		out = append(out, ToolInfo{
			Name: t.def.Name, Description: t.def.Description, Risk: t.risk, Source: t.source,
			Available: ok, Reason: why, InputSchema: toolSchemaJSON(t.def),
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func toolSchemaJSON(t mcp.Tool) json.RawMessage {
	if len(t.RawInputSchema) > 0 {
		return t.RawInputSchema
	}
	b, err := json.Marshal(t.InputSchema)
	if err != nil {
		return json.RawMessage(`{"type":"object"}`)
	}
	return b
}

// Start gives the broker the host's secrets (nil keeps the process
// environment) and connects the external servers saved in the database,
// in the background: one that fails is reported in Servers, not fatal.
func (b *Broker) Start(ctx context.Context, secrets SecretSource) error {
	if secrets != nil {
		b.secrets.Store(&secretBox{secrets})
	}
	b.mu.Lock()
	if b.started || b.closed {
		b.mu.Unlock()
		return nil
	}
	b.started = true
	b.mu.Unlock()
	if b.st == nil {
		return nil
	}
	cfgs, err := b.loadServers(ctx)
	if err != nil {
		return err
	}
	for _, cfg := range cfgs {
		es := b.addConn(cfg)
		if es == nil {
			continue
		}
		b.conns.Add(1)
		go func() {
			defer b.conns.Done()
			b.connect(es)
		}()
	}
	return nil
}

// Close disconnects every external server (stopping their processes) and
// waits for connections under way.
func (b *Broker) Close() {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	servers := make([]*extServer, 0, len(b.servers))
	for _, es := range b.servers {
		servers = append(servers, es)
	}
	b.mu.Unlock()
	b.stop()
	var wg sync.WaitGroup
	for _, es := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			es.disconnect(true)
		}()
	}
	wg.Wait()
	b.conns.Wait()
}

var errBrokerClosed = errors.New("the tools broker is closed")

func (b *Broker) isClosed() bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.closed
}

// cutBytes shortens s to at most n bytes on a rune boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	end := n - len("…")
	for end > 0 && (s[end]&0xC0) == 0x80 {
		end--
	}
	return s[:end] + "…"
}
