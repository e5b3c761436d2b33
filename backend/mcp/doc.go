// Package mcp serves Clawboo's four MCP servers — clawboo-tasks,
// clawboo-memory, clawboo-tools and clawboo-teamchat — over Streamable HTTP
// at /mcp/{tasks,memory,tools,teamchat} and in-process to the native
// runtime, and generates the configuration each runtime uses to attach.
// It is the only package that imports mcp-go.
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
//     through the small interfaces declared here (TaskBoard, Approver,
//     Embedder); only store and redact are imported.
//   - Tools calls pass availability, argument validation and policy before
//     they run; a high-risk tool runs only on a person's explicit approval
//     (expiry, denial or any error is "no"), and every call leaves one
//     audit row with secrets scrubbed.
//   - Memory facts, team-chat posts and audit summaries are scrubbed of
//     secrets before they are stored; every list and text is bounded.
//
// Files: hub.go (transport, auth), tokens.go (credentials), sessions.go
// (session ids), identity.go (bindings), inprocess.go,
// results.go (shared answers), attach.go (runtime configs), tasks*.go,
// memory*.go + embed*.go, tools.go + broker*.go + tools_*.go +
// external*.go, teamchat*.go.
package mcp
