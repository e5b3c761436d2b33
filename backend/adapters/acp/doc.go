// Package acp is the runtime family for agents that speak the Agent Client
// Protocol (agentclientprotocol.com, stable protocol version 1): Gemini
// CLI, OpenCode, GitHub Copilot CLI, Goose, Claude Code through its ACP
// adapter, and any agent a person names. One Adapter drives one agent
// program (a Spec: its command, arguments and the key names it reads); a
// run starts the program as a child over stdio JSON-RPC (through
// github.com/coder/acp-go-sdk), negotiates `initialize`, opens a session
// in the run's working folder with Clawboo's MCP servers, sends one
// `session/prompt` per turn and maps `session/update` to the host's events.
//
// Invariants:
//   - A run is one event stream ending in exactly one Done, whatever the
//     agent does: a version we do not speak, no answer to `initialize`
//     within InitTimeout, a frame that is not JSON or is over MaxFrame, more
//     than MaxOutput bytes, a crash mid-turn, or a flood faster than the
//     host reads each end the run with an error that says which, and the
//     process group is stopped and reaped before the Done.
//   - The client side is Clawboo's and guarded: `fs/*` reaches only the
//     run's working folder through backend/jail (no `..`, no symlink out,
//     no `.git` write); `terminal/*` runs argv-only (never a shell) in the
//     working folder with the allowlisted environment, output capped, and
//     only after a person approved the command; `session/request_permission`
//     is a question in the approvals queue, and an unanswered one is a
//     rejection. A method the agent was not offered gets a JSON-RPC error.
//   - The child's environment is proc's allowlist plus the Spec's key
//     names resolved from the vault; keys and the MCP run token never
//     appear in an event, an error or a log (the SDK's own diagnostics,
//     which quote raw frames, are discarded).
//   - Abort is `session/cancel`, then the process group is stopped after
//     Grace; a steer (mode next) cancels the turn and prompts the same
//     session again with its text (ACP v1 has no mid-turn input). A
//     passive steer is refused, since it would have to stop the turn.
//   - Tool inputs and outputs in events are cut at MaxToolText characters;
//     every buffer is bounded.
package acp
