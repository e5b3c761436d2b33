// Package runtimes is the runtime catalog: what each runtime is, whether it
// is installed and connected, and the actions that change that (install,
// connect, disconnect, health-check a provider key, re-check).
//
// Invariants:
//   - The catalog is data (descriptors) plus live lookups; it is built by the
//     composition root, never global.
//   - Nothing this package returns carries a secret: entries say whether a
//     credential exists and where it comes from, never what it is. A key
//     given to Connect goes to the vault and nowhere else; a key given to
//     HealthCheck is used for one request and dropped.
//   - Listing never spawns a process or calls the keychain: binaries come
//     from the resolver's cache, credentials from the vault's presence index,
//     the Codex login from its credential file (re-read only when it
//     changes). That keeps GET /api/runtimes well under a millisecond.
//   - clawboo-mock is never part of the public catalog ("available"), even
//     when it is offered as a runtime; OpenClaw is not a catalog runtime.
//   - Installers run with an allowlisted environment (no provider keys),
//     one per runtime at a time, and die with the request that started them.
package runtimes

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/proc"
	"github.com/clawboo/desktop/backend/vault"
)

// Options wire a Catalog.
type Options struct {
	Registry *executor.Registry
	Vault    *vault.Vault
	Resolver *proc.Resolver
	// Getenv and Environ read the server's environment (nil = os's).
	Getenv  func(string) string
	Environ func() []string
	// EnableMock lists clawboo-mock among the runtimes (it must also be
	// registered to run).
	EnableMock bool
	// HTTP is the client for provider health checks; nil builds one that
	// never follows redirects.
	HTTP *http.Client
	// HealthTimeout bounds a provider health check (default 8 s).
	HealthTimeout time.Duration
	// Ollama is the saved Ollama address (nil: none can be saved). Getenv
	// should already overlay it (OllamaURL.Getenv), as the vault's does.
	Ollama *OllamaURL
	// OnChange is called after an action changed what List returns.
	OnChange func()
	Log      *slog.Logger
}

// Catalog answers what runtimes exist and what state they are in.
type Catalog struct {
	opts  Options
	descs []Descriptor
	codex *codexLogin

	mu         sync.Mutex
	installing map[executor.ID]bool
}

// NewCatalog builds the catalog.
func NewCatalog(opts Options) *Catalog {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.HealthTimeout <= 0 {
		opts.HealthTimeout = 8 * time.Second
	}
	if opts.HTTP == nil {
		opts.HTTP = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if opts.OnChange == nil {
		opts.OnChange = func() {}
	}
	c := &Catalog{opts: opts, descs: Descriptors(), installing: map[executor.ID]bool{}, codex: newCodexLogin(opts.Getenv)}
	if opts.EnableMock {
		c.descs = append(c.descs, mockDescriptor())
	}
	return c
}

// WatchPaths are the files whose changes can change a connection state
// (Codex's credential file, OpenClaw's .env), for the composition root to
// watch alongside the resolver's folders.
func (c *Catalog) WatchPaths() []string {
	paths := []string{c.codex.authPath()}
	if c.opts.Vault != nil {
		paths = append(paths, c.opts.Vault.OpenClawEnvPath())
	}
	return paths
}

// Descriptor returns the catalog entry of a runtime.
func (c *Catalog) Descriptor(id executor.ID) (Descriptor, bool) {
	for _, d := range c.descriptors() {
		if d.ID == id {
			return d, true
		}
	}
	return Descriptor{}, false
}

// descriptors is a copy of the catalog's list (a person's ACP agents come
// and go while it is read).
func (c *Catalog) descriptors() []Descriptor {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.descs)
}

// ListDescriptors is every runtime of the catalog, as it stands now.
func (c *Catalog) ListDescriptors() []Descriptor { return c.descriptors() }

