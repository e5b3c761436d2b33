package api

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/config"
)

func TestAutostartSetting(t *testing.T) {
	f := newFixture(t, nil)
	xdg := t.TempDir()
	f.api.opts.Autostart = config.Autostart{Getenv: func(k string) string {
		return map[string]string{"XDG_CONFIG_HOME": xdg, "HOME": "/nonexistent"}[k]
	}, GOOS: "linux", Executable: "/usr/bin/clawboo"}
	entry := filepath.Join(xdg, "autostart", "clawboo.desktop")
	read := func(b []byte) autostartView {
		t.Helper()
		var v autostartView
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%v: %s", err, b)
		}
		return v
	}

	code, _, b := f.do(t, "GET", "/api/settings/autostart", "")
	if v := read(b); code != http.StatusOK || v.Enabled || !v.Supported || v.Path != entry {
		t.Fatalf("off by default: %d %s", code, b)
	}
	for _, bad := range []string{`{}`, `{"enabled":"yes"}`, `nope`} {
		if code, _, b := f.do(t, "PUT", "/api/settings/autostart", bad); code != http.StatusBadRequest || errorOf(t, b) == "" {
			t.Fatalf("PUT %s: %d %s", bad, code, b)
		}
	}
	code, _, b = f.do(t, "PUT", "/api/settings/autostart", `{"enabled":true}`)
	if v := read(b); code != http.StatusOK || !v.Enabled {
		t.Fatalf("on: %d %s", code, b)
	}
	data, err := os.ReadFile(entry)
	if err != nil || !strings.Contains(string(data), "Exec=/usr/bin/clawboo\n") {
		t.Fatalf("the entry: %v\n%s", err, data)
	}
	if _, _, b := f.do(t, "GET", "/api/settings/autostart", ""); !read(b).Enabled {
		t.Fatalf("GET after on: %s", b)
	}
	code, _, b = f.do(t, "PUT", "/api/settings/autostart", `{"enabled":false}`)
	if v := read(b); code != http.StatusOK || v.Enabled {
		t.Fatalf("off: %d %s", code, b)
	}
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Fatalf("the entry is still there: %v", err)
	}

	// Off Linux: GET says why, PUT refuses in the same words.
	f.api.opts.Autostart.GOOS = "windows"
	code, _, b = f.do(t, "GET", "/api/settings/autostart", "")
	if v := read(b); code != http.StatusOK || v.Supported || v.Enabled || !strings.Contains(v.Reason, "only offered on Linux") {
		t.Fatalf("GET off Linux: %d %s", code, b)
	}
	code, _, b = f.do(t, "PUT", "/api/settings/autostart", `{"enabled":true}`)
	if code != http.StatusNotImplemented || !strings.Contains(errorOf(t, b), "only offered on Linux") {
		t.Fatalf("PUT off Linux: %d %s", code, b)
	}
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Fatalf("an entry was written off Linux: %v", err)
	}
}
