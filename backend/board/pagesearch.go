package board

import (
	"context"
	"fmt"
	"strings"
)

// searchPage answers a page of a search (Filter.Query). One scan of the
// titles finds the page's row ids in order with their statuses; when that
// is every match (the first page, and no more after it: most searches) the
// counts are the page's own and the titles are not read again. Otherwise a
// second scan counts, grouped off tasks_board (walking that index costs a
// row lookup per task for its title). Only the page's rows are then read
// whole, by row id, so the sort carries row ids rather than whole tasks.
func (b *Board) searchPage(ctx context.Context, f Filter) (TaskPage, error) {
	where, args := f.where()
	cw, cargs, err := f.cursorWhere()
	if err != nil {
		return TaskPage{}, err
	}
	pw, pargs := where, args
	if cw != "" {
		pw, pargs = append(append([]string{}, where...), cw), append(append([]any{}, args...), cargs...)
	}
	rows, err := b.st.Read().QueryContext(ctx, `SELECT rowid, status FROM tasks WHERE `+strings.Join(pw, " AND ")+f.orderBy()+` LIMIT ?`,
		append(pargs, f.Limit+1)...)
	if err != nil {
		return TaskPage{}, fmt.Errorf("search tasks: %w", err)
	}
	defer rows.Close()
	var ids []any
	counts := make(map[Status]int, len(Statuses))
	for _, s := range Statuses {
		counts[s] = 0
	}
	for rows.Next() {
		var id int64
		var status string
		if err := rows.Scan(&id, &status); err != nil {
			return TaskPage{}, fmt.Errorf("search tasks: %w", err)
		}
		ids = append(ids, id)
		counts[Status(status)]++
	}
	if err := rows.Err(); err != nil {
		return TaskPage{}, fmt.Errorf("search tasks: %w", err)
	}
	rows.Close()
	if cw != "" || len(ids) > f.Limit {
		if counts, err = b.countsBy(ctx, where, args, "+status"); err != nil {
			return TaskPage{}, err
		}
	}
	page := TaskPage{Tasks: []Task{}, Counts: counts}
	if len(ids) == 0 {
		return page, nil
	}
	q := `SELECT ` + taskColumns + ` FROM tasks WHERE rowid IN (` + strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",") + `)` + f.orderBy()
	page.Tasks, page.NextCursor, err = b.readPage(ctx, f, q, ids)
	if err != nil {
		return TaskPage{}, err
	}
	return page, nil
}
