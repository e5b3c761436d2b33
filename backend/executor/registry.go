package executor

import (
	"fmt"
	"sort"
	"sync"
)

// Registry holds the adapters this process offers, keyed by id. It is built
// by the composition root; there is no global registry.
type Registry struct {
	mu       sync.RWMutex
	adapters map[ID]Adapter
}

// NewRegistry makes an empty registry.
func NewRegistry() *Registry { return &Registry{adapters: map[ID]Adapter{}} }

// Register adds an adapter; a second adapter with the same id is refused.
func (r *Registry) Register(a Adapter) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.adapters[a.ID()]; dup {
		return fmt.Errorf("runtime %q already registered", a.ID())
	}
	r.adapters[a.ID()] = a
	return nil
}

// Unregister removes the adapter with this id (a person's ACP agent they
// removed); runs already started keep their adapter.
func (r *Registry) Unregister(id ID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.adapters, id)
}

// Get returns the adapter with this id.
func (r *Registry) Get(id ID) (Adapter, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	a, ok := r.adapters[id]
	return a, ok
}

// List returns every adapter, sorted by id.
func (r *Registry) List() []Adapter {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Adapter, 0, len(r.adapters))
	for _, a := range r.adapters {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID() < out[j].ID() })
	return out
}
