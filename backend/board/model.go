// Package board owns the durable task board: tasks and their state machine,
// race-free claims, heartbeats and the stale sweep, parent/child trees,
// dependencies, comments, line comments on a task's diff, and the record of
// each code task's worktree.
//
// Invariants:
//   - Every status change is checked against the legal-transition table
//     inside one IMMEDIATE write transaction, on the freshly read row.
//   - A task moves to done over a failed verification only with an explicit
//     human override, which is recorded on the task.
//   - A claim is one conditional UPDATE … RETURNING: at most one claimer
//     wins, and a loser gets ErrConflict (callers never retry it).
//   - A claimed task names the run that holds it; only that run can move it
//     on or release it, and a task whose run died is released by the sweep.
//   - A tree is at most three levels deep (depth 0..2) and a parent has at
//     most 24 live (not done or cancelled) children; dependencies never form
//     a cycle.
//   - Changes are published on the event broker only after they commit.
//   - A line comment sent back to the agent names its run and is never
//     deleted; a comment's path is one its caller read from the task's diff.
//   - A task's merged record is written once, with the move to done (or on
//     a task already done), and never cleared; a base branch is a local
//     branch name outside clawboo/ (landing.go).
package board

import (
	"errors"
	"fmt"
)

// Status is a task's place on the board.
type Status string

// Statuses.
const (
	Backlog    Status = "backlog"
	Todo       Status = "todo"
	InProgress Status = "in_progress"
	InReview   Status = "in_review"
	Blocked    Status = "blocked"
	Done       Status = "done"
	Cancelled  Status = "cancelled"
)

// Statuses in board order.
var Statuses = []Status{Backlog, Todo, InProgress, InReview, Blocked, Done, Cancelled}

// transitions is the legal-move table; done and cancelled are terminal.
var transitions = map[Status][]Status{
	Backlog:    {Todo, Blocked, Cancelled},
	Todo:       {InProgress, Blocked, Backlog, Cancelled},
	InProgress: {InReview, Done, Blocked, Todo, Cancelled},
	InReview:   {Done, InProgress, Blocked, Todo, Cancelled},
	Blocked:    {Todo, InProgress, Backlog, Cancelled},
}

// Valid reports a known status.
func (s Status) Valid() bool {
	_, ok := transitions[s]
	return ok || s == Done || s == Cancelled
}

// Terminal reports done and cancelled.
func (s Status) Terminal() bool { return s == Done || s == Cancelled }

// CanMove reports whether from → to is legal (staying put is).
func CanMove(from, to Status) bool {
	if from == to {
		return true
	}
	for _, s := range transitions[from] {
		if s == to {
			return true
		}
	}
	return false
}

// Moves lists the legal targets from a status.
func Moves(from Status) []Status { return append([]Status{}, transitions[from]...) }

// Kind says what a task does, which decides whether it gets a worktree.
type Kind string

// Kinds.
const (
	Code     Kind = "code"
	Research Kind = "research"
	Review   Kind = "review"
)

// Valid reports a known kind.
func (k Kind) Valid() bool { return k == Code || k == Research || k == Review }

// Caps on trees.
const (
	MaxDepth    = 2  // root 0, child 1, grandchild 2
	MaxChildren = 24 // live children per parent
)

// Verification is the result of a task's verify command.
type Verification struct {
	Command    string `json:"command"`
	ExitCode   int    `json:"exitCode"`
	Passed     bool   `json:"passed"`
	TimedOut   bool   `json:"timedOut"`
	OutputTail string `json:"outputTail"`
	DurationMs int64  `json:"durationMs"`
	At         int64  `json:"at"`
	RunID      string `json:"runId,omitempty"`
}

// Override records a person marking a task done over a failed verification.
type Override struct {
	By     string `json:"by"`
	Reason string `json:"reason"`
	At     int64  `json:"at"`
}

