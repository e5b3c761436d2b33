package vault

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
)

const disconnectedFile = "disconnected-runtimes.json"

// Resolve finds the key a run of runtimeID should get for name: the
// process environment (trimmed, non-empty), then the vault, then
// OpenClaw's .env. A disconnected runtime gets the vault only, so an
// ambient key cannot re-credential what the user disconnected.
func (v *Vault) Resolve(ctx context.Context, runtimeID, name string) (string, Source) {
	if validName(name) != nil {
		return "", SourceNone
	}
	full := !v.Disconnected(runtimeID)
	if full {
		if s := strings.TrimSpace(v.getenv(name)); s != "" {
			return s, SourceEnv
		}
	}
	if s, ok := v.Get(ctx, name); ok {
		return s, SourceVault
	}
	if full {
		if s, ok := v.openclaw.lookup(name); ok {
			return s, SourceOpenClaw
		}
	}
	return "", SourceNone
}

// Presence answers Resolve's question without decrypting, calling the
// keychain or reading a value: for listings, in microseconds.
func (v *Vault) Presence(runtimeID, name string) Source {
	if validName(name) != nil {
		return SourceNone
	}
	full := !v.Disconnected(runtimeID)
	switch {
	case full && strings.TrimSpace(v.getenv(name)) != "":
		return SourceEnv
	case v.Has(name):
		return SourceVault
	case full && v.openclaw.has(name):
		return SourceOpenClaw
	}
	return SourceNone
}

// Disconnected reports the user's per-runtime disconnect override.
func (v *Vault) Disconnected(runtimeID string) bool {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.disc[runtimeID]
}

// SetDisconnected records (on) or clears the disconnect override for
// runtimeID in disconnected-runtimes.json ({"<runtimeId>": true}); Connect
// clears it so the full chain applies again.
func (v *Vault) SetDisconnected(runtimeID string, on bool) error {
	if strings.TrimSpace(runtimeID) == "" {
		return invalidError("a runtime id is required")
	}
	v.discMu.Lock()
	defer v.discMu.Unlock()
	v.mu.RLock()
	next := maps.Clone(v.disc)
	v.mu.RUnlock()
	if next[runtimeID] == on {
		return nil
	}
	if on {
		next[runtimeID] = true
	} else {
		delete(next, runtimeID)
	}
	data, err := json.MarshalIndent(next, "", "  ")
	if err != nil {
		return err
	}
	if err := writeAtomic(v.path(disconnectedFile), append(data, '\n')); err != nil {
		return err
	}
	v.mu.Lock()
	v.disc = next
	v.mu.Unlock()
	v.changed()
	return nil
}

// loadDisconnected reads the override file; an unreadable one is empty
// (logged), since refusing to start would be worse than re-connecting.
func (v *Vault) loadDisconnected() map[string]bool {
	out := map[string]bool{}
	data, _, err := readSmall(v.path(disconnectedFile))
	if err != nil || data == nil {
		if err != nil {
			v.log.Warn("vault: ignoring an unreadable disconnect list", "err", err)
		}
		return out
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		v.log.Warn("vault: ignoring an unreadable disconnect list", "err", err)
		return out
	}
	for id, on := range raw {
		if on == true {
			out[id] = true
		}
	}
	return out
}
