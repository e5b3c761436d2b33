package backend

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/api"
	"github.com/clawboo/desktop/backend/approval"
	"github.com/clawboo/desktop/backend/devices"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/internal/testkit"
)

// phoneRig is a desktop with the mock whose phones' listener was turned on
// on 127.0.0.2 (a loopback address apart from the API's), and a phone: an
// HTTPS client that checks the certificate by the fingerprint shown.
type phoneRig struct {
	b      *Backend
	pair   api.Pairing
	origin string // https://127.0.0.2:port
	client *http.Client
	cookie string
	seen   strings.Builder // every answer the phone got, for the sentinel scan
}

func newPhoneRig(t *testing.T) *phoneRig {
	t.Helper()
	return newPhoneRigOn(t, e2eBackend(t, map[string]string{"CLAWBOO_ENABLE_MOCK_RUNTIME": "1"}))
}

// newPhoneRigOn opens a pairing on b at 127.0.0.2 and makes the phone.
func newPhoneRigOn(t *testing.T, b *Backend) *phoneRig {
	t.Helper()
	var p api.Pairing
	if code := e2eDo(t, authed(b), "POST", "/api/devices/pairing", map[string]any{"address": "127.0.0.2"}, &p); code != http.StatusOK {
		t.Fatalf("pairing: %d", code)
	}
	u, err := url.Parse(p.URL)
	if err != nil || u.Scheme != "https" || u.Hostname() != "127.0.0.2" || u.Path != "/pair" || len(u.Fragment) < 22 || len(p.Fingerprint) != 95 {
		t.Fatalf("the pairing: %+v %v", p, err)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{
		InsecureSkipVerify: true, // self-signed: the phone checks the fingerprint shown instead
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) == 0 || devices.Fingerprint(raw[0]) != p.Fingerprint {
				return errors.New("not the certificate the computer showed")
			}
			return nil
		},
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return &phoneRig{b: b, pair: p, origin: "https://" + u.Host, client: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
}

// do sends one request from the phone (JSON body when given) with its
// cookie, and answers the status and body.
func (r *phoneRig) do(t *testing.T, method, path string, body any, edit func(*http.Request)) (int, string, http.Header) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = strings.NewReader(string(b))
	}
	req, err := http.NewRequest(method, r.origin+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.cookie != "" {
		req.AddCookie(&http.Cookie{Name: api.DeviceCookie, Value: r.cookie})
	}
	if edit != nil {
		edit(req)
	}
	res, err := r.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	r.seen.Write(b)
	return res.StatusCode, string(b), res.Header
}

// pairPhone pairs the rig's phone as name and keeps its cookie.
func (r *phoneRig) pairPhone(t *testing.T, name string) devices.Device {
	t.Helper()
	u, _ := url.Parse(r.pair.URL)
	code, body, hdr := r.do(t, "POST", "/m/api/pair", map[string]any{"code": u.Fragment, "name": name}, nil)
	if code != http.StatusOK {
		t.Fatalf("pair: %d %s", code, body)
	}
	set := hdr.Get("Set-Cookie")
	for _, want := range []string{api.DeviceCookie + "=", "HttpOnly", "Secure", "SameSite=Strict"} {
		if !strings.Contains(set, want) {
			t.Fatalf("the device cookie lacks %s: %q", want, set)
		}
	}
	r.cookie = strings.TrimPrefix(strings.SplitN(set, ";", 2)[0], api.DeviceCookie+"=")
	var out struct{ Device devices.Device }
	_ = json.Unmarshal([]byte(body), &out)
	return out.Device
}

