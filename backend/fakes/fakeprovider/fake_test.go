package fakeprovider

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestWireShapes(t *testing.T) {
	f := New()
	srv := httptest.NewServer(f)
	defer srv.Close()

	f.Push("/v1/chat/completions", Text("hi"), Text("hi"))
	_, with := post(t, srv.URL+"/v1/chat/completions", `{"model":"m","stream":true,"stream_options":{"include_usage":true}}`)
	_, without := post(t, srv.URL+"/v1/chat/completions", `{"model":"m","stream":true}`)
	if !strings.Contains(with, `"usage":{`) || strings.Contains(without, `"usage":{`) {
		t.Errorf("usage chunk only with include_usage:\n%s\n---\n%s", with, without)
	}
	if !strings.HasSuffix(with, "data: [DONE]\n\n") || !strings.Contains(with, `"finish_reason":"stop"`) {
		t.Errorf("openai stream:\n%s", with)
	}

	f.Push("/v1/messages", Response{Thinking: []string{"t"}, Text: []string{"a"}})
	_, msgs := post(t, srv.URL+"/v1/messages", `{"model":"m"}`)
	for _, want := range []string{"event: message_start", `"thinking_delta"`, `"signature_delta"`, `"text_delta"`, "event: message_delta", "event: message_stop"} {
		if !strings.Contains(msgs, want) {
			t.Errorf("missing %s in\n%s", want, msgs)
		}
	}

	if code, b := post(t, srv.URL+"/v1/messages", `{}`); code != 500 || !strings.Contains(b, "nothing scripted") {
		t.Errorf("unscripted: %d %s", code, b)
	}
	if n := len(f.Requests()); n != 4 {
		t.Errorf("recorded %d requests", n)
	}
}
