package vault

import (
	"errors"
	"strings"
	"testing"
)

// A task secret is its own namespace: naming a provider key's variable
// reads the task slot, never the provider key, and the provider-key
// resolution never hands out a task secret.
func TestTaskSecretsAreTheirOwnNamespace(t *testing.T) {
	for _, kc := range []bool{false, true} {
		name := "file"
		if kc {
			name = "keychain"
		}
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			var v *Vault
			if kc {
				kr := newFakeKeyring()
				v = openVault(t, t.TempDir(), nil, Options{Keyring: kr})
				waitDecided(t, v, 5e9)
				if v.Status().Backend != BackendKeychain {
					t.Fatalf("backend %v", v.Status())
				}
			} else {
				v, _ = fileVault(t, nil)
			}
			if err := v.Set(ctx, "ANTHROPIC_API_KEY", "sk-ant-PROVIDER-1"); err != nil {
				t.Fatal(err)
			}
			if _, ok := v.TaskSecret(ctx, "ANTHROPIC_API_KEY"); ok {
				t.Fatal("a task secret named like a provider key read the provider key")
			}
			if err := v.SetTaskSecret(ctx, "STRIPE_TEST_KEY", "  rk_test_VALUE-2\n"); err != nil {
				t.Fatal(err)
			}
			if err := v.SetTaskSecret(ctx, "ANTHROPIC_API_KEY", "task-own-3"); err != nil {
				t.Fatal(err)
			}
			if got, ok := v.TaskSecret(ctx, "STRIPE_TEST_KEY"); !ok || got != "rk_test_VALUE-2" {
				t.Fatalf("task secret %q %v", got, ok)
			}
			if got, src := v.Resolve(ctx, "claude-code", "ANTHROPIC_API_KEY"); got != "sk-ant-PROVIDER-1" || src != SourceVault {
				t.Fatalf("provider key after a same-named task secret: %q %v", got, src)
			}
			if got := strings.Join(v.TaskSecretNames(), ","); got != "ANTHROPIC_API_KEY,STRIPE_TEST_KEY" {
				t.Fatalf("names %q", got)
			}
			if !v.HasTaskSecret("STRIPE_TEST_KEY") || v.HasTaskSecret("NOPE") {
				t.Fatal("HasTaskSecret")
			}
			if err := v.DeleteTaskSecret(ctx, "STRIPE_TEST_KEY"); err != nil {
				t.Fatal(err)
			}
			if _, ok := v.TaskSecret(ctx, "STRIPE_TEST_KEY"); ok || strings.Join(v.TaskSecretNames(), ",") != "ANTHROPIC_API_KEY" {
				t.Fatalf("after delete: %v", v.TaskSecretNames())
			}
			if _, ok := v.Get(ctx, "ANTHROPIC_API_KEY"); !ok {
				t.Fatal("deleting a task secret touched the provider key")
			}
		})
	}
}

func TestTaskSecretValidation(t *testing.T) {
	v, _ := fileVault(t, nil)
	for _, tc := range []struct{ name, value, want string }{
		{"lower", "x", "environment variable name"},
		{"A" + strings.Repeat("B", MaxTaskSecretName), "x", "at most 58"},
		{"rk_test_PASTED", "x", "environment variable name"},
		{"OK_NAME", "", "OK_NAME: the value is empty"},
		{"OK_NAME", "ab\ncd", "OK_NAME: the value contains a line break"},
		{"OK_NAME", " abc ", "OK_NAME: the value is shorter than 4"},
	} {
		err := v.SetTaskSecret(t.Context(), tc.name, tc.value)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), taskSecretPrefix) {
			t.Errorf("%q: %v, want %q", tc.name, err, tc.want)
		}
	}
	if len(v.TaskSecretNames()) != 0 {
		t.Fatal("a refused secret was stored")
	}
}
