package api

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/clawboo/desktop/backend/board"
)

// GET /api/board pages with limit and cursor, says how many tasks each
// status holds over the whole filter, and searches titles with q.
func TestBoardListPages(t *testing.T) {
	f := newFixture(t, nil)
	for i := range 12 {
		f.createTask(t, fmt.Sprintf(`{"title":"job %02d","priority":%d}`, i, i%2))
	}
	type page struct {
		Tasks      []board.Task
		NextCursor string
		Counts     map[string]int
	}
	seen := map[string]bool{}
	cursor := ""
	for n := 0; ; n++ {
		code, _, b := f.do(t, "GET", "/api/board?limit=5&cursor="+url.QueryEscape(cursor), "")
		if code != 200 {
			t.Fatal(code, string(b))
		}
		p := decode[page](t, b)
		if p.Counts["todo"] != 12 || p.Counts["done"] != 0 {
			t.Fatalf("counts %v", p.Counts)
		}
		for _, task := range p.Tasks {
			if seen[task.ID] {
				t.Fatalf("%s twice", task.ID)
			}
			seen[task.ID] = true
		}
		if p.NextCursor == "" {
			if n != 2 || len(seen) != 12 {
				t.Fatalf("%d pages, %d tasks", n+1, len(seen))
			}
			break
		}
		cursor = p.NextCursor
	}
	code, _, b := f.do(t, "GET", "/api/board?q=JOB%2007&order=recent", "")
	if p := decode[page](t, b); code != 200 || len(p.Tasks) != 1 || p.Tasks[0].Title != "job 07" || p.NextCursor != "" || p.Counts["todo"] != 1 {
		t.Fatal(code, string(b))
	}
	for _, bad := range []string{"limit=0", "limit=5000", "limit=x", "order=oldest", "cursor=zzz"} {
		if code, _, b := f.do(t, "GET", "/api/board?"+bad, ""); code != 400 {
			t.Fatal(bad, code, string(b))
		}
	}
}
