package board

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/store"
	"github.com/oklog/ulid/v2"
)

// Event is a committed board change, for live pages.
type Event struct {
	Kind    string   `json:"kind"` // task, comment
	Task    *Task    `json:"task,omitempty"`
	Comment *Comment `json:"comment,omitempty"`
}

// Options wire a Board.
type Options struct {
	Store  *store.Store
	Events *bus.Broker[Event] // may be nil
	Log    *slog.Logger
	Now    func() time.Time
	// PortFree reports whether a port can be bound now (default: try
	// 127.0.0.1:port); a lease skips a block holding a busy port.
	PortFree func(port int) bool
}

// Board is the task board.
type Board struct {
	claims *claimer
	st     *store.Store
	events *bus.Broker[Event]
	log    *slog.Logger
	now    func() time.Time
	free   func(port int) bool
}

// New makes a board over the store.
func New(opts Options) *Board {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.PortFree == nil {
		opts.PortFree = portFree
	}
	return &Board{st: opts.Store, events: opts.Events, log: opts.Log, now: opts.Now, free: opts.PortFree, claims: newClaimer(opts.Store, opts.Now)}
}

// Close stops the claim writer; claims after it fail.
func (b *Board) Close() { b.claims.close() }

func (b *Board) ms() int64 { return b.now().UnixMilli() }

// changeTask runs change in one write transaction, reads task id back
// inside it, and publishes the result once it has committed.
func (b *Board) changeTask(ctx context.Context, id string, change func(q store.Querier) error) (Task, error) {
	var out Task
	err := b.st.InTx(ctx, func(tx *sql.Tx) error {
		q := b.st.Tx(tx)
		if err := change(q); err != nil {
			return err
		}
		var err error
		out, err = getTask(ctx, q, id)
		return err
	})
	if err != nil {
		return Task{}, err
	}
	b.publish(Event{Kind: "task", Task: &out})
	return out, nil
}

func (b *Board) publish(ev Event) {
	if b.events != nil {
		b.events.Publish(ev)
	}
}

const taskColumns = `id, title, description, status, priority, kind, team_id, parent_id, root_id, depth, repo_path, base_ref,
	verify_command, assignee_agent_id, assignee_runtime, run_id, heartbeat_at, verification, override, created_at, updated_at, completed_at, work_in_place, critic, secrets,
	base_branch, merge_when_green, merged, host_id`

type scanner interface{ Scan(...any) error }

func scanTask(sc scanner) (Task, error) {
	var t Task
	var verif, over, merged sql.NullString
	var secrets string
	err := sc.Scan(&t.ID, &t.Title, &t.Description, &t.Status, &t.Priority, &t.Kind, &t.TeamID, &t.ParentID, &t.RootID,
		&t.Depth, &t.RepoPath, &t.BaseRef, &t.VerifyCommand, &t.AssigneeAgentID, &t.AssigneeRuntime, &t.RunID,
		&t.HeartbeatAt, &verif, &over, &t.CreatedAt, &t.UpdatedAt, &t.CompletedAt, &t.WorkInPlace, &t.Critic, &secrets,
		&t.BaseBranch, &t.MergeWhenGreen, &merged, &t.HostID)
	if err != nil {
		return t, err
	}
	if verif.Valid {
		var v Verification
		if json.Unmarshal([]byte(verif.String), &v) == nil {
			t.Verification = &v
		}
	}
	if over.Valid {
		var o Override
		if json.Unmarshal([]byte(over.String), &o) == nil {
			t.Override = &o
		}
	}
	if merged.Valid {
		var m Merged
		if json.Unmarshal([]byte(merged.String), &m) == nil {
			t.Merged = &m
		}
	}
	t.Secrets = decodeSecrets(secrets)
	t.DependsOn = []string{}
	return t, nil
}

// queryer is a read handle: the read pool or a write transaction.
type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func getTask(ctx context.Context, q queryer, id string) (Task, error) {
	t, err := scanTask(q.QueryRowContext(ctx, `SELECT `+taskColumns+` FROM tasks WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Task{}, fmt.Errorf("task '%s': %w", id, ErrNotFound)
	}
	if err != nil {
		return Task{}, fmt.Errorf("get task: %w", err)
	}
	deps, err := dependsOn(ctx, q, id)
	if err != nil {
		return Task{}, err
	}
	t.DependsOn = deps
	return t, nil
}

func dependsOn(ctx context.Context, q queryer, id string) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT depends_on FROM task_deps WHERE task_id = ? ORDER BY created_at, depends_on`, id)
	if err != nil {
		return nil, fmt.Errorf("dependencies: %w", err)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// Get returns one task with its dependencies.
func (b *Board) Get(ctx context.Context, id string) (Task, error) {
	return getTask(ctx, b.st.Read(), id)
}

// List returns every task the filter matches (f.Limit, when set, caps
// them; f.Cursor pages), by priority (highest first), then oldest first
// (the order work is picked up in). Callers that show tasks to a person or
// an agent page with Page instead.
func (b *Board) List(ctx context.Context, f Filter) ([]Task, error) {
	ts, _, err := b.list(ctx, f)
	return ts, err
}

func (b *Board) attachDeps(ctx context.Context, ts []Task) error {
	if len(ts) == 0 {
		return nil
	}
	idx := map[string]int{}
	for i, t := range ts {
		idx[t.ID] = i
	}
	// A page reads its own tasks' dependencies; a long list reads them all.
	q, args := `SELECT task_id, depends_on FROM task_deps ORDER BY created_at, depends_on`, []any(nil)
	if len(ts) <= 1000 {
		q = `SELECT task_id, depends_on FROM task_deps WHERE task_id IN (` + strings.TrimSuffix(strings.Repeat("?,", len(ts)), ",") +
			`) ORDER BY created_at, depends_on`
		for _, t := range ts {
			args = append(args, t.ID)
		}
	}
	rows, err := b.st.Read().QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("dependencies: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, dep string
		if err := rows.Scan(&id, &dep); err != nil {
			return err
		}
		if i, ok := idx[id]; ok {
			ts[i].DependsOn = append(ts[i].DependsOn, dep)
		}
	}
	return rows.Err()
}

// noOpenDeps holds for a task whose dependencies are all done.
const noOpenDeps = `NOT EXISTS (SELECT 1 FROM task_deps d JOIN tasks o ON o.id = d.depends_on
	WHERE d.task_id = tasks.id AND o.status <> 'done')`

func newID() string { return ulid.Make().String() }
