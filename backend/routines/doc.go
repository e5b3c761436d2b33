// Package routines owns schedules: standing work for one agent (a cron spec
// or one time, in a timezone, and a task template), the one timer that
// fires them, the fire ledger, and the missed-fire policy. It fires only
// through the Firer it is given (backend/dispatch's door into the task
// runner, or the Gateway for OpenClaw agents); it never starts a run itself.
//
// Invariants:
//   - One timer per process, armed at the earliest due time but never more
//     than MaxSleep ahead; 1,000 armed schedules cost one indexed query a
//     minute while idle.
//   - A due schedule is claimed by one UPDATE … RETURNING, so with several
//     processes on one database each due time has exactly one owner; a
//     schedule has at most one running fire (a unique index), so a run now
//     and a due time never overlap.
//   - The next time is computed from the moment a fire starts, never from
//     the time it was due: a late timer, a closed app or a sleeping machine
//     gives at most one fire (within the grace window, else a missed row),
//     never a burst.
//   - A fire's owner renews its lease; a fire whose owner died is recorded
//     interrupted once its lease lapses, and its schedule is re-armed.
//   - Three failed fires in a row move a schedule to error (disarmed until
//     a person resumes it); a skip (a paused budget, a fire still running)
//     is not a failure.
//   - Every string kept from a fire (its reason) is bounded.
package routines
