//go:build desktopsmoke

package app_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/internal/testkit"
)

// page drives the real WebKitGTK page through the e2e build's eval hook.
type page struct {
	t    *testing.T
	base string // the loopback server, http://127.0.0.1:PORT
}

// q is prepended to every expression: the frontend's test ids.
const q = `const q = (id) => document.querySelector('[data-testid="' + id + '"]');`

// eval runs a JS expression (wrapped so it may use q) in the window and
// returns String(result).
func (p page) eval(expr string) (string, error) {
	js := "(async () => { " + q + " return (" + expr + "); })()"
	resp, err := http.Post(p.base+"/__e2e/eval?timeout=10s", "text/javascript", strings.NewReader(js))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("eval: %s: %s", resp.Status, body)
	}
	var r struct {
		OK    bool   `json:"ok"`
		Value string `json:"value"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return "", fmt.Errorf("eval: %w: %s", err, body)
	}
	if !r.OK {
		return "", fmt.Errorf("eval threw: %s", r.Value)
	}
	return r.Value, nil
}

func (p page) mustEval(expr string) string {
	p.t.Helper()
	v, err := p.eval(expr)
	if err != nil {
		p.t.Fatalf("%s\n  in: %s", err, expr)
	}
	return v
}

// waitTrue polls a boolean expression.
func (p page) waitTrue(timeout time.Duration, what, expr string) {
	p.t.Helper()
	testkit.EventuallySays(p.t, timeout, what, func() (bool, string) {
		v, err := p.eval(expr)
		if err != nil {
			return false, err.Error()
		}
		return v == "true", v
	})
}

// runView is what the run detail shows.
type runView struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Output string `json:"output"`
	Error  string `json:"error"`
}

const readRunView = `JSON.stringify({
  id: q('run-id')?.textContent.trim() ?? '',
  status: q('run-status')?.textContent.trim() ?? '',
  output: q('run-output')?.textContent ?? '',
  error: q('run-error')?.textContent ?? '',
})`

func (p page) runView() (runView, error) {
	var v runView
	s, err := p.eval(readRunView)
	if err == nil {
		err = json.Unmarshal([]byte(s), &v)
	}
	return v, err
}

// startRun fills the run form as a person would (runtime, message) and
// presses start; the form's framework only sees values set through input
// and change events.
func (p page) startRun(runtime, message string) {
	p.t.Helper()
	p.waitTrue(15*time.Second, "the run form", `!!q('run-message') || (q('nav-runs')?.click(), false)`)
	p.waitTrue(15*time.Second, "runtime "+runtime+" in the run form",
		fmt.Sprintf(`[...(q('run-runtime')?.options ?? [])].some((o) => o.value === %q)`, runtime))
	p.mustEval(fmt.Sprintf(`(() => {
  const sel = q('run-runtime');
  sel.value = %q;
  sel.dispatchEvent(new Event('change', {bubbles: true}));
  const msg = q('run-message');
  msg.value = %q;
  msg.dispatchEvent(new Event('input', {bubbles: true}));
  return true;
})()`, runtime, message))
	p.waitTrue(5*time.Second, "an enabled start button", `!!q('run-start') && !q('run-start').disabled`)
	p.mustEval(`(q('run-start').click(), true)`)
}

// waitRun polls the run detail until cond holds for a run other than
// notID; every view seen is passed to seen first.
func (p page) waitRun(timeout time.Duration, what, notID string, seen func(runView), cond func(runView) bool) runView {
	p.t.Helper()
	var last runView
	testkit.EventuallySays(p.t, timeout, what, func() (bool, string) {
		v, err := p.runView()
		if err != nil {
			return false, err.Error()
		}
		last = v
		if v.ID == "" || v.ID == notID {
			return false, fmt.Sprintf("%+v", v)
		}
		if seen != nil {
			seen(v)
		}
		return cond(v), fmt.Sprintf("%+v", v)
	})
	return last
}
