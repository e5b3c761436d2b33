package toolbroker

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"
)

func allowAll(netip.Addr) bool { return true }

func newLoopbackServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv
}

// newPageServer serves a few pages on loopback for web_fetch.
func newPageServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			http.Error(w, "GET only", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<p>hello page</p>"))
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		chunk := []byte(strings.Repeat("b", 64<<10))
		for range 20 { // 1.25 MiB
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/bin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write([]byte{0x89, 'P', 'N', 'G'})
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/page", http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	return newLoopbackServer(t, mux)
}

func TestWebFetch(t *testing.T) {
	f := newToolsFixture(t)
	srv := newPageServer(t)
	s := f.session(t, toolcall.Binding{})
	fetch := func(path string) (fetchResult, string, bool) {
		res, err := s.CallTool(context.Background(), "web_fetch", map[string]any{"url": srv.URL + path})
		text := callText(t, res, err)
		var out fetchResult
		_ = json.Unmarshal([]byte(text), &out)
		return out, text, res.IsError
	}
	// By default the loopback server is refused, both by its literal
	// address and when dialling.
	if _, text, isErr := fetch("/page"); !isErr || !strings.Contains(text, "refused") {
		t.Fatal(text)
	}
	if _, err := f.b.fetch.get(context.Background(), srv.URL+"/page"); !errors.Is(err, errPrivateAddress) {
		t.Fatalf("dialled loopback: %v", err)
	}

	f.b.fetch.allow = allowAll
	out, text, isErr := fetch("/page")
	if isErr || out.Status != 200 || out.Body != "<p>hello page</p>" || out.Truncated || !strings.HasPrefix(out.ContentType, "text/html") {
		t.Fatal(text)
	}
	out, _, _ = fetch("/big")
	if !out.Truncated || out.Bytes != fetchMaxBody || len(out.Body) != fetchMaxBody {
		t.Fatalf("%d %v", out.Bytes, out.Truncated)
	}
	out, _, _ = fetch("/bin")
	if !strings.Contains(out.Body, "not text") {
		t.Fatal(out.Body)
	}
	out, _, _ = fetch("/redirect")
	if out.Body != "<p>hello page</p>" || !strings.HasSuffix(out.URL, "/page") {
		t.Fatalf("%+v", out)
	}
	if _, text, isErr := fetch("/loop"); !isErr || !strings.Contains(text, "redirects") {
		t.Fatal(text)
	}
}

// A redirect to a private address is refused even when the first hop was
// acceptable.
func TestWebFetchRedirectToPrivateRefused(t *testing.T) {
	hop := newLoopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://10.0.0.1/admin", http.StatusFound)
	}))
	f := newFetcher()
	// Here the test server's own address counts as public.
	f.allow = func(ip netip.Addr) bool { return ip.IsLoopback() || publicAddr(ip) }
	_, err := f.get(context.Background(), hop.URL)
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatal(err)
	}
}

func TestPublicAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"93.184.216.34": true, "2606:4700::1111": true, "8.8.8.8": true,
		"127.0.0.1": false, "10.1.2.3": false, "172.16.0.1": false, "192.168.1.1": false, "169.254.169.254": false,
		"0.0.0.0": false, "100.64.0.1": false, "::1": false, "::": false, "fe80::1": false, "fc00::1": false,
		"::ffff:127.0.0.1": false, "::ffff:10.0.0.1": false, "64:ff9b::a00:1": false, "64:ff9b::808:808": true,
		"224.0.0.1": false, "255.255.255.255": false,
	} {
		if got := publicAddr(netip.MustParseAddr(addr)); got != want {
			t.Errorf("%s: %v", addr, got)
		}
	}
}

func TestWebSearch(t *testing.T) {
	f := newToolsFixture(t)
	var gotAuth string
	var gotBody map[string]any
	tav := newLoopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth = r.Header.Get("Authorization")
		_ = json.NewDecoder(r.Body).Decode(&gotBody)
		_, _ = w.Write([]byte(`{"results":[{"title":"Go","url":"https://go.dev","content":"The Go language","score":0.9}]}`))
	}))
	f.b.fetch.allow = allowAll
	f.b.tavilyURL = tav.URL
	f.b.secrets.Store(&secretBox{mapSecrets{"TAVILY_API_KEY": "tvly-test-key"}})
	s := f.session(t, toolcall.Binding{})
	res, err := s.CallTool(context.Background(), "web_search", map[string]any{"query": "golang", "limit": 3})
	text := callText(t, res, err)
	if res.IsError || !strings.Contains(text, `"url":"https://go.dev"`) {
		t.Fatal(text)
	}
	if gotAuth != "Bearer tvly-test-key" || gotBody["query"] != "golang" || gotBody["max_results"] != float64(3) {
		t.Fatal(gotAuth, gotBody)
	}
	if row := f.audit(t)[0]; row.Decision != "allowed" || strings.Contains(row.Summary+row.Detail, "tvly-test-key") {
		t.Fatalf("%+v", row)
	}
}
