// Package toolbroker is clawboo-tools, the managed capability broker:
// every tools/call goes through one pipeline (broker.go) — availability,
// argument validation, risk policy (a person is asked before a high-risk
// tool runs), run, audit row — whether the tool is built in (tools_*.go) or
// proxied from an external MCP server a person added (external*.go). It is
// the only part of the MCP servers that starts processes and dials out
// (web_fetch, web_search, external servers), so it is reviewed as one unit.
//
// The hub (backend/mcp) builds the MCP server, installs Filter and calls
// Attach; it serves the transports and verifies who calls. This package
// never imports the hub: the caller reaches it through the context
// (internal/toolcall). It imports mcp-go (the server's registry and the
// client it dials external servers with), store, redact, config (the
// provider table) and proc (the child environment and process groups).
//
// Invariants:
//   - A call passes availability, argument validation and policy before it
//     runs; a high-risk tool runs only on a person's explicit approval
//     (expiry, denial or any error is "no"), and every call leaves one
//     audit row with secrets scrubbed.
//   - An external stdio server gets only proc's allowlisted environment and
//     the names a person listed, their values from the vault; a header gets
//     a secret only as ${NAME}. Provider keys and CLAWBOO_* never pass.
//   - A stdio server runs in its own process group, killed whole when its
//     connection closes or the broker does.
//   - Web tools refuse this machine and private networks, before and after
//     redirects; every text and list is bounded.
package toolbroker
