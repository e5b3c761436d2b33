package api

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/runtimes"
)

// fakeNpm makes `npm install -g` create the claude program, like the real
// one does, after printing a line.
func (f *fixture) fakeNpm(t *testing.T) {
	t.Helper()
	bin := f.env["PATH"]
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho \"added 1 package\"\nprintf '#!/bin/sh\\n' > \"" + bin + "/claude\"\n/bin/chmod +x \"" + bin + "/claude\"\n"
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	f.cat.Recheck(t.Context(), "")
}

func TestInstallStreamsDataOnlyEvents(t *testing.T) {
	f := newFixture(t, nil)
	f.fakeNpm(t)
	resp := f.post(t, "/api/runtimes/claude-code/install", "")
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatal(resp.Header)
	}
	var types []string
	readSSE(t, resp.Body, func(ev sseEvent) bool {
		if ev.name != "" || ev.id != "" {
			t.Fatalf("install events are data-only: %+v", ev)
		}
		var ie runtimes.InstallEvent
		if err := json.Unmarshal(ev.data, &ie); err != nil {
			t.Fatal(err)
		}
		types = append(types, ie.Type)
		return true
	})
	if strings.Join(types, ",") != "progress,output,complete" {
		t.Fatal(types)
	}
	_, _, b := f.do(t, "GET", "/api/runtimes", "")
	for _, e := range decode[runtimes.Listing](t, b).Runtimes {
		if e.ID == "claude-code" && e.ConnectionState != runtimes.StateNeedsAuth {
			t.Fatalf("after install: %+v", e)
		}
	}
}

func TestInstallRefusalsAreJSON(t *testing.T) {
	f := newFixture(t, nil)
	cases := []struct {
		path string
		code int
		msg  string
	}{
		{"/api/runtimes/clawboo-native/install", 400, "clawboo-native is built in — nothing to install"},
		{"/api/runtimes/openclaw/install", 404, "unknown runtime 'openclaw'"},
		{"/api/runtimes/clawboo-mock/install", 404, "unknown runtime 'clawboo-mock'"},
	}
	for _, tc := range cases {
		code, h, b := f.do(t, "POST", tc.path, "")
		if code != tc.code || h.Get("Content-Type") != "application/json" || errorOf(t, b) != tc.msg {
			t.Fatalf("%s: %d %s", tc.path, code, b)
		}
	}
	// A second install while one runs is refused.
	bin := f.env["PATH"]
	_ = os.MkdirAll(bin, 0o755)
	_ = os.WriteFile(filepath.Join(bin, "npm"), []byte("#!/bin/sh\necho started\nexec /bin/sleep 30\n"), 0o755)
	f.cat.Recheck(t.Context(), "")
	first := f.post(t, "/api/runtimes/codex/install", "")
	readSSE(t, first.Body, func(ev sseEvent) bool { return !strings.Contains(string(ev.data), "started") })
	if code, _, b := f.do(t, "POST", "/api/runtimes/codex/install", ""); code != 409 || errorOf(t, b) != "an install of codex is already running" {
		t.Fatal(code, string(b))
	}
	first.Body.Close() // the client goes away: the installer dies and the slot frees
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, _, b := f.do(t, "GET", "/api/runtimes", "")
		busy := false
		for _, e := range decode[runtimes.Listing](t, b).Runtimes {
			busy = busy || (e.ID == "codex" && e.Installing)
		}
		if !busy {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("install slot never freed after the client left")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestConnectDisconnectShapes(t *testing.T) {
	f := newFixture(t, nil)
	const key = "sk-ant-api-SENTINEL-connect"
	code, _, b := f.do(t, "POST", "/api/runtimes/clawboo-native/connect", `{"apiKey":"  `+key+`  "}`)
	if code != 200 || strings.Contains(string(b), "SENTINEL") {
		t.Fatal(code, string(b))
	}
	if r := decode[runtimes.ConnectResult](t, b); !r.OK || r.ConnectionState != runtimes.StateReady {
		t.Fatalf("%+v", r)
	}
	cases := []struct {
		path, body string
		code       int
		want       string
	}{
		{"/api/runtimes/clawboo-native/connect", `{"apiKey":""}`, 400, `{"error":"apiKey is required"}`},
		{"/api/runtimes/nope/connect", `{"apiKey":"x"}`, 404, `{"error":"unknown runtime 'nope'"}`},
		{"/api/runtimes/codex/connect", `{"apiKey":"x"}`, 200, `{"ok":true,"connectionState":"not-installed","loginCommand":"codex login"}`},
		{"/api/runtimes/clawboo-native/connect", `{"apiKey":"x","provider":"nope"}`, 400, `{"error":"unknown provider 'nope'"}`},
		{"/api/runtimes/clawboo-native/connect", `{"provider":"ollama"}`, 200, `{"ok":true,"connectionState":"ready"}`},
		{"/api/runtimes/clawboo-native/healthcheck", `{"provider":"nope","apiKey":"x"}`, 400, `{"ok":false,"error":"unknown provider 'nope'"}`},
		{"/api/runtimes/claude-code/healthcheck", `{"provider":"anthropic","apiKey":"x"}`, 400, `{"ok":false,"error":"health checks are only for clawboo-native keys"}`},
		{"/api/runtimes/clawboo-native/healthcheck", `{"provider":"groq"}`, 400, `{"ok":false,"error":"apiKey is required"}`},
		{"/api/runtimes/clawboo-native/disconnect", ``, 200, `{"ok":true,"connectionState":"needs-auth"}`},
		{"/api/runtimes/nope/recheck", ``, 404, `{"error":"unknown runtime 'nope'"}`},
	}
	for _, tc := range cases {
		code, _, b := f.do(t, "POST", tc.path, tc.body)
		if code != tc.code || strings.TrimSpace(string(b)) != tc.want {
			t.Fatalf("%s %s: %d %s", tc.path, tc.body, code, b)
		}
	}
	if code, _, b := f.do(t, "POST", "/api/runtimes/codex/recheck", ""); code != 200 || decode[runtimes.Entry](t, b).ID != "codex" {
		t.Fatal(code, string(b))
	}
	// A runtime in the catalog whose adapter this build lacks says so.
	if code, _, b := f.do(t, "POST", "/api/runtimes/claude-code/run", `{"message":"x"}`); code != 501 || !strings.Contains(errorOf(t, b), "cannot run tasks") {
		t.Fatal(code, string(b))
	}
}

func TestLiveRuntimeChanges(t *testing.T) {
	f := newFixture(t, nil)
	resp := f.stream(t, "/api/events")
	got := make(chan runtimes.Listing, 4)
	go readSSE(t, resp.Body, func(ev sseEvent) bool {
		if ev.name == "runtimes" {
			var l runtimes.Listing
			_ = json.Unmarshal(ev.data, &l)
			got <- l
		}
		return true
	})
	deadline := time.Now().Add(5 * time.Second)
	for f.sup.Updates.Len() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	f.do(t, "POST", "/api/runtimes/clawboo-native/connect", `{"apiKey":"k"}`)
	select {
	case l := <-got:
		for _, e := range l.Runtimes {
			if e.ID == "clawboo-native" && e.ConnectionState != runtimes.StateReady {
				t.Fatalf("%+v", e)
			}
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no runtimes event after a connect")
	}
	resp.Body.Close()
}

func (f *fixture) post(t *testing.T, path, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(f.srv.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != 200 {
		t.Fatalf("POST %s: %d", path, resp.StatusCode)
	}
	return resp
}
