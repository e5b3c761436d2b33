// Package perf measures `clawboo serve` from the outside, as a user's
// machine sees it: cold start, idle memory, API latency, mock runs per
// second with everything persisted, and flood delivery over SSE. It is
// benchmarks only (`make bench`); it imports nothing from the backend, so
// it measures the real binary rather than a test harness.
package perf