// Task is one card on the board, shaped as the API returns it.
type Task struct {
	ID            string  `json:"id"`
	Title         string  `json:"title"`
	Description   string  `json:"description"`
	Status        Status  `json:"status"`
	Priority      int     `json:"priority"`
	Kind          Kind    `json:"kind"`
	TeamID        *string `json:"teamId"`
	ParentID      *string `json:"parentId"`
	RootID        string  `json:"rootId"`
	Depth         int     `json:"depth"`
	RepoPath      *string `json:"repoPath"`
	BaseRef       *string `json:"baseRef"`
	VerifyCommand *string `json:"verifyCommand"`
	// WorkInPlace: a code task that works in the repository's own checkout
	// (no worktree, no branch, no commit), under the repository's lock.
	WorkInPlace bool `json:"workInPlace"`
	// Critic is auto (review a risky change after a green verify, when
	// the team allows), on or off; see backend/review.
	Critic string `json:"critic"`
	// Secrets names the user's vault secrets the task's setup, runtime,
	// verify and teardown receive as environment variables; names only.
	Secrets         []string      `json:"secrets"`
	AssigneeAgentID *string       `json:"assigneeAgentId"`
	AssigneeRuntime *string       `json:"assigneeRuntime"`
	RunID           *string       `json:"runId"`
	HeartbeatAt     *int64        `json:"heartbeatAt"`
	Verification    *Verification `json:"verification"`
	Override        *Override     `json:"override"`
	DependsOn       []string      `json:"dependsOn"`
	CreatedAt       int64         `json:"createdAt"`
	UpdatedAt       int64         `json:"updatedAt"`
	CompletedAt     *int64        `json:"completedAt"`
	// BaseBranch is the branch the task's work goes back into: recorded
	// when its worktree is made (the branch checked out then, or its
	// baseRef when that names a local branch), or chosen by a person.
	BaseBranch *string `json:"baseBranch"`
	// MergeWhenGreen lets Clawboo merge the task's change itself once its
	// verify passed (its team can say so for all its tasks).
	MergeWhenGreen bool `json:"mergeWhenGreen"`
	// Merged says the task's work is in its base branch (nil until then).
	Merged *Merged `json:"merged"`
	// HostID is the host the task's last run went to (nil: this computer);
	// its branch is fetched back from there.
	HostID *string `json:"hostId"`
}

// Merged records a task's work landing in its base branch.
type Merged struct {
	Base   string `json:"base"`
	Commit string `json:"commit"`
	How    string `json:"how"` // ff, merge, squash, none
	At     int64  `json:"at"`
}

// Comment is a note on a task.
type Comment struct {
	ID         string  `json:"id"`
	TaskID     string  `json:"taskId"`
	AuthorType string  `json:"authorType"` // user, agent, system
	AuthorID   *string `json:"authorId"`
	Body       string  `json:"body"`
	CreatedAt  int64   `json:"createdAt"`
}

// Worktree is the record of a code task's git worktree.
type Worktree struct {
	TaskID     string `json:"taskId"`
	RepoPath   string `json:"repoPath"`
	Path       string `json:"path"`
	Branch     string `json:"branch"`
	BaseCommit string `json:"baseCommit"`
	Status     string `json:"status"` // active, paused, archived
	// Ports is the block the worktree leases while its folder lives
	// (CLAWBOO_PORT is the first); empty when it holds none.
	Ports     []int `json:"ports"`
	CreatedAt int64 `json:"createdAt"`
	UpdatedAt int64 `json:"updatedAt"`
}

// Errors callers match with errors.Is / errors.As.
var (
	ErrNotFound = errors.New("not found")
	ErrConflict = errors.New("conflict")
	ErrCycle    = errors.New("task dependency cycle")
)

// RuleError is a refused change, with a stable code the API maps to a
// status: illegal_transition, verification_required, too_deep,
// too_many_children, invalid, waiting_on_dependencies, not_holder.
type RuleError struct {
	Code string
	Msg  string
}

func (e *RuleError) Error() string { return e.Msg }

func rule(code, format string, a ...any) error {
	return &RuleError{Code: code, Msg: fmt.Sprintf(format, a...)}
}