// AddACP lists a person's ACP agent (made by CustomACP); its id must be
// free.
func (c *Catalog) AddACP(d Descriptor) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d.Family != FamilyACP || d.ACP == nil || !strings.HasPrefix(string(d.ID), ACPPrefix) {
		return fmt.Errorf("not an ACP agent: %s", d.ID)
	}
	for _, e := range c.descs {
		if e.ID == d.ID {
			return fmt.Errorf("runtime %s already exists", d.ID)
		}
	}
	c.descs = append(c.descs, d)
	return nil
}

// RemoveACP drops a person's ACP agent; the catalog's own are not
// removable (ErrNotCustom).
func (c *Catalog) RemoveACP(id executor.ID) (Descriptor, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, d := range c.descs {
		if d.ID != id {
			continue
		}
		if d.ACP == nil || !d.ACP.Custom {
			return Descriptor{}, ErrNotCustom
		}
		c.descs = slices.Delete(c.descs, i, i+1)
		return d, nil
	}
	return Descriptor{}, ErrUnknownRuntime
}

// Taken says whether an id is a listed runtime.
func (c *Catalog) Taken(id executor.ID) bool {
	_, ok := c.Descriptor(id)
	return ok
}

// ErrNotCustom refuses removing a runtime a person did not add.
var ErrNotCustom = errors.New("only an ACP agent you added can be removed")

// VaultInfo says where keys are kept, for the UI.
type VaultInfo struct {
	Backend string `json:"backend"` // keychain | file
	Detail  string `json:"detail"`
	Probing bool   `json:"probing"`
}

// Listing is the body of GET /api/runtimes.
type Listing struct {
	Runtimes  []Entry      `json:"runtimes"`
	Available []Descriptor `json:"available"`
	Vault     VaultInfo    `json:"vault"`
}

// List returns every catalog runtime with its live state, and the public
// catalog. Health of registered adapters is probed concurrently, each
// bounded by executor.HealthTimeout.
func (c *Catalog) List(ctx context.Context) Listing {
	descs := c.descriptors()
	entries := make([]Entry, len(descs))
	var wg sync.WaitGroup
	for i, d := range descs {
		wg.Add(1)
		go func(i int, d Descriptor) {
			defer wg.Done()
			entries[i] = c.entry(ctx, d)
		}(i, d)
	}
	wg.Wait()
	var avail []Descriptor
	for _, d := range descs {
		if d.ID != executor.Mock {
			avail = append(avail, d)
		}
	}
	return Listing{Runtimes: entries, Available: avail, Vault: c.vaultInfo()}
}

// Entry returns one runtime's live state.
func (c *Catalog) Entry(ctx context.Context, id executor.ID) (Entry, bool) {
	d, ok := c.Descriptor(id)
	if !ok {
		return Entry{}, false
	}
	return c.entry(ctx, d), true
}

func (c *Catalog) vaultInfo() VaultInfo {
	if c.opts.Vault == nil {
		return VaultInfo{Backend: "none", Detail: "no vault configured"}
	}
	st := c.opts.Vault.Status()
	return VaultInfo{Backend: string(st.Backend), Detail: st.Detail, Probing: st.Probing}
}

// Recheck drops cached lookups (binaries, the Codex login) and, when the
// Codex CLI is installed, asks it whether it is logged in.
func (c *Catalog) Recheck(ctx context.Context, id executor.ID) {
	if c.opts.Resolver != nil {
		c.opts.Resolver.Invalidate()
	}
	c.codex.invalidate()
	if id == executor.Codex {
		if bin, ok := c.find("codex"); ok {
			c.codex.askCLI(ctx, bin, c.childEnv(nil))
		}
	}
	c.opts.OnChange()
}

func (c *Catalog) find(name string) (string, bool) {
	if filepath.IsAbs(name) {
		return name, proc.IsExecutableFile(name)
	}
	if c.opts.Resolver == nil {
		return "", false
	}
	return c.opts.Resolver.Find(name)
}

// childEnv is the environment of a non-runtime child: the allowlist only.
func (c *Catalog) childEnv(extra map[string]string) []string {
	return proc.AllowEnv(c.opts.Environ(), append(proc.BaseEnv(), proc.InstallerEnv()...), proc.InstallerPrefixes(), extra)
}
