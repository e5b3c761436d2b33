// Package agents owns the agents a person creates: their identity and
// runtime, the storage and validation of the native runtime's per-agent
// config (seed 004's AgentConfig, the one type native.AgentConfig: the
// adapter that runs it defines it, this package stores it, so a stored
// agent and an ad-hoc run share one shape and one default), the
// agent-scope cap budget a config asks for, and whether each agent's
// provider is ready to route.
//
// Invariants:
//   - An agent's native config is validated on every write and on every
//     load; a stored value that fails (bad JSON, out of range, a newer
//     schema's wrong type) never fails a run: Load logs a warning and
//     returns native.DefaultConfig.
//   - A config holds the env var NAME of a key, never a key; nothing here
//     reads a secret. Provider readiness uses the vault's presence index
//     (no decrypt, no keychain call, no network).
//   - budgetUsd set means an agent-scope budget in cap mode exists with that
//     limit; null means this package removed it. The row is written first,
//     the budget second, so a crash between leaves an agent without its cap
//     (repaired by the next save), never a cap without an agent.
//   - Agent ids are a slug of the name plus a random suffix, always
//     matching ^[a-z0-9-]{1,60}$, and never change.
//   - No package-level mutable state.
package agents

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/clawboo/desktop/backend/adapters/native"
	"github.com/clawboo/desktop/backend/budget"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/slug"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/vault"
)

// Errors callers can match.
var (
	// ErrInvalid marks a refused input (an HTTP 400).
	ErrInvalid = errors.New("invalid")
	// ErrNotFound is the store's sentinel: no such agent.
	ErrNotFound = store.ErrNotFound
	// ErrBusy refuses deleting an agent with a live run (an HTTP 409).
	ErrBusy = errors.New("agent has a live run")
)

func invalid(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, a...))
}

// Native is the runtime whose agents carry a Config.
const Native = string(executor.Native)

// Presence answers whether a vault slot resolves for a runtime without
// reading it (vault.Vault.Presence).
type Presence interface {
	Presence(runtimeID, name string) vault.Source
}

// Options wire a Service. Store is required; the rest may be nil, with the
// documented fallback.
type Options struct {
	Store *store.Store
	// Budget mints and removes agent cap budgets (nil: budgetUsd is stored
	// but no budget is kept).
	Budget *budget.Ledger
	// Vault answers provider-key presence for native agents (nil: none
	// resolves).
	Vault Presence
	// RuntimeReady reports a runtime's connectionState == ready, for agents
	// of other runtimes (nil: not ready).
	RuntimeReady func(ctx context.Context, runtime string) bool
	// KnownRuntime accepts runtime ids at creation (nil: any well-formed
	// id).
	KnownRuntime func(runtime string) bool
	// HostExists accepts a host an agent is placed on (nil: none is).
	HostExists func(ctx context.Context, id string) bool
	// LiveAgent reports a live run of the agent, which blocks Delete (nil:
	// never).
	LiveAgent func(agentID string) bool
	Log       *slog.Logger
	Now       func() time.Time
}

// Service manages agents; safe for concurrent use (the database is the
// only state).
type Service struct{ opts Options }

// New builds a Service.
func New(opts Options) *Service {
	if opts.Store == nil {
		panic("agents.New: Options.Store is nil")
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Service{opts: opts}
}

// Agent is one agent as the API returns it. Times are Unix milliseconds.
type Agent struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Runtime  string `json:"runtime"`
	Provider string `json:"provider"`
	Model    string `json:"model"`
	// Config is the native AgentConfig (null for other runtimes): the
	// stored one, or the default when none is stored or it is corrupt.
	Config    *native.AgentConfig `json:"config"`
	BudgetUSD *float64            `json:"budgetUsd"`
	// FallbackRuntime is where the governor routes this agent's work when
	// its own runtime's usage window is spent (null: it waits instead).
	FallbackRuntime *string `json:"fallbackRuntime"`
	// HostID is the host its runs go to (null: this computer).
	HostID *string `json:"hostId"`
	// ProviderReady says a run of this agent can route now (seed 004).
	ProviderReady bool `json:"providerReady"`
	// Warnings flag a config that loads but will not route as written,
	// or a corrupt stored config replaced by the default.
	Warnings  []string `json:"warnings"`
	CreatedAt int64    `json:"createdAt"`
	UpdatedAt int64    `json:"updatedAt"`
}

// row is an agent as stored.
type row struct {
	id, name, runtime, provider, model string
	config                             sql.NullString
	budget                             sql.NullFloat64
	createdAt, updatedAt               int64
	fallback, host                     string
}

const columns = `id, name, runtime, provider, model, config, budget_usd, created_at, updated_at, fallback_runtime, host_id`

func scanRow(sc interface{ Scan(...any) error }) (row, error) {
	var r row
	err := sc.Scan(&r.id, &r.name, &r.runtime, &r.provider, &r.model, &r.config, &r.budget, &r.createdAt, &r.updatedAt, &r.fallback, &r.host)
	return r, err
}

