package api

import (
	"testing"

	"github.com/clawboo/desktop/backend/board"
)

func TestWorkInPlaceIsSetOnCreateAndPatch(t *testing.T) {
	f := newFixture(t, nil)
	repo := gitRepo(t)
	task := f.createTask(t, `{"title":"in place","repoPath":"`+repo+`","workInPlace":true}`)
	if !task.WorkInPlace {
		t.Fatalf("%+v", task)
	}
	code, _, b := f.do(t, "PATCH", "/api/board/"+task.ID, `{"workInPlace":false}`)
	if got := decode[struct{ Task board.Task }](t, b).Task; code != 200 || got.WorkInPlace {
		t.Fatal(code, string(b))
	}
	if other := f.createTask(t, `{"title":"in a worktree","repoPath":"`+repo+`"}`); other.WorkInPlace {
		t.Fatalf("%+v", other)
	}
}
