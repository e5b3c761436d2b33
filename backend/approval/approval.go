// Package approval is the approvals queue: a tool call or a command that
// needs a person's yes is written down as a pending request, shown to
// people (the page, the tray, a native popup, the API), and the caller
// blocks until someone answers or the request expires.
//
// Invariants:
//   - A request is pending, approved, denied or expired, and leaves pending
//     exactly once: every transition is one conditional UPDATE … WHERE
//     status = 'pending', so of two answers the first wins and the second
//     is told it came too late.
//   - It fails closed. A request nobody answered in time expires; a caller
//     that stops waiting (its context ends) withdraws its request, which is
//     then expired, never left pending; requests a previous process left
//     pending are expired when the queue opens, and so are those still
//     waiting when it closes. Only "approved" lets anything run.
//   - An answer that arrives after the deadline is refused even when the
//     expiry timer has not fired yet.
//   - What is stored is scrubbed (redact.Secrets) and cut to size: a key in
//     a command line or in arguments never reaches the database.
//   - Every change is published on the queue's bus after it commits.
//   - "Allow always" is an answer only where the asker offered it (Always):
//     it approves the request with scope "session", and what "always"
//     covers is the asker's to remember (an ACP agent's session), never the
//     queue's: every later request is still asked unless its asker skips it.
//   - A request of kind "device" is not a question: it is a phone paired or
//     removed (issue 30), written already answered by Record (status
//     approved, with who did it and from where), so it is only ever in the
//     history: never pending, never published as "requested", never
//     answerable. It holds a device's name, never its token or code.
package approval

import (
	"errors"
	"time"
)

// Kind says what a person is asked to allow.
type Kind string

// Kinds of request.
const (
	KindTool    Kind = "tool"    // a call to a tool on clawboo-tools
	KindCommand Kind = "command" // a native run's run_command
	// KindDevice is a history entry, not a question: a phone paired or
	// removed (Record).
	KindDevice Kind = "device"
)

// Status is where a request stands.
type Status string

// Statuses.
const (
	Pending  Status = "pending"
	Approved Status = "approved"
	Denied   Status = "denied"
	Expired  Status = "expired"
)

// Decision is a person's answer.
type Decision string

// Decisions.
const (
	Approve Decision = "approve"
	Deny    Decision = "deny"
	// AllowAlways approves and lets the asker stop asking for the same
	// thing for the rest of its session; only for requests that offer it.
	AllowAlways Decision = "allow-always"
)

// ScopeSession is the scope of an "allow always" answer.
const ScopeSession = "session"

// DefaultTTL is how long a request stays answerable (seed 004: the card
// stays answerable for 10 minutes).
const DefaultTTL = 10 * time.Minute

// Errors a caller can act on.
var (
	ErrNotFound    = errors.New("no such approval request")
	ErrResolved    = errors.New("the request was already answered")
	ErrExpired     = errors.New("the request expired before it was answered")
	ErrBadDecision = errors.New(`decision must be "approve", "allow-always" or "deny"`)
	ErrNoAlways    = errors.New(`this request does not offer "allow always": answer allow or deny`)
	ErrInvalid     = errors.New("invalid approval request")
	ErrClosed      = errors.New("the approvals queue is closed")
)

// Request is one question put to a person. Times are Unix milliseconds.
type Request struct {
	ID    string `json:"id"`
	Kind  Kind   `json:"kind"`
	Title string `json:"title"`
	// Tool is the tool's name (kind tool); Command the command line as a
	// person should read it (kind command).
	Tool    string `json:"tool,omitempty"`
	Command string `json:"command,omitempty"`
	// Args summarises the arguments, already scrubbed.
	Args    string `json:"args,omitempty"`
	Folder  string `json:"folder,omitempty"`
	AgentID string `json:"agentId,omitempty"`
	TeamID  string `json:"teamId,omitempty"`
	TaskID  string `json:"taskId,omitempty"`
	RunID   string `json:"runId,omitempty"`
	// Reason is the agent's own account of why it needs this.
	Reason string `json:"reason,omitempty"`
	Risk   string `json:"risk,omitempty"`
	// Always says the asker offers "allow always for this session".
	Always bool `json:"always,omitempty"`

	Status     Status `json:"status"`
	CreatedAt  int64  `json:"createdAt"`
	ExpiresAt  int64  `json:"expiresAt"`
	ResolvedAt int64  `json:"resolvedAt,omitempty"`
	ResolvedBy string `json:"resolvedBy,omitempty"`
	Note       string `json:"note,omitempty"`
	// Scope is "session" when a person allowed it always ("" otherwise).
	Scope string `json:"scope,omitempty"`
}

// Allowed reports whether the request lets the thing run.
func (r Request) Allowed() bool { return r.Status == Approved }

// Entry is a thing already done that the history keeps beside the answers
// (Record): a phone paired or removed. Never a secret, token or code.
type Entry struct {
	Kind  Kind   // KindDevice
	Title string // what was done, in words: "Paired a phone: Pixel 8"
	By    string // who did it: "phone: Pixel 8", "page", "api"
	Note  string // from where, when it is known: "from 192.168.1.20"
}

// PhonePaired is the entry of a phone that paired itself with the
// one-time code, from the address addr.
func PhonePaired(name, addr string) Entry {
	e := Entry{Kind: KindDevice, Title: "Paired a phone: " + name, By: "phone: " + name}
	if addr != "" {
		e.Note = "from " + addr
	}
	return e
}

// PhoneRemoved is the entry of a phone removed by by ("page", "api").
func PhoneRemoved(name, by string) Entry {
	return Entry{Kind: KindDevice, Title: "Removed a phone: " + name, By: by}
}

// Event is a committed change, for live pages, the tray and popups.
type Event struct {
	Kind     string  `json:"kind"` // "requested" or "resolved"
	Approval Request `json:"approval"`
}

// Size limits of stored fields, in bytes.
const (
	maxTitle  = 200
	maxText   = 4096 // command, args
	maxReason = 1024
	maxShort  = 256 // ids, folder names, who answered
	maxNote   = 1024
)
