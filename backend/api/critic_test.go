package api

import (
	"net/http"
	"testing"

	"github.com/clawboo/desktop/backend/board"
)

func TestTaskCriticSetting(t *testing.T) {
	f := newFixture(t, nil)
	code, _, body := f.do(t, "POST", "/api/board", `{"title":"a","kind":"research"}`)
	if code != http.StatusCreated && code != http.StatusOK {
		t.Fatalf("create: %d %s", code, body)
	}
	task := decode[struct{ Task board.Task }](t, body).Task
	if task.Critic != "auto" {
		t.Fatalf("default critic %q", task.Critic)
	}
	code, _, body = f.do(t, "POST", "/api/board", `{"title":"b","kind":"research","critic":"off"}`)
	if tk := decode[struct{ Task board.Task }](t, body).Task; code >= 300 || tk.Critic != "off" {
		t.Fatalf("create off: %d %s", code, body)
	}
	code, _, body = f.do(t, "PATCH", "/api/board/"+task.ID, `{"critic":"on"}`)
	if tk := decode[struct{ Task board.Task }](t, body).Task; code != http.StatusOK || tk.Critic != "on" {
		t.Fatalf("patch on: %d %s", code, body)
	}
	if code, _, body = f.do(t, "PATCH", "/api/board/"+task.ID, `{"critic":"maybe"}`); code != http.StatusBadRequest {
		t.Fatalf("patch maybe: %d %s", code, body)
	}
}
