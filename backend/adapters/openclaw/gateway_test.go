package openclaw

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/clawboo/desktop/backend/adapters/openclaw/gatewaytest"
	"github.com/clawboo/desktop/backend/fakes/fakeresponses"
)

// The real Gateway, one per test package (it takes ~15 s to become
// ready): started on first use by an acceptance test, stopped in
// TestMain. Unset CLAWBOO_TEST_OPENCLAW skips the acceptance tests; set
// but missing programs fail them.

// Sentinels: neither may ever appear in an event, a log line or an error.
const (
	sentinelToken = "oc-gw-token-SENTINEL-7f3a9c"
	sentinelKey   = "sk-fake-SENTINEL-provider-key-42"
)

type realGW struct {
	*gatewaytest.Gateway
	Fake *fakeresponses.Server
	http *httptest.Server
}

var (
	gwOnce sync.Once
	gw     *realGW
	gwErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if gw != nil {
		gw.Stop()
		gw.http.Close()
	}
	os.Exit(code)
}

// realGateway returns the package's Gateway, starting it on first use.
func realGateway(t testing.TB) *realGW {
	t.Helper()
	node, entry := gatewaytest.Require(t)
	gwOnce.Do(func() {
		fake := fakeresponses.New()
		srv := httptest.NewServer(fake)
		g, err := gatewaytest.Start(gatewaytest.Options{
			Node: node, Entry: entry, ProviderURL: srv.URL + "/v1",
			ProviderKey: sentinelKey, Token: sentinelToken, Ready: ready,
		})
		if err != nil {
			srv.Close()
			gwErr = err
			return
		}
		gw = &realGW{Gateway: g, Fake: fake, http: srv}
	})
	if gwErr != nil {
		t.Fatalf("start the real Gateway: %v", gwErr)
	}
	return gw
}

// ready is a completed handshake and an answered agents.list (the client
// retries UNAVAILABLE / 1013 while the Gateway's sidecars start).
func ready(ctx context.Context, url string) error {
	dir, err := os.MkdirTemp("", "clawboo-oc-ready-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	id, err := LoadIdentity(filepath.Join(dir, "device"))
	if err != nil {
		return err
	}
	c := NewClient(ClientOptions{Identity: id, Settings: func(context.Context) Settings {
		return Settings{URL: url, Token: sentinelToken}
	}})
	c.Start()
	defer c.Close()
	return c.Request(ctx, "agents.list", nil, nil)
}
