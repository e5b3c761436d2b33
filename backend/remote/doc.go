// Package remote runs work on another machine (issue 29): an adapter that
// stands for a runtime on a host and drives that host's own Clawboo server
// (`clawboo host`) through its API, over the socket the person's ssh
// forwards. The supervisor keeps owning the run here — its row, its
// ledger, its budgets and the quota governor are this computer's — and the
// host runs the runtime, in its own worktree, with its own supervisor.
//
// Invariants:
//   - The wire is the host server's HTTP API and its Server-Sent Events;
//     git travels by git's own ssh transport (worktree.SendTo, TakeFrom).
//     Nothing else crosses.
//   - Every event the host records is emitted here once, in its order: the
//     stream resumes after the last sequence number taken (Last-Event-ID),
//     so a dropped link loses and repeats nothing.
//   - A host whose server stopped mid-run ends the run failed, "Host lost"
//     in words; the work stays on the host's branch and nothing here
//     pretends it finished.
//   - Stop stops: an abort here aborts the run there, and a run whose host
//     cannot be reached for the re-attach window is ended, not left live.
//   - A task's branch comes back only as a fast-forward of the one sent.
package remote
