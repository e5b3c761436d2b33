package backend

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/hosts"
	"github.com/clawboo/desktop/internal/testkit"
)

// TestHostsThroughTheAPI: a host added by its ssh alias is reached with
// the person's own ssh (a real sshd, a second Unix user): its key is shown
// and accepted only as shown, then it says what it is; a changed key is
// refused in ssh's words and cannot be accepted; bad destinations are
// refused before ssh sees them.
func TestHostsThroughTheAPI(t *testing.T) {
	srv := testkit.StartSSHD(t)
	b := e2eBackend(t, map[string]string{EnvSSHConfig: srv.Config, "CLAWBOO_ENABLE_MOCK_RUNTIME": "1"})
	h := authed(b)
	for _, bad := range []string{"-oProxyCommand=touch /tmp/pwned", "a b", "$(id)@x", ""} {
		var e struct{ Error string }
		if code := e2eDo(t, h, "POST", "/api/hosts", map[string]any{"destination": bad}, &e); code != http.StatusBadRequest || e.Error == "" {
			t.Fatalf("%q: %d %q", bad, code, e.Error)
		}
	}
	var made struct{ Host hosts.Host }
	if code := e2eDo(t, h, "POST", "/api/hosts", map[string]any{"destination": srv.Alias, "name": "Build box"}, &made); code != http.StatusCreated || made.Host.State != hosts.Connecting {
		t.Fatalf("add: %d %+v", code, made.Host)
	}
	if code := e2eDo(t, h, "POST", "/api/hosts", map[string]any{"destination": srv.Alias}, nil); code != http.StatusConflict {
		t.Fatalf("the same destination twice: %d", code)
	}
	id := made.Host.ID
	get := func() hosts.Host {
		var out struct{ Hosts []hosts.Host }
		e2eDo(t, h, "GET", "/api/hosts", nil, &out)
		for _, x := range out.Hosts {
			if x.ID == id {
				return x
			}
		}
		t.Fatalf("host %s is not listed: %+v", id, out.Hosts)
		return hosts.Host{}
	}
	waitState := func(want hosts.State) hosts.Host {
		var got hosts.Host
		testkit.EventuallySays(t, 30*time.Second, "the host "+string(want), func() (bool, string) {
			got = get()
			return got.State == want, string(got.State) + ": " + got.Reason
		})
		return got
	}
	got := waitState(hosts.UnknownHostKey)
	if want := srv.Fingerprint; got.Fingerprint != want || got.Name != "Build box" {
		t.Fatalf("shown %+v, want fingerprint %s", got, want)
	}
	if code := e2eDo(t, h, "POST", "/api/hosts/"+id+"/trust", map[string]any{"fingerprint": "SHA256:someone-elses"}, nil); code != http.StatusConflict {
		t.Fatalf("trusting a fingerprint not shown: %d", code)
	}
	var trusted struct{ Host hosts.Host }
	if code := e2eDo(t, h, "POST", "/api/hosts/"+id+"/trust", map[string]any{"fingerprint": got.Fingerprint}, &trusted); code != http.StatusOK ||
		trusted.Host.State != hosts.Ready || trusted.Host.OS != "linux" || trusted.Host.Cores < 1 || trusted.Host.MemoryBytes < 1<<20 {
		t.Fatalf("trust: %d %+v", code, trusted.Host)
	}

	// Its concurrency: from its memory and cores until a person sets it.
	if !trusted.Host.ConcurrencyAuto || trusted.Host.Concurrency < 1 || trusted.Host.Concurrency > trusted.Host.Cores {
		t.Fatalf("automatic concurrency: %+v", trusted.Host)
	}
	var patched struct{ Host hosts.Host }
	if code := e2eDo(t, h, "PATCH", "/api/hosts/"+id, map[string]any{"concurrency": 7, "name": "Big box"}, &patched); code != http.StatusOK ||
		patched.Host.Concurrency != 7 || patched.Host.ConcurrencyAuto || patched.Host.Name != "Big box" {
		t.Fatalf("patch: %d %+v", code, patched.Host)
	}
	for _, bad := range []map[string]any{{"concurrency": 65}, {"concurrency": -1}, {"name": ""}} {
		if code := e2eDo(t, h, "PATCH", "/api/hosts/"+id, bad, nil); code != http.StatusBadRequest {
			t.Fatalf("patch %v: %d", bad, code)
		}
	}
	if code := e2eDo(t, h, "PATCH", "/api/hosts/"+id, map[string]any{"concurrency": 0}, &patched); code != http.StatusOK || !patched.Host.ConcurrencyAuto {
		t.Fatalf("back to automatic: %d %+v", code, patched.Host)
	}

	if err := srv.RotateHostKey(); err != nil {
		t.Fatal(err)
	}
	if code := e2eDo(t, h, "POST", "/api/hosts/"+id+"/check", nil, nil); code != http.StatusAccepted {
		t.Fatalf("check: %d", code)
	}
	got = waitState(hosts.HostKeyChanged)
	if !strings.Contains(got.Reason, "REMOTE HOST IDENTIFICATION HAS CHANGED") {
		t.Fatalf("changed: %+v", got)
	}
	if code := e2eDo(t, h, "POST", "/api/hosts/"+id+"/trust", map[string]any{"fingerprint": srv.Fingerprint}, nil); code != http.StatusConflict {
		t.Fatalf("accepting a changed key: %d", code)
	}
	// A host with an agent placed on it is not removed from under it.
	agent := placedAgent(t, b, "Pat", "")
	if code := e2eDo(t, h, "PATCH", "/api/agents/"+agent, map[string]any{"hostId": id}, nil); code != http.StatusOK {
		t.Fatalf("place: %d", code)
	}
	var refused struct{ Error string }
	if code := e2eDo(t, h, "DELETE", "/api/hosts/"+id, nil, &refused); code != http.StatusConflict || !strings.Contains(refused.Error, "Pat is placed on this host") {
		t.Fatalf("delete under an agent: %d %q", code, refused.Error)
	}
	if code := e2eDo(t, h, "PATCH", "/api/agents/"+agent, map[string]any{"hostId": nil}, nil); code != http.StatusOK {
		t.Fatalf("unplace: %d", code)
	}
	if code := e2eDo(t, h, "DELETE", "/api/hosts/"+id, nil, nil); code != http.StatusNoContent {
		t.Fatalf("delete: %d", code)
	}
	if code := e2eDo(t, h, "GET", "/api/hosts/"+id, nil, nil); code != http.StatusNotFound {
		t.Fatalf("after delete: %d", code)
	}
}
