package memory

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"
)

// fakeEmbedAPI is an Ollama (/api/embed) and OpenAI (/v1/embeddings)
// embedding endpoint following their wire formats. Its vectors are the
// offline embedder's, scaled by 3 (so they must be normalised on
// receipt) — meaningful enough for search tests.
type fakeEmbedAPI struct {
	*httptest.Server
	key      string      // OpenAI bearer key required when set
	down     atomic.Bool // answer 500
	calls    atomic.Int64
	mu       sync.Mutex
	requests []string // request bodies
}

func newFakeEmbedAPI(t *testing.T, key string) *fakeEmbedAPI {
	f := &fakeEmbedAPI{key: key}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeEmbedAPI) bodies() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.requests, "\n")
}

func (f *fakeEmbedAPI) serve(w http.ResponseWriter, r *http.Request) {
	f.calls.Add(1)
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.requests = append(f.requests, string(body))
	f.mu.Unlock()
	if f.down.Load() {
		http.Error(w, `{"error":"model runner has unexpectedly stopped"}`, http.StatusInternalServerError)
		return
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" || json.Unmarshal(body, &req) != nil || req.Model == "" {
		http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
		return
	}
	vecs, _ := NewHashEmbedder().Embed(r.Context(), req.Input)
	for _, v := range vecs {
		for i := range v {
			v[i] *= 3
		}
	}
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/api/embed":
		_ = json.NewEncoder(w).Encode(map[string]any{
			"model": req.Model, "embeddings": vecs,
			"total_duration": 14143917, "load_duration": 1019500, "prompt_eval_count": 8,
		})
	case "/v1/embeddings":
		if r.Header.Get("Authorization") != "Bearer "+f.key {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+`","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)
			return
		}
		data := make([]map[string]any, len(vecs))
		for i := range vecs { // answered in reverse: the client orders by index
			j := len(vecs) - 1 - i
			data[i] = map[string]any{"object": "embedding", "index": j, "embedding": vecs[j]}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{
			"object": "list", "data": data, "model": req.Model,
			"usage": map[string]any{"prompt_tokens": 8, "total_tokens": 8},
		})
	default:
		http.NotFound(w, r)
	}
}

func TestProviderEmbeddersSpeakTheWireFormats(t *testing.T) {
	const key = "sk-test-0123456789abcdefghij"
	f := newFakeEmbedAPI(t, key)
	texts := []string{"deploys run on Tuesdays", "the cache lives in Redis"}
	want, _ := NewHashEmbedder().Embed(context.Background(), texts)
	for _, e := range []Embedder{
		NewOllamaEmbedder(f.URL+"/", "nomic-embed-text"),
		NewOpenAIEmbedder(f.URL, key, "text-embedding-3-small"),
		NewOpenAIEmbedder(f.URL+"/v1", key, "text-embedding-3-small"),
	} {
		if e.Dim() != 0 {
			t.Fatalf("%s knows its dimension before asking", e.ID())
		}
		vecs, err := checkVectors(e.Embed(context.Background(), texts))
		if err != nil || len(vecs) != 2 {
			t.Fatalf("%s: %v %v", e.ID(), vecs, err)
		}
		for i := range vecs {
			if d := dot(vecs[i], want[i]); d < 0.9999 {
				t.Fatalf("%s: vector %d is not the one asked for (cos %.4f)", e.ID(), i, d)
			}
		}
		if e.Dim() != hashDim {
			t.Fatalf("%s dim %d", e.ID(), e.Dim())
		}
	}
	if got := f.bodies(); !strings.Contains(got, `{"input":["deploys run on Tuesdays","the cache lives in Redis"],"model":"nomic-embed-text"}`) {
		t.Fatalf("request bodies: %s", got)
	}
}

func TestProviderEmbedderErrors(t *testing.T) {
	const key = "sk-test-SECRETSECRETSECRET0123"
	f := newFakeEmbedAPI(t, key)
	answer := func(body string, status int) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(status)
			_, _ = io.WriteString(w, body)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	huge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"embeddings":[[`+strings.Repeat("0,", maxEmbedResponse/2)+`0]]}`)
	}))
	t.Cleanup(huge.Close)
	hang := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		// The server notices the client leaving only once the body is read.
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	t.Cleanup(hang.Close)

	for _, tc := range []struct {
		name string
		e    Embedder
		ctx  time.Duration
		want string
	}{
		{"wrong key", NewOpenAIEmbedder(f.URL, "sk-wrong-0123456789abcdefgh", "m"), 0, "401"},
		{"server error", NewOllamaEmbedder(answer(`{"error":"boom"}`, 500), "m"), 0, "500"},
		{"ollama error field", NewOllamaEmbedder(answer(`{"error":"model \"m\" not found, try pulling it first"}`, 200), "m"), 0, "not found"},
		{"not JSON", NewOllamaEmbedder(answer(`<html>`, 200), "m"), 0, "decode answer"},
		{"too few vectors", NewOllamaEmbedder(answer(`{"model":"m","embeddings":[[1,2]]}`, 200), "m"), 0, "1 vectors for 2 texts"},
		{"bad indexes", NewOpenAIEmbedder(answer(`{"object":"list","data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[1]}]}`, 200), key, "m"), 0, "indexes"},
		{"too large", NewOllamaEmbedder(huge.URL, "m"), 0, "larger than"},
		{"hangs", NewOllamaEmbedder(hang.URL, "m"), 50 * time.Millisecond, "deadline"},
		{"refused", NewOllamaEmbedder("http://127.0.0.1:1", "m"), 0, "POST http://127.0.0.1:1/api/embed"},
		{"password in URL", NewOllamaEmbedder("http://user:hunter2secret@127.0.0.1:1", "m"), 0, "[REDACTED]"},
	} {
		ctx := context.Background()
		if tc.ctx > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, tc.ctx)
			defer cancel()
		}
		_, err := tc.e.Embed(ctx, []string{"a", "b"})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
			continue
		}
		for _, secret := range []string{key, "sk-wrong-0123456789abcdefgh", "hunter2secret"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("%s: the error carries a secret: %v", tc.name, err)
			}
		}
	}
}

