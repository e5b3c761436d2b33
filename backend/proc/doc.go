// Package proc owns child processes and the programs they run: starting a
// child in its own process group, streaming its output as bounded lines,
// stopping it (SIGTERM to the group, SIGKILL after a grace period), building
// its environment from an allowlist, and finding programs on PATH and in the
// per-user install folders (cached, invalidated by file-system events).
//
// Invariants:
//   - A child never inherits the server's whole environment; its caller
//     names what passes (AllowEnv), so provider keys reach only runtimes
//     that are handed them explicitly.
//   - Every buffer is bounded: output lines are cut at MaxLine, and a slow
//     reader slows the child (pipe back-pressure) rather than growing memory.
//   - Stopping a child stops its process group, and a stop always ends in
//     SIGKILL after the grace period; Wait never hangs on grandchildren that
//     hold the pipes.
//   - Finding a program never spawns one.
package proc
