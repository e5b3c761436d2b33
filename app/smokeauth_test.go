//go:build desktopsmoke

package app_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// apiHomes maps a desktop's loopback host:port to its home (baseURL
// records it). The API answers only holders of the home's token, so the
// smoke tests' requests over TCP carry it, as any client must: every
// request through http.DefaultTransport to a recorded host gets
// `Authorization: Bearer <home>/api-token` unless it names its own.
var apiHomes sync.Map

type tokenTransport struct{ base http.RoundTripper }

func (t tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if home, ok := apiHomes.Load(r.URL.Host); ok && r.Header.Get("Authorization") == "" {
		if b, err := os.ReadFile(filepath.Join(home.(string), "api-token")); err == nil {
			r = r.Clone(r.Context())
			r.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(b)))
		}
	}
	return t.base.RoundTrip(r)
}

func init() { http.DefaultTransport = tokenTransport{http.DefaultTransport} }
