//go:build desktop && !e2e

package app

import "net/http"

// withE2E adds nothing: production builds never expose the test-only eval
// hook (see e2e.go, built only with the e2e tag).
func withE2E(h http.Handler, _ *shell) http.Handler { return h }
