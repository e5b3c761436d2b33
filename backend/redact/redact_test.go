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
