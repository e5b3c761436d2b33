package hosts

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/store"
)

// Errors the API words.
var (
	ErrNotFound    = errors.New("no such host")
	ErrName        = errors.New("a host's name is 1 to 60 characters")
	ErrTaken       = errors.New("a host with this name or destination is already added")
	ErrNotAsked    = errors.New("this host is not waiting for its key to be accepted")
	ErrConcurrency = errors.New("a host's concurrency is 1 to 64 runs at once, or 0 to set it from its memory and cores")
)

// Host is one machine as GET /api/hosts lists it.
type Host struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Destination string `json:"destination"`
	State       State  `json:"state"`
	Reason      string `json:"reason,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	Info
	Runtimes []string `json:"runtimes"`
	// Concurrency is how many runs may go there at once: the person's
	// number, else (ConcurrencyAuto) one per GiB of memory, at most one
	// per core, at least one.
	Concurrency     int   `json:"concurrency"`
	ConcurrencyAuto bool  `json:"concurrencyAuto"`
	CheckedAt       int64 `json:"checkedAt"`
	CreatedAt       int64 `json:"createdAt"`
}

// Service owns the hosts: their rows, their probes and their host keys.
type Service struct {
	st  *store.Store
	ssh *SSH
	// programs are the runtimes looked for on a host: id → program name.
	programs func() map[string]string
	version  string
	mock     bool
	builds   func(goos, arch string) (Build, error)
	log      *slog.Logger
	now      func() time.Time
	// Events carries a host after each change, for live pages.
	Events *bus.Broker[Host]

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	busy   map[string]bool // hosts being probed

	connMu sync.Mutex
	conns  map[string]Conn // hosts' servers reached, by host id (conn.go)
}

// Options wire the service.
type Options struct {
	Store *store.Store
	SSH   *SSH
	Log   *slog.Logger
	// Programs names the runtimes looked for on each host (runtime id →
	// program name); nil: none.
	Programs func() map[string]string
	// Version is this Clawboo's; a ready host gets the same one installed
	// (Builds). Empty: nothing is installed (a build without a version).
	Version string
	// Builds finds the headless build for a host's OS and architecture.
	Builds func(goos, arch string) (Build, error)
	// Recheck is how often a host found unreachable is looked at again
	// (default one minute).
	Recheck time.Duration
	// Mock: this Clawboo offers the mock runtime, so its hosts' servers do
	// too (started with --enable-mock).
	Mock bool
}

// Open makes the service.
func Open(o Options) *Service {
	if o.Programs == nil {
		o.Programs = func() map[string]string { return nil }
	}
	if o.Builds == nil {
		o.Builds = Builds("")
	}
	if o.Recheck <= 0 {
		o.Recheck = time.Minute
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Service{
		st: o.Store, ssh: o.SSH, log: o.Log, now: time.Now, Events: bus.New[Host](0), programs: o.Programs,
		version: o.Version, mock: o.Mock, builds: o.Builds, ctx: ctx, cancel: cancel, busy: map[string]bool{}, conns: map[string]Conn{},
	}
	s.wg.Add(1)
	go s.recheck(o.Recheck)
	return s
}

// Close stops the probes in flight and waits for them.
func (s *Service) Close() {
	s.cancel()
	s.wg.Wait()
	s.connMu.Lock()
	ids := make([]string, 0, len(s.conns))
	for id := range s.conns {
		ids = append(ids, id)
	}
	s.connMu.Unlock()
	for _, id := range ids {
		s.Forget(id)
	}
	// The shared connections would linger for ControlPersist after Clawboo
	// quit: each is told to exit (a host's own server goes on).
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if hs, err := s.List(ctx); err == nil {
		for _, h := range hs {
			if d, err := ParseDestination(h.Destination); err == nil {
				s.ssh.Close(ctx, d)
			}
		}
	}
	s.Events.Close()
}

const columns = `id, name, destination, state, reason, fingerprint, os, arch, cores, memory_bytes, runtimes, concurrency,
	checked_at, created_at`

func scan(row interface{ Scan(...any) error }) (Host, error) {
	var h Host
	var rts string
	err := row.Scan(&h.ID, &h.Name, &h.Destination, &h.State, &h.Reason, &h.Fingerprint, &h.OS, &h.Arch, &h.Cores,
		&h.MemoryBytes, &rts, &h.Concurrency, &h.CheckedAt, &h.CreatedAt)
	h.Runtimes = []string{}
	if err == nil {
		_ = json.Unmarshal([]byte(rts), &h.Runtimes)
	}
	h.setConcurrency()
	return h, err
}

// List is every host, by name.
func (s *Service) List(ctx context.Context) ([]Host, error) {
	rows, err := s.st.Reader().QueryContext(ctx, `SELECT `+columns+` FROM hosts ORDER BY name COLLATE NOCASE, id`)
	if err != nil {
		return nil, fmt.Errorf("hosts: list: %w", err)
	}
	defer rows.Close()
	out := []Host{}
	for rows.Next() {
		h, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("hosts: list: %w", err)
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// Get is one host.
func (s *Service) Get(ctx context.Context, id string) (Host, error) {
	h, err := scan(s.st.Reader().QueryRowContext(ctx, `SELECT `+columns+` FROM hosts WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Host{}, ErrNotFound
	}
	return h, err
}

