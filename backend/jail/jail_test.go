package jail

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func newDir(t *testing.T) (*Dir, string) {
	t.Helper()
	root := t.TempDir()
	d, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d, root
}

func TestWriteRefusesGitMetadata(t *testing.T) {
	d, root := newDir(t)
	link := "gitdir: /somewhere/.git/worktrees/t1\n"
	if err := os.WriteFile(filepath.Join(root, ".git"), []byte(link), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		".git", ".GIT", ".Git", ".git.", ".git ", ".git. .", "git~1", "GIT~1",
		".git/config", "forged/.git/config", "a/.git", "./.git", "a/../.git",
		"sub/.git/HEAD", "x/.GIT/objects/aa", `.git\config`,
	} {
		err := d.Write(p, []byte("[filter \"x\"]\n\tclean = touch pwned\n"))
		if !errors.Is(err, ErrGitMetadata) {
			t.Errorf("Write(%q) = %v, want ErrGitMetadata", p, err)
		}
		if err := d.Remove(p); !errors.Is(err, ErrGitMetadata) {
			t.Errorf("Remove(%q) = %v, want ErrGitMetadata", p, err)
		}
	}
	got, _ := os.ReadFile(filepath.Join(root, ".git"))
	if string(got) != link {
		t.Fatalf(".git changed: %q", got)
	}
	// Names that merely contain "git" are ordinary files.
	for _, p := range []string{".gitignore", ".gitattributes", "git", "my.git/x", ".github/workflows/ci.yml", ".gitx"} {
		if err := d.Write(p, []byte("ok\n")); err != nil {
			t.Errorf("Write(%q) = %v, want nil", p, err)
		}
	}
}

func TestWriteRefusesGitThroughSymlinks(t *testing.T) {
	d, root := newDir(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(root, ".git"), []byte("gitdir: x\n"), 0o644))
	must(os.Mkdir(filepath.Join(root, "real"), 0o755))
	must(os.Symlink(".git", filepath.Join(root, "notes")))             // a file link to the git link
	must(os.Symlink(".", filepath.Join(root, "here")))                 // a folder link to the top
	must(os.Symlink("../here", filepath.Join(root, "real", "up")))     // two hops
	must(os.Symlink("real", filepath.Join(root, "docs")))              // an ordinary folder link
	must(os.Symlink("/etc", filepath.Join(root, "abs")))               // leaves the folder
	must(os.Symlink("../../outside", filepath.Join(root, "real/out"))) // leaves the folder
	must(os.Symlink("loop2", filepath.Join(root, "loop1")))
	must(os.Symlink("loop1", filepath.Join(root, "loop2")))
	for _, p := range []string{"notes", "here/.git", "real/up/.git", "docs/up/notes"} {
		if err := d.Write(p, []byte("gitdir: /tmp/forged\n")); !errors.Is(err, ErrGitMetadata) {
			t.Errorf("Write(%q) = %v, want ErrGitMetadata", p, err)
		}
	}
	for _, p := range []string{"abs/passwd", "real/out/x", "loop1/x"} {
		if err := d.Write(p, []byte("x")); err == nil || errors.Is(err, ErrGitMetadata) {
			t.Errorf("Write(%q) = %v, want a refusal other than git metadata", p, err)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(root, ".git")); string(got) != "gitdir: x\n" {
		t.Fatalf(".git changed: %q", got)
	}
	// A link to an ordinary folder still works.
	if err := d.Write("docs/readme.md", []byte("hi\n")); err != nil {
		t.Fatalf("write through an ordinary folder link: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "real", "readme.md")); string(b) != "hi\n" {
		t.Fatalf("readme via link = %q", b)
	}
}

func TestCleanAndLimits(t *testing.T) {
	d, root := newDir(t)
	for _, p := range []string{"", "/etc/passwd", "../x", "a/../../x", "a\x00b", strings.Repeat("a", 5000)} {
		if err := d.Write(p, []byte("x")); err == nil {
			t.Errorf("Write(%q) succeeded", p)
		}
	}
	if err := d.Write("big", make([]byte, WriteCap+1)); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("oversized write = %v", err)
	}
	if err := os.WriteFile(filepath.Join(root, "long.txt"), []byte(strings.Repeat("a", ReadCap+10)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := d.Read("long.txt")
	if err != nil || !strings.HasSuffix(out, "[truncated at 65536 bytes]") {
		t.Errorf("Read long = %q…, %v", out[:10], err)
	}
	if _, err := d.Read("nope"); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("Read missing = %v", err)
	}
}
