package fakeanthropic

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// call posts one Messages request and returns the status and the SSE
// events' data objects (or the error body).
func call(t *testing.T, url string, body map[string]any) (int, []map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url+"/v1/messages?beta=true", "application/json", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []map[string]any
	if resp.StatusCode != http.StatusOK {
		var e map[string]any
		raw, _ := io.ReadAll(resp.Body)
		_ = json.Unmarshal(raw, &e)
		return resp.StatusCode, []map[string]any{e}
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var v map[string]any
			if err := json.Unmarshal([]byte(d), &v); err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
	}
	return resp.StatusCode, out
}

func user(text string) map[string]any { return map[string]any{"role": "user", "content": text} }

func toolResult(id, text string) map[string]any {
	return map[string]any{"role": "user", "content": []any{map[string]any{
		"type": "tool_result", "tool_use_id": id,
		"content": []any{map[string]any{"type": "text", "text": text}},
	}}}
}

// toolUseID is the id of the tool_use block in a reply ("" when none).
func toolUseID(evs []map[string]any) string {
	for _, e := range evs {
		if cb, ok := e["content_block"].(map[string]any); ok && cb["type"] == "tool_use" {
			return cb["id"].(string)
		}
	}
	return ""
}

func blockTypes(evs []map[string]any) string {
	var ts []string
	for _, e := range evs {
		if cb, ok := e["content_block"].(map[string]any); ok {
			ts = append(ts, cb["type"].(string))
		}
	}
	return strings.Join(ts, ",")
}

func TestThenLoopErrorDelayAndLog(t *testing.T) {
	f := New(
		Rule{
			Match: "two steps", Tool: "^Bash$", Input: map[string]any{"command": "ls"},
			Then: &Rule{Tool: "^Write$", Input: map[string]any{"file_path": "a"}, AfterTool: "wrote {result}"},
		},
		Rule{Match: "forever", Tool: "^Bash$", Loop: true},
		Rule{Match: "fail", Error: &Failure{Status: 400, Type: "invalid_request_error", Message: "no"}},
		Rule{Match: "slow", DelayMS: 200, Thinking: "hmm", Text: "late"},
	)
	srv := httptest.NewServer(f)
	defer srv.Close()
	tools := []any{map[string]any{"name": "Bash"}, map[string]any{"name": "Write"}}
	req := func(msgs ...any) map[string]any {
		return map[string]any{"model": "m", "tools": tools, "messages": msgs}
	}

	// Then: the first tool's result is answered by the next step's tool.
	_, evs := call(t, srv.URL, req(user("two steps")))
	id1 := toolUseID(evs)
	_, evs = call(t, srv.URL, req(user("two steps"), toolResult(id1, "files")))
	id2 := toolUseID(evs)
	if id1 == "" || id2 == "" || id2 == id1 {
		t.Fatalf("two steps gave %q then %q", id1, id2)
	}
	_, evs = call(t, srv.URL, req(user("two steps"), toolResult(id2, "ok")))
	if toolUseID(evs) != "" || !strings.Contains(mustJSON(evs), "wrote ok") {
		t.Fatalf("last step: %s", mustJSON(evs))
	}

	// Loop: every result is answered with the same tool again.
	_, evs = call(t, srv.URL, req(user("forever")))
	for i := 0; i < 3; i++ {
		id := toolUseID(evs)
		if id == "" {
			t.Fatalf("loop ended at %d", i)
		}
		_, evs = call(t, srv.URL, req(user("forever"), toolResult(id, "again")))
	}

	// Error: the API's error shape and status.
	code, evs := call(t, srv.URL, req(user("please fail")))
	if code != 400 || evs[0]["error"].(map[string]any)["message"] != "no" {
		t.Fatalf("error reply %d %v", code, evs)
	}

	// Delay and thinking.
	start := time.Now()
	_, evs = call(t, srv.URL, req(user("slow"), map[string]any{"role": "system", "content": "steer text"}))
	if time.Since(start) < 200*time.Millisecond || blockTypes(evs) != "thinking,text" {
		t.Fatalf("slow reply after %v: %s", time.Since(start), blockTypes(evs))
	}

	// The log has every user text and the mid-conversation system text.
	log := f.Requests()
	last := log[len(log)-1]
	if len(log) != 9 || last.UserText != "slow" || strings.Join(last.System, "") != "steer text" || last.Messages != 2 {
		t.Fatalf("log %d, last %+v", len(log), last)
	}
	if got := strings.Join(log[2].UserTexts, "|"); got != "two steps" || log[2].Result != "ok" {
		t.Fatalf("third request %+v", log[2])
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
