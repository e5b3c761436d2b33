//go:build desktop && e2e

package app

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// The e2e hook lets a test drive the real WebKitGTK page, which no WebDriver
// can reach (Wails enables no automation). It exists only in builds tagged
// e2e, never in production:
//
//	POST /__e2e/eval[?timeout=10s]  body: a JS expression (may be a promise)
//	  -> 200 {"ok": bool, "value": string}  (value is String(result), or the
//	     error's stack when the expression threw or rejected)
//	  -> 504 when the page did not report back in time
//	POST /__e2e/report?id=N         the page's answer (called by the page)
//	POST /__e2e/nilderef            dereferences nil in the handler: the app
//	  must survive it (net/http recovers the panic) once fixSignals has run
//
// The expression runs in the window through runtime.WindowExecJS and the
// page answers with a relative fetch, i.e. through the same transport as
// the app's own API calls, with no Wails bindings involved.
const (
	e2eEval     = "/__e2e/eval"
	e2eReport   = "/__e2e/report"
	e2eNilDeref = "/__e2e/nilderef"
)

type e2eResult struct {
	OK    bool   `json:"ok"`
	Value string `json:"value"`
}

type evaluator struct {
	shell   *shell
	next    atomic.Uint64
	mu      sync.Mutex
	waiting map[uint64]chan e2eResult
}

// withE2E routes /__e2e/ to the eval hook and everything else to h.
func withE2E(h http.Handler, s *shell) http.Handler {
	e := &evaluator{shell: s, waiting: map[uint64]chan e2eResult{}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == e2eEval && r.Method == http.MethodPost:
			e.eval(w, r)
		case r.URL.Path == e2eReport && r.Method == http.MethodPost:
			e.report(w, r)
		case r.URL.Path == e2eNilDeref && r.Method == http.MethodPost:
			// A real SIGSEGV, not panic(): only a signal shows whether
			// WebKit's handlers carry SA_ONSTACK (platform.md §4.2).
			w.WriteHeader(http.StatusOK)
			_, _ = fmt.Fprint(w, nilResult().Value)
		default:
			h.ServeHTTP(w, r)
		}
	})
}

func (e *evaluator) eval(w http.ResponseWriter, r *http.Request) {
	timeout := 10 * time.Second
	if v := r.URL.Query().Get("timeout"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			http.Error(w, "bad timeout", http.StatusBadRequest)
			return
		}
		timeout = d
	}
	expr, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil || len(expr) == 0 {
		http.Error(w, "body must be a JS expression", http.StatusBadRequest)
		return
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	select {
	case <-e.shell.started:
	case <-deadline.C:
		http.Error(w, "window not started", http.StatusGatewayTimeout)
		return
	}
	id := e.next.Add(1)
	ch := make(chan e2eResult, 1)
	e.mu.Lock()
	e.waiting[id] = ch
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		delete(e.waiting, id)
		e.mu.Unlock()
	}()
	// The expression is pasted in as code on purpose: this is an eval hook.
	runtime.WindowExecJS(e.shell.ctx, fmt.Sprintf(`(async () => {
  let r;
  try { r = {ok: true, value: String(await (%s))}; }
  catch (err) { r = {ok: false, value: String((err && err.stack) || err)}; }
  await fetch(%q, {method: "POST", body: JSON.stringify(r)});
})();`, expr, e2eReport+"?id="+strconv.FormatUint(id, 10)))
	select {
	case res := <-ch:
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(res)
	case <-deadline.C:
		http.Error(w, "the page did not report back in time", http.StatusGatewayTimeout)
	case <-r.Context().Done():
	}
}

func (e *evaluator) report(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseUint(r.URL.Query().Get("id"), 10, 64)
	var res e2eResult
	if err == nil {
		err = json.NewDecoder(io.LimitReader(r.Body, 8<<20)).Decode(&res)
	}
	if err != nil {
		http.Error(w, "bad report", http.StatusBadRequest)
		return
	}
	e.mu.Lock()
	ch := e.waiting[id]
	e.mu.Unlock()
	if ch != nil {
		select {
		case ch <- res:
		default: // a duplicate report; the first one won
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

// nilResult hides the nil from the compiler so the dereference happens at
// run time.
//
//go:noinline
func nilResult() *e2eResult { return nil }
