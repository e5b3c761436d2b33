package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"

	"github.com/clawboo/desktop/backend/mcp/memory"
	"github.com/clawboo/desktop/backend/mcp/toolbroker"
	"github.com/clawboo/desktop/backend/store"
	"github.com/mark3labs/mcp-go/server"
)

// Server names, as they appear in /mcp/{name} and in attach configs
// (prefixed "clawboo-").
const (
	Tasks    = "tasks"
	Memory   = "memory"
	Tools    = "tools"
	TeamChat = "teamchat"
)

// Names lists the servers in the order configs show them.
var Names = []string{Tasks, Memory, Tools, TeamChat}

// Options wire a Hub. Token and BindingKey are required; a server whose
// dependency is nil is still served and answers each call with a tool error
// saying what is missing.
type Options struct {
	// Token is the install's attach token (the one a person's own MCP
	// clients carry); RotateToken replaces it.
	Token      string
	BindingKey []byte // signs bindings and derives the gateway token
	// SaveToken stores a rotated install token (the vault) before it is
	// served; nil keeps a rotation in memory only (tests).
	SaveToken func(ctx context.Context, token string) error
	// Rotated runs after a rotation is served (the host re-registers the
	// OpenClaw Gateway, whose token changed with it); nil: nothing.
	Rotated   func(ctx context.Context)
	Store     *store.Store
	Board     TaskBoard
	Approvals toolbroker.Approver
	Embedder  memory.Embedder // nil: the built-in offline embedder
	Log       *slog.Logger
	Now       func() time.Time
	Version   string
	// Team lets the host act on the team room (nil: posts and delegate
	// signals are only recorded).
	Team TeamHooks
}

// TeamHooks are the host's side of clawboo-teamchat.
type TeamHooks interface {
	// Delegate acts on a signed team_delegate and records it in the room;
	// the answer is what the caller is told.
	Delegate(ctx context.Context, teamID, agentID, assignee, task string) (string, error)
	// Posted is told of every post the servers store.
	Posted(teamID string, seq int64)
	// Mail returns up to max undelivered posts for the agent, wrapped,
	// and marks them delivered ("" when none).
	Mail(ctx context.Context, teamID, agentID string, max int) string
}

// MailRows is how many posts one Tasks answer carries as mail.
const MailRows = 5

// Hub holds the four servers and their HTTP transports.
type Hub struct {
	opts     Options
	signer   Signer
	creds    *credentials
	sessions *sessionTable
	servers  map[string]*server.MCPServer
	http     map[string]*server.StreamableHTTPServer
	broker   *toolbroker.Broker
	closers  []func()
}

// New builds the servers.
func New(o Options) (*Hub, error) {
	if len(o.Token) < 16 || len(o.BindingKey) < 16 {
		return nil, errors.New("mcp: an attach token and a binding key of at least 16 bytes are required")
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	h := &Hub{
		opts: o, signer: NewSigner(o.BindingKey), servers: map[string]*server.MCPServer{},
		http: map[string]*server.StreamableHTTPServer{}, creds: newCredentials(o.Token, o.BindingKey),
		sessions: newSessionTable(sessionIdle, maxSessions, o.Now, o.Log),
	}
	builders := map[string]func(*Hub) (*server.MCPServer, error){
		Tasks: newTasksServer, Memory: newMemoryServer, Tools: newToolsServer, TeamChat: newTeamChatServer,
	}
	for _, name := range Names {
		s, err := builders[name](h)
		if err != nil {
			h.Close()
			return nil, fmt.Errorf("mcp %s: %w", name, err)
		}
		h.servers[name] = s
		h.http[name] = server.NewStreamableHTTPServer(s,
			server.WithEndpointPath("/mcp/"+name),
			// Ids are minted, checked and forgotten by the Hub's table
			// (sessions.go); mcp-go's sweeper frees its own per-session
			// state after the same idle time and tells the table.
			server.WithSessionIdManagerResolver(sessionIDs{t: h.sessions, srv: name}),
			server.WithSessionIdleTTL(sessionIdle),
			server.WithStreamableHTTPLogger(o.Log),
			// Host checks are done in ServeHTTP (and by the API in front).
			server.WithDisableLocalhostProtection(true),
		)
	}
	return h, nil
}

// newServer is an MCPServer with the options every Clawboo server shares.
func (h *Hub) newServer(name string, opts ...server.ServerOption) *server.MCPServer {
	base := []server.ServerOption{server.WithToolCapabilities(false), server.WithRecovery()}
	return server.NewMCPServer("clawboo-"+name, h.opts.Version, append(base, opts...)...)
}

// Tools is the capability broker behind clawboo-tools, for the API (the
// registry, the audit, external servers).
func (h *Hub) Tools() *toolbroker.Broker { return h.broker }

// Signer signs bindings for attach URLs.
func (h *Hub) Signer() Signer { return h.signer }

// Close stops the HTTP sessions' sweepers and anything the servers hold.
func (h *Hub) Close() {
	for _, s := range h.http {
		_ = s.Shutdown(context.Background())
	}
	for _, c := range h.closers {
		c()
	}
}

// ServeHTTP serves /mcp/{name}. The token is checked first, then the
// binding: a run token's is its own (a signed query may only repeat it),
// the install and gateway tokens' comes from the signed query (none:
// unbound). Then the session id, if any, must be one this owner opened on
// this server. Only then does mcp-go see the request.
func (h *Hub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/mcp/")
	hs, ok := h.http[name]
	if !ok {
		httpError(w, http.StatusNotFound, "no MCP server at "+r.URL.Path+"; try /mcp/tasks, /mcp/memory, /mcp/tools or /mcp/teamchat")
		return
	}
	tok, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	cred, ok := h.creds.lookup(strings.TrimSpace(tok))
	if !found || !ok {
		w.Header().Set("WWW-Authenticate", `Bearer realm="clawboo"`)
		httpError(w, http.StatusUnauthorized, "missing, wrong or expired attach token (Authorization: Bearer …); a run's token ends with its run, and `clawboo mcp config` prints a working configuration")
		return
	}
	b, ok := h.signer.FromQuery(r.URL.Query())
	if !ok {
		httpError(w, http.StatusUnauthorized, "the session binding's signature does not verify")
		return
	}
	ctx := r.Context()
	if cred.run != nil {
		own := serverBinding(name, cred.run.binding)
		signed := own
		signed.RunID = "" // the URL's signed query never names the run
		if b != (Binding{}) && b != signed {
			httpError(w, http.StatusUnauthorized, "this run's token is bound to the run's own team and agent; the URL's binding names someone else")
			return
		}
		b = own
		// A request in flight when the run ends ends with it.
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(cred.run.ctx, cancel)()
	}
	owner := sessionOwner{cred: cred.sum, kind: cred.kind, binding: b}
	// mcp-go validates the ids of POSTs (through sessionIDs) but opens a
	// stream for any id a GET names, so GET and DELETE are checked here.
	if sid := r.Header.Get(server.HeaderKeySessionID); sid != "" && r.Method != http.MethodPost {
		if h.sessions.check(name, sid, owner) != sessionOK {
			httpError(w, http.StatusNotFound, "unknown or expired MCP session; start a new one (initialize)")
			return
		}
	}
	ctx = withOwner(toolcall.WithCaller(ctx, Caller{Binding: b, Transport: "http"}), owner)
	hs.ServeHTTP(w, r.WithContext(ctx))
}

func httpError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}
