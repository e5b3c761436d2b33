package api

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/board"
)

func TestPortRangeSettingAndTheTaskShowsItsPorts(t *testing.T) {
	f := newFixture(t, nil)
	code, _, body := f.do(t, "GET", "/api/settings/port-range", "")
	if code != http.StatusOK || decode[board.PortRange](t, body) != board.DefaultPortRange {
		t.Fatalf("%d %s", code, body)
	}
	code, _, body = f.do(t, "PUT", "/api/settings/port-range", `{"first":80,"last":90,"block":5}`)
	if code != http.StatusBadRequest {
		t.Fatalf("a privileged range: %d %s", code, body)
	}
	// A range holding Clawboo's own port (issue 26 §2.5e).
	own := f.srv.URL[strings.LastIndex(f.srv.URL, ":")+1:]
	ownN, _ := strconv.Atoi(own)
	code, _, body = f.do(t, "PUT", "/api/settings/port-range", fmt.Sprintf(`{"first":%d,"last":%d,"block":1}`, max(ownN-2, 1024), ownN+2))
	if code != http.StatusBadRequest || !strings.Contains(errorOf(t, body), "holds "+own+", the port Clawboo itself listens on") {
		t.Fatalf("a range holding our own port: %d %s", code, body)
	}
	code, _, body = f.do(t, "PUT", "/api/settings/port-range", `{"first":45000,"last":45099,"block":4}`)
	if code != http.StatusOK || decode[board.PortRange](t, body) != (board.PortRange{First: 45000, Last: 45099, Block: 4}) {
		t.Fatalf("%d %s", code, body)
	}
	ctx := context.Background()
	task, err := f.board.Create(ctx, board.NewTask{Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.board.SetWorktree(ctx, board.Worktree{TaskID: task.ID, RepoPath: "/r", Path: "/p", Branch: "b", BaseCommit: "c", Status: "active"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.board.LeasePorts(ctx, task.ID); err != nil {
		t.Fatal(err)
	}
	code, _, body = f.do(t, "GET", "/api/board/"+task.ID, "")
	got := decode[struct{ Worktree board.Worktree }](t, body)
	if code != http.StatusOK || len(got.Worktree.Ports) != 4 || got.Worktree.Ports[0] != 45000 {
		t.Fatalf("%d %s", code, body)
	}
}
