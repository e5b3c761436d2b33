package routines

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/clawboo/desktop/backend/board"
)

// Statuses of a schedule.
const (
	Idle    = "idle" // armed when NextRunAt is set, else done (a once@ that fired)
	Queued  = "queued"
	Claimed = "claimed"
	Running = "running"
	Paused  = "paused"
	Error   = "error" // three failures in a row: disarmed until resumed
)

// Outcomes of a fire.
const (
	OutcomeRunning     = "running"
	OutcomeSuccess     = "success"
	OutcomeFailed      = "failed"
	OutcomeSkipped     = "skipped"
	OutcomeMissed      = "missed"
	OutcomeInterrupted = "interrupted"
)

// FailuresToError is how many failed fires in a row disarm a schedule.
const FailuresToError = 3

// SourceState is one place schedules come from (a Source), and whether it
// answered: the routines here always do; the OpenClaw Gateway's cron jobs
// when it is connected, read-only unless the Gateway would let us write.
type SourceState struct {
	ID       string `json:"id"`
	OK       bool   `json:"ok"`
	Error    string `json:"error,omitempty"`
	Writable bool   `json:"writable"`
}

// Source names what a schedule belongs to.
const (
	SourceRoutine     = "clawboo-routine"
	SourceGatewayCron = "openclaw-gateway-cron"
)

// Template is the task a fire makes.
type Template struct {
	Title       string  `json:"title"`
	Description string  `json:"description,omitempty"`
	Kind        string  `json:"kind"`
	Priority    int     `json:"priority,omitempty"`
	RepoPath    string  `json:"repoPath,omitempty"`
	Model       string  `json:"model,omitempty"`
	MaxUSD      float64 `json:"maxUsd,omitempty"`
}

// ErrTemplate wraps every reason a template is refused.
var ErrTemplate = errors.New("invalid task template")

func tmplErr(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrTemplate, fmt.Sprintf(format, a...))
}

// Normalize checks a template and fills its defaults (kind code).
func (t *Template) Normalize() error {
	t.Title = strings.TrimSpace(t.Title)
	t.Kind = strings.TrimSpace(t.Kind)
	t.RepoPath = strings.TrimSpace(t.RepoPath)
	t.Model = strings.TrimSpace(t.Model)
	if t.Kind == "" {
		t.Kind = "code"
	}
	if err := board.CheckTitle(t.Title); err != nil {
		return tmplErr("%s", err.Error())
	}
	switch {
	case utf8.RuneCountInString(t.Description) > 20000:
		return tmplErr("description is longer than 20,000 characters")
	case t.Kind != "code" && t.Kind != "research" && t.Kind != "review":
		return tmplErr("kind %q is not code, research or review", t.Kind)
	case t.Priority < -1000 || t.Priority > 1000:
		return tmplErr("priority must be between -1000 and 1000")
	case t.RepoPath != "" && (!filepath.IsAbs(t.RepoPath) || len(t.RepoPath) > 4096):
		return tmplErr("repoPath must be an absolute path")
	case len(t.Model) > 200:
		return tmplErr("model is longer than 200 characters")
	case math.IsNaN(t.MaxUSD) || t.MaxUSD < 0 || t.MaxUSD > 10000:
		return tmplErr("maxUsd must be between 0 and 10000")
	}
	return nil
}

// Schedule is one routine as the API shows it.
type Schedule struct {
	ID          string   `json:"id"`
	Source      string   `json:"source"`
	ReadOnly    bool     `json:"readOnly"`
	AgentID     string   `json:"agentId"`
	TeamID      *string  `json:"teamId"`
	Spec        string   `json:"spec"`
	Timezone    string   `json:"timezone"`
	Description string   `json:"description"`
	Template    Template `json:"template"`
	Status      string   `json:"status"`
	NextRunAt   *int64   `json:"nextRunAt"`
	NextRuns    []int64  `json:"nextRuns"`
	LastRunAt   *int64   `json:"lastRunAt"`
	LastOutcome *string  `json:"lastOutcome"`
	LastError   *string  `json:"lastError"`
	Failures    int      `json:"failures"`
	CreatedAt   int64    `json:"createdAt"`
	UpdatedAt   int64    `json:"updatedAt"`
	// Name, on a Gateway cron job, is the job's own name.
	Name string `json:"name,omitempty"`
}

// Fire is one row of the fire ledger.
type Fire struct {
	ID         string  `json:"id"`
	ScheduleID string  `json:"scheduleId"`
	DueAt      int64   `json:"dueAt"`
	StartedAt  *int64  `json:"startedAt"`
	EndedAt    *int64  `json:"endedAt"`
	Outcome    string  `json:"outcome"`
	Reason     string  `json:"reason"`
	RunID      *string `json:"runId"`
	TaskID     *string `json:"taskId"`
	CostUSD    float64 `json:"costUsd"`
	Manual     bool    `json:"manual"`
}

// Event is a change the API streams: a schedule (nil with Deleted set) or
// a fire.
type Event struct {
	Schedule *Schedule
	Deleted  string
	Fire     *Fire
}

// maxReason bounds a fire's reason and a schedule's last error.
const maxReason = 2000

func bound(s string) string {
	if len(s) <= maxReason {
		return s
	}
	cut := maxReason
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func encodeTemplate(t Template) string {
	b, _ := json.Marshal(t)
	return string(b)
}

func decodeTemplate(s string) Template {
	var t Template
	_ = json.Unmarshal([]byte(s), &t)
	return t
}
