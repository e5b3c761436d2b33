// Package notices pushes short notices to a person's phone through ntfy
// (https://docs.ntfy.sh: a self-hosted ntfy or ntfy.sh, an existing push
// service, so nothing of Clawboo's runs in a cloud), for when nobody sits at
// the desk (issue 30). Two things are worth a buzz in a pocket:
//
//   - an approval requested (the approvals queue's "requested" event): a
//     person is being asked; "Ada (team Core) is waiting for your answer.";
//   - a task finished: a task that reached In review or Done from In
//     progress (an agent's run ending well); "Ada finished a task (team
//     Core).". A task that goes on from In review to Done (a person's merge)
//     is not a second notice, a failed or stopped task is none.
//
// Invariants:
//   - A notice carries no command text, no path or folder, no reason, no
//     task title or id and no secret: its title is a fixed phrase, its body
//     a fixed phrase holding only the agent's and team's display names
//     (looked up by id through the Names the root gives; "An agent" when
//     unknown), and its Click link is the paired page, https://<the phones'
//     address>/m, or absent when the phones' listener is off.
//   - Each such event is one POST to the topic URL, never retried: a failing
//     server is logged with its host and status (never the URL's path: the
//     topic is as good as a password) and that notice is gone.
//   - Bounded: at most 32 notices wait (the 33rd drops the oldest, with a log
//     line), one sender goroutine, 10 s per POST, at most 4 KiB of an answer
//     read, no redirect followed. Following the buses never waits for the
//     network or the database, so a hanging server slows no publisher.
//   - The topic URL is a setting (notices.ntfy), read when a notice is sent,
//     so a change applies to the next one; empty means off and nothing is
//     sent. A saved URL is absolute http or https, names a topic (a path),
//     holds no user:password (a credential in plain settings), no query or
//     fragment, and is at most 2 KiB.
//   - No package-level mutable state; the service ends with its context or
//     Close, its in-flight POST cut short.
package notices
