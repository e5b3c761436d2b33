package native

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func newJail(t *testing.T) (*fileTools, string, string) {
	t.Helper()
	base := t.TempDir()
	root, outside := filepath.Join(base, "work"), filepath.Join(base, "outside")
	for _, d := range []string{root, outside, filepath.Join(root, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("top secret"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "in.txt"), []byte("inside"), 0o644))
	must(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "link-out")))
	must(t, os.Symlink(outside, filepath.Join(root, "dir-out")))
	must(t, os.Symlink("in.txt", filepath.Join(root, "sub", "..", "link-in")))
	f, err := openFileTools(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.close)
	return f, root, outside
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func call(f *fileTools, name string, args map[string]string) (string, bool) {
	b, _ := json.Marshal(args)
	out, isErr, _ := f.call(name, b)
	return out, isErr
}

func TestFileToolsRefuseEveryEscape(t *testing.T) {
	f, _, outside := newJail(t)
	escapes := []struct {
		name string
		args map[string]string
	}{
		{"read_file", map[string]string{"path": filepath.Join(outside, "secret.txt")}},
		{"read_file", map[string]string{"path": "/etc/passwd"}},
		{"read_file", map[string]string{"path": "../outside/secret.txt"}},
		{"read_file", map[string]string{"path": "sub/../../outside/secret.txt"}},
		{"read_file", map[string]string{"path": "link-out"}},
		{"read_file", map[string]string{"path": "dir-out/secret.txt"}},
		{"list_files", map[string]string{"path": "dir-out"}},
		{"list_files", map[string]string{"path": ".."}},
		{"list_files", map[string]string{"path": "/"}},
		{"write_file", map[string]string{"path": "../outside/new.txt", "content": "x"}},
		{"write_file", map[string]string{"path": "dir-out/new.txt", "content": "x"}},
		{"write_file", map[string]string{"path": "dir-out/deep/new.txt", "content": "x"}},
		{"write_file", map[string]string{"path": "link-out", "content": "overwritten"}},
		{"write_file", map[string]string{"path": filepath.Join(outside, "abs.txt"), "content": "x"}},
	}
	for _, tc := range escapes {
		out, isErr := call(f, tc.name, tc.args)
		if !isErr || strings.Contains(out, "top secret") {
			t.Errorf("%s %v: not refused: %q", tc.name, tc.args, out)
		}
	}
	ents, _ := os.ReadDir(outside)
	if len(ents) != 1 {
		t.Fatalf("something was written outside: %v", ents)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(b) != "top secret" {
		t.Fatal("a file outside was overwritten")
	}
}

func TestFileToolsWorkInside(t *testing.T) {
	f, root, _ := newJail(t)
	if out, isErr := call(f, "write_file", map[string]string{"path": "a/b/c.txt", "content": "deep"}); isErr {
		t.Fatal(out)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a", "b", "c.txt")); string(b) != "deep" {
		t.Fatal("write_file did not create folders")
	}
	if out, _ := call(f, "read_file", map[string]string{"path": "./sub/../a/b/c.txt"}); out != "deep" {
		t.Fatalf("read %q", out)
	}
	if out, _ := call(f, "read_file", map[string]string{"path": "link-in"}); out != "inside" {
		t.Fatalf("a symlink inside the folder should read: %q", out)
	}
	out, isErr := call(f, "list_files", map[string]string{})
	if isErr || out != "dir a\nfile dir-out\nfile in.txt\nfile link-in\nfile link-out\ndir sub" {
		t.Fatalf("list %q", out)
	}
	if out, isErr := call(f, "read_file", map[string]string{"path": "missing.txt"}); !isErr || !strings.Contains(out, "no such") {
		t.Fatalf("missing: %q", out)
	}
	if out, isErr := call(f, "read_file", map[string]string{"path": "sub"}); !isErr || !strings.Contains(out, "folder") {
		t.Fatalf("folder: %q", out)
	}
	if _, isErr := call(f, "write_file", map[string]string{"path": "x.txt"}); !isErr {
		t.Fatal("write without content")
	}
}

func TestFileToolsCaps(t *testing.T) {
	f, root, _ := newJail(t)
	must(t, os.WriteFile(filepath.Join(root, "big.txt"), []byte(strings.Repeat("a", ReadCap+100)), 0o644))
	out, isErr := call(f, "read_file", map[string]string{"path": "big.txt"})
	if isErr || !strings.HasSuffix(out, "…[truncated at 65536 bytes]") || !strings.HasPrefix(out, strings.Repeat("a", ReadCap)+"\n") {
		t.Fatalf("read cap: %d bytes", len(out))
	}
	if out, isErr := call(f, "write_file", map[string]string{"path": "huge.txt", "content": strings.Repeat("b", WriteCap+1)}); !isErr || !strings.Contains(out, "limit") {
		t.Fatalf("write cap: %q", out)
	}
	if _, err := os.Stat(filepath.Join(root, "huge.txt")); err == nil {
		t.Fatal("an oversized write landed")
	}
}

// write_file never touches git's metadata: not the worktree's .git link
// (whatever its spelling), not a .git folder anywhere, not through a link.
func TestWriteFileRefusesGitMetadata(t *testing.T) {
	f, root, _ := newJail(t)
	link := "gitdir: /repo/.git/worktrees/t\n"
	must(t, os.WriteFile(filepath.Join(root, ".git"), []byte(link), 0o644))
	must(t, os.Symlink(".git", filepath.Join(root, "notes")))
	for _, p := range []string{".git", ".GIT", ".git.", "evil/.git/config", "sub/.git/HEAD", "notes"} {
		out, isErr := call(f, "write_file", map[string]string{"path": p, "content": "gitdir: evil\n"})
		if !isErr || !strings.Contains(out, "git metadata") {
			t.Errorf("write_file %q = %q, %v; want a refusal naming git metadata", p, out, isErr)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(root, ".git")); string(b) != link {
		t.Fatalf(".git rewritten: %q", b)
	}
	if out, isErr := call(f, "write_file", map[string]string{"path": ".gitignore", "content": "x\n"}); isErr {
		t.Fatalf(".gitignore is an ordinary file: %s", out)
	}
}
