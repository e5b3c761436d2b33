package openclaw

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestIdentityPersistsPrivately(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runtimes", "openclaw")
	a, err := LoadIdentity(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadIdentity(dir)
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != b.ID || a.PublicKey() != b.PublicKey() {
		t.Fatal("the device identity changed between loads")
	}
	pub, _ := base64.RawURLEncoding.DecodeString(a.PublicKey())
	sum := sha256.Sum256(pub)
	if len(pub) != 32 || a.ID != hex.EncodeToString(sum[:]) {
		t.Fatalf("device id %s is not sha256(raw public key)", a.ID)
	}
	fi, err := os.Stat(filepath.Join(dir, identityFileName))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("identity file mode %v, %v", fi.Mode(), err)
	}
	if di, _ := os.Stat(dir); di.Mode().Perm() != 0o700 {
		t.Fatalf("identity folder mode %v", di.Mode())
	}
	if err := os.WriteFile(filepath.Join(dir, identityFileName), []byte("{garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadIdentity(dir); err == nil {
		t.Fatal("a corrupt identity loaded")
	}
}

func TestSignatureV3Payload(t *testing.T) {
	id, _ := LoadIdentity(t.TempDir())
	f := SignFields{
		ClientID: "cli", ClientMode: "cli", Role: "operator", Scopes: []string{"operator.read", "operator.write"},
		SignedAtMs: 1795974169565, Token: "tok", Nonce: "n-1", Platform: "Linux", DeviceFamily: "",
	}
	want := "v3|" + id.ID + "|cli|cli|operator|operator.read,operator.write|1795974169565|tok|n-1|linux|"
	if got := f.payload(id.ID); got != want {
		t.Fatalf("payload\n got %s\nwant %s", got, want)
	}
	sig := id.SignV3(f)
	if !VerifyV3(id.PublicKey(), sig, f) {
		t.Fatal("signature does not verify")
	}
	for _, g := range []SignFields{
		{ClientID: "cli", ClientMode: "cli", Role: "operator", Scopes: f.Scopes, SignedAtMs: f.SignedAtMs, Token: "tok", Nonce: "other", Platform: "linux"},
		{ClientID: "cli", ClientMode: "cli", Role: "operator", Scopes: f.Scopes, SignedAtMs: f.SignedAtMs + 1, Token: "tok", Nonce: "n-1", Platform: "linux"},
		{ClientID: "cli", ClientMode: "cli", Role: "operator", Scopes: f.Scopes, SignedAtMs: f.SignedAtMs, Token: "", Nonce: "n-1", Platform: "linux"},
	} {
		if VerifyV3(id.PublicKey(), sig, g) {
			t.Fatalf("signature verified for altered fields %+v", g)
		}
	}
}

func TestHandshakeAgainstDouble(t *testing.T) {
	d := newDouble(t)
	c := d.client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var out agentsList
	if err := c.Request(ctx, "agents.list", nil, &out); err != nil {
		t.Fatal(err)
	}
	if out.DefaultID != "main" {
		t.Fatalf("agents.list %+v", out)
	}
	d.mu.Lock()
	p, sigOK := d.lastConnect, d.sigOK
	d.mu.Unlock()
	if !sigOK {
		t.Fatal("the double could not verify the v3 device signature")
	}
	if p.MinProtocol != 4 || p.MaxProtocol != 4 || p.Client.ID != "cli" || p.Client.Mode != "cli" || p.Role != "operator" ||
		p.Client.Platform != runtime.GOOS || p.Auth == nil || p.Auth.Token != d.token {
		t.Fatalf("connect params %+v", p)
	}
	if !slices.Contains(p.Caps, "tool-events") || !slices.Contains(p.Scopes, "operator.approvals") {
		t.Fatalf("caps %v scopes %v", p.Caps, p.Scopes)
	}
	if p.Device.Nonce != doubleNonce || p.Device.SignedAt != doubleTS || p.Device.ID != c.State().DeviceID {
		t.Fatalf("device block %+v", p.Device)
	}
	st := c.State()
	if st.Status != StatusConnected || st.ServerVersion != "double" || st.Protocol != 4 {
		t.Fatalf("state %+v", st)
	}
	// The session lifecycle subscription is made on connect.
	d.waitRequest("sessions.subscribe", 1)
}

func TestWrongTokenIsAnErrorWithoutTheToken(t *testing.T) {
	d := newDouble(t)
	const wrong = "wrong-token-SENTINEL-0042"
	c := d.client(t, func(o *ClientOptions) {
		o.Settings = func(context.Context) Settings { return Settings{URL: d.url(), Token: wrong} }
	})
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	err := c.Request(ctx, "agents.list", nil, nil)
	if err == nil {
		t.Fatal("a wrong token connected")
	}
	deadline := time.Now().Add(10 * time.Second)
	for c.State().Attempts == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	st := c.State()
	if st.Status != StatusError || !strings.Contains(st.Error, "UNAUTHORIZED") || st.Attempts == 0 {
		t.Fatalf("state %+v", st)
	}
	if strings.Contains(st.Error, wrong) || strings.Contains(err.Error(), wrong) {
		t.Fatal("the token leaked into the state or the error")
	}
}

func TestRetriesWhileTheGatewayStarts(t *testing.T) {
	d := newDouble(t)
	d.unavailable = 3
	c := d.client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Request(ctx, "agents.list", nil, nil); err != nil {
		t.Fatal(err)
	}
	d.mu.Lock()
	n := d.connects
	d.mu.Unlock()
	if n != 4 {
		t.Fatalf("%d connects, want 3 refused + 1", n)
	}
	if st := c.State(); st.Status != StatusConnected || st.Attempts != 0 {
		t.Fatalf("state %+v", st)
	}
}

func TestReconnectsAndResubscribes(t *testing.T) {
	d := newDouble(t)
	// Subscribed before the first connect, so its event cannot be missed.
	c := d.unstarted(t)
	sub := c.Subscribe(64)
	defer sub.Close()
	c.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	stop, err := c.WatchSession(ctx, "agent:main:watched")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	d.dropAll()
	want := []string{EventConnected, EventDisconnected, EventConnected}
	var got []string
	for len(got) < len(want) {
		select {
		case e := <-sub.C():
			if strings.HasPrefix(e.Name, "clawboo.") {
				got = append(got, e.Name)
			}
		case <-ctx.Done():
			t.Fatalf("events %v, want %v", got, want)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	if err := c.Request(ctx, "agents.list", nil, nil); err != nil {
		t.Fatalf("request after reconnect: %v", err)
	}
	// The watched session is subscribed again on the new connection.
	subs := d.waitRequest("sessions.messages.subscribe", 2)
	if param(t, subs[1].Params, "key") != "agent:main:watched" {
		t.Fatalf("resubscribe %s", subs[1].Params)
	}
}

func TestRequestTimeout(t *testing.T) {
	d := newDouble(t)
	d.handle("never.answers", func(*dconn, string, json.RawMessage) {})
	c := d.client(t, func(o *ClientOptions) { o.RequestTimeout = 200 * time.Millisecond })
	start := time.Now()
	err := c.Request(context.Background(), "never.answers", nil, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v", err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("took %v", el)
	}
}

func TestUnconfiguredFailsFast(t *testing.T) {
	id, _ := LoadIdentity(t.TempDir())
	c := NewClient(ClientOptions{Identity: id})
	c.Start()
	defer c.Close()
	deadline := time.Now().Add(2 * time.Second)
	for c.State().Status != StatusUnconfigured && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if err := c.Request(context.Background(), "agents.list", nil, nil); !errors.Is(err, ErrNotConfigured) {
		t.Fatalf("err %v", err)
	}
}

func TestSafeURLDropsCredentialsAndQuery(t *testing.T) {
	got := safeURL("wss://user:pw@gw.example:443/ws?token=SENTINEL#x")
	if got != "wss://gw.example:443/ws" {
		t.Fatalf("safeURL %q", got)
	}
}
