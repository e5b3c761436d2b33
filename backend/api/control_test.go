package api

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestSteerAndModelRoutes(t *testing.T) {
	f := newFixture(t, nil)
	code, _, b := f.do(t, "POST", "/api/runtimes/clawboo-mock/run", `{"message":"!abort","wait":false}`)
	if code != 202 {
		t.Fatal(code, string(b))
	}
	id := decode[struct{ RunID string }](t, b).RunID
	// Wait until the runtime has started (steers before that are 409).
	deadline := time.Now().Add(5 * time.Second)
	for {
		code, _, b = f.do(t, "POST", "/api/runs/"+id+"/model", `{"model":"claude-sonnet-4-6"}`)
		if code == 200 || time.Now().After(deadline) {
			break
		}
		if code != 409 || !strings.Contains(string(b), "still starting") {
			t.Fatal(code, string(b))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code != 200 {
		t.Fatal(code, string(b))
	}
	for _, tc := range []struct {
		body string
		code int
		want string
	}{
		{`{"text":"also do the docs"}`, 200, `"result":"rejected"`}, // the mock has no steering
		{`{"text":"x","mode":"passive"}`, 200, `"result":"rejected"`},
		{`{"text":"x","mode":"urgent"}`, 400, "mode must be next or passive"},
		{`{"text":"   "}`, 400, "needs text"},
		{`{"text":"` + strings.Repeat("a", 70000) + `"}`, 400, "needs text"},
	} {
		code, _, b := f.do(t, "POST", "/api/runs/"+id+"/steer", tc.body)
		if code != tc.code || !strings.Contains(string(b), tc.want) {
			t.Errorf("%.40s: %d %s", tc.body, code, b)
		}
	}
	if code, _, b := f.do(t, "POST", "/api/runs/"+id+"/model", `{"model":""}`); code != 400 {
		t.Fatal(code, string(b))
	}
	if err := f.sup.Abort(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); f.sup.IsLive(id) && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if code, _, b := f.do(t, "POST", "/api/runs/"+id+"/steer", `{"text":"late"}`); code != 200 || !strings.Contains(string(b), "run-ended") {
		t.Fatal(code, string(b))
	}
	if code, _, b := f.do(t, "POST", "/api/runs/"+id+"/model", `{"model":"m"}`); code != 409 {
		t.Fatal(code, string(b))
	}
	if code, _, _ := f.do(t, "POST", "/api/runs/nope/steer", `{"text":"x"}`); code != 404 {
		t.Fatal(code)
	}
}
