package executor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteContextFile(t *testing.T) {
	dir := t.TempDir()
	if err := WriteContextFile(dir, "handoff", "notes"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ".clawboo", "context", "handoff.md"))
	if err != nil || string(b) != "notes" {
		t.Fatalf("%q %v", b, err)
	}
	if err := WriteContextFile("", "k", "v"); err != nil {
		t.Fatal("no working folder keeps nothing, quietly")
	}
	for _, bad := range []string{"", "..", "../x", "a/b", strings.Repeat("k", 65)} {
		if WriteContextFile(dir, bad, "v") == nil {
			t.Errorf("key %q accepted", bad)
		}
	}
	if WriteContextFile(dir, "big", strings.Repeat("x", MaxContextValue+1)) == nil {
		t.Error("oversized value accepted")
	}
}
