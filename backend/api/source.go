package api

import "net/http"

// answeredBy names where an authenticated request came from, as the server
// knows it, never as the client says: "page" for the app's own page (the
// desktop window, served in-process, or a browser with the login cookie),
// "api" for a program holding the API token. The native popup and the
// tray answer in-process, outside HTTP, and name themselves.
func answeredBy(r *http.Request) string {
	if inProcess(r) || r.Header.Get("Authorization") == "" {
		return "page"
	}
	return "api"
}
