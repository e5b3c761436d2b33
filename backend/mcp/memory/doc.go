// Package memory is clawboo-memory: facts and procedures agents share,
// stored in SQLite and found again by full-text (FTS5), vector or hybrid
// search, with the embedders that make the vectors (an offline hashing
// embedder, Ollama, OpenAI). The hub (backend/mcp) builds the MCP server and
// calls Attach; the caller reaches the tools only through the context
// (internal/toolcall), and this package never imports the hub. It imports
// mcp-go (the tools' definitions and answers), store and redact.
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
package memory
