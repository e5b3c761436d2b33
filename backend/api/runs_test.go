package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
)

func TestRunEventsStreamLive(t *testing.T) {
	f := newFixture(t, nil)
	id := startAsync(t, f, "!ok first\n!silent 400\n!ok second")
	if code, _, b := f.do(t, "GET", "/api/runs/"+id, ""); code != 200 || decode[store.Run](t, b).ID != id {
		t.Fatal(code, string(b))
	}
	resp := f.stream(t, "/api/runs/"+id+"/events")
	var seqs []string
	sawFirstWhileLive := false
	readSSE(t, resp.Body, func(ev sseEvent) bool {
		var e executor.Event
		if err := json.Unmarshal(ev.data, &e); err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, ev.id)
		if e.Text == "first" {
			_, _, b := f.do(t, "GET", "/api/runs/"+id, "")
			sawFirstWhileLive = decode[store.Run](t, b).Status == store.RunRunning
		}
		return true
	})
	if !sawFirstWhileLive {
		t.Fatal("first text did not arrive while the run was still running")
	}
	if strings.Join(seqs, ",") != "1,2,3,4" {
		t.Fatalf("ids %v", seqs)
	}
}

func TestRunEventsReplayAndResume(t *testing.T) {
	f := newFixture(t, nil)
	_, _, b := f.do(t, "POST", "/api/runtimes/clawboo-mock/run", `{"message":"!loop 3"}`)
	id := decode[runResult](t, b).RunID
	collect := func(hdr ...string) []string {
		var ids []string
		readSSE(t, f.stream(t, "/api/runs/"+id+"/events"+hdr[0], hdr[1:]...).Body, func(ev sseEvent) bool {
			ids = append(ids, ev.id)
			return true
		})
		return ids
	}
	if got := strings.Join(collect(""), ","); got != "1,2,3,4,5,6,7,8" {
		t.Fatalf("replay %s", got)
	}
	if got := strings.Join(collect("", "Last-Event-ID", "5"), ","); got != "6,7,8" {
		t.Fatalf("resume header %s", got)
	}
	if got := strings.Join(collect("?after=7"), ","); got != "8" {
		t.Fatalf("resume query %s", got)
	}
	if got := strings.Join(collect("?after=1", "Last-Event-ID", "6"), ","); got != "7,8" {
		t.Fatalf("header must win %s", got)
	}
	if code, _, b := f.do(t, "GET", "/api/runs/"+id+"/events?after=-1", ""); code != 400 || errorOf(t, b) == "" {
		t.Fatal(code, string(b))
	}
	if code, _, b := f.do(t, "GET", "/api/runs/nope/events", ""); code != 404 || errorOf(t, b) != "unknown run 'nope'" {
		t.Fatal(code, string(b))
	}
}

func TestFloodIsDeliveredCompletely(t *testing.T) {
	f := newFixture(t, nil)
	id := startAsync(t, f, "!flood 30000")
	n := 0
	var last int64
	readSSE(t, f.stream(t, "/api/runs/"+id+"/events").Body, func(ev sseEvent) bool {
		var e executor.Event
		_ = json.Unmarshal(ev.data, &e)
		if e.Seq != last+1 {
			t.Fatalf("gap: %d after %d", e.Seq, last)
		}
		last = e.Seq
		n++
		return true
	})
	if n != 30002 {
		t.Fatalf("got %d events", n)
	}
}

func TestAbort(t *testing.T) {
	f := newFixture(t, nil)
	id := startAsync(t, f, "!abort")
	code, _, b := f.do(t, "POST", "/api/runs/"+id+"/abort", "")
	if code != 202 {
		t.Fatal(code, string(b))
	}
	var final executor.Event
	readSSE(t, f.stream(t, "/api/runs/"+id+"/events").Body, func(ev sseEvent) bool {
		final = executor.Event{}
		_ = json.Unmarshal(ev.data, &final)
		return true
	})
	if final.Kind != executor.KindDone || final.Reason != executor.DoneAborted {
		t.Fatalf("%+v", final)
	}
	if code, _, b := f.do(t, "POST", "/api/runs/"+id+"/abort", ""); code != 409 {
		t.Fatal(code, string(b))
	}
	if code, _, b := f.do(t, "POST", "/api/runs/ghost/abort", ""); code != 404 || errorOf(t, b) != "unknown run 'ghost'" {
		t.Fatal(code, string(b))
	}
}

