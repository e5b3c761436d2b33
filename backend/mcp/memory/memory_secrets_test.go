package memory

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"
)

func TestMemoryScrubsSecretsEverywhere(t *testing.T) {
	const sentinel = "sk-ant-SENTINEL-0123456789abcdefXYZ"
	api := newFakeEmbedAPI(t, "")
	h, st := newMemoryHub(t, Options{Embedder: NewOllamaEmbedder(api.URL, "nomic-embed-text")})
	s := memSession(t, h, toolcall.Binding{TeamID: "team-a", AgentID: "alice"})

	saved := mustSave(t, s, map[string]any{
		"title":   "Deploy key " + sentinel,
		"content": "The deploy key is " + sentinel + "; rotate it monthly. password=hunter2hunter2",
		"tags":    []any{"keys", "tag-" + sentinel},
	})
	if !saved.Redacted || strings.Contains(saved.Title, sentinel) {
		t.Fatalf("%+v", saved)
	}
	proc := mustSave(t, s, map[string]any{"procedureName": "rotate " + sentinel, "content": "export KEY=" + sentinel + " then restart"})
	if strings.Contains(proc.ProcedureName, sentinel) {
		t.Fatalf("%+v", proc)
	}

	// Content that is only a secret is refused, whatever surrounds it.
	for _, content := range []string{sentinel, "  " + sentinel + "\n", "`" + sentinel + "`;"} {
		a := memCall(t, s, "memory_save", map[string]any{"title": "just a key", "content": content})
		if !a.isError || a.denied != "secret_content" || strings.Contains(a.text, sentinel) {
			t.Fatalf("%q: %s (denied %q)", content, a.text, a.denied)
		}
	}

	// No answer carries it, even to a query that contains it.
	var answers []string
	for _, mode := range []string{"fts", "vector", "hybrid"} {
		a := memCall(t, s, "memory_search", map[string]any{"query": "deploy key " + sentinel, "mode": mode})
		if len(a.Results) == 0 {
			t.Fatalf("%s found nothing: %s", mode, a.text)
		}
		answers = append(answers, a.text)
	}
	b := memCall(t, s, "memory_browse", nil)
	answers = append(answers, b.text)
	for _, text := range answers {
		if strings.Contains(text, sentinel) || strings.Contains(text, "hunter2hunter2") {
			t.Fatalf("an answer carries the secret: %s", text)
		}
	}
	if !strings.Contains(b.text, "[REDACTED]") {
		t.Fatalf("browse: %s", b.text)
	}

	// Nor the provider, nor any byte of the database files.
	if strings.Contains(api.bodies(), sentinel) || api.calls.Load() == 0 {
		t.Fatalf("the embedding provider saw the secret (or was not called): %s", api.bodies())
	}
	files, _ := filepath.Glob(st.Path() + "*")
	if len(files) == 0 {
		t.Fatal("no database files")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{sentinel, "SENTINEL", "hunter2hunter2"} {
			if bytes.Contains(data, []byte(secret)) {
				t.Fatalf("%s contains %q", filepath.Base(f), secret)
			}
		}
	}
}
