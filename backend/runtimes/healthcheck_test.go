package runtimes

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
)

// fakeProvider answers like a provider's models endpoint and records what
// it was sent.
type fakeProvider struct {
	srv      *httptest.Server
	status   atomic.Int32
	delay    atomic.Int64
	lastPath atomic.Value
	lastAuth atomic.Value
	lastVer  atomic.Value
	hits     atomic.Int32
}

func newFakeProvider(t *testing.T) *fakeProvider {
	f := &fakeProvider{}
	f.status.Store(200)
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.hits.Add(1)
		f.lastPath.Store(r.URL.Path)
		f.lastAuth.Store(r.Header.Get("Authorization") + "|" + r.Header.Get("x-api-key"))
		f.lastVer.Store(r.Header.Get("anthropic-version"))
		if d := f.delay.Load(); d > 0 {
			select {
			case <-time.After(time.Duration(d)):
			case <-r.Context().Done():
				return
			}
		}
		if r.URL.Path == "/redirected" {
			w.WriteHeader(200)
			return
		}
		if f.status.Load() == 302 {
			http.Redirect(w, r, "/redirected", http.StatusFound)
			return
		}
		w.WriteHeader(int(f.status.Load()))
		_, _ = w.Write([]byte(`{"data":[]}`))
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func TestHealthCheckAnswers(t *testing.T) {
	w := newWorld(t)
	f := newFakeProvider(t)
	ctx := context.Background()
	w.setenv("OPENAI_BASE_URL", f.srv.URL+"/v1")
	check := func() HealthResult {
		t.Helper()
		r, err := w.cat.HealthCheck(ctx, executor.Native, "openai", "sk-test")
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := check(); !r.OK || f.lastPath.Load() != "/v1/models" || f.lastAuth.Load() != "Bearer sk-test|" {
		t.Fatalf("%+v %v %v", r, f.lastPath.Load(), f.lastAuth.Load())
	}
	for status, want := range map[int32]string{401: "Invalid API key.", 403: "Invalid API key.", 500: "Provider returned 500.", 429: "Provider returned 429."} {
		f.status.Store(status)
		if r := check(); r.OK || r.Error != want {
			t.Fatalf("%d: %+v", status, r)
		}
	}
	// Redirects are not followed: exactly one request reaches the provider.
	f.status.Store(302)
	before := f.hits.Load()
	if r := check(); r.OK || r.Error != "Provider returned 302." || f.hits.Load() != before+1 {
		t.Fatalf("%+v hits %d", r, f.hits.Load()-before)
	}
	// A provider that does not answer in time.
	f.status.Store(200)
	f.delay.Store(int64(2 * time.Second))
	start := time.Now()
	if r := check(); r.OK || r.Error != "Could not reach OpenAI (timed out)." || time.Since(start) > 1500*time.Millisecond {
		t.Fatalf("%+v after %v", r, time.Since(start))
	}
	f.delay.Store(0)
	// A closed port.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	w.setenv("OPENAI_BASE_URL", "http://"+addr+"/v1")
	if r := check(); r.OK || r.Error != "Could not reach OpenAI." {
		t.Fatalf("%+v", r)
	}
}

func TestHealthCheckDialects(t *testing.T) {
	w := newWorld(t)
	f := newFakeProvider(t)
	ctx := context.Background()
	w.setenv("ANTHROPIC_BASE_URL", f.srv.URL)
	if r, _ := w.cat.HealthCheck(ctx, executor.Native, "anthropic", "sk-ant"); !r.OK || f.lastPath.Load() != "/v1/models" ||
		f.lastAuth.Load() != "|sk-ant" || f.lastVer.Load() != "2023-06-01" {
		t.Fatalf("%+v %v %v", r, f.lastPath.Load(), f.lastAuth.Load())
	}
	w.setenv("OLLAMA_BASE_URL", f.srv.URL+"/v1")
	if r, _ := w.cat.HealthCheck(ctx, executor.Native, "ollama", ""); !r.OK || f.lastPath.Load() != "/api/tags" || f.lastAuth.Load() != "|" {
		t.Fatalf("%+v %v %v", r, f.lastPath.Load(), f.lastAuth.Load())
	}
	// A candidate Ollama address is checked before it is saved; nothing
	// changes, and only a keyless provider takes one.
	w.setenv("OLLAMA_BASE_URL", "")
	f.lastPath.Store("")
	if r, _ := w.cat.HealthCheckAt(ctx, executor.Native, "ollama", "", f.srv.URL); !r.OK || f.lastPath.Load() != "/api/tags" {
		t.Fatalf("candidate address: %+v %v", r, f.lastPath.Load())
	}
	if w.cat.OllamaURL() != "" {
		t.Fatal("a checked address was saved")
	}
	if _, err := w.cat.HealthCheckAt(ctx, executor.Native, "ollama", "", "file:///etc"); err == nil {
		t.Fatal("a non-http address was checked")
	}
	if _, err := w.cat.HealthCheckAt(ctx, executor.Native, "groq", "gsk", f.srv.URL); err == nil {
		t.Fatal("a keyed provider's address was chosen by the caller")
	}
	w.setenv("GROQ_BASE_URL", f.srv.URL+"/openai/v1/")
	if r, _ := w.cat.HealthCheck(ctx, executor.Native, "groq", "gsk"); !r.OK || f.lastPath.Load() != "/openai/v1/models" {
		t.Fatalf("%+v %v", r, f.lastPath.Load())
	}
	// With no pasted key, the stored one is used.
	w.setenv("MISTRAL_BASE_URL", f.srv.URL+"/v1")
	if _, err := w.cat.Connect(ctx, executor.Native, "stored-mistral", "mistral"); err != nil {
		t.Fatal(err)
	}
	if r, _ := w.cat.HealthCheck(ctx, executor.Native, "mistral", ""); !r.OK || f.lastAuth.Load() != "Bearer stored-mistral|" {
		t.Fatalf("%+v %v", r, f.lastAuth.Load())
	}
}

func TestHealthCheckRefusalsAndNoStorage(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	_, err := w.cat.HealthCheck(ctx, executor.ClaudeCode, "anthropic", "k")
	userErr(t, err, 400, "health checks are only for clawboo-native keys")
	_, err = w.cat.HealthCheck(ctx, executor.Native, "nope", "k")
	userErr(t, err, 400, "unknown provider 'nope'")
	_, err = w.cat.HealthCheck(ctx, executor.Native, "openai", "  ")
	userErr(t, err, 400, "apiKey is required")
	f := newFakeProvider(t)
	w.setenv("XAI_BASE_URL", f.srv.URL)
	if r, _ := w.cat.HealthCheck(ctx, executor.Native, "xai", "xai-checked-only"); !r.OK {
		t.Fatal(r)
	}
	if w.vault.Has("XAI_API_KEY") {
		t.Fatal("a health-checked key was stored")
	}
	if !strings.HasSuffix(f.lastPath.Load().(string), "/models") {
		t.Fatal(f.lastPath.Load())
	}
}
