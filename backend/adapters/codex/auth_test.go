package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAuthUsable(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct {
		body string
		want bool
	}{
		"login":     {`{"tokens":{"id_token":"x"}}`, true},
		"key":       {`{"OPENAI_API_KEY":"sk-x"}`, true},
		"empty key": {`{"OPENAI_API_KEY":"","tokens":null}`, false},
		"no tokens": {`{"tokens":{}}`, false},
		"garbage":   {`{not json`, false},
		"huge":      {`{"OPENAI_API_KEY":"` + strings.Repeat("k", 1<<20) + `"}`, false},
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".json")
		if err := os.WriteFile(p, []byte(c.body), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := AuthUsable(p); got != c.want {
			t.Errorf("%s: %v", name, got)
		}
	}
	if AuthUsable(filepath.Join(dir, "missing.json")) {
		t.Error("a missing file is not a login")
	}
}
