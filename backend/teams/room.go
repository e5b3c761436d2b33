package teams

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/clawboo/desktop/backend/store"
)

// Post is one row of the team_chat table.
type Post struct {
	Seq       int64
	RoomID    string
	TeamID    string
	Author    string
	Kind      string
	Body      string // scrubbed, unwrapped
	Assignee  string // kind "delegate" only
	TaskID    string // the task the post is about ("" for none)
	CreatedAt int64  // Unix ms
}

// AppendPost stores p and returns its sequence number. The number is
// assigned by the same statement that stores the row, inside an IMMEDIATE
// write transaction, so two posters can never get the same one and a
// reader never sees a gap fill in behind its cursor.
func AppendPost(ctx context.Context, st *store.Store, p Post) (int64, error) {
	var seq int64
	err := st.InTx(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, `INSERT INTO team_chat
			(room_id, seq, team_id, author_agent_id, kind, body, assignee, task_id, created_at)
			SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ?, ?, ?, ? FROM team_chat WHERE room_id = ?
			RETURNING seq`,
			p.RoomID, p.TeamID, p.Author, p.Kind, p.Body, orNull(p.Assignee), orNull(p.TaskID), p.CreatedAt, p.RoomID).Scan(&seq)
	})
	if err != nil {
		return 0, fmt.Errorf("store team chat post: %w", err)
	}
	return seq, nil
}

// ReadPosts returns up to limit posts of room after since, leaving out
// those by exclude (the reader's own), plus the room's highest sequence
// number. Both come from one read transaction, so the high-water mark
// never covers a post the page did not consider. more reports that posts
// beyond the page exist.
func ReadPosts(ctx context.Context, st *store.Store, room string, since int64, exclude string, limit int) (posts []Post, roomMax int64, more bool, err error) {
	tx, err := st.Reader().BeginTx(ctx, nil)
	if err != nil {
		return nil, 0, false, fmt.Errorf("read team chat: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM team_chat WHERE room_id = ?`, room).Scan(&roomMax); err != nil {
		return nil, 0, false, fmt.Errorf("read team chat: %w", err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT seq, team_id, author_agent_id, kind, body, COALESCE(assignee, ''), COALESCE(task_id, ''), created_at
		FROM team_chat WHERE room_id = ? AND seq > ? AND author_agent_id <> ?
		ORDER BY seq LIMIT ?`, room, since, exclude, limit+1)
	if err != nil {
		return nil, 0, false, fmt.Errorf("read team chat: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		p := Post{RoomID: room}
		if err := rows.Scan(&p.Seq, &p.TeamID, &p.Author, &p.Kind, &p.Body, &p.Assignee, &p.TaskID, &p.CreatedAt); err != nil {
			return nil, 0, false, fmt.Errorf("read team chat: %w", err)
		}
		posts = append(posts, p)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, false, fmt.Errorf("read team chat: %w", err)
	}
	if len(posts) > limit {
		posts, more = posts[:limit], true
	}
	return posts, roomMax, more, nil
}

// Post kinds: a person's message, an agent's post, a delegation signal,
// the orchestrator's own notes (limits hit, report-ups, refusals), a
// person's stop of a member's work, and a task's work merged. Readers treat
// a kind they do not know as a system post.
const (
	KindUser     = "user"
	KindPeer     = "peer"
	KindDelegate = "delegate"
	KindSystem   = "system"
	KindStop     = "stop"
	KindMerge    = "merge"
)

func orNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Authors that are not agents.
const (
	AuthorUser   = "user"
	AuthorSystem = "system"
)