// Add records a host (state connecting) and probes it in the background.
func (s *Service) Add(ctx context.Context, destination, name string) (Host, error) {
	d, err := ParseDestination(destination)
	if err != nil {
		return Host{}, err
	}
	name = strings.TrimSpace(name)
	if name == "" {
		name = d.Text
	}
	if len(name) > 60 || strings.ContainsFunc(name, func(r rune) bool { return r < ' ' }) {
		return Host{}, ErrName
	}
	now := s.now().UnixMilli()
	h := Host{ID: ulid.Make().String(), Name: name, Destination: d.Text, State: Connecting, Runtimes: []string{}, CreatedAt: now}
	_, err = s.st.Writer().ExecContext(ctx, `INSERT INTO hosts (id, name, destination, state, created_at, updated_at)
		VALUES (?, ?, ?, 'connecting', ?, ?)`, h.ID, h.Name, h.Destination, now, now)
	if err != nil {
		if strings.Contains(err.Error(), "UNIQUE") {
			return Host{}, ErrTaken
		}
		return Host{}, fmt.Errorf("hosts: add: %w", err)
	}
	s.Events.PublishMust(h)
	s.Check(h.ID)
	return h, nil
}

// Check probes a host again in the background (once at a time per host),
// over a new connection: a person testing a host tests all of it, host key
// included, not the connection shared since it was last checked.
func (s *Service) Check(id string) {
	s.mu.Lock()
	if s.busy[id] || s.ctx.Err() != nil {
		s.mu.Unlock()
		return
	}
	s.busy[id] = true
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		defer func() {
			s.mu.Lock()
			delete(s.busy, id)
			s.mu.Unlock()
		}()
		if _, err := s.probe(s.ctx, id); err != nil && s.ctx.Err() == nil {
			s.log.Warn("host probe not recorded", "host", id, "err", err)
		}
	}()
}

// probe looks at a host now and records what it found.
func (s *Service) probe(ctx context.Context, id string) (Host, error) {
	h, err := s.Get(ctx, id)
	if err != nil {
		return Host{}, err
	}
	d, err := ParseDestination(h.Destination)
	if err != nil {
		return Host{}, err
	}
	s.ssh.Close(ctx, d)
	p := s.ssh.Probe(ctx, d, s.programs())
	if p.State == Ready && s.version != "" {
		p = s.ensureVersion(ctx, h, d, p)
	}
	if ctx.Err() != nil {
		return Host{}, ctx.Err()
	}
	return s.record(ctx, h, p)
}

// ensureVersion installs this Clawboo's build on a ready host that has
// none, or another version, and checks it took; a host that cannot get it
// is version-mismatch, with the reason.
func (s *Service) ensureVersion(ctx context.Context, h Host, d Destination, p Probe) Probe {
	have, err := s.ssh.HostVersion(ctx, d)
	if err != nil {
		return Probe{State: Unreachable, Reason: err.Error()}
	}
	if have == s.version {
		return s.found(ctx, d, p)
	}
	fail := func(why string) Probe {
		return Probe{State: VersionMismatch, Reason: why, Info: p.Info, Runtimes: p.Runtimes}
	}
	b, err := s.builds(p.Info.OS, p.Info.Arch)
	if err != nil {
		return fail(err.Error())
	}
	s.log.Info("installing Clawboo on a host", "host", h.Name, "had", have, "version", s.version)
	if err := s.ssh.Install(ctx, d, b); err != nil {
		return fail(err.Error())
	}
	if got, err := s.ssh.HostVersion(ctx, d); err != nil || got != s.version {
		return fail(fmt.Sprintf("Clawboo %s was copied to the host, but it reports %q", s.version, got))
	}
	return s.found(ctx, d, p)
}

// found is p with the runtimes the host's own Clawboo finds there (the
// probe's shell look stands when it cannot say).
func (s *Service) found(ctx context.Context, d Destination, p Probe) Probe {
	if ids, err := s.ssh.Found(ctx, d, s.programs()); err == nil {
		p.Runtimes = ids
	}
	return p
}

