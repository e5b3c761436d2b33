package api

import (
	"net/http"
	"slices"
	"sync"
)

// Route is one pattern the API registered and the methods it answers
// (nil: any method — a mount or a catch-all).
type Route struct {
	Pattern string
	Methods []string
}

// routeMux is the ServeMux that remembers what was registered on it, so a
// test can walk every route (a new route cannot be forgotten by the
// authentication walk).
type routeMux struct {
	*http.ServeMux
	mu     sync.Mutex
	routes []Route
}

func newRouteMux() *routeMux { return &routeMux{ServeMux: http.NewServeMux()} }

// Handle registers h for pattern and records it.
func (m *routeMux) Handle(pattern string, h http.Handler) {
	r := Route{Pattern: pattern}
	if ms, ok := h.(methods); ok {
		for k := range ms {
			r.Methods = append(r.Methods, k)
		}
		slices.Sort(r.Methods)
	}
	m.mu.Lock()
	m.routes = append(m.routes, r)
	m.mu.Unlock()
	m.ServeMux.Handle(pattern, h)
}

// HandleFunc registers f for pattern and records it.
func (m *routeMux) HandleFunc(pattern string, f func(http.ResponseWriter, *http.Request)) {
	m.Handle(pattern, http.HandlerFunc(f))
}

// Routes lists every pattern registered, in order.
func (a *API) Routes() []Route {
	a.mux.mu.Lock()
	defer a.mux.mu.Unlock()
	return slices.Clone(a.mux.routes)
}
