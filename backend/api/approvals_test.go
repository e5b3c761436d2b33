package api

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/approval"
)

// withApprovals is the standard fixture with an approvals queue (and,
// when tools is set, the tools broker) wired into a fresh API.
func withApprovals(t *testing.T, o func(*Options)) (*fixture, *approval.Queue) {
	t.Helper()
	f := newFixture(t, nil)
	q, err := approval.Open(context.Background(), approval.Options{Store: f.st})
	if err != nil {
		t.Fatal(err)
	}
	opts := f.api.opts
	opts.Approvals = q
	if o != nil {
		o(&opts)
	}
	g := *f
	g.api = New(opts)
	g.srv = httptest.NewServer(withToken(g.api, f.token))
	t.Cleanup(func() {
		g.srv.CloseClientConnections()
		g.srv.Close()
		q.Close()
	})
	return &g, q
}

type askResult struct {
	r   approval.Request
	err error
}

func askAsync(q *approval.Queue, ttl time.Duration) <-chan askResult {
	out := make(chan askResult, 1)
	go func() {
		r, err := q.Ask(context.Background(), approval.Request{
			Kind: approval.KindCommand, Title: "run make test",
			Command: "make test", Folder: "/tmp/w", RunID: "run-1", Reason: "to check the fix",
		}, ttl)
		out <- askResult{r, err}
	}()
	return out
}

func pendingIDs(t *testing.T, f *fixture, n int) []string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		code, _, b := f.do(t, "GET", "/api/approvals", "")
		if code != 200 {
			t.Fatal(code, string(b))
		}
		ps := decode[map[string][]approval.Request](t, b)["approvals"]
		if len(ps) == n {
			ids := make([]string, n)
			for i, p := range ps {
				ids[i] = p.ID
			}
			return ids
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d pending, want %d", len(ps), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestApprovalsAPI(t *testing.T) {
	f, q := withApprovals(t, nil)
	done := askAsync(q, time.Minute)
	id := pendingIDs(t, f, 1)[0]

	code, _, b := f.do(t, "GET", "/api/approvals/"+id, "")
	got := decode[map[string]approval.Request](t, b)["approval"]
	if code != 200 || got.Status != approval.Pending || got.Command != "make test" || got.Reason != "to check the fix" || got.Kind != approval.KindCommand {
		t.Fatal(code, string(b))
	}
	if code, _, b := f.do(t, "GET", "/api/approvals/nope", ""); code != 404 || errorOf(t, b) == "" {
		t.Fatal(code, string(b))
	}
	for body, want := range map[string]int{`{"decision":"maybe"}`: 400, `{}`: 400, `{"decision":`: 400} {
		if code, _, b := f.do(t, "POST", "/api/approvals/"+id+"/resolve", body); code != want {
			t.Fatal(body, code, string(b))
		}
	}
	if code, _, b := f.do(t, "POST", "/api/approvals/nope/resolve", `{"decision":"approve"}`); code != 404 {
		t.Fatal(code, string(b))
	}
	// A cross-site page cannot answer.
	if code, _, _ := f.do(t, "POST", "/api/approvals/"+id+"/resolve", `{"decision":"approve"}`, "Origin", "https://evil.example"); code != 403 {
		t.Fatal(code)
	}
	code, _, b = f.do(t, "POST", "/api/approvals/"+id+"/resolve", `{"decision":"approve","note":"go ahead","by":"page"}`)
	got = decode[map[string]approval.Request](t, b)["approval"]
	// The token's holder answered, whatever it says it is.
	if code != 200 || got.Status != approval.Approved || got.ResolvedBy != "api" || got.Note != "go ahead" {
		t.Fatal(code, string(b))
	}
	if r := <-done; r.err != nil || !r.r.Allowed() {
		t.Fatalf("%+v", r)
	}
	// The second answer is too late.
	code, _, b = f.do(t, "POST", "/api/approvals/"+id+"/resolve", `{"decision":"deny"}`)
	var late struct {
		Error    string           `json:"error"`
		Approval approval.Request `json:"approval"`
	}
	_ = json.Unmarshal(b, &late)
	if code != 409 || late.Error == "" || late.Approval.Status != approval.Approved {
		t.Fatal(code, string(b))
	}
	pendingIDs(t, f, 0)

	// Expired: 409 too, and the asker got "no".
	done = askAsync(q, 100*time.Millisecond)
	id = pendingIDs(t, f, 1)[0]
	if r := <-done; r.r.Status != approval.Expired {
		t.Fatalf("%+v", r)
	}
	if code, _, b := f.do(t, "POST", "/api/approvals/"+id+"/resolve", `{"decision":"approve"}`); code != 409 || !strings.Contains(decode[map[string]any](t, b)["error"].(string), "expired") {
		t.Fatal(code, string(b))
	}
	if code, _, _ := f.do(t, "PUT", "/api/approvals/"+id+"/resolve", `{}`); code != 405 {
		t.Fatal(code)
	}
}

// "allow" is a synonym of "approve"; the first answer still wins.
func TestApprovalsAPIAllowSynonym(t *testing.T) {
	f, q := withApprovals(t, nil)
	done := askAsync(q, time.Minute)
	id := pendingIDs(t, f, 1)[0]
	code, _, b := f.do(t, "POST", "/api/approvals/"+id+"/resolve", `{"decision":"allow","by":"page"}`)
	if got := decode[map[string]approval.Request](t, b)["approval"]; code != 200 || got.Status != approval.Approved {
		t.Fatal(code, string(b))
	}
	if r := <-done; r.err != nil || !r.r.Allowed() {
		t.Fatalf("%+v", r)
	}
	if code, _, b := f.do(t, "POST", "/api/approvals/"+id+"/resolve", `{"decision":"allow"}`); code != 409 {
		t.Fatal(code, string(b))
	}
}

func TestApprovalsWithoutQueue(t *testing.T) {
	f := newFixture(t, nil)
	if code, _, b := f.do(t, "GET", "/api/approvals", ""); code != 503 || errorOf(t, b) == "" {
		t.Fatal(code, string(b))
	}
	if code, _, _ := f.do(t, "GET", "/api/tools", ""); code != 503 {
		t.Fatal(code)
	}
}

func TestApprovalEventsOnLiveStream(t *testing.T) {
	f, q := withApprovals(t, nil)
	resp := f.stream(t, "/api/events")
	got := make(chan []approval.Event, 1)
	go func() {
		var evs []approval.Event
		readSSE(t, resp.Body, func(ev sseEvent) bool {
			if ev.name != "approval" {
				return true
			}
			var e approval.Event
			_ = json.Unmarshal(ev.data, &e)
			evs = append(evs, e)
			return len(evs) < 2
		})
		got <- evs
	}()
	// The stream subscribed before its headers were sent.
	done := askAsync(q, time.Minute)
	id := pendingIDs(t, f, 1)[0]
	if code, _, b := f.do(t, "POST", "/api/approvals/"+id+"/resolve", `{"decision":"deny"}`); code != 200 {
		t.Fatal(code, string(b))
	}
	<-done
	select {
	case evs := <-got:
		if len(evs) != 2 || evs[0].Kind != "requested" || evs[1].Kind != "resolved" || evs[1].Approval.Status != approval.Denied || evs[0].Approval.ID != id {
			t.Fatalf("%+v", evs)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no approval events")
	}
	resp.Body.Close()
}