// TestThePhoneListenerRefusesAllButThePairedPage: before and after
// pairing, the LAN listener answers only its own routes, only for its own
// Host, only same-site, only over TLS, and only with a paired device's
// cookie; a pairing code works once.
func TestThePhoneListenerRefusesAllButThePairedPage(t *testing.T) {
	r := newPhoneRig(t)
	for _, p := range []string{"/m/api/approvals", "/m/api/runs", "/m/api/events", "/m/api/teams", "/m/api/teams/x/chat", "/m/api/quota"} {
		if code, body, _ := r.do(t, "GET", p, nil, nil); code != http.StatusUnauthorized {
			t.Fatalf("%s with no cookie: %d %s", p, code, body)
		}
	}
	if code, body, _ := r.do(t, "POST", "/m/api/teams/x/chat", map[string]any{"message": "hi"}, nil); code != http.StatusUnauthorized {
		t.Fatalf("a room post with no cookie: %d %s", code, body)
	}
	for _, p := range []string{"/api/runtimes", "/api/board", "/api/devices", "/api/events", "/mcp/tasks", "/m/api/nothing"} {
		if code, _, _ := r.do(t, "GET", p, nil, nil); code != http.StatusNotFound {
			t.Fatalf("%s on the LAN listener: %d", p, code)
		}
	}
	if code, _, _ := r.do(t, "GET", "/m/api/approvals", nil, func(q *http.Request) { q.Host = "evil.example:443" }); code != http.StatusMisdirectedRequest {
		t.Fatalf("a rebinding Host: %d", code)
	}
	u, _ := url.Parse(r.pair.URL)
	cross := func(q *http.Request) { q.Header.Set("Origin", "https://evil.example") }
	if code, _, _ := r.do(t, "POST", "/m/api/pair", map[string]any{"code": u.Fragment, "name": "Evil"}, cross); code != http.StatusForbidden {
		t.Fatalf("a cross-site pairing: %d", code)
	}
	// Plain HTTP to the listener gets no answer of the API.
	if res, err := http.Get("http://" + strings.TrimPrefix(r.origin, "https://") + "/m/api/approvals"); err == nil {
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode == http.StatusOK || strings.Contains(string(b), "approvals") {
			t.Fatalf("plain HTTP answered: %d %s", res.StatusCode, b)
		}
	}
	if code, _, _ := r.do(t, "POST", "/m/api/pair", map[string]any{"code": "wrong-code-wrong-code", "name": "Guess"}, nil); code != http.StatusForbidden {
		t.Fatalf("a wrong code: %d", code)
	}
	d := r.pairPhone(t, "Pixel 8")
	if d.Name != "Pixel 8" {
		t.Fatalf("the device: %+v", d)
	}
	keep := r.cookie
	r.cookie = ""
	if code, _, _ := r.do(t, "POST", "/m/api/pair", map[string]any{"code": u.Fragment, "name": "Replay"}, nil); code != http.StatusForbidden {
		t.Fatalf("a replayed code: %d", code)
	}
	r.cookie = keep
	if code, body, _ := r.do(t, "GET", "/m/api/approvals", nil, nil); code != http.StatusOK || !strings.Contains(body, `"approvals"`) {
		t.Fatalf("paired: %d %s", code, body)
	}
	if code, _, _ := r.do(t, "POST", "/m/api/runs/x/stop", map[string]any{}, func(q *http.Request) { q.Header.Set("Sec-Fetch-Site", "cross-site") }); code != http.StatusForbidden {
		t.Fatalf("a cross-site stop: %d", code)
	}
	var listed struct{ Devices []devices.Device }
	if code := e2eDo(t, authed(r.b), "GET", "/api/devices", nil, &listed); code != http.StatusOK || len(listed.Devices) != 1 || listed.Devices[0].Name != "Pixel 8" {
		t.Fatalf("the devices: %d %+v", code, listed)
	}
}

