package agents

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/clawboo/desktop/backend/adapters/native"
	"github.com/clawboo/desktop/backend/config"
)

// DefaultModel is the model an agent on provider gets when none is named
// (config's provider table; "" for an unknown provider).
func DefaultModel(provider string) string {
	p, _ := config.ProviderByID(provider)
	return p.DefaultModel
}

// envVarFor is the key slot of a known provider ("" for keyless Ollama or
// an unknown provider).
func envVarFor(provider string) string {
	p, _ := config.ProviderByID(provider)
	return p.EnvVar
}

// ValidationError lists every problem of a config, by field, without
// echoing values (a key pasted into the wrong field must not come back).
type ValidationError struct{ Problems []string }

func (e *ValidationError) Error() string { return "invalid config: " + strings.Join(e.Problems, "; ") }

// Is makes a ValidationError match ErrInvalid.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalid }

// Validate checks c against the seed's schema (native.AgentConfig's
// Problems: the one rule set, which the adapter applies too). An unknown
// provider id is allowed (the schema accepts any string) and reported by
// Warnings.
func Validate(c native.AgentConfig) error {
	if p := c.Problems(); p != nil {
		return &ValidationError{Problems: p}
	}
	return nil
}

// Warnings flags what the schema allows but routing will refuse: a
// provider id outside KNOWN_PROVIDERS.
func Warnings(c native.AgentConfig) []string {
	var out []string
	if _, ok := config.ProviderByID(c.PrimaryProvider); !ok && c.PrimaryProvider != "" {
		out = append(out, fmt.Sprintf("unknown provider '%s': runs will fail to route until it is one of the known providers", c.PrimaryProvider))
	}
	for i, f := range c.Fallbacks {
		if _, ok := config.ProviderByID(f.Provider); !ok && f.Provider != "" {
			out = append(out, fmt.Sprintf("fallbacks[%d]: unknown provider '%s' is skipped when routing", i, f.Provider))
		}
	}
	return out
}

// decodeOnto decodes a JSON object over base, so absent fields keep base's
// values. strict refuses unknown fields (API input); stored values are
// read leniently so a newer build's extra fields do not void them.
func decodeOnto(base native.AgentConfig, raw []byte, strict bool) (native.AgentConfig, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if strict {
		dec.DisallowUnknownFields()
	}
	c := base
	// Slices and the optional switch are replaced, never merged element
	// by element.
	c.Fallbacks = append([]native.Fallback(nil), base.Fallbacks...)
	c.Tools.Custom = append([]string(nil), base.Tools.Custom...)
	if err := dec.Decode(&c); err != nil {
		return native.AgentConfig{}, fmt.Errorf("%w: config: %s", ErrInvalid, jsonProblem(err))
	}
	if dec.More() {
		return native.AgentConfig{}, fmt.Errorf("%w: config: unexpected data after the object", ErrInvalid)
	}
	return c, nil
}

// jsonProblem describes a decoding error by position and field, never by
// the offending value.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		return fmt.Sprintf("%s must be a %s", te.Field, te.Type)
	case errors.As(err, &se):
		return fmt.Sprintf("malformed JSON at byte %d", se.Offset)
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		return strings.TrimPrefix(err.Error(), "json: ")
	case strings.Contains(err.Error(), "tools.tasks"):
		return `tools.tasks must be true, false or "read"`
	}
	return "must be a JSON object matching the agent config"
}

// ParseStored reads a stored config and validates it; any problem is an
// error (the caller falls back to the default).
func ParseStored(raw []byte) (native.AgentConfig, error) {
	c, err := decodeOnto(native.DefaultConfig(), raw, false)
	if err != nil {
		return native.AgentConfig{}, err
	}
	if err := Validate(c); err != nil {
		return native.AgentConfig{}, err
	}
	return c, nil
}
