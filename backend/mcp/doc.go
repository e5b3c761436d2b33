// Package mcp serves Clawboo's four MCP servers — clawboo-tasks,
// clawboo-memory, clawboo-tools and clawboo-teamchat — over Streamable HTTP
// at /mcp/{tasks,memory,tools,teamchat} and in-process to the native
// runtime, and generates the configuration each runtime uses to attach.
// It is the only package that imports mcp-go.
//
// Invariants:
//   - Every HTTP request carries the install's attach token as a bearer
//     token; a missing or wrong token is 401 before any MCP parsing.
//   - A session's identity (team, agent, delegate) comes only from a
//     binding signed with HMAC-SHA256 under the binding key, or from the
//     in-process Session that the host built; tool arguments never choose
//     who the caller is. A binding whose signature does not verify is 401.
//   - A bound session sees only its team: a task, fact or post of another
//     team is "not found" to it.
//   - Refusals a caller can act on (caps, conflicts, bad arguments) are tool
//     errors with a hint (isError, _meta.denied), never protocol errors.
//   - The board, the approvals queue and the rest of the backend are reached
//     through the small interfaces declared here; only store is imported.
package mcp