// TestAPhoneAnswersAnApprovalAndStopsARun: the paired phone sees a
// command waiting and allows it (the run goes on, the history names the
// phone), stops a run (final), and when it is removed its open stream ends,
// its cookie stops working and the listener goes off.
func TestAPhoneAnswersAnApprovalAndStopsARun(t *testing.T) {
	r := newPhoneRig(t)
	d := r.pairPhone(t, "Pixel 8")
	ctx := context.Background()
	const sentinel = "sk-ant-PHONE-SENTINEL-5e1f0c"
	if err := r.b.Vault.Set(ctx, claudeKeyName, sentinel); err != nil {
		t.Fatal(err)
	}
	agent := placedAgent(t, r.b, "Mocky", "")

	// The stream is open before the question is asked.
	req, _ := http.NewRequest("GET", r.origin+"/m/api/events", nil)
	req.AddCookie(&http.Cookie{Name: api.DeviceCookie, Value: r.cookie})
	stream, err := r.client.Do(req)
	if err != nil || stream.StatusCode != http.StatusOK {
		t.Fatalf("the events: %v %v", stream, err)
	}
	lines := make(chan string, 256)
	streamed := &testkit.SyncBuffer{}
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stream.Body)
		for sc.Scan() {
			_, _ = streamed.Write([]byte(sc.Text() + "\n"))
			lines <- sc.Text()
		}
	}()

	var started struct{ RunID string }
	if code := e2eDo(t, authed(r.b), "POST", "/api/runtimes/clawboo-mock/run", map[string]any{"message": "!ask make deploy\n!ok after", "agentId": agent, "wait": false}, &started); code/100 != 2 {
		t.Fatalf("run: %d", code)
	}
	var waiting struct {
		approval.Request
		AgentName string `json:"agentName"`
	}
	testkit.EventuallySays(t, 30*time.Second, "the question on the phone", func() (bool, string) {
		code, body, _ := r.do(t, "GET", "/m/api/approvals", nil, nil)
		var out struct {
			Approvals []struct {
				approval.Request
				AgentName string `json:"agentName"`
			}
		}
		_ = json.Unmarshal([]byte(body), &out)
		for _, a := range out.Approvals {
			if a.RunID == started.RunID {
				waiting = a
				return true, ""
			}
		}
		return false, fmt.Sprint(code)
	})
	if waiting.Command != "make deploy" || waiting.AgentName != "Mocky" {
		t.Fatalf("the question, with who asks by name: %+v", waiting)
	}
	sawRequested := false
	for !sawRequested {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the stream ended")
			}
			sawRequested = strings.Contains(l, `"requested"`) && strings.Contains(l, waiting.ID)
		case <-time.After(30 * time.Second):
			t.Fatal("the stream did not say the question was asked")
		}
	}
	if code, body, _ := r.do(t, "POST", "/m/api/approvals/"+waiting.ID+"/resolve", map[string]any{"decision": "allow"}, nil); code != http.StatusOK {
		t.Fatalf("allow: %d %s", code, body)
	}
	testkit.EventuallySays(t, 30*time.Second, "the run to finish allowed", func() (bool, string) {
		run, err := r.b.Store.GetRun(ctx, started.RunID)
		return err == nil && run.Status == store.RunSucceeded && strings.Contains(run.Summary, "allowed: make deploy"), run.Status + " " + run.Summary
	})
	got, err := r.b.Approvals.Get(ctx, waiting.ID)
	if err != nil || got.ResolvedBy != "phone: Pixel 8" {
		t.Fatalf("the history: %+v %v", got, err)
	}

	// Stop from the phone is final.
	if code := e2eDo(t, authed(r.b), "POST", "/api/runtimes/clawboo-mock/run", map[string]any{"message": "!ok going\n!silent 600000\n!ok never", "wait": false}, &started); code/100 != 2 {
		t.Fatalf("run: %d", code)
	}
	testkit.EventuallySays(t, 30*time.Second, "the run on the phone", func() (bool, string) {
		_, body, _ := r.do(t, "GET", "/m/api/runs", nil, nil)
		return strings.Contains(body, started.RunID), body
	})
	if code, body, _ := r.do(t, "POST", "/m/api/runs/"+started.RunID+"/stop", map[string]any{}, nil); code != http.StatusAccepted {
		t.Fatalf("stop: %d %s", code, body)
	}
	testkit.EventuallySays(t, 30*time.Second, "the run stopped", func() (bool, string) {
		run, err := r.b.Store.GetRun(ctx, started.RunID)
		return err == nil && run.Status == store.RunAborted, run.Status
	})

	// Removed: the open stream ends, the cookie is refused, the listener is off.
	if code := e2eDo(t, authed(r.b), "DELETE", "/api/devices/"+d.ID, nil, nil); code != http.StatusNoContent {
		t.Fatalf("remove: %d", code)
	}
	deadline := time.After(30 * time.Second)
	for open := true; open; {
		select {
		case _, open = <-lines:
		case <-deadline:
			t.Fatal("the removed phone's stream did not end")
		}
	}
	stream.Body.Close()
	if !strings.Contains(streamed.String(), "event: revoked") {
		t.Fatalf("the removed phone's stream ended without saying why: %q", streamed.String())
	}
	testkit.EventuallySays(t, 30*time.Second, "the listener off", func() (bool, string) {
		c, err := net.DialTimeout("tcp", strings.TrimPrefix(r.origin, "https://"), time.Second)
		if err == nil {
			c.Close()
			return false, "it still takes connections"
		}
		return true, ""
	})
	if _, ok := r.b.Devices.Verify(ctx, r.cookie); ok {
		t.Fatal("a removed phone's cookie still works")
	}
	if strings.Contains(r.seen.String(), sentinel) || strings.Contains(streamed.String(), sentinel) || !strings.Contains(streamed.String(), "make deploy") {
		t.Fatal("the sentinel key reached the phone")
	}
}