func (s *Service) record(ctx context.Context, h Host, p Probe) (Host, error) {
	now := s.now().UnixMilli()
	h.State, h.Reason, h.Fingerprint, h.CheckedAt = p.State, p.Reason, p.Fingerprint, now
	if p.Info.OS != "" {
		h.Info, h.Runtimes = p.Info, p.Runtimes
		if h.ConcurrencyAuto {
			h.Concurrency = 0
			h.setConcurrency()
		}
	}
	if h.Runtimes == nil {
		h.Runtimes = []string{}
	}
	rts, _ := json.Marshal(h.Runtimes)
	_, err := s.st.Writer().ExecContext(ctx, `UPDATE hosts SET state = ?, reason = ?, fingerprint = ?, os = ?, arch = ?,
		cores = ?, memory_bytes = ?, runtimes = ?, checked_at = ?, updated_at = ? WHERE id = ?`,
		string(h.State), h.Reason, h.Fingerprint, h.OS, h.Arch, h.Cores, h.MemoryBytes, string(rts), now, now, h.ID)
	if err != nil {
		return Host{}, fmt.Errorf("hosts: record %s: %w", h.ID, err)
	}
	s.Events.PublishMust(h)
	return h, nil
}

// Trust accepts the host key whose fingerprint the person was shown, then
// looks at the host again. Only a host waiting for its key is asked: a
// changed key is never accepted here.
func (s *Service) Trust(ctx context.Context, id, fingerprint string) (Host, error) {
	h, err := s.Get(ctx, id)
	if err != nil {
		return Host{}, err
	}
	if h.State != UnknownHostKey {
		return h, ErrNotAsked
	}
	d, err := ParseDestination(h.Destination)
	if err != nil {
		return Host{}, err
	}
	if err := s.ssh.Trust(ctx, d, fingerprint); err != nil {
		return h, err
	}
	s.log.Info("a host key was accepted", "host", h.Name, "destination", h.Destination, "fingerprint", fingerprint)
	return s.probe(ctx, id)
}

// Remove forgets a host (its key stays in known_hosts: trusting a key is
// not undone by forgetting a name).
func (s *Service) Remove(ctx context.Context, id string) error {
	h, err := s.Get(ctx, id)
	if err != nil {
		return err
	}
	if _, err := s.st.Writer().ExecContext(ctx, `DELETE FROM hosts WHERE id = ?`, id); err != nil {
		return fmt.Errorf("hosts: remove %s: %w", id, err)
	}
	if d, err := ParseDestination(h.Destination); err == nil {
		s.ssh.Close(ctx, d)
	}
	return nil
}

// MaxConcurrency bounds a host's concurrency a person sets.
const MaxConcurrency = 64

// setConcurrency fills in the automatic concurrency (Concurrency 0).
func (h *Host) setConcurrency() {
	if h.Concurrency > 0 {
		h.ConcurrencyAuto = false
		return
	}
	n := int(h.MemoryBytes >> 30) // an agent CLI takes 300-500 MB and some room
	if h.Cores > 0 && n > h.Cores {
		n = h.Cores
	}
	h.Concurrency, h.ConcurrencyAuto = max(n, 1), true
}

// Patch is what PATCH /api/hosts/{id} may change.
type Patch struct {
	Name *string `json:"name"`
	// Concurrency: a number from 1 to MaxConcurrency, or 0 for automatic.
	Concurrency *int `json:"concurrency"`
}

// Update renames a host or sets its concurrency.
func (s *Service) Update(ctx context.Context, id string, p Patch) (Host, error) {
	h, err := s.Get(ctx, id)
	if err != nil {
		return Host{}, err
	}
	name, conc := h.Name, 0
	if !h.ConcurrencyAuto {
		conc = h.Concurrency
	}
	if p.Name != nil {
		name = strings.TrimSpace(*p.Name)
		if name == "" || len(name) > 60 || strings.ContainsFunc(name, func(r rune) bool { return r < ' ' }) {
			return Host{}, ErrName
		}
	}
	if p.Concurrency != nil {
		if *p.Concurrency < 0 || *p.Concurrency > MaxConcurrency {
			return Host{}, ErrConcurrency
		}
		conc = *p.Concurrency
	}
	_, err = s.st.Writer().ExecContext(ctx, `UPDATE hosts SET name = ?, concurrency = ?, updated_at = ? WHERE id = ?`,
		name, conc, s.now().UnixMilli(), id)
	if err != nil {
		if strings.Contains(err.Error(), "UNIQUE") {
			return Host{}, ErrTaken
		}
		return Host{}, fmt.Errorf("hosts: update %s: %w", id, err)
	}
	h, err = s.Get(ctx, id)
	if err == nil {
		s.Events.PublishMust(h)
	}
	return h, err
}
