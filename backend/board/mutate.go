package board

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/clawboo/desktop/backend/store"
)

// NewTask describes a task to create.
type NewTask struct {
	Title         string
	Description   string
	Status        Status // backlog or todo; default todo
	Priority      int
	Kind          Kind // default code
	TeamID        string
	ParentID      string
	RepoPath      string
	BaseRef       string
	VerifyCommand string
	WorkInPlace   bool   // work in the repository's checkout, no worktree
	Critic        string // auto (default), on or off
	// Secrets names the vault secrets the task's children receive (names
	// only; see secrets.go).
	Secrets []string
	// AssigneeRuntime suggests the runtime to work it, AssigneeAgentID the
	// agent; a claim replaces both with the claimer's.
	AssigneeRuntime string
	AssigneeAgentID string
	// BaseBranch is the branch the task's work goes back into ("" = the
	// one checked out when its worktree is made); MergeWhenGreen merges it
	// once its verify passed (landing.go).
	BaseBranch     string
	MergeWhenGreen bool
}

func optional(s string) *string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	return &s
}

// CheckTitle is the board's rule for a task title (also a routine's,
// whose fires become tasks): required, at most 500 characters, one line.
func CheckTitle(title string) error {
	title = strings.TrimSpace(title)
	if title == "" {
		return rule("invalid", "title is required")
	}
	if utf8.RuneCountInString(title) > 500 {
		return rule("invalid", "title is longer than 500 characters")
	}
	if strings.IndexFunc(title, notInALine) >= 0 {
		return rule("invalid", "a title is one line: no line breaks, tabs or other control characters (put the detail in the description)")
	}
	return nil
}

func validText(title, desc string) error {
	if err := CheckTitle(title); err != nil {
		return err
	}
	if utf8.RuneCountInString(desc) > 20000 {
		return rule("invalid", "description is longer than 20,000 characters")
	}
	return nil
}

// notInALine is true for a rune that may not be in a one-line title: a
// control character (line breaks, tabs) or a Unicode line or paragraph
// separator. A title is shown on one line everywhere, and read by agents
// in their team context, where a line break could start a line of its own.
func notInALine(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r == '\u0085'
}

// OneLine folds text into what a title may hold: every run of line breaks,
// control characters and spaces becomes one space (for titles made from
// free text, such as a delegation's first line).
func OneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return notInALine(r) || unicode.IsSpace(r) }), " ")
}

func validRepo(p string) error {
	if p != "" && !filepath.IsAbs(p) {
		return rule("invalid", "repoPath must be an absolute path")
	}
	return nil
}

// Create adds a task. A child inherits its parent's team, repository and
// mission, within the tree caps.
func (b *Board) Create(ctx context.Context, n NewTask) (Task, error) {
	if err := validText(n.Title, n.Description); err != nil {
		return Task{}, err
	}
	if n.Status == "" {
		n.Status = Todo
	}
	if n.Status != Todo && n.Status != Backlog {
		return Task{}, rule("invalid", "a new task starts in backlog or todo, not %q", n.Status)
	}
	if n.Kind == "" {
		n.Kind = Code
	}
	if !n.Kind.Valid() {
		return Task{}, rule("invalid", "kind must be code, research or review")
	}
	if err := validRepo(n.RepoPath); err != nil {
		return Task{}, err
	}
	critic, err := criticMode(n.Critic)
	if err != nil {
		return Task{}, err
	}
	secrets, err := secretNames(n.Secrets)
	if err != nil {
		return Task{}, err
	}
	if err := ValidBranchName(n.BaseBranch); err != nil {
		return Task{}, err
	}
	id := newID()
	now := b.ms()
	return b.changeTask(ctx, id, func(q store.Querier) error {
		root, depth := id, 0
		team, repo := optional(n.TeamID), optional(n.RepoPath)
		if n.ParentID != "" {
			p, err := getTask(ctx, q, n.ParentID)
			if err != nil {
				return err
			}
			if p.Depth+1 > MaxDepth {
				return rule("too_deep", "a task may be nested at most %d levels below its mission", MaxDepth)
			}
			var live int
			if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM tasks WHERE parent_id = ? AND status NOT IN ('done','cancelled')`,
				p.ID).Scan(&live); err != nil {
				return err
			}
			if live >= MaxChildren {
				return rule("too_many_children", "task '%s' already has %d open subtasks (the most allowed)", p.ID, MaxChildren)
			}
			root, depth = p.RootID, p.Depth+1
			if team == nil {
				team = p.TeamID
			}
			if repo == nil {
				repo = p.RepoPath
			}
		}
		_, err := q.ExecContext(ctx, `INSERT INTO tasks(id, title, description, status, priority, kind, team_id, parent_id, root_id,
			depth, repo_path, base_ref, verify_command, assignee_runtime, assignee_agent_id, created_at, updated_at, work_in_place, critic, secrets,
			base_branch, merge_when_green) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
			id, strings.TrimSpace(n.Title), n.Description, n.Status, n.Priority, n.Kind, team, optional(n.ParentID), root,
			depth, repo, optional(n.BaseRef), optional(n.VerifyCommand), optional(n.AssigneeRuntime), optional(n.AssigneeAgentID), now, now, n.WorkInPlace, critic, encodeSecrets(secrets),
			optional(n.BaseBranch), n.MergeWhenGreen)
		return err
	})
}

