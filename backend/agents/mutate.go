package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/clawboo/desktop/backend/adapters/native"
)

// MaxName bounds an agent's display name.
const MaxName = 100

// Compiled on first use: a counted repetition compiles to a state per
// count, which cost start-up time as a package-level var.
var runtimePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`) })

// Optional is a JSON field that can be absent, null or a value, so a PATCH
// can tell "leave it" from "clear it".
type Optional[T any] struct {
	Set   bool // present in the body (null included)
	Value *T   // nil for null
}

// UnmarshalJSON records presence; encoding/json calls it for null too.
func (o *Optional[T]) UnmarshalJSON(b []byte) error {
	o.Set = true
	if string(b) == "null" {
		o.Value = nil
		return nil
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	o.Value = &v
	return nil
}

// Input is the body of a create or a patch. On create Name and Runtime are
// required; on a patch every field is optional and Runtime cannot change.
// Config is the native AgentConfig (fields absent from it keep their
// current or default values); BudgetUSD, when present, wins over
// config.budgetUsd.
type Input struct {
	Name      *string           `json:"name"`
	Runtime   *string           `json:"runtime"`
	Provider  *string           `json:"provider"`
	Model     *string           `json:"model"`
	Config    json.RawMessage   `json:"config"`
	BudgetUSD Optional[float64] `json:"budgetUsd"`
	// FallbackRuntime (null or "": none) must differ from the agent's own.
	FallbackRuntime Optional[string] `json:"fallbackRuntime"`
	// HostID places the agent on a host (null or "": this computer).
	HostID Optional[string] `json:"hostId"`
}

func cleanName(n string) (string, error) {
	n = strings.TrimSpace(n)
	if n == "" {
		return "", invalid("name is required")
	}
	if len([]rune(n)) > MaxName {
		return "", invalid("name is over %d characters", MaxName)
	}
	for _, r := range n {
		if unicode.IsControl(r) {
			return "", invalid("name must not contain control characters")
		}
	}
	return n, nil
}

func validBudget(v *float64) error {
	if v != nil && (math.IsNaN(*v) || math.IsInf(*v, 0) || *v < 0 || *v > native.MaxBudgetUSD) {
		return invalid("budgetUsd must be a non-negative amount or null")
	}
	return nil
}

func hasConfig(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s != "" && s != "null"
}

// Create adds an agent. A native agent without a provider takes the
// user's default native provider, else the first connected provider in
// KNOWN_PROVIDERS order, else Anthropic.
func (s *Service) Create(ctx context.Context, in Input) (Agent, error) {
	if in.Name == nil {
		return Agent{}, invalid("name is required")
	}
	name, err := cleanName(*in.Name)
	if err != nil {
		return Agent{}, err
	}
	if in.Runtime == nil || *in.Runtime == "" {
		return Agent{}, invalid("runtime is required")
	}
	rt := *in.Runtime
	if !runtimePattern().MatchString(rt) || (s.opts.KnownRuntime != nil && !s.opts.KnownRuntime(rt)) {
		return Agent{}, invalid("unknown runtime '%s'", rt)
	}
	r := row{id: newID(name), name: name, runtime: rt}
	if err := s.fallbackField(&r, in); err != nil {
		return Agent{}, err
	}
	if err := s.hostField(ctx, &r, in); err != nil {
		return Agent{}, err
	}
	var budgetUSD *float64
	if rt == Native {
		base := native.DefaultConfig()
		base.PrimaryProvider, base.PrimaryModel, base.EnvVar = "", "", ""
		c, err := s.nativeConfig(ctx, base, in, true)
		if err != nil {
			return Agent{}, err
		}
		if err := s.storeConfig(&r, c); err != nil {
			return Agent{}, err
		}
		budgetUSD = c.BudgetUSD
	} else {
		if hasConfig(in.Config) {
			return Agent{}, invalid("config applies to %s agents only", Native)
		}
		if err := s.plainFields(&r, in); err != nil {
			return Agent{}, err
		}
		if in.BudgetUSD.Set {
			if err := validBudget(in.BudgetUSD.Value); err != nil {
				return Agent{}, err
			}
			budgetUSD = in.BudgetUSD.Value
		}
	}
	r.budget.Valid = budgetUSD != nil
	if budgetUSD != nil {
		r.budget.Float64 = *budgetUSD
	}
	now := s.opts.Now().UnixMilli()
	r.createdAt, r.updatedAt = now, now
	_, err = s.opts.Store.Write().ExecContext(ctx, `INSERT INTO agents(`+columns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.id, r.name, r.runtime, r.provider, r.model, r.config, r.budget, r.createdAt, r.updatedAt, r.fallback, r.host)
	if err != nil {
		return Agent{}, fmt.Errorf("insert agent: %w", err)
	}
	if budgetUSD != nil {
		if err := s.syncBudget(ctx, r.id, budgetUSD); err != nil {
			_, _ = s.opts.Store.Write().ExecContext(context.WithoutCancel(ctx), `DELETE FROM agents WHERE id = ?`, r.id)
			return Agent{}, err
		}
	}
	return s.Get(ctx, r.id)
}

// Update applies a patch. Changing the provider without naming a model or
// env var resets them to the new provider's defaults.
func (s *Service) Update(ctx context.Context, id string, in Input) (Agent, error) {
	r, err := s.get(ctx, id)
	if err != nil {
		return Agent{}, err
	}
	if in.Runtime != nil && *in.Runtime != r.runtime {
		return Agent{}, invalid("runtime cannot be changed; create a new agent instead")
	}
	if in.Name != nil {
		if r.name, err = cleanName(*in.Name); err != nil {
			return Agent{}, err
		}
	}
	if err := s.fallbackField(&r, in); err != nil {
		return Agent{}, err
	}
	if err := s.hostField(ctx, &r, in); err != nil {
		return Agent{}, err
	}
	oldBudget := r.budget
	var budgetUSD *float64
	if r.runtime == Native {
		cur, err := configOf(r) // a corrupt stored config is replaced by this save
		if err != nil && r.budget.Valid {
			b := r.budget.Float64 // ...but the cap the user set survives it
			cur.BudgetUSD = &b
		}
		c, err := s.nativeConfig(ctx, cur, in, false)
		if err != nil {
			return Agent{}, err
		}
		if err := s.storeConfig(&r, c); err != nil {
			return Agent{}, err
		}
		budgetUSD = c.BudgetUSD
	} else {
		if hasConfig(in.Config) {
			return Agent{}, invalid("config applies to %s agents only", Native)
		}
		if err := s.plainFields(&r, in); err != nil {
			return Agent{}, err
		}
		budgetUSD = nil
		if r.budget.Valid {
			b := r.budget.Float64
			budgetUSD = &b
		}
		if in.BudgetUSD.Set {
			if err := validBudget(in.BudgetUSD.Value); err != nil {
				return Agent{}, err
			}
			budgetUSD = in.BudgetUSD.Value
		}
	}
	r.budget.Valid = budgetUSD != nil
	r.budget.Float64 = 0
	if budgetUSD != nil {
		r.budget.Float64 = *budgetUSD
	}
	r.updatedAt = max(s.opts.Now().UnixMilli(), r.updatedAt)
	res, err := s.opts.Store.Write().ExecContext(ctx,
		`UPDATE agents SET name = ?, provider = ?, model = ?, config = ?, budget_usd = ?, updated_at = ?, fallback_runtime = ?, host_id = ? WHERE id = ?`,
		r.name, r.provider, r.model, r.config, r.budget, r.updatedAt, r.fallback, r.host, r.id)
	if err != nil {
		return Agent{}, fmt.Errorf("update agent: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Agent{}, ErrNotFound
	}
	if oldBudget != r.budget {
		if err := s.syncBudget(ctx, r.id, budgetUSD); err != nil {
			return Agent{}, err
		}
	}
	return s.Get(ctx, r.id)
}

// fallbackField sets the fallback runtime of a create or patch.
func (s *Service) fallbackField(r *row, in Input) error {
	if !in.FallbackRuntime.Set {
		return nil
	}
	fb := ""
	if in.FallbackRuntime.Value != nil {
		fb = strings.TrimSpace(*in.FallbackRuntime.Value)
	}
	if fb != "" && (!runtimePattern().MatchString(fb) || (s.opts.KnownRuntime != nil && !s.opts.KnownRuntime(fb))) {
		return invalid("unknown fallback runtime '%s'", fb)
	}
	if fb != "" && fb == r.runtime {
		return invalid("the fallback runtime must differ from the agent's own (%s)", r.runtime)
	}
	r.fallback = fb
	return nil
}

// hostField places the agent of a create or patch on a host, or here.
func (s *Service) hostField(ctx context.Context, r *row, in Input) error {
	if !in.HostID.Set {
		return nil
	}
	h := ""
	if in.HostID.Value != nil {
		h = strings.TrimSpace(*in.HostID.Value)
	}
	if h != "" && (s.opts.HostExists == nil || !s.opts.HostExists(ctx, h)) {
		return invalid("no host '%s': add it in Settings → Hosts first", h)
	}
	r.host = h
	return nil
}

// plainFields sets provider and model of a non-native agent.
func (s *Service) plainFields(r *row, in Input) error {
	if in.Provider != nil {
		p := strings.TrimSpace(*in.Provider)
		if p != "" && !native.ValidProviderID(p) {
			return invalid("provider must be a provider id (lowercase letters, digits, '.', '_' or '-')")
		}
		r.provider = p
	}
	if in.Model != nil {
		m := strings.TrimSpace(*in.Model)
		if m != "" && !native.ValidModel(m) {
			return invalid("model must be a model name of 1 to %d printable characters", native.MaxIdentifierLen)
		}
		r.model = m
	}
	return nil
}

// nativeConfig builds the config a create or patch asks for over base:
// the body's config, then provider, model and budgetUsd on top, then the
// defaults for what is still empty; and validates it.
func (s *Service) nativeConfig(ctx context.Context, base native.AgentConfig, in Input, creating bool) (native.AgentConfig, error) {
	c := base
	if hasConfig(in.Config) {
		var err error
		if c, err = decodeOnto(base, in.Config, true); err != nil {
			return native.AgentConfig{}, err
		}
	}
	if in.Provider != nil {
		c.PrimaryProvider = strings.TrimSpace(*in.Provider)
	}
	if in.Model != nil {
		c.PrimaryModel = strings.TrimSpace(*in.Model)
	}
	if in.BudgetUSD.Set {
		c.BudgetUSD = in.BudgetUSD.Value
	}
	if c.PrimaryProvider == "" && creating {
		p, err := s.PickProvider(ctx)
		if err != nil {
			return native.AgentConfig{}, err
		}
		c.PrimaryProvider = p
	}
	changed := c.PrimaryProvider != base.PrimaryProvider
	if c.PrimaryModel == "" || (changed && c.PrimaryModel == base.PrimaryModel && !creating) {
		c.PrimaryModel = DefaultModel(c.PrimaryProvider)
	}
	if c.EnvVar == "" || (changed && c.EnvVar == base.EnvVar && !creating) {
		c.EnvVar = envVarFor(c.PrimaryProvider)
	}
	if err := Validate(c); err != nil {
		return native.AgentConfig{}, err
	}
	return c, nil
}

func (s *Service) storeConfig(r *row, c native.AgentConfig) error {
	b, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("encode config: %w", err)
	}
	r.config.String, r.config.Valid = string(b), true
	r.provider, r.model = c.PrimaryProvider, c.PrimaryModel
	return nil
}

// IsInvalid reports a caller's mistake (HTTP 400).
func IsInvalid(err error) bool { return errors.Is(err, ErrInvalid) }

// PlacedOn names the agents placed on a host, by name.
func (s *Service) PlacedOn(ctx context.Context, hostID string) ([]string, error) {
	names, err := s.opts.Store.Strings(ctx, `SELECT name FROM agents WHERE host_id = ? ORDER BY name`, hostID)
	if err != nil {
		return nil, fmt.Errorf("agents on a host: %w", err)
	}
	return names, nil
}
