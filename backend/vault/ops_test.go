package vault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestSetValidation(t *testing.T) {
	const secret = "sk-ECHO-CHECK-123"
	cases := []struct {
		name, key, secret, want string
	}{
		{"lower-case name", "anthropic_api_key", secret, "invalid key name"},
		{"leading digit", "1KEY", secret, "invalid key name"},
		{"dash", "MY-KEY", secret, "invalid key name"},
		{"empty name", "", secret, "invalid key name"},
		{"65 characters", "A" + strings.Repeat("B", 64), secret, "invalid key name"},
		{"secret pasted as name", "sk-ECHO-CHECK-123", secret, "invalid key name"},
		{"empty secret", "OPENAI_API_KEY", "", "the key is empty"},
		{"blank secret", "OPENAI_API_KEY", " \t\n ", "the key is empty"},
		{"inner newline", "OPENAI_API_KEY", "sk-a\nsk-b", "control character"},
		{"NUL", "OPENAI_API_KEY", "sk-a\x00b", "control character"},
		{"escape", "OPENAI_API_KEY", "sk-\x1b[31m", "control character"},
		{"DEL", "OPENAI_API_KEY", "sk-\x7f", "control character"},
		{"invalid UTF-8", "OPENAI_API_KEY", "sk-\xff\xfe", "not valid UTF-8"},
		{"over 8 KiB", "OPENAI_API_KEY", strings.Repeat("k", MaxSecretSize+1), "longer than 8 KiB"},
	}
	v, _ := fileVault(t, nil)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := v.Set(t.Context(), tc.key, tc.secret)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "ECHO-CHECK") || (len(tc.secret) > 3 && strings.Contains(err.Error(), tc.secret)) {
				t.Fatal("the error echoes the input")
			}
		})
	}
	// Accepted edges: 64-character name, exactly 8 KiB, surrounding
	// whitespace trimmed (a pasted key often ends in a newline).
	ok := []struct{ key, secret, stored string }{
		{"A" + strings.Repeat("_", 63), "x", "x"},
		{"OPENAI_API_KEY", strings.Repeat("k", MaxSecretSize), strings.Repeat("k", MaxSecretSize)},
		{"GROQ_API_KEY", "  gsk-pasted\n", "gsk-pasted"},
		{"XAI_API_KEY", "ключ-ünicode", "ключ-ünicode"},
	}
	for _, tc := range ok {
		mustSet(t, v, tc.key, tc.secret)
		if s, found := get(v, tc.key); !found || s != tc.stored {
			t.Fatalf("%s: stored %q", tc.key, s)
		}
	}
}

// echoKeyring is a keychain whose errors quote the password.
type echoKeyring struct{ *fakeKeyring }

func (e echoKeyring) Set(service, user, password string) error {
	if strings.HasPrefix(user, "clawboo-probe-") {
		return e.fakeKeyring.Set(service, user, password)
	}
	return fmt.Errorf("cannot store %q", password)
}

func TestSecretsNeverInErrorsOrLogs(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	v := openVault(t, t.TempDir(), nil, Options{Keyring: echoKeyring{newFakeKeyring()}, Log: log})
	waitDecided(t, v, time.Second)
	err := v.Set(t.Context(), "OPENAI_API_KEY", sentinel)
	if err == nil || strings.Contains(err.Error(), sentinel) || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Fatalf("error %v", err)
	}
	// File vault: wrong-key and tamper warnings name the slot only.
	home := t.TempDir()
	f1 := openVault(t, home, env{EnvMasterKey: strings.Repeat("a", 32)}, Options{ForceFile: true, Log: log})
	mustSet(t, f1, "GROQ_API_KEY", sentinel)
	f2 := openVault(t, home, env{EnvMasterKey: strings.Repeat("b", 32)}, Options{ForceFile: true, Log: log})
	_, _ = f2.Resolve(t.Context(), "x", "GROQ_API_KEY")
	if strings.Contains(logs.String(), sentinel) || strings.Contains(logs.String(), strings.Repeat("a", 32)) {
		t.Fatalf("a secret reached the log:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "GROQ_API_KEY") {
		t.Fatalf("the failed read was not logged by slot:\n%s", logs.String())
	}
}

func TestConcurrentSetGetDelete(t *testing.T) {
	backends := []struct {
		name string
		opts func() Options
	}{
		{"file", func() Options { return Options{ForceFile: true} }},
		{"keychain", func() Options { return Options{Keyring: newFakeKeyring()} }},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			v := openVault(t, t.TempDir(), nil, b.opts())
			names := []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GROQ_API_KEY"}
			var wg sync.WaitGroup
			errs := make(chan error, 64)
			for w := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ctx := context.Background()
					for i := range 25 {
						name := names[(w+i)%len(names)]
						val := fmt.Sprintf("sk-%s-%d-%d", name, w, i)
						switch i % 4 {
						case 0, 1:
							if err := v.Set(ctx, name, val); err != nil {
								errs <- err
							}
						case 2:
							if s, ok := v.Get(ctx, name); ok && !strings.HasPrefix(s, "sk-"+name+"-") {
								errs <- fmt.Errorf("%s read a value of another slot", name)
							}
						case 3:
							if err := v.Delete(ctx, name); err != nil {
								errs <- err
							}
						}
						_ = v.Has(name)
						_ = v.Presence("codex", name)
						if i%10 == 0 {
							_ = v.SetDisconnected("codex", w%2 == 0)
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			// The final state is consistent: Has agrees with Get.
			for _, n := range names {
				_, ok := get(v, n)
				if ok != v.Has(n) {
					t.Errorf("%s: Get %v but Has %v", n, ok, v.Has(n))
				}
			}
		})
	}
}

func TestClosedVault(t *testing.T) {
	kr := newFakeKeyring()
	kr.startHang(t)
	v := openVault(t, t.TempDir(), nil, Options{Keyring: kr, ProbeTimeout: time.Minute})
	start := time.Now()
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > time.Second {
		t.Fatal("Close waited on a hung keychain")
	}
	if err := v.Set(t.Context(), "OPENAI_API_KEY", "x"); !errors.Is(err, ErrClosed) {
		t.Fatalf("Set after Close: %v", err)
	}
	if _, ok := get(v, "OPENAI_API_KEY"); ok {
		t.Fatal("Get after Close")
	}
}
