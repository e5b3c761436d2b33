package runtimes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/executor"
)

// HealthResult is the answer to a provider key check.
type HealthResult struct {
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

// HealthCheck verifies a provider key with one authenticated GET to the
// provider's models endpoint (seed 002 step 5), bounded by the health
// timeout, following no redirects. The key is the pasted one, else the one
// already stored; it is used for this request only: never stored, logged or
// echoed. Only the native runtime has provider keys to check.
func (c *Catalog) HealthCheck(ctx context.Context, id executor.ID, provider, apiKey string) (HealthResult, error) {
	return c.HealthCheckAt(ctx, id, provider, apiKey, "")
}

// HealthCheckAt is HealthCheck against a candidate address of a keyless
// provider (Ollama), so an address is checked before it is saved; "" is
// the configured one. A keyed provider's address is never chosen here.
func (c *Catalog) HealthCheckAt(ctx context.Context, id executor.ID, provider, apiKey, baseURL string) (HealthResult, error) {
	if _, ok := c.Descriptor(id); !ok {
		return HealthResult{}, ErrUnknownRuntime
	}
	if id != executor.Native {
		return HealthResult{}, badRequest("health checks are only for clawboo-native keys")
	}
	p, ok := config.ProviderByID(provider)
	if !ok {
		return HealthResult{}, badRequest("unknown provider '%s'", provider)
	}
	apiKey = strings.TrimSpace(apiKey)
	if apiKey == "" && !p.Keyless() && c.opts.Vault != nil {
		apiKey, _ = c.opts.Vault.Resolve(ctx, string(id), p.EnvVar)
	}
	if apiKey == "" && !p.Keyless() {
		return HealthResult{}, badRequest("apiKey is required")
	}
	getenv := c.opts.Getenv
	if strings.TrimSpace(baseURL) != "" {
		if !p.Keyless() {
			return HealthResult{}, badRequest("baseUrl is only for a keyless provider (Ollama)")
		}
		u, err := CheckOllamaURL(baseURL)
		if err != nil {
			return HealthResult{}, err
		}
		getenv = func(name string) string {
			if name == p.BaseURLEnv {
				return u
			}
			return c.opts.Getenv(name)
		}
	}
	req, err := probeRequest(ctx, p, getenv, apiKey)
	if err != nil {
		return HealthResult{OK: false, Error: "Could not reach " + p.Name + "."}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.HealthTimeout)
	defer cancel()
	resp, err := c.opts.HTTP.Do(req.WithContext(ctx))
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return HealthResult{OK: false, Error: "Could not reach " + p.Name + " (timed out)."}, nil
		}
		return HealthResult{OK: false, Error: "Could not reach " + p.Name + "."}, nil
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return HealthResult{OK: true}, nil
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return HealthResult{OK: false, Error: "Invalid API key."}, nil
	default:
		return HealthResult{OK: false, Error: fmt.Sprintf("Provider returned %d.", resp.StatusCode)}, nil
	}
}

// probeRequest is the provider's lightweight authenticated endpoint:
// Anthropic /v1/models with x-api-key, Ollama /api/tags (keyless), and
// /models with a bearer token for the OpenAI-compatible rest.
func probeRequest(ctx context.Context, p config.Provider, getenv func(string) string, key string) (*http.Request, error) {
	base := p.Base(getenv)
	var url string
	switch {
	case p.ID == "anthropic":
		url = strings.TrimSuffix(base, "/v1") + "/v1/models"
	case p.Keyless():
		url = strings.TrimSuffix(base, "/v1") + "/api/tags"
	default:
		url = base + "/models"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	switch {
	case p.ID == "anthropic":
		req.Header.Set("x-api-key", key)
		req.Header.Set("anthropic-version", "2023-06-01")
	case !p.Keyless():
		req.Header.Set("Authorization", "Bearer "+key)
	}
	return req, nil
}
