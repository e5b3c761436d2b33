// Package mcp serves Clawboo's four MCP servers — clawboo-tasks,
// clawboo-memory, clawboo-tools and clawboo-teamchat — over Streamable HTTP
// at /mcp/{tasks,memory,tools,teamchat} and in-process to the native
// runtime, and generates the configuration each runtime uses to attach.
// clawboo-tools' registry, policy and external servers are the broker's
// (backend/mcp/toolbroker) and clawboo-memory's facts, search and embedders
// are backend/mcp/memory; this package serves both and neither imports it.
// What the servers share about one call (the verified Caller, the answer
// shapes) is internal/toolcall; backend/mcp/stdiobridge forwards one server
// to a stdio client (`clawboo mcp bridge`). mcp-go is imported here and in
// those four packages only.
//
// Invariants:
//   - Every HTTP request carries a bearer token: the install's attach
//     token (a person's own clients; never given to a runtime; rotatable),
//     the gateway token derived from it (OpenClaw's Gateway), or a run
//     token (one per CLI run, valid only while the run lives). A missing,
//     wrong, rotated or revoked token is 401 before any MCP parsing.
//   - A session's identity (team, agent, delegate, read-only) comes only
//     from the run token's own binding, from a binding signed with
//     HMAC-SHA256 under the binding key (install and gateway tokens), or
//     from the in-process Session that the host built; tool arguments
//     never choose who the caller is. A binding whose signature does not
//     verify is 401, and so is a run token with a query naming anyone but
//     its run: a run token never opens an unbound session.
//   - Session ids are the Hub's: an id that is unknown, idle past the TTL,
//     of another server or opened by another token or binding is 404.
//   - A bound session sees only its team: a task, fact or post of another
//     team is "not found" to it.
//   - Refusals a caller can act on (caps, conflicts, bad arguments) are tool
//     errors with a hint (isError, _meta.denied), never protocol errors.
//   - The board, the approvals queue and the rest of the backend are reached
//     through small interfaces (TaskBoard here, memory's Embedder, the
//     broker's Approver); of the backend only store and redact are imported.
//   - The caller reaches a handler only through the context, set by this
//     package's transports (toolcall.WithCaller); the broker's policy and
//     audit invariants are stated in its own package.
//   - Memory facts, team-chat posts and audit summaries are scrubbed of
//     secrets before they are stored; every list and text is bounded.
//
// Files: hub.go (transport, auth), tokens.go (credentials), sessions.go
// (session ids), identity.go (bindings), inprocess.go (Session) and
// inprocess_transport.go (its transport),
// attach.go (runtime configs), tasks*.go,
// memory.go and tools.go (serve the subpackages), teamchat*.go.
package mcp
