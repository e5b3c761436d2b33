package redact

import "testing"

func TestSecrets(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Authorization: Bearer abcdefghijklmnop123": "Authorization: Bearer [REDACTED]",
		"AKIAABCDEFGHIJKLMNOP":                      "[REDACTED]",
		"ghp_abcdefghijklmnopqrstuvwxyz0123":        "[REDACTED]",
		`"password": "hunter22"`:                    `"password": "[REDACTED]"`,
		"--- PASS: TestTokenRefresh (0.00s)":        "--- PASS: TestTokenRefresh (0.00s)",
		"commit 3ef5b36a0c":                         "commit 3ef5b36a0c",
	} {
		if got := Secrets(in); got != want {
			t.Errorf("Secrets(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestValuesHidesKnownSecretsWhole(t *testing.T) {
	h := Values(map[string]string{"A": "short-value-1", "B": "short-value-1-and-more", "C": "xy"})
	got := h.Hide("a=short-value-1 b=short-value-1-and-more c=xy")
	if want := "a=[secret A] b=[secret B] c=xy"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	var none *Hider
	if none.Hide("short-value-1") != "short-value-1" || Values(nil) != nil {
		t.Fatal("a nil hider hides nothing")
	}
}

func TestHideJSONKeepsTheDocumentValid(t *testing.T) {
	h := Values(map[string]string{"K": `va"l\ue`})
	in := []byte(`{"a":"x va\"l\\ue y","n":1.50,"l":["va\"l\\ue"]}`)
	out := string(h.HideJSON(in))
	if want := `{"a":"x [secret K] y","l":["[secret K]"],"n":1.50}`; out != want {
		t.Fatalf("got %s, want %s", out, want)
	}
	if got := string(h.HideJSON([]byte(`not json va"l\ue`))); got != `"not json [secret K]"` {
		t.Fatalf("non-JSON: %s", got)
	}
}
