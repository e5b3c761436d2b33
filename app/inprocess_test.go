package app

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend"
	"github.com/clawboo/desktop/backend/config"
)

// The webview's requests arrive with Host "wails": the wrapped handler must
// serve them, while the same request unwrapped (as if it came over TCP with
// a foreign Host) is refused by the API's DNS-rebinding guard.
func TestInProcessPassesHostCheck(t *testing.T) {
	b := newBackend(t)
	h := inProcess(b.Handler(), context.Background())
	for _, tc := range []struct {
		name    string
		handler http.Handler
		want    int
	}{
		{"webview, marked", h, http.StatusOK},
		{"same request unmarked", b.Handler(), http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/api/health", nil)
			req.Host = "wails"
			rec := httptest.NewRecorder()
			tc.handler.ServeHTTP(rec, req)
			if rec.Code != tc.want {
				t.Fatalf("GET /api/health with Host wails: %d %s, want %d", rec.Code, rec.Body, tc.want)
			}
		})
	}
}

// Wails builds in-process requests on context.Background(); ending base must
// still end them, or the page's event streams outlive the window.
func TestInProcessEndsWithBase(t *testing.T) {
	base, end := context.WithCancel(context.Background())
	entered := make(chan struct{})
	done := make(chan struct{})
	h := inProcess(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-r.Context().Done()
		close(done)
	}), base)
	go h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/api/events", nil))
	<-entered
	end()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("request context did not end when base ended")
	}
}

func newBackend(t *testing.T) *backend.Backend {
	t.Helper()
	cfg, err := config.Load(filepath.Join(t.TempDir(), "home"), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	b, err := backend.New(context.Background(), backend.Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	return b
}