// TestPairedPhonesFindTheListenerAfterARestart: while phones are paired,
// Clawboo starting again turns the listener back on at the address they
// know (no pairing window opens); once the last one is removed it stays
// off.
func TestPairedPhonesFindTheListenerAfterARestart(t *testing.T) {
	home := t.TempDir()
	env := func() map[string]string {
		return map[string]string{"HOME": home, "PATH": os.Getenv("PATH"), "CLAWBOO_ENABLE_MOCK_RUNTIME": "1"}
	}
	b1 := e2eBackendLogged(t, home, env(), nil)
	r := newPhoneRigOn(t, b1)
	d := r.pairPhone(t, "Pixel 8")
	closeOnce(t, b1)
	if c, err := net.DialTimeout("tcp", strings.TrimPrefix(r.origin, "https://"), time.Second); err == nil {
		c.Close()
		t.Fatal("the listener outlived Clawboo")
	}
	b2 := e2eBackendLogged(t, home, env(), nil)
	r.b = b2
	if code, body, _ := r.do(t, "GET", "/m/api/approvals", nil, nil); code != http.StatusOK {
		t.Fatalf("the paired phone after a restart: %d %s", code, body)
	}
	u, _ := url.Parse(r.pair.URL)
	keep := r.cookie
	r.cookie = ""
	if code, _, _ := r.do(t, "POST", "/m/api/pair", map[string]any{"code": u.Fragment, "name": "Old link"}, nil); code != http.StatusForbidden {
		t.Fatalf("a pairing window after a restart: %d", code)
	}
	r.cookie = keep
	if code := e2eDo(t, authed(b2), "DELETE", "/api/devices/"+d.ID, nil, nil); code != http.StatusNoContent {
		t.Fatalf("remove: %d", code)
	}
	closeOnce(t, b2)
	b3 := e2eBackendLogged(t, home, env(), nil)
	_ = b3
	if c, err := net.DialTimeout("tcp", strings.TrimPrefix(r.origin, "https://"), time.Second); err == nil {
		c.Close()
		t.Fatal("the listener came back with no phone paired")
	}
}
