package native

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
	"github.com/clawboo/desktop/backend/fakes/fakeprovider"
	"github.com/clawboo/desktop/backend/llm"
)

// wireEnv is an adapter whose provider is llm's real client for id, on
// the fake provider APIs.
func wireEnv(t *testing.T, id string) (*env, *fakeprovider.Server) {
	t.Helper()
	f := fakeprovider.New()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	vars := map[string]string{
		"ANTHROPIC_BASE_URL":  srv.URL,
		"OPENAI_BASE_URL":     srv.URL + "/v1",
		"OPENROUTER_BASE_URL": srv.URL + "/v1",
	}
	p, err := llm.New(id, "sk-test-quota", func(k string) string { return vars[k] })
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, nil)
	e.cfg.PrimaryProvider = id
	e.opts.Providers = func(context.Context, AgentConfig) (llm.Provider, error) { return p, nil }
	e.adapt = New(e.opts)
	return e, f
}

// quotas are the run's quota windows, in order, each checked to come
// before the next cost, error or done event of its turn.
func quotas(t *testing.T, evs []executor.Event) []executor.QuotaWindow {
	t.Helper()
	var out []executor.QuotaWindow
	for _, ev := range evs {
		if ev.Kind == executor.KindQuota {
			if ev.Quota == nil {
				t.Fatalf("quota event without a window: %+v", ev)
			}
			out = append(out, *ev.Quota)
		}
	}
	return out
}

// near says a reset is within a second of want.
func near(got int64, want time.Time) bool {
	return math.Abs(float64(got-want.UnixMilli())) <= 1000
}

func TestQuotaFromProviderHeaders(t *testing.T) {
	for _, tc := range []struct {
		id, path, source string
		limits           func(time.Time, ...fakeprovider.Limit) http.Header
	}{
		{
			"anthropic", "/v1/messages", llm.SourceAnthropic,
			func(now time.Time, ls ...fakeprovider.Limit) http.Header {
				return fakeprovider.AnthropicLimits(now, ls...)
			},
		},
		{
			"openrouter", "/v1/chat/completions", llm.SourceOpenAI,
			func(_ time.Time, ls ...fakeprovider.Limit) http.Header { return fakeprovider.OpenAILimits(ls...) },
		},
	} {
		t.Run(tc.id, func(t *testing.T) {
			e, f := wireEnv(t, tc.id)
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hi"), 0o644); err != nil {
				t.Fatal(err)
			}
			now := time.Now()
			first := fakeprovider.Tools(fakeprovider.ToolCall{ID: "c1", Name: "read_file", Args: `{"path":"a.txt"}`})
			first.Headers = tc.limits(now,
				fakeprovider.Limit{Window: "requests", Limit: 100, Remaining: 60, Reset: 10 * time.Second},
				fakeprovider.Limit{Window: "tokens", Limit: 1000, Remaining: 50, Reset: time.Minute})
			second := fakeprovider.Text("read it")
			second.Headers = tc.limits(now, fakeprovider.Limit{Window: "requests", Limit: 100, Remaining: 59, Reset: 9 * time.Second})
			f.Push(tc.path, first, second)

			evs := executortest.CollectWithin(t, 20*time.Second, e.start(executor.StartRequest{Message: "read a.txt", WorkDir: dir}))
			if d := executortest.Done(t, evs); d.Reason != executor.DoneSuccess || d.Summary != "read it" {
				t.Fatalf("done %+v", d)
			}
			q := quotas(t, evs)
			if len(q) != 3 {
				t.Fatalf("quota windows %+v", q)
			}
			want := []struct {
				window, status string
				util           float64
				reset          time.Duration
			}{
				{"requests", executor.QuotaAllowed, 0.4, 10 * time.Second},
				{"tokens", executor.QuotaAllowedWarning, 0.95, time.Minute},
				{"requests", executor.QuotaAllowed, 0.41, 9 * time.Second},
			}
			for i, w := range want {
				g := q[i]
				if g.Window != w.window || g.Status != w.status || g.Account != tc.id || g.Source != tc.source ||
					g.Utilization == nil || math.Abs(*g.Utilization-w.util) > 1e-9 || !near(g.ResetsAt, now.Add(w.reset)) {
					t.Errorf("window %d = %+v (utilization %v), want %+v", i, g, g.Utilization, w)
				}
			}
			// Each answer's windows come right after its stream, before its cost.
			var kinds []executor.Kind
			for _, ev := range evs {
				if ev.Kind == executor.KindQuota || ev.Kind == executor.KindCost {
					kinds = append(kinds, ev.Kind)
				}
			}
			wantKinds := []executor.Kind{executor.KindQuota, executor.KindQuota, executor.KindCost, executor.KindQuota, executor.KindCost}
			if len(kinds) != len(wantKinds) {
				t.Fatalf("quota/cost order %v", kinds)
			}
			for i := range kinds {
				if kinds[i] != wantKinds[i] {
					t.Fatalf("quota/cost order %v, want %v", kinds, wantKinds)
				}
			}
		})
	}
}

