package mcp

import (
	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"
	"github.com/clawboo/desktop/backend/store"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The Memory server (clawboo-memory): facts and procedures agents share,
// found again by full-text, vector or hybrid search.
//
// Invariants:
//   - Text is scrubbed with redact.Secrets before it is stored, embedded or
//     sent to a provider: content, title, tags, procedure name and query.
//     Content that is nothing but [REDACTED] after scrubbing is refused.
//   - A bound session (Caller.Bound) reads only its team's facts, global
//     (team-less) facts and its own agent's facts; another team's fact is
//     never returned by any tool or mode. Its saves are tagged with its
//     team (shared by the team), and scope arguments that name another
//     team or agent are refused, never silently ignored. See memory_scope.go.
//   - Every vector is labelled with the embedder that made it; vectors of
//     different embedders are never compared with each other. A provider
//     failure at save time stores an offline vector instead, and a later
//     search re-embeds such facts with the provider once it answers.
//   - Everything is bounded: argument sizes, result counts, the facts a
//     vector search scans (the newest vectorScanCap in scope) and the
//     bytes a result carries.

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

// memoryServer serves the Memory tools over the store.
type memoryServer struct {
	h   *Hub
	st  *store.Store
	emb *embedders
}

func newMemoryServer(h *Hub) (*server.MCPServer, error) {
	m := &memoryServer{h: h, st: h.opts.Store, emb: newEmbedders(h.opts.Embedder, h.opts.Now, h.opts.Log)}
	s := h.newServer(Memory)
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
	return s, nil
}

// unavailable answers every call when the host wired no store.
func (m *memoryServer) unavailable() *mcp.CallToolResult {
	if m.st == nil {
		return toolcall.Error("memory is not available: this Clawboo was started without a database")
	}
	return nil
}