func (s *Service) get(ctx context.Context, id string) (row, error) {
	r, err := scanRow(s.opts.Store.Read().QueryRowContext(ctx, `SELECT `+columns+` FROM agents WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return row{}, ErrNotFound
	}
	if err != nil {
		return row{}, fmt.Errorf("read agent: %w", err)
	}
	return r, nil
}

// configOf is a native row's config and whether the stored value was
// corrupt (the default is returned then).
func configOf(r row) (native.AgentConfig, error) {
	if !r.config.Valid || r.config.String == "" {
		return native.DefaultConfig(), nil
	}
	c, err := ParseStored([]byte(r.config.String))
	if err != nil {
		return native.DefaultConfig(), err
	}
	return c, nil
}

// Load is the native adapter's view of an agent's config: validated, with
// a corrupt value replaced by native.DefaultConfig (and a warning logged) rather
// than failing the run. ErrNotFound for an unknown agent.
func (s *Service) Load(ctx context.Context, agentID string) (native.AgentConfig, error) {
	r, err := s.get(ctx, agentID)
	if err != nil {
		return native.AgentConfig{}, err
	}
	c, err := configOf(r)
	if err != nil {
		s.opts.Log.Warn("agent config is invalid; running with the default config", "agent", agentID, "err", err)
	}
	return c, nil
}

// view turns a row into the API shape; ready is filled by the caller.
func (s *Service) view(r row) Agent {
	a := Agent{
		ID: r.id, Name: r.name, Runtime: r.runtime, Provider: r.provider, Model: r.model,
		CreatedAt: r.createdAt, UpdatedAt: r.updatedAt, Warnings: []string{},
	}
	if r.budget.Valid {
		b := r.budget.Float64
		a.BudgetUSD = &b
	}
	if r.host != "" {
		h := r.host
		a.HostID = &h
	}
	if r.fallback != "" {
		f := r.fallback
		a.FallbackRuntime = &f
	}
	if r.runtime == Native {
		c, err := configOf(r)
		if err != nil {
			a.Warnings = append(a.Warnings, "the stored config is invalid ("+err.Error()+"); the default config is in effect until it is saved again")
		}
		a.Config = &c
		a.Provider, a.Model = c.PrimaryProvider, c.PrimaryModel
		a.Warnings = append(a.Warnings, Warnings(c)...)
	}
	return a
}

// Get returns one agent with its readiness.
func (s *Service) Get(ctx context.Context, id string) (Agent, error) {
	r, err := s.get(ctx, id)
	if err != nil {
		return Agent{}, err
	}
	a := s.view(r)
	a.ProviderReady = s.ready(ctx, a, map[string]bool{})
	return a, nil
}

// List returns every agent, oldest first, with readiness (each runtime's
// state is asked once per call).
func (s *Service) List(ctx context.Context) ([]Agent, error) {
	rows, err := s.opts.Store.Read().QueryContext(ctx, `SELECT `+columns+` FROM agents ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("list agents: %w", err)
	}
	defer rows.Close()
	var rs []row
	for rows.Next() {
		r, err := scanRow(rows)
		if err != nil {
			return nil, fmt.Errorf("list agents: %w", err)
		}
		rs = append(rs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list agents: %w", err)
	}
	out := make([]Agent, 0, len(rs))
	states := map[string]bool{}
	for _, r := range rs {
		a := s.view(r)
		a.ProviderReady = s.ready(ctx, a, states)
		out = append(out, a)
	}
	return out, nil
}

// Delete removes an agent and its cap budget; its runs keep their history
// (their agent id is cleared by the schema). ErrBusy while it has a live
// run in this process.
func (s *Service) Delete(ctx context.Context, id string) error {
	if _, err := s.get(ctx, id); err != nil {
		return err
	}
	if s.opts.LiveAgent != nil && s.opts.LiveAgent(id) {
		return fmt.Errorf("delete agent %s: %w", id, ErrBusy)
	}
	if _, err := s.opts.Store.Write().ExecContext(ctx, `DELETE FROM agents WHERE id = ?`, id); err != nil {
		return fmt.Errorf("delete agent: %w", err)
	}
	return s.syncBudget(ctx, id, nil)
}

// syncBudget makes the agent's cap budget match want (nil: none).
func (s *Service) syncBudget(ctx context.Context, id string, want *float64) error {
	if s.opts.Budget == nil {
		return nil
	}
	if want == nil {
		err := s.opts.Budget.DeleteBudget(ctx, budget.ScopeAgent, id)
		if err != nil && !errors.Is(err, budget.ErrNotFound) {
			return fmt.Errorf("remove the agent's budget: %w", err)
		}
		return nil
	}
	limit := budget.FromUSD(*want)
	if limit < 1 {
		// A $0 cap means "spend nothing": the smallest positive limit
		// pauses the agent at its first paid charge.
		limit = 1
	}
	if _, err := s.opts.Budget.SetBudget(ctx, budget.ScopeAgent, id, limit, budget.ModeCap); err != nil {
		return fmt.Errorf("set the agent's budget: %w", err)
	}
	return nil
}

// newID is a slug of name plus a random suffix: "Code Reviewer" →
// "code-reviewer-k3x9q2".
func newID(name string) string {
	const alphabet = "abcdefghijkmnpqrstuvwxyz23456789"
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	for i := range rnd {
		rnd[i] = alphabet[int(rnd[i])%len(alphabet)]
	}
	return slug.Of(name, "agent") + "-" + string(rnd[:])
}