func TestQuotaRejectedOn429EndsTheRun(t *testing.T) {
	for _, tc := range []struct{ id, path string }{{"anthropic", "/v1/messages"}, {"openai", "/v1/chat/completions"}} {
		t.Run(tc.id, func(t *testing.T) {
			e, f := wireEnv(t, tc.id)
			now := time.Now()
			var h http.Header
			if tc.id == "anthropic" {
				h = fakeprovider.AnthropicLimits(now, fakeprovider.Limit{Window: "tokens", Limit: 1000, Remaining: 0, Reset: time.Hour})
			} else {
				h = fakeprovider.OpenAILimits(fakeprovider.Limit{Window: "tokens", Limit: 1000, Remaining: 0, Reset: time.Hour})
			}
			f.Push(tc.path, fakeprovider.RateLimited(30*time.Second, h))

			evs := executortest.CollectWithin(t, 20*time.Second, e.start(executor.StartRequest{Message: "go", WorkDir: t.TempDir()}))
			if d := executortest.Done(t, evs); d.Reason != executor.DoneError {
				t.Fatalf("done %+v", d)
			}
			q := quotas(t, evs)
			if len(q) != 1 || q[0].Status != executor.QuotaRejected || q[0].Window != "tokens" || q[0].Account != tc.id ||
				q[0].Utilization == nil || *q[0].Utilization != 1 || !near(q[0].ResetsAt, now.Add(30*time.Second)) {
				t.Fatalf("quota %+v", q)
			}
			// The rejected window is reported before the run's error.
			qi, ei := -1, -1
			for i, ev := range evs {
				switch {
				case ev.Kind == executor.KindQuota && qi < 0:
					qi = i
				case ev.Kind == executor.KindError && ev.Fatal && ei < 0:
					ei = i
				}
			}
			if qi < 0 || ei < 0 || qi > ei || evs[ei].Code != "provider" {
				t.Fatalf("quota at %d, error at %d: %+v", qi, ei, evs)
			}
			if len(executortest.OfKind(evs, executor.KindCost)) != 0 {
				t.Errorf("a refused call has no cost: %+v", executortest.OfKind(evs, executor.KindCost))
			}
		})
	}
}

// Without rate-limit headers a run emits no quota event.
func TestNoQuotaWithoutHeaders(t *testing.T) {
	e, f := wireEnv(t, "anthropic")
	f.Push("/v1/messages", fakeprovider.Text("plain"))
	evs := executortest.CollectWithin(t, 20*time.Second, e.start(executor.StartRequest{Message: "go", WorkDir: t.TempDir()}))
	if d := executortest.Done(t, evs); d.Reason != executor.DoneSuccess {
		t.Fatalf("done %+v", d)
	}
	if q := executortest.OfKind(evs, executor.KindQuota); len(q) != 0 {
		t.Fatalf("quota events %+v", q)
	}
}
