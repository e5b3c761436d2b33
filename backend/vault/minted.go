package vault

import (
	"context"
	"fmt"
)

// Minted reads the secret name (a token Clawboo itself makes, such as the
// MCP attach token), making it with mint and storing it the first time.
// Every process that needs it calls Minted, so whichever runs first makes
// it and the others find it. A secret that is stored but cannot be read (a
// locked keychain, a wrong master key) is an error, never replaced: a new
// value would cut off everyone holding the old one. A stored value shorter
// than 32 characters was not minted here and is replaced.
func (v *Vault) Minted(ctx context.Context, name string, mint func() (string, error)) (string, error) {
	if s, ok := v.Get(ctx, name); ok && len(s) >= 32 {
		return s, nil
	} else if !ok && v.Has(name) {
		return "", fmt.Errorf("%s is stored in the vault (%s) but could not be read", name, v.Status().Backend)
	}
	s, err := mint()
	if err != nil {
		return "", err
	}
	if err := v.Set(ctx, name, s); err != nil {
		return "", fmt.Errorf("store %s: %w", name, err)
	}
	return s, nil
}