func TestCallerDisconnectDoesNotStopRun(t *testing.T) {
	f := newFixture(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", f.srv.URL+"/api/runtimes/clawboo-mock/run", strings.NewReader(`{"message":"!silent 400\n!ok still here"}`))
	req.Header.Set("Content-Type", "application/json")
	if _, err := http.DefaultClient.Do(req); err == nil {
		t.Fatal("expected the client to give up")
	}
	_, _, b := f.do(t, "GET", "/api/runs?limit=1", "")
	id := decode[struct{ Runs []store.Run }](t, b).Runs[0].ID
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		_, _, b = f.do(t, "GET", "/api/runs/"+id, "")
		if r := decode[store.Run](t, b); r.Status == store.RunSucceeded && r.Summary == "still here" {
			return
		} else if !r.Live() {
			t.Fatalf("%+v", r)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("run did not finish after its caller left")
}

func TestRunsPagination(t *testing.T) {
	f := newFixture(t, nil)
	for i := 0; i < 5; i++ {
		f.do(t, "POST", "/api/runtimes/clawboo-mock/run", `{"message":"x"}`)
	}
	var all []string
	cursor := ""
	for pages := 0; pages < 5; pages++ {
		path := "/api/runs?limit=2"
		if cursor != "" {
			path += "&before=" + cursor
		}
		code, _, b := f.do(t, "GET", path, "")
		if code != 200 {
			t.Fatal(code, string(b))
		}
		page := decode[struct {
			Runs       []store.Run
			NextCursor *string
		}](t, b)
		for _, r := range page.Runs {
			all = append(all, r.ID)
		}
		if page.NextCursor == nil {
			break
		}
		cursor = *page.NextCursor
	}
	if len(all) != 5 {
		t.Fatalf("got %d runs", len(all))
	}
	for i := 1; i < len(all); i++ {
		if all[i] >= all[i-1] {
			t.Fatal("not newest first")
		}
	}
	for _, bad := range []string{"0", "201", "x"} {
		if code, _, _ := f.do(t, "GET", "/api/runs?limit="+bad, ""); code != 400 {
			t.Fatalf("limit=%s gave %d", bad, code)
		}
	}
}

func TestErrorsAreJSON(t *testing.T) {
	f := newFixture(t, fstest.MapFS{"index.html": {Data: []byte("<html>app</html>")}})
	if err := f.st.InsertAgent(context.Background(), "alice", "Alice", "clawboo-mock", 1); err != nil {
		t.Fatal(err)
	}
	big := `{"message":"` + strings.Repeat("a", MaxBody) + `"}`
	cases := []struct {
		name, method, path, body string
		hdr                      []string
		code                     int
		err                      string
	}{
		{"malformed", "POST", "/api/runtimes/clawboo-mock/run", `{"message":`, nil, 400, "malformed JSON"},
		{"not an object", "POST", "/api/runtimes/clawboo-mock/run", `[1]`, nil, 400, "malformed JSON"},
		{"trailing junk", "POST", "/api/runtimes/clawboo-mock/run", `{"message":"x"} {}`, nil, 400, "unexpected data"},
		{"empty body", "POST", "/api/runtimes/clawboo-mock/run", ``, nil, 400, "must be a JSON object"},
		{"no message", "POST", "/api/runtimes/clawboo-mock/run", `{}`, nil, 400, "message (or taskId) is required"},
		{"wrong type", "POST", "/api/runtimes/clawboo-mock/run", `{"message":5}`, nil, 400, "malformed JSON"},
		{"bad agent id", "POST", "/api/runtimes/clawboo-mock/run", `{"message":"x","agentId":"../x"}`, nil, 400, "invalid agentId"},
		{"unknown agent", "POST", "/api/runtimes/clawboo-mock/run", `{"message":"x","agentId":"bob"}`, nil, 404, "unknown agent 'bob'"},
		{"unknown runtime", "POST", "/api/runtimes/nope/run", `{"message":"x"}`, nil, 404, "unknown runtime 'nope'"},
		{"unknown run", "GET", "/api/runs/nope", ``, nil, 404, "unknown run 'nope'"},
		{"too large", "POST", "/api/runtimes/clawboo-mock/run", big, nil, 413, "request body over"},
		{"wrong method", "DELETE", "/api/runtimes", ``, nil, 405, "method DELETE not allowed"},
		{"wrong method on run", "GET", "/api/runtimes/clawboo-mock/run", ``, nil, 405, "method GET not allowed"},
		{"unknown api path", "GET", "/api/nothing/here", ``, nil, 404, "no such endpoint"},
		{"api root", "GET", "/api/", ``, nil, 404, "no such endpoint"},
		{"foreign host", "GET", "/api/runtimes", ``, []string{"Host", "evil.example"}, 403, "not a loopback name"},
		{"foreign host page", "GET", "/", ``, []string{"Host", "rebind.example:18790"}, 403, "not a loopback name"},
		{"wails host over tcp", "GET", "/api/runtimes", ``, []string{"Host", "wails"}, 403, "not a loopback name"},
		{"cross-site origin", "POST", "/api/runs/x/abort", ``, []string{"Origin", "http://evil.example"}, 403, "cross-site"},
		{"other local port", "POST", "/api/runs/x/abort", ``, []string{"Origin", "http://127.0.0.1:1"}, 403, "cross-site"},
		{"null origin", "POST", "/api/runs/x/abort", ``, []string{"Origin", "null"}, 403, "cross-site"},
		{"fetch metadata", "POST", "/api/runs/x/abort", ``, []string{"Sec-Fetch-Site", "cross-site"}, 403, "cross-site"},
		// The second layer: what a browser may send cross-site without a
		// preflight, from a client that sends no Origin at all.
		{"text/plain body", "POST", "/api/runtimes/clawboo-mock/run", `{"message":"x"}`, []string{"Content-Type", "text/plain"}, 415, "application/json"},
		{"form body", "POST", "/api/runtimes/clawboo-mock/run", `message=x`, []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, "application/json"},
		{"multipart body", "POST", "/api/board", `--x`, []string{"Content-Type", "multipart/form-data; boundary=x"}, 415, "application/json"},
		{"empty form", "POST", "/api/runs/x/abort", ``, []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, "application/json"},
		{"bad media type", "PATCH", "/api/board/x", `{}`, []string{"Content-Type", "application/json;;"}, 415, "application/json"},
		{"no type with a body", "DELETE", "/api/budgets/agent/x", `{}`, []string{"Content-Type", ""}, 415, "application/json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, h, b := f.do(t, tc.method, tc.path, tc.body, tc.hdr...)
			if code != tc.code || h.Get("Content-Type") != "application/json" || !strings.Contains(errorOf(t, b), tc.err) {
				t.Fatalf("%d %s %s", code, h.Get("Content-Type"), b)
			}
			if code == 405 && h.Get("Allow") == "" {
				t.Fatal("405 without Allow")
			}
		})
	}
	// Loopback names and this server's own origin pass.
	host := strings.TrimPrefix(f.srv.URL, "http://")
	for _, hdr := range [][]string{
		{"Host", "localhost:1234"},
		{"Host", "[::1]:8"},
		{"Host", "127.0.0.2"},
		{"Origin", "http://" + host},
		{"Sec-Fetch-Site", "same-origin"},
		{"Content-Type", "application/json; charset=utf-8"},
		{"Content-Type", "Application/JSON"},
	} {
		if code, _, b := f.do(t, "POST", "/api/runtimes/clawboo-mock/run", `{"message":"x","agentId":"alice"}`, hdr...); code != 200 {
			t.Fatalf("%v: %d %s", hdr, code, b)
		}
	}
}

func TestInProcessRequestsSkipHostCheck(t *testing.T) {
	f := newFixture(t, nil)
	req := httptest.NewRequest("GET", "wails://wails/api/runtimes", nil)
	req.Host = "wails"
	rec := httptest.NewRecorder()
	f.api.ServeHTTP(rec, req.WithContext(MarkInProcess(req.Context())))
	if rec.Code != 200 {
		t.Fatal(rec.Code, rec.Body.String())
	}
	req = httptest.NewRequest("POST", "wails://wails/api/runs/x/abort", nil)
	req.Host = "wails"
	req.Header.Set("Origin", "wails://wails")
	rec = httptest.NewRecorder()
	f.api.ServeHTTP(rec, req.WithContext(MarkInProcess(req.Context())))
	if rec.Code != 404 {
		t.Fatal(rec.Code, rec.Body.String())
	}
}

func TestUI(t *testing.T) {
	ui := fstest.MapFS{
		"index.html":       {Data: []byte("<html>app shell</html>")},
		"assets/app-1.js":  {Data: []byte("console.log(1)")},
		"favicon.svg":      {Data: []byte("<svg/>")},
		"assets/style.css": {Data: []byte("body{}")},
	}
	f := newFixture(t, ui)
	for _, p := range []string{"/", "/index.html", "/runs/abc", "/some/deep/route"} {
		code, h, b := f.do(t, "GET", p, "")
		if code != 200 || !bytes.Contains(b, []byte("app shell")) || !strings.Contains(h.Get("Content-Security-Policy"), "default-src 'self'") {
			t.Fatalf("%s: %d %s", p, code, b)
		}
	}
	code, h, b := f.do(t, "GET", "/assets/app-1.js", "")
	if code != 200 || string(b) != "console.log(1)" || !strings.Contains(h.Get("Cache-Control"), "immutable") {
		t.Fatalf("%d %v %s", code, h, b)
	}
	if code, _, _ := f.do(t, "GET", "/assets/missing.js", ""); code != 404 {
		t.Fatal(code)
	}
	if code, _, _ := f.do(t, "POST", "/", ""); code != 405 {
		t.Fatal(code)
	}
	bare := newFixture(t, nil)
	if code, _, b := bare.do(t, "GET", "/", ""); code != 200 || !bytes.Contains(b, []byte("not built")) {
		t.Fatal(code, string(b))
	}
}

func TestLiveUpdatesStream(t *testing.T) {
	f := newFixture(t, nil)
	resp := f.stream(t, "/api/events")
	got := make(chan []string, 1)
	go func() {
		var statuses []string
		readSSE(t, resp.Body, func(ev sseEvent) bool {
			if ev.name != "run" {
				return true
			}
			statuses = append(statuses, decode[store.Run](t, ev.data).Status)
			return len(statuses) < 3
		})
		got <- statuses
	}()
	// The subscription is registered when the stream opens; wait for it.
	deadline := time.Now().Add(5 * time.Second)
	for f.sup.Updates.Len() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	f.do(t, "POST", "/api/runtimes/clawboo-mock/run", `{"message":"!ok x"}`)
	select {
	case s := <-got:
		if strings.Join(s, ",") != "starting,running,succeeded" {
			t.Fatalf("%v", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no updates")
	}
	resp.Body.Close()
}

func TestHealth(t *testing.T) {
	f := newFixture(t, nil)
	code, _, b := f.do(t, "GET", "/api/health", "")
	if code != 200 || decode[map[string]any](t, b)["version"] != "test" {
		t.Fatal(code, string(b))
	}
}
