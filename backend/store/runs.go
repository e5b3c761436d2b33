package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Run statuses in the runs ledger.
const (
	RunStarting  = "starting"
	RunRunning   = "running"
	RunSucceeded = "succeeded"
	RunFailed    = "failed"
	RunAborted   = "aborted"
	RunTimedOut  = "timed_out"
)

// Run is one row of the runs ledger, shaped as the API returns it. Times are
// Unix milliseconds.
type Run struct {
	ID        string  `json:"id"`
	RuntimeID string  `json:"runtimeId"`
	AgentID   *string `json:"agentId"`
	TaskID    *string `json:"taskId"`
	TeamID    *string `json:"teamId"`
	Model     *string `json:"model"`
	Title     string  `json:"title"`
	// Prompt is the message the run was started with (bounded, secrets
	// redacted), only where one run or one conversation is read: GetRun
	// and SessionRuns fill it, the general list leaves it out.
	Prompt       string   `json:"prompt,omitempty"`
	Status       string   `json:"status"`
	DoneReason   *string  `json:"doneReason"`
	Summary      string   `json:"summary"`
	Error        string   `json:"error"`
	CostUSD      *float64 `json:"costUsd"`
	CostKind     *string  `json:"costKind"`
	InputTokens  int64    `json:"inputTokens"`
	OutputTokens int64    `json:"outputTokens"`
	LastSeq      int64    `json:"lastSeq"`
	CreatedAt    int64    `json:"createdAt"`
	StartedAt    *int64   `json:"startedAt"`
	EndedAt      *int64   `json:"endedAt"`
	// HostID is the host the run went to (nil: this computer).
	HostID *string `json:"hostId"`
}

// Live reports whether the run has not reached a terminal status.
func (r Run) Live() bool { return r.Status == RunStarting || r.Status == RunRunning }

// RunFinish is the terminal update of a run.
type RunFinish struct {
	ID           string
	Status       string
	DoneReason   string
	Summary      string
	Error        string
	CostUSD      *float64
	CostKind     string
	InputTokens  int64
	OutputTokens int64
	LastSeq      int64
	EndedAt      int64
	// Session is the run's resume handle (the supervisor's codec value)
	// and SessionKey the conversation it belongs to; both empty when the
	// runtime reported no session of its own.
	Session    string
	SessionKey string
}

// EventRow is one persisted run event: its sequence number, kind and the
// event's JSON encoding.
type EventRow struct {
	Seq  int64
	Kind string
	Data []byte
}

const runColumns = `id, runtime_id, agent_id, task_id, team_id, model, title, status, done_reason, summary, error, cost_usd, cost_kind,
	input_tokens, output_tokens, last_seq, created_at, started_at, ended_at, host_id`

// runColumnsPrompt are runColumns and the run's prompt, read by
// scanRunPrompt.
const runColumnsPrompt = runColumns + `, COALESCE(prompt, '')`

func scanRunPrompt(sc interface{ Scan(...any) error }) (Run, error) {
	var r Run
	err := sc.Scan(&r.ID, &r.RuntimeID, &r.AgentID, &r.TaskID, &r.TeamID, &r.Model, &r.Title, &r.Status, &r.DoneReason, &r.Summary, &r.Error,
		&r.CostUSD, &r.CostKind, &r.InputTokens, &r.OutputTokens, &r.LastSeq, &r.CreatedAt, &r.StartedAt, &r.EndedAt, &r.HostID, &r.Prompt)
	return r, err
}

func scanRun(sc interface{ Scan(...any) error }) (Run, error) {
	var r Run
	err := sc.Scan(&r.ID, &r.RuntimeID, &r.AgentID, &r.TaskID, &r.TeamID, &r.Model, &r.Title, &r.Status, &r.DoneReason, &r.Summary, &r.Error,
		&r.CostUSD, &r.CostKind, &r.InputTokens, &r.OutputTokens, &r.LastSeq, &r.CreatedAt, &r.StartedAt, &r.EndedAt, &r.HostID)
	return r, err
}

// SetRunHost records the host a run went to.
func (s *Store) SetRunHost(ctx context.Context, id, hostID string) error {
	_, err := s.Write().ExecContext(ctx, `UPDATE runs SET host_id = NULLIF(?, '') WHERE id = ?`, hostID, id)
	return err
}

