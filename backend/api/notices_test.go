package api

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/clawboo/desktop/backend/notices"
	"github.com/clawboo/desktop/backend/store"
)

// ntfyAPI is an API whose notices keep their topic in a real store.
func ntfyAPI(t *testing.T) (srv *httptest.Server, st *store.Store) {
	t.Helper()
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "clawboo.db"))
	if err != nil {
		t.Fatal(err)
	}
	svc := notices.New(notices.Options{Settings: st})
	srv = httptest.NewServer(authedAPI(t, Options{Store: st, Notices: svc}))
	t.Cleanup(func() {
		srv.Close()
		svc.Close()
		st.Close()
	})
	return srv, st
}

func ntfyURL(t *testing.T, body string) string {
	t.Helper()
	var v struct {
		URL *string `json:"url"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil || v.URL == nil {
		t.Fatalf("not {url}: %s", body)
	}
	return *v.URL
}

// The topic URL: saved when valid, refused in words when it holds a
// credential or is not http(s), turned off by an empty one.
func TestNtfySettingRoutes(t *testing.T) {
	srv, st := ntfyAPI(t)
	const route = "/api/settings/ntfy"

	code, _, body := call(t, "GET", srv.URL+route, "")
	if code != 200 || ntfyURL(t, body) != "" {
		t.Fatalf("GET before any: %d %s", code, body)
	}
	code, _, body = call(t, "PUT", srv.URL+route, `{"url":" https://ntfy.sh/clawboo-7f3a "}`)
	if code != 200 || ntfyURL(t, body) != "https://ntfy.sh/clawboo-7f3a" {
		t.Fatalf("PUT a valid URL: %d %s", code, body)
	}
	if v, err := st.GetSetting(t.Context(), notices.Setting); err != nil || v != "https://ntfy.sh/clawboo-7f3a" {
		t.Fatalf("stored %q, %v", v, err)
	}

	for _, tc := range []struct{ body, says string }{
		{`{"url":"https://alice:hunter2@ntfy.sh/clawboo"}`, "user name or password"},
		{`{"url":"ftp://ntfy.sh/clawboo"}`, "https://"},
		{`{"url":"file:///etc/passwd"}`, "https://"},
		{`{"url":"https://ntfy.sh/"}`, "name a topic"},
		{`{"url":"https://ntfy.sh/t?auth=abc"}`, "query"},
		{`{}`, "url is required"},
	} {
		code, _, body = call(t, "PUT", srv.URL+route, tc.body)
		if code != http.StatusBadRequest || !strings.Contains(body, tc.says) {
			t.Errorf("PUT %s: %d %s; want 400 saying %q", tc.body, code, body, tc.says)
		}
		if strings.Contains(body, "hunter2") {
			t.Errorf("the refusal repeats the password: %s", body)
		}
	}
	code, _, body = call(t, "GET", srv.URL+route, "")
	if code != 200 || ntfyURL(t, body) != "https://ntfy.sh/clawboo-7f3a" {
		t.Fatalf("a refused PUT changed the URL: %d %s", code, body)
	}

	code, _, body = call(t, "PUT", srv.URL+route, `{"url":""}`)
	if code != 200 || ntfyURL(t, body) != "" {
		t.Fatalf("PUT empty: %d %s", code, body)
	}
	code, _, body = call(t, "GET", srv.URL+route, "")
	if code != 200 || ntfyURL(t, body) != "" {
		t.Fatalf("GET after turning off: %d %s", code, body)
	}
}

// The test notice: 400 while off, 200 with one POST to the stand-in ntfy,
// 502 with the server's failure in words.
func TestNtfyTestNoticeRoute(t *testing.T) {
	var refuse atomic.Bool
	var mu sync.Mutex
	var got []string
	ntfy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.Path+" "+string(b))
		mu.Unlock()
		if refuse.Load() {
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = io.WriteString(w, `{"code":42901,"http":429,"error":"limit reached: too many requests"}`)
		}
	}))
	defer ntfy.Close()
	srv, _ := ntfyAPI(t)
	const route = "/api/settings/ntfy/test"

	if code, _, body := call(t, "POST", srv.URL+route, ""); code != http.StatusBadRequest || !strings.Contains(body, "save one first") {
		t.Fatalf("test while off: %d %s", code, body)
	}
	if code, _, body := call(t, "PUT", srv.URL+"/api/settings/ntfy", `{"url":"`+ntfy.URL+`/my-topic"}`); code != 200 {
		t.Fatalf("PUT: %d %s", code, body)
	}
	if code, _, body := call(t, "POST", srv.URL+route, ""); code != 200 {
		t.Fatalf("test: %d %s", code, body)
	}
	mu.Lock()
	if len(got) != 1 || got[0] != "POST /my-topic Clawboo can reach this phone." {
		t.Errorf("the stand-in ntfy got %q", got)
	}
	mu.Unlock()

	refuse.Store(true)
	code, _, body := call(t, "POST", srv.URL+route, "")
	if code != http.StatusBadGateway || !strings.Contains(body, "429") || !strings.Contains(body, "too many requests") || strings.Contains(body, "my-topic") {
		t.Errorf("test against a refusing server: %d %s", code, body)
	}
}

// A host's server has no notices: the routes say so.
func TestNtfyRoutesWithoutNotices(t *testing.T) {
	srv := httptest.NewServer(authedAPI(t, Options{}))
	defer srv.Close()
	for _, m := range []string{"GET", "PUT"} {
		if code, _, body := call(t, m, srv.URL+"/api/settings/ntfy", `{"url":""}`); code != http.StatusServiceUnavailable {
			t.Errorf("%s without notices: %d %s", m, code, body)
		}
	}
	if code, _, body := call(t, "POST", srv.URL+"/api/settings/ntfy/test", ""); code != http.StatusServiceUnavailable {
		t.Errorf("test without notices: %d %s", code, body)
	}
}
