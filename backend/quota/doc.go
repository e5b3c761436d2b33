// Package quota keeps the quota ledger and makes the governor's decision.
//
// The ledger holds the latest usage window each runtime (and account)
// reported — Claude Code's rate_limit_event, Codex's account/rateLimits,
// a provider's rate-limit headers — one row per (runtime, account, window),
// durable across restarts. The governor reads it before work is dispatched:
// a window that is rejected, or at or above the user's threshold (default
// 95 %) or a quota budget's lower limit for the work's agent or team, holds
// the work back until the window resets. Deferred work is a durable row
// first; the timer hands each one back to the host's dispatcher when its
// time comes, once (the row is deleted as it is taken), and the dispatcher
// goes through the same door as any other start, so a window still spent
// defers it again.
//
// Invariants: every row is bounded (window names are plain words of at most
// 40 bytes, accounts and sources are clipped, at most MaxWindows rows are
// kept and MaxWindowsPerRuntime per runtime, and a rejected window still
// holding work is never evicted); a window whose reset time has passed
// counts as reset — it never holds work back — until the runtime reports
// it again; a rejected window that named no reset time ends NoResetHold
// after it was seen, or at once when a call on its account goes through
// (Succeeded) or a person clears it (Clear); nothing stored is a
// secret (accounts are provider or plan names; a team turn's message is
// stored with secrets scrubbed by the caller). The package imports only
// store, bus and executor's event types.
package quota
