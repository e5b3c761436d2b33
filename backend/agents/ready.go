package agents

import (
	"context"
	"errors"
	"fmt"

	"github.com/clawboo/desktop/backend/adapters/native"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/store"
)

// SettingDefaultProvider is the settings key of the user's default native
// provider.
const SettingDefaultProvider = "native-default-provider"

// slotOf is where a provider counts as connected: a keyed one by its key
// variable, a keyless Ollama by its base URL (OLLAMA_BASE_URL, or the
// address saved in the ollama-base-url setting, which the composition root
// feeds in as that variable's fallback).
func slotOf(p config.Provider) string {
	if p.Keyless() {
		return p.BaseURLEnv
	}
	return p.EnvVar
}

// connected reports a provider whose slot resolves for the native runtime.
func (s *Service) connected(p config.Provider) bool {
	return s.present(slotOf(p))
}

func (s *Service) present(slot string) bool {
	return s.opts.Vault != nil && slot != "" && s.opts.Vault.Presence(Native, slot) != ""
}

// DefaultProvider is the user's recorded default native provider ("" when
// none is recorded).
func (s *Service) DefaultProvider(ctx context.Context) (string, error) {
	v, err := s.opts.Store.GetSetting(ctx, SettingDefaultProvider)
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return v, nil
}

// SetDefaultProvider records the default native provider; "" clears it.
// Only KNOWN_PROVIDERS ids are accepted.
func (s *Service) SetDefaultProvider(ctx context.Context, provider string) error {
	if provider == "" {
		return s.opts.Store.DeleteSetting(ctx, SettingDefaultProvider)
	}
	if _, ok := config.ProviderByID(provider); !ok {
		return invalid("unknown provider '%s'", provider)
	}
	return s.opts.Store.PutSetting(ctx, SettingDefaultProvider, provider, s.opts.Now().UnixMilli())
}

// PickProvider is the provider a new native agent gets when it names
// none: the user's default, else the first connected provider in
// KNOWN_PROVIDERS order, else Anthropic (the default config's).
func (s *Service) PickProvider(ctx context.Context) (string, error) {
	def, err := s.DefaultProvider(ctx)
	if err != nil {
		return "", fmt.Errorf("read the default provider: %w", err)
	}
	if _, ok := config.ProviderByID(def); ok {
		return def, nil
	}
	for _, p := range config.Providers {
		if s.connected(p) {
			return p.ID, nil
		}
	}
	return native.DefaultConfig().PrimaryProvider, nil
}

// ready is providerReady (seed 004). A native agent is ready when its
// primary key resolves (its envVar, else the provider's slot), or any
// fallback's does, or a candidate is Ollama with its base URL set or
// recorded. Another runtime's agent is ready when its runtime is; states
// caches those answers for one listing.
func (s *Service) ready(ctx context.Context, a Agent, states map[string]bool) bool {
	if a.Runtime != Native {
		ok, seen := states[a.Runtime]
		if !seen {
			ok = s.opts.RuntimeReady != nil && s.opts.RuntimeReady(ctx, a.Runtime)
			states[a.Runtime] = ok
		}
		return ok
	}
	c := a.Config
	if c == nil {
		d := native.DefaultConfig()
		c = &d
	}
	if p, ok := config.ProviderByID(c.PrimaryProvider); ok && p.Keyless() {
		if s.connected(p) {
			return true
		}
	} else if slot := c.EnvVar; slot != "" && s.present(slot) {
		return true
	} else if ok && s.present(p.EnvVar) {
		return true
	}
	for _, f := range c.Fallbacks {
		if p, ok := config.ProviderByID(f.Provider); ok && s.connected(p) {
			return true
		}
	}
	return false
}

// ProviderConnected reports whether a provider of config's table has its
// key (or, for Ollama, its address) where the native runtime finds it.
func (s *Service) ProviderConnected(id string) bool {
	p, ok := config.ProviderByID(id)
	return ok && s.connected(p)
}