// GetRun returns one run, or ErrNotFound.
func (s *Store) GetRun(ctx context.Context, id string) (Run, error) {
	r, err := scanRunPrompt(s.r.QueryRowContext(ctx, `SELECT `+runColumnsPrompt+` FROM runs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Run{}, ErrNotFound
	}
	if err != nil {
		return Run{}, fmt.Errorf("get run: %w", err)
	}
	return r, nil
}

// LastSession returns the resume handle of the newest run of runtimeID in
// the conversation key that reported one, or "" when there is none (a
// run's key may be written at its start, its session only at its end).
func (s *Store) LastSession(ctx context.Context, runtimeID, key string) (string, error) {
	var v string
	err := s.r.QueryRowContext(ctx, `SELECT session FROM runs WHERE runtime_id = ? AND session_key = ? AND session IS NOT NULL
		ORDER BY created_at DESC, id DESC LIMIT 1`, runtimeID, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("last session: %w", err)
	}
	return v, nil
}

// ListRuns returns up to limit runs, newest first, strictly older than the
// run id before (all runs when before is empty). Run ids sort by creation
// time, so the id is the cursor.
func (s *Store) ListRuns(ctx context.Context, before string, limit int) ([]Run, error) {
	q := `SELECT ` + runColumns + ` FROM runs`
	args := []any{}
	if before != "" {
		q += ` WHERE id < ?`
		args = append(args, before)
	}
	q += ` ORDER BY id DESC LIMIT ?`
	args = append(args, limit)
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	defer rows.Close()
	out := []Run{}
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("list runs: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// SessionRuns returns up to limit runs of one conversation key (an agent's
// chat, "agent:<id>:chat"), newest first, strictly older than the run id
// before when it is set.
func (s *Store) SessionRuns(ctx context.Context, key, before string, limit int) ([]Run, error) {
	q := `SELECT ` + runColumnsPrompt + ` FROM runs WHERE session_key = ?`
	args := []any{key}
	if before != "" {
		q += ` AND id < ?`
		args = append(args, before)
	}
	q += ` ORDER BY id DESC LIMIT ?`
	args = append(args, limit)
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("session runs: %w", err)
	}
	defer rows.Close()
	out := []Run{}
	for rows.Next() {
		r, err := scanRunPrompt(rows)
		if err != nil {
			return nil, fmt.Errorf("session runs: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// TaskRuns returns a task's runs, newest first.
func (s *Store) TaskRuns(ctx context.Context, taskID string, limit int) ([]Run, error) {
	rows, err := s.Read().QueryContext(ctx, `SELECT `+runColumns+` FROM runs WHERE task_id = ? ORDER BY id DESC LIMIT ?`, taskID, limit)
	if err != nil {
		return nil, fmt.Errorf("task runs: %w", err)
	}
	defer rows.Close()
	out := []Run{}
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("task runs: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// TaskRun is a run listed on a task, with its role there: "task" for the
// task's own runs (its work and its fix runs), "critic" for the critic's
// reviews of its change.
type TaskRun struct {
	Run
	Role string `json:"role"`
}

// Run roles on a task.
const (
	RoleTask   = "task"
	RoleCritic = "critic"
)

// ReviewKeyPrefix is the session key prefix of a task's critic runs:
// "review:<task>:<round>:<id>" (backend/supervisor/critic.go).
func ReviewKeyPrefix(taskID string) string { return "review:" + taskID + ":" }

// TaskRunsWithReviews returns a task's own runs and its critic's review
// runs (ad-hoc runs, task_id NULL, session key "review:<task>:…"), newest
// first. The reviews are found by a key range rather than LIKE, so a task
// id holding % or _ matches only itself; they run on the runtime of the
// task run that asked for them, which lets the range use runs_session.
// TaskRuns stays the task's own runs, for whoever resumes its session.
func (s *Store) TaskRunsWithReviews(ctx context.Context, taskID string, limit int) ([]TaskRun, error) {
	lo := ReviewKeyPrefix(taskID)
	hi := lo[:len(lo)-1] + ";" // ':' + 1: the first key past the prefix
	rows, err := s.Read().QueryContext(ctx, `SELECT `+runColumns+`, '`+RoleTask+`' FROM runs WHERE task_id = ?
		UNION ALL
		SELECT `+runColumns+`, '`+RoleCritic+`' FROM runs WHERE task_id IS NULL AND session_key IS NOT NULL
			AND runtime_id IN (SELECT DISTINCT runtime_id FROM runs WHERE task_id = ?) AND session_key >= ? AND session_key < ?
		ORDER BY id DESC LIMIT ?`, taskID, taskID, lo, hi, limit)
	if err != nil {
		return nil, fmt.Errorf("task runs: %w", err)
	}
	defer rows.Close()
	out := []TaskRun{}
	for rows.Next() {
		var r TaskRun
		err := rows.Scan(&r.ID, &r.RuntimeID, &r.AgentID, &r.TaskID, &r.TeamID, &r.Model, &r.Title, &r.Status, &r.DoneReason, &r.Summary,
			&r.Error, &r.CostUSD, &r.CostKind, &r.InputTokens, &r.OutputTokens, &r.LastSeq, &r.CreatedAt, &r.StartedAt, &r.EndedAt, &r.HostID, &r.Role)
		if err != nil {
			return nil, fmt.Errorf("task runs: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// LiveRuns returns runs still marked starting or running.
func (s *Store) LiveRuns(ctx context.Context) ([]Run, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+runColumns+` FROM runs WHERE status IN ('starting','running') ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("live runs: %w", err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("live runs: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// ListEvents returns up to limit events of a run with seq greater than after,
// in order.
func (s *Store) ListEvents(ctx context.Context, runID string, after int64, limit int) ([]EventRow, error) {
	rows, err := s.r.QueryContext(ctx,
		`SELECT seq, kind, data FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?`, runID, after, limit)
	if err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	defer rows.Close()
	var out []EventRow
	for rows.Next() {
		var e EventRow
		var data string
		if err := rows.Scan(&e.Seq, &e.Kind, &data); err != nil {
			return nil, fmt.Errorf("list events: %w", err)
		}
		e.Data = []byte(data)
		out = append(out, e)
	}
	return out, rows.Err()
}

// AgentExists reports whether an agent row exists.
func (s *Store) AgentExists(ctx context.Context, id string) (bool, error) {
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM agents WHERE id = ?`, id).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("agent exists: %w", err)
	}
	return n > 0, nil
}

// InsertAgent adds an agent row. Later issues grow the agent model; this is
// the minimum the runs ledger refers to.
func (s *Store) InsertAgent(ctx context.Context, id, name, runtime string, now int64) error {
	_, err := s.w.ExecContext(ctx,
		`INSERT INTO agents(id, name, runtime, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`, id, name, runtime, now, now)
	if err != nil {
		return fmt.Errorf("insert agent: %w", err)
	}
	return nil
}

// MaxEventSeq is the highest stored seq of a run (0 when it has none).
func (s *Store) MaxEventSeq(ctx context.Context, runID string) (int64, error) {
	var n int64
	err := s.r.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM run_events WHERE run_id = ?`, runID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("max event seq: %w", err)
	}
	return n, nil
}
