package toolbroker

import (
	"context"
	"time"
)

// Risk grades what a tool can do, and so what the broker's policy asks
// before it runs.
type Risk string

// Risks, and the policy for each (see Broker.call):
const (
	// RiskLow runs at once: it touches nothing outside Clawboo (echo, note).
	RiskLow Risk = "low"
	// RiskMedium runs without asking, but always leaves an audit row. It
	// reaches outside the machine, read-only, within fixed bounds
	// (web_fetch, web_search) — or it is an external server's tool, whose
	// behaviour we cannot see (the default for external servers).
	RiskMedium Risk = "medium"
	// RiskHigh asks a person every time, nothing remembered; no answer in
	// time, a refusal, or a queue that cannot ask are all "no".
	RiskHigh Risk = "high"
)

func (r Risk) valid() bool { return r == RiskLow || r == RiskMedium || r == RiskHigh }

// ApprovalRequest is what the broker asks a person about. Its text is
// already scrubbed of secrets.
type ApprovalRequest struct {
	Tool    string
	Title   string // what the person reads first: "Delete /home/me/old"
	Args    string // a summary of the arguments
	Risk    Risk
	AgentID string
	TeamID  string
	// RunID is the run whose session asks, when its binding names one
	// (native runs, CLI runs' own tokens); "" otherwise.
	RunID  string
	Reason string        // the agent's own "why", when the tool takes one
	TTL    time.Duration // how long the question stays answerable (0: the queue's default)
}

// ApprovalOutcome is how a question ended.
type ApprovalOutcome string

// Outcomes. Anything but ApprovalApproved means the call does not run.
const (
	ApprovalApproved ApprovalOutcome = "approved"
	ApprovalDenied   ApprovalOutcome = "denied"
	ApprovalExpired  ApprovalOutcome = "expired"
)

// ApprovalAnswer is a person's answer (or its absence).
type ApprovalAnswer struct {
	ID      string // the approval request's id, kept on the audit row
	Outcome ApprovalOutcome
	Note    string
}

// Approver asks a person whether a call may run and blocks until they
// answer, the question expires, or ctx ends. An error is read as "no".
// The composition root implements it over the approvals queue.
type Approver interface {
	Ask(ctx context.Context, req ApprovalRequest) (ApprovalAnswer, error)
}
