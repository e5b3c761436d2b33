// Package claudecode is the claude-code runtime: it drives the `claude`
// CLI directly in its stream-json mode (the transport the Agent SDK uses:
// --output-format stream-json --verbose --input-format stream-json, user
// messages and control requests on stdin, one JSON object per line each
// way), so no Node SDK is needed.
//
// One run is one CLI process: the message goes in as the first user line,
// the working folder is the run's (a task's worktree), permissions are
// bypassed (IS_SANDBOX=1 when the app runs as root, or the CLI refuses),
// Clawboo's four MCP servers are attached over HTTP in an inline
// --mcp-config, and --resume continues the conversation's last session.
//
// Invariants:
//   - The parser (Mapper, Outcome) is pure; everything the CLI says reaches
//     the host only through it, and lines are bounded by proc's MaxLine (a
//     cut line salvages its tool call or result, nothing else).
//   - Secrets reach the child only through its environment: the Anthropic
//     key as ANTHROPIC_API_KEY and the MCP attach token as
//     CLAWBOO_MCP_TOKEN, which the --mcp-config JSON names as ${...} so it
//     never sits on a command line. Every emitted string is scrubbed of
//     both, and tool output of anything secret-looking.
//   - total_cost_usd is a running total per CLI process; each result
//     reports only its own share as a cost event with the CLI's USD
//     (ledger kind "reported"). A --resume starts the CLI's total at zero
//     (measured on 2.1.197), so nothing is carried between runs.
//   - A rate_limit_event (written only for a claude.ai login, from the
//     API's anthropic-ratelimit-unified-* headers, whenever the CLI's view
//     of the limit changes) is a quota event for its rateLimitType window,
//     resetsAt turned from seconds to milliseconds; an odd one is skipped.
//     On a spent window it comes before the 429's error result, so the
//     rejected window is reported before the run ends.
//   - Exactly one done per run: success, max_turns (error_max_turns),
//     aborted (an interrupt control request, then the process group is
//     stopped after a grace period), or error (an API error arrives as
//     subtype success with is_error true; a process that ends without a
//     result is "runtime ended without a result").
//   - A steer is a user message on stdin: mode next with priority "next"
//     (read at the next turn boundary, inside the turn), mode passive with
//     priority "later" (a turn of its own after the current one, never an
//     interruption). The run ends only when every steer was read and
//     answered.
//   - The CLI keeps sessions per working folder, so a run without a folder
//     of its own works in one scratch folder per conversation (SessionKey);
//     a --resume the CLI cannot find starts a fresh session in the same
//     run instead of failing every later turn.
//   - The child runs in its own process group and is reaped on every path:
//     done, abort, crash, and the host's shutdown (which aborts; Wait
//     returns once every child is gone). The CLI starts each shell command
//     in a session of its own, beyond its group's reach, so every process
//     of a run carries a CLAWBOO_RUN marker in its environment and what is
//     left of the run when the CLI is gone is stopped too (Linux, /proc).
package claudecode