// Patch changes a task; nil fields stay as they are.
type Patch struct {
	Title         *string
	Description   *string
	Priority      *int
	Status        *Status
	RepoPath      *string
	VerifyCommand *string
	WorkInPlace   *bool
	Critic        *string // auto, on or off
	Secrets       *[]string
	// Override marks a task done over a failed verification.
	Override *Override
	// BaseBranch sets the branch the work goes back into ("" clears it:
	// the merge then guesses); MergeWhenGreen merges it once verified.
	BaseBranch     *string
	MergeWhenGreen *bool
}

// Update applies a patch in one transaction, checking the move against the
// transition table on the fresh row. Moving to todo clears the assignee and
// the verification (the task starts over); a task held by a live run cannot
// be moved by hand except to cancel it.
func (b *Board) Update(ctx context.Context, id string, p Patch) (Task, error) {
	return b.changeTask(ctx, id, func(q store.Querier) error {
		t, err := getTask(ctx, q, id)
		if err != nil {
			return err
		}
		title, desc := t.Title, t.Description
		if p.Title != nil {
			title = *p.Title
		}
		if p.Description != nil {
			desc = *p.Description
		}
		if err := validText(title, desc); err != nil {
			return err
		}
		sets := []string{"title = ?", "description = ?", "updated_at = ?"}
		args := []any{strings.TrimSpace(title), desc, b.ms()}
		if p.Priority != nil {
			sets, args = append(sets, "priority = ?"), append(args, *p.Priority)
		}
		if p.RepoPath != nil {
			if err := validRepo(*p.RepoPath); err != nil {
				return err
			}
			sets, args = append(sets, "repo_path = ?"), append(args, optional(*p.RepoPath))
		}
		if p.VerifyCommand != nil {
			sets, args = append(sets, "verify_command = ?"), append(args, optional(*p.VerifyCommand))
		}
		if p.WorkInPlace != nil {
			sets, args = append(sets, "work_in_place = ?"), append(args, *p.WorkInPlace)
		}
		if p.Critic != nil {
			c, err := criticMode(*p.Critic)
			if err != nil {
				return err
			}
			sets, args = append(sets, "critic = ?"), append(args, c)
		}
		if p.Secrets != nil {
			names, err := secretNames(*p.Secrets)
			if err != nil {
				return err
			}
			sets, args = append(sets, "secrets = ?"), append(args, encodeSecrets(names))
		}
		if p.BaseBranch != nil {
			if err := ValidBranchName(*p.BaseBranch); err != nil {
				return err
			}
			sets, args = append(sets, "base_branch = ?"), append(args, optional(*p.BaseBranch))
		}
		if p.MergeWhenGreen != nil {
			sets, args = append(sets, "merge_when_green = ?"), append(args, *p.MergeWhenGreen)
		}
		if p.Status != nil && *p.Status != t.Status {
			more, margs, err := b.move(t, *p.Status, p.Override)
			if err != nil {
				return err
			}
			sets, args = append(sets, more...), append(args, margs...)
		}
		args = append(args, id)
		_, err = q.ExecContext(ctx, `UPDATE tasks SET `+strings.Join(sets, ", ")+` WHERE id = ?`, args...)
		return err
	})
}

// move returns the column changes of a status change, or why it is refused.
func (b *Board) move(t Task, to Status, ov *Override) ([]string, []any, error) {
	if !to.Valid() {
		return nil, nil, rule("invalid", "unknown status %q", to)
	}
	if !CanMove(t.Status, to) {
		return nil, nil, rule("illegal_transition", "a task cannot move from %s to %s", t.Status, to)
	}
	if t.RunID != nil && to != Cancelled {
		return nil, nil, rule("illegal_transition", "task is being worked on by run %s; abort the run or cancel the task", *t.RunID)
	}
	sets := []string{"status = ?"}
	args := []any{string(to)}
	switch to {
	case Done:
		if t.Verification != nil && !t.Verification.Passed {
			if ov == nil || strings.TrimSpace(ov.By) == "" {
				return nil, nil, rule("verification_required", "the last verification failed; marking it done needs an explicit override")
			}
			ov.At = b.ms()
			raw, _ := json.Marshal(ov)
			sets, args = append(sets, "override = ?"), append(args, string(raw))
		}
	case Todo:
		sets = append(sets, "assignee_agent_id = NULL", "assignee_runtime = NULL", "run_id = NULL", "heartbeat_at = NULL", "verification = NULL")
	}
	if to.Terminal() {
		sets, args = append(sets, "completed_at = ?"), append(args, b.ms())
		sets = append(sets, "run_id = NULL", "heartbeat_at = NULL")
	}
	return sets, args, nil
}

