package board

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
)

// Filter narrows List and Page.
type Filter struct {
	Statuses []Status
	TeamID   string
	ParentID string
	// AgentID and Runtime keep tasks assigned to that agent, on that runtime.
	AgentID string
	Runtime string
	// Query keeps tasks whose title contains it (any case) or whose id it is.
	Query string
	// Ready keeps todo tasks whose dependencies are all done.
	Ready bool
	// Recent orders by last change, newest first (finished work), instead
	// of by priority then age (the order work is picked up in).
	Recent bool
	// Limit caps the tasks returned: List returns every match when it is
	// 0; Page defaults to DefaultPage and allows at most MaxPage.
	Limit int
	// Cursor continues after the page that answered it (Page.NextCursor).
	Cursor string
}

// Page sizes.
const (
	DefaultPage = 500
	MaxPage     = 2000
)

// TaskPage is one page of tasks, the cursor of the next ("" when this is
// the last), and how many tasks the whole filter matches per status.
type TaskPage struct {
	Tasks      []Task         `json:"tasks"`
	NextCursor string         `json:"nextCursor"`
	Counts     map[Status]int `json:"counts"`
}

// ErrBadCursor is a cursor this board did not hand out.
var ErrBadCursor = rule("invalid", "invalid cursor: pass back the nextCursor of the previous page")

// Page returns one page of the filter's tasks with the per-status counts
// of the whole filter.
func (b *Board) Page(ctx context.Context, f Filter) (TaskPage, error) {
	if f.Limit <= 0 {
		f.Limit = DefaultPage
	}
	f.Limit = min(f.Limit, MaxPage)
	if strings.TrimSpace(f.Query) != "" {
		return b.searchPage(ctx, f)
	}
	ts, next, err := b.list(ctx, f)
	if err != nil {
		return TaskPage{}, err
	}
	counts, err := b.counts(ctx, f)
	if err != nil {
		return TaskPage{}, err
	}
	return TaskPage{Tasks: ts, NextCursor: next, Counts: counts}, nil
}

// where builds the filter's conditions (the cursor aside).
func (f Filter) where() ([]string, []any) {
	var where []string
	var args []any
	if len(f.Statuses) > 0 {
		where = append(where, "status IN ("+strings.TrimSuffix(strings.Repeat("?,", len(f.Statuses)), ",")+")")
		for _, s := range f.Statuses {
			args = append(args, string(s))
		}
	}
	for _, c := range []struct{ col, v string }{{"team_id", f.TeamID}, {"parent_id", f.ParentID}, {"assignee_agent_id", f.AgentID}, {"assignee_runtime", f.Runtime}} {
		if c.v != "" {
			where = append(where, c.col+" = ?")
			args = append(args, c.v)
		}
	}
	if q := strings.TrimSpace(f.Query); q != "" {
		esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(q)
		where = append(where, `(title LIKE ? ESCAPE '\' OR id = ?)`)
		args = append(args, "%"+esc+"%", strings.ToUpper(q))
	}
	if f.Ready {
		where = append(where, "status = 'todo' AND "+noOpenDeps)
	}
	return where, args
}

// cursorWhere is the condition of the tasks past the filter's cursor ("" when
// it has none), on the columns priority, created_at, updated_at and id.
func (f Filter) cursorWhere() (string, []any, error) {
	if f.Cursor == "" {
		return "", nil, nil
	}
	k, err := decodeCursor(f.Cursor, f.Recent)
	if err != nil {
		return "", nil, err
	}
	if f.Recent {
		return "(updated_at < ? OR (updated_at = ? AND id < ?))", []any{k.at, k.at, k.id}, nil
	}
	return "(priority < ? OR (priority = ? AND (created_at > ? OR (created_at = ? AND id > ?))))",
		[]any{k.priority, k.priority, k.at, k.at, k.id}, nil
}

// orderBy is the filter's order, its cursor's key.
func (f Filter) orderBy() string {
	if f.Recent {
		return ` ORDER BY updated_at DESC, id DESC`
	}
	return ` ORDER BY priority DESC, created_at, id`
}

// list runs the filter, one page past the cursor when f.Limit is set, and
// answers the next page's cursor when more tasks match.
func (b *Board) list(ctx context.Context, f Filter) ([]Task, string, error) {
	where, args := f.where()
	cw, cargs, err := f.cursorWhere()
	if err != nil {
		return nil, "", err
	}
	if cw != "" {
		where, args = append(where, cw), append(args, cargs...)
	}
	q := `SELECT ` + taskColumns + ` FROM tasks`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += f.orderBy()
	if f.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, f.Limit+1)
	}
	return b.readPage(ctx, f, q, args)
}

// readPage reads the tasks of q (at most f.Limit+1 of them, in the
// filter's order), cuts them to the page and attaches their dependencies.
func (b *Board) readPage(ctx context.Context, f Filter, q string, args []any) ([]Task, string, error) {
	rows, err := b.st.Read().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, "", fmt.Errorf("list tasks: %w", err)
	}
	defer rows.Close()
	out := []Task{}
	for rows.Next() {
		t, err := scanTask(rows)
		if err != nil {
			return nil, "", fmt.Errorf("list tasks: %w", err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, "", err
	}
	next := ""
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
		next = encodeCursor(out[len(out)-1], f.Recent)
	}
	return out, next, b.attachDeps(ctx, out)
}

// counts is how many tasks the filter matches, per status (every status
// present, zero or not).
func (b *Board) counts(ctx context.Context, f Filter) (map[Status]int, error) {
	where, args := f.where()
	return b.countsBy(ctx, where, args, "status")
}

// countsBy counts the tasks matching where per status, grouped by group:
// "status" lets the count walk tasks_board, "+status" keeps it off it.
func (b *Board) countsBy(ctx context.Context, where []string, args []any, group string) (map[Status]int, error) {
	q := `SELECT status, COUNT(*) FROM tasks`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	rows, err := b.st.Read().QueryContext(ctx, q+` GROUP BY `+group, args...)
	if err != nil {
		return nil, fmt.Errorf("count tasks: %w", err)
	}
	defer rows.Close()
	out := make(map[Status]int, len(Statuses))
	for _, s := range Statuses {
		out[s] = 0
	}
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			return nil, err
		}
		out[Status(s)] = n
	}
	return out, rows.Err()
}

type cursorKey struct {
	priority int
	at       int64
	id       string
}

// A cursor is the last task's sort key: "p.<priority>.<created>.<id>" or
// "r.<updated>.<id>", base64url.
func encodeCursor(t Task, recent bool) string {
	s := fmt.Sprintf("p.%d.%d.%s", t.Priority, t.CreatedAt, t.ID)
	if recent {
		s = fmt.Sprintf("r.%d.%s", t.UpdatedAt, t.ID)
	}
	return base64.RawURLEncoding.EncodeToString([]byte(s))
}

func decodeCursor(c string, recent bool) (cursorKey, error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return cursorKey{}, ErrBadCursor
	}
	f := strings.Split(string(raw), ".")
	var k cursorKey
	switch {
	case recent && len(f) == 3 && f[0] == "r":
		k.at, err = strconv.ParseInt(f[1], 10, 64)
		k.id = f[2]
	case !recent && len(f) == 4 && f[0] == "p":
		k.priority, err = strconv.Atoi(f[1])
		if err == nil {
			k.at, err = strconv.ParseInt(f[2], 10, 64)
		}
		k.id = f[3]
	default:
		return cursorKey{}, ErrBadCursor
	}
	if err != nil || k.id == "" {
		return cursorKey{}, ErrBadCursor
	}
	return k, nil
}
