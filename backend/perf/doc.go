// Package perf measures `clawboo serve` from the outside, as a user's
// machine sees it: cold start, idle memory, API latency, mock runs per
// second with everything persisted, and flood delivery over SSE. It is
// benchmarks only (`make bench`). The server figures import nothing from
// the backend, so they measure the real binary rather than a test harness;
// the worktree benchmark drives backend/worktree directly, since provisioning
// is a library call with no HTTP in front of it yet.
//
// Every figure that has one is printed beside its floor, measured in the
// same run on the same machine: a bare Go HTTP server built from
// floorSource (cold start, idle RSS), GET /api/health on the same server
// (run rate, latency), bare `git worktree add` (provisioning), a second
// server with no schedules armed (routines' idle CPU), a plain mock run
// started through the API (how late a routine fire starts). Targets are
// ratios to the floor where the issue sets them so, never tuned to a
// machine.
package perf