// NewComment is a note to add.
type NewComment struct {
	AuthorType string // user (default), agent, system
	AuthorID   string
	Body       string
}

// AddComment adds a note to a task.
func (b *Board) AddComment(ctx context.Context, taskID string, n NewComment) (Comment, error) {
	if n.AuthorType == "" {
		n.AuthorType = "user"
	}
	if n.AuthorType != "user" && n.AuthorType != "agent" && n.AuthorType != "system" {
		return Comment{}, rule("invalid", "authorType must be user, agent or system")
	}
	body := strings.TrimSpace(n.Body)
	if body == "" {
		return Comment{}, rule("invalid", "body is required")
	}
	if utf8.RuneCountInString(body) > 20000 {
		return Comment{}, rule("invalid", "body is longer than 20,000 characters")
	}
	c := Comment{ID: newID(), TaskID: taskID, AuthorType: n.AuthorType, AuthorID: optional(n.AuthorID), Body: body, CreatedAt: b.ms()}
	err := b.st.InTx(ctx, func(tx *sql.Tx) error { return insertComment(ctx, b.st.Tx(tx), c) })
	if err != nil {
		return Comment{}, err
	}
	b.publish(Event{Kind: "comment", Comment: &c})
	return c, nil
}

func insertComment(ctx context.Context, q store.Querier, c Comment) error {
	_, err := q.ExecContext(ctx, `INSERT INTO task_comments(id, task_id, author_type, author_id, body, created_at)
		SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM tasks WHERE id = ?)`,
		c.ID, c.TaskID, c.AuthorType, c.AuthorID, c.Body, c.CreatedAt, c.TaskID)
	if err != nil {
		return err
	}
	var n int
	if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM task_comments WHERE id = ?`, c.ID).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// Comments lists a task's notes, oldest first.
func (b *Board) Comments(ctx context.Context, taskID string) ([]Comment, error) {
	rows, err := b.st.Read().QueryContext(ctx, `SELECT id, task_id, author_type, author_id, body, created_at
		FROM task_comments WHERE task_id = ? ORDER BY created_at, id`, taskID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Comment{}
	for rows.Next() {
		var c Comment
		if err := rows.Scan(&c.ID, &c.TaskID, &c.AuthorType, &c.AuthorID, &c.Body, &c.CreatedAt); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Link makes taskID depend on dependsOn, refusing a link that would close a
// cycle.
func (b *Board) Link(ctx context.Context, taskID, dependsOn string) (Task, error) {
	if taskID == dependsOn {
		return Task{}, ErrCycle
	}
	return b.changeTask(ctx, taskID, func(q store.Querier) error {
		for _, id := range []string{taskID, dependsOn} {
			if _, err := getTask(ctx, q, id); err != nil {
				return err
			}
		}
		// Does dependsOn already (transitively) depend on taskID?
		var reach int
		err := q.QueryRowContext(ctx, `WITH RECURSIVE up(id) AS (
				SELECT depends_on FROM task_deps WHERE task_id = ?
				UNION SELECT d.depends_on FROM task_deps d JOIN up ON d.task_id = up.id)
			SELECT COUNT(*) FROM up WHERE id = ?`, dependsOn, taskID).Scan(&reach)
		if err != nil {
			return err
		}
		if reach > 0 {
			return ErrCycle
		}
		_, err = q.ExecContext(ctx, `INSERT OR IGNORE INTO task_deps(task_id, depends_on, created_at) VALUES (?, ?, ?)`,
			taskID, dependsOn, b.ms())
		return err
	})
}

// Unlink removes a dependency.
func (b *Board) Unlink(ctx context.Context, taskID, dependsOn string) (Task, error) {
	return b.changeTask(ctx, taskID, func(q store.Querier) error {
		_, err := q.ExecContext(ctx, `DELETE FROM task_deps WHERE task_id = ? AND depends_on = ?`, taskID, dependsOn)
		return err
	})
}

// criticMode checks a task's critic setting: auto (the default), on, off.
func criticMode(s string) (string, error) {
	switch c := strings.ToLower(strings.TrimSpace(s)); c {
	case "":
		return "auto", nil
	case "auto", "on", "off":
		return c, nil
	}
	return "", rule("invalid", "critic must be auto, on or off")
}
