package api

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/clawboo/desktop/backend/board"
)

func TestWorktreeBudgetSettingAndTheJanitorReport(t *testing.T) {
	f := newFixture(t, nil)
	code, _, body := f.do(t, "GET", "/api/settings/worktree-budget", "")
	if code != http.StatusOK || decode[struct{ BytesPerRepo int64 }](t, body).BytesPerRepo != board.DefaultWorktreeBudget {
		t.Fatalf("%d %s", code, body)
	}
	if code, _, body = f.do(t, "PUT", "/api/settings/worktree-budget", `{"bytesPerRepo":-1}`); code != http.StatusBadRequest {
		t.Fatalf("a negative budget: %d %s", code, body)
	}
	if code, _, body = f.do(t, "PUT", "/api/settings/worktree-budget", `{}`); code != http.StatusBadRequest {
		t.Fatalf("no budget given: %d %s", code, body)
	}
	code, _, body = f.do(t, "PUT", "/api/settings/worktree-budget", `{"bytesPerRepo":1048576}`)
	if code != http.StatusOK || decode[struct{ BytesPerRepo int64 }](t, body).BytesPerRepo != 1<<20 {
		t.Fatalf("%d %s", code, body)
	}
	type usage struct {
		BudgetBytesPerRepo int64
		DepFolders         []string
		Janitor            *struct {
			At     int64
			Report struct {
				TotalBytes int64
				Reclaimed  []struct {
					TaskID string
					Bytes  int64
				}
			}
		}
	}
	code, _, body = f.do(t, "GET", "/api/worktrees", "")
	got := decode[usage](t, body)
	if code != http.StatusOK || got.BudgetBytesPerRepo != 1<<20 || len(got.DepFolders) == 0 || got.Janitor != nil {
		t.Fatalf("%d %s", code, body)
	}
	rep := json.RawMessage(`{"reclaimed":[{"taskId":"T1","bytes":5300,"folders":["node_modules"]}],"totalBytes":5300}`)
	if err := f.board.SetJanitorReport(context.Background(), rep); err != nil {
		t.Fatal(err)
	}
	_, _, body = f.do(t, "GET", "/api/worktrees", "")
	got = decode[usage](t, body)
	if got.Janitor == nil || got.Janitor.At == 0 || got.Janitor.Report.TotalBytes != 5300 || got.Janitor.Report.Reclaimed[0].TaskID != "T1" {
		t.Fatalf("%s", body)
	}
}

// Each worktree on disk names its task (title, status), and titles covers
// the janitor report's tasks too, so the Settings page can link them.
func TestDiskWorktreesNameTheirTasks(t *testing.T) {
	f := newFixture(t, nil)
	task := reviewedTask(t, f, gitRepo(t), `!write hello.txt hi`)
	rep := json.RawMessage(`{"reclaimed":[{"taskId":"` + task.ID + `","bytes":10,"folders":["node_modules"]},{"taskId":"gone","bytes":5,"removed":true}],"totalBytes":15}`)
	if err := f.board.SetJanitorReport(context.Background(), rep); err != nil {
		t.Fatal(err)
	}
	code, _, body := f.do(t, "GET", "/api/worktrees", "")
	got := decode[struct {
		TotalBytes int64
		Worktrees  []struct {
			TaskID, RepoPath, Title, Status string
			Bytes                           int64
		}
		Titles map[string]string
	}](t, body)
	if code != http.StatusOK || len(got.Worktrees) != 1 || got.TotalBytes <= 0 {
		t.Fatalf("%d %s", code, body)
	}
	if w := got.Worktrees[0]; w.TaskID != task.ID || w.Title != "add hello" || w.Status != string(board.InReview) || w.RepoPath == "" || w.Bytes <= 0 {
		t.Fatalf("%+v", w)
	}
	if got.Titles[task.ID] != "add hello" || len(got.Titles) != 1 {
		t.Fatalf("titles: %v (a task that is gone has none)", got.Titles)
	}
}
