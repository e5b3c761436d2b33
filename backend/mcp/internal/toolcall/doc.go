// Package toolcall is what every Clawboo MCP server shares about one tool
// call: who it acts for (Binding, Caller, carried in the context) and the
// shapes of its answer (one JSON text block, a tool error, a refusal with a
// stable _meta.denied code). It is internal to backend/mcp so that only the
// hub (backend/mcp) and the servers under it (toolbroker, memory) can reach
// it; it imports mcp-go (its answers are mcp-go results) and nothing of the
// backend.
//
// Invariants:
//   - WithCaller is called only by the hub's transports (HTTP after the
//     token and binding are verified; the in-process Session with the
//     binding the host built), so a handler's Caller is always one they
//     verified; tool arguments never choose it.
//   - A Go error or undecodable arguments become tool errors (isError),
//     never protocol errors: the agent reads what to do next.
package toolcall