// fakeClock is a settable Options.Now.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestMemoryEmbedderFallbackAndRepair(t *testing.T) {
	f := newFakeEmbedAPI(t, "")
	clock := &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	h, st := newMemoryHub(t, Options{Embedder: NewOllamaEmbedder(f.URL, "nomic-embed-text"), Now: clock.Now})
	s := memSession(t, h, toolcall.Binding{TeamID: "team-a"})
	const ollamaID = "ollama:nomic-embed-text"
	embedderOf := func(id string) string {
		var e string
		if err := st.Reader().QueryRow(`SELECT embedder FROM memory_facts WHERE id = ?`, id).Scan(&e); err != nil {
			t.Fatal(err)
		}
		return e
	}

	// The provider is down: the fact gets an offline vector, and for the
	// backoff period the provider is not asked again.
	f.down.Store(true)
	a := mustSave(t, s, map[string]any{"title": "Deploys", "content": "Production deployments go out on Tuesdays."})
	if a.Embedder != hashEmbedderID || f.calls.Load() != 1 {
		t.Fatalf("%+v after %d calls", a, f.calls.Load())
	}
	res := memCall(t, s, "memory_search", map[string]any{"query": "deploying to production", "mode": "vector"})
	if len(res.Results) != 1 || res.Results[0].ID != a.ID || strings.Join(res.Embedders, ",") != hashEmbedderID || f.calls.Load() != 1 {
		t.Fatalf("while down: %s (%d calls)", res.text, f.calls.Load())
	}

	// It recovers: after the backoff the next search embeds the query with
	// it, still finds the offline-embedded fact, and re-embeds that fact.
	f.down.Store(false)
	clock.Add(providerBackoff + time.Second)
	res = memCall(t, s, "memory_search", map[string]any{"query": "deploying to production", "mode": "vector"})
	if len(res.Results) != 1 || res.Results[0].ID != a.ID {
		t.Fatalf("after recovery: %s", res.text)
	}
	if got := embedderOf(a.ID); got != ollamaID {
		t.Fatalf("not re-embedded: %s", got)
	}
	b := mustSave(t, s, map[string]any{"title": "Cache", "content": "Redis caches shipment lookups."})
	if b.Embedder != ollamaID {
		t.Fatalf("%+v", b)
	}
	for _, mode := range []string{"vector", "hybrid"} {
		res = memCall(t, s, "memory_search", map[string]any{"query": "redis caching", "mode": mode})
		if len(res.Results) == 0 || res.Results[0].ID != b.ID || strings.Join(res.Embedders, ",") != ollamaID {
			t.Fatalf("%s: %s", mode, res.text)
		}
	}

	// Down again mid-life: vectors of the provider cannot be compared with
	// an offline query vector, so vector search sees only offline-embedded
	// facts, while hybrid still finds everything through full text.
	f.down.Store(true)
	clock.Add(providerBackoff + time.Second)
	c := mustSave(t, s, map[string]any{"title": "Backups", "content": "Nightly backups of the database go to S3."})
	if c.Embedder != hashEmbedderID {
		t.Fatalf("%+v", c)
	}
	res = memCall(t, s, "memory_search", map[string]any{"query": "redis caching", "mode": "vector"})
	for _, it := range res.Results {
		if it.Embedder != hashEmbedderID {
			t.Fatalf("compared a %s vector with an offline query: %s", it.Embedder, res.text)
		}
	}
	res = memCall(t, s, "memory_search", map[string]any{"query": "redis caching"})
	if len(res.Results) == 0 || res.Results[0].ID != b.ID {
		t.Fatalf("hybrid while down: %s", res.text)
	}
}
