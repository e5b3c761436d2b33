package memory

import (
	"log/slog"
	"time"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"
	"github.com/clawboo/desktop/backend/store"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Limits of the Memory tools.
const (
	maxContentBytes  = 16 << 10
	maxTitleBytes    = 512
	maxTags          = 16
	maxTagBytes      = 64
	maxProcNameBytes = 128
	maxQueryBytes    = 1 << 10
	defSearchLimit   = 10
	maxSearchLimit   = 100
	defBrowseLimit   = 50
	maxBrowseLimit   = 200
	// maxResultBytes bounds the text of one answer; items beyond it are
	// left out and the answer says "truncated".
	maxResultBytes = 256 << 10
)

// Options wire a Server. Store nil: every call answers that memory is not
// available; Embedder nil: the built-in offline embedder.
type Options struct {
	Store    *store.Store
	Embedder Embedder
	Log      *slog.Logger
	Now      func() time.Time
}

// Server serves the Memory tools over the store.
type Server struct {
	st  *store.Store
	emb *embedders
	log *slog.Logger
	now func() time.Time
}

// New builds the Memory tools; Attach puts them on the hub's server.
func New(o Options) *Server {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Server{st: o.Store, emb: newEmbedders(o.Embedder, o.Now, o.Log), log: o.Log, now: o.Now}
}

// Attach adds memory_save, memory_search and memory_browse to s (the MCP
// server the hub built for clawboo-memory).
func (m *Server) Attach(s *server.MCPServer) {
	scopeTeam := mcp.WithString("scopeTeamId", mcp.Description("Team scope. A bound session may only name its own team; unbound, it selects that team's facts plus global ones."))
	scopeAgent := mcp.WithString("scopeAgentId", mcp.Description("Agent scope. A bound session may only name its own agent; unbound, it adds that agent's private facts."))
	s.AddTool(mcp.NewTool("memory_save",
		mcp.WithDescription("Save a fact (needs a title) or, with procedureName, a new version of a named procedure. Shared with your team when the session is bound. Secrets are scrubbed before anything is stored."),
		mcp.WithString("content", mcp.Required(), mcp.MaxLength(maxContentBytes), mcp.Description("The fact or procedure text (at most 16 KiB).")),
		mcp.WithString("title", mcp.MaxLength(maxTitleBytes), mcp.Description("Short title; required for a fact.")),
		mcp.WithArray("tags", mcp.WithStringItems(mcp.MaxLength(maxTagBytes)), mcp.MaxItems(maxTags), mcp.Description("Up to 16 tags.")),
		mcp.WithString("procedureName", mcp.MaxLength(maxProcNameBytes), mcp.Description("Makes this a procedure; saving the same name again adds a version.")),
		scopeTeam, scopeAgent,
	), toolcall.Handler(m.save))
	s.AddTool(mcp.NewTool("memory_search",
		mcp.WithDescription("Search saved facts and procedures by full text (fts), meaning (vector) or both (hybrid, the default), best first."),
		mcp.WithString("query", mcp.Required(), mcp.MaxLength(maxQueryBytes)),
		mcp.WithString("mode", mcp.Enum("fts", "vector", "hybrid"), mcp.Description("Default hybrid.")),
		mcp.WithInteger("limit", mcp.Min(1), mcp.Max(maxSearchLimit), mcp.Description("Default 10.")),
		scopeTeam, scopeAgent,
		mcp.WithReadOnlyHintAnnotation(true),
	), toolcall.Handler(m.search))
	s.AddTool(mcp.NewTool("memory_browse",
		mcp.WithDescription("List the newest facts and current procedure versions you can see."),
		mcp.WithInteger("limit", mcp.Min(1), mcp.Max(maxBrowseLimit), mcp.Description("Default 50.")),
		scopeTeam, scopeAgent,
		mcp.WithReadOnlyHintAnnotation(true),
	), toolcall.Handler(m.browse))
}

// unavailable answers every call when the host wired no store.
func (m *Server) unavailable() *mcp.CallToolResult {
	if m.st == nil {
		return toolcall.Error("memory is not available: this Clawboo was started without a database")
	}
	return nil
}
