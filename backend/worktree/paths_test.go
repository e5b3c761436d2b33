package worktree

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestDiffPaths(t *testing.T) {
	diff := strings.Join([]string{
		"diff --git a/bin.dat b/bin.dat",
		"index bdc955b..8835708 100644",
		"Binary files a/bin.dat and b/bin.dat differ",
		"diff --git a/del.txt b/del.txt",
		"deleted file mode 100644",
		"--- a/del.txt",
		"+++ /dev/null",
		"@@ -1 +0,0 @@",
		"-c",
		"diff --git a/ren.txt b/renamed.txt",
		"similarity index 100%",
		"rename from ren.txt",
		"rename to renamed.txt",
		"diff --git a/sp ace.txt b/sp ace.txt",
		"--- a/sp ace.txt\t",
		"+++ b/sp ace.txt\t",
		"@@ -1 +1,3 @@",
		" a",
		"+++ b/../../etc/passwd", // an added line "++ b/…", not a header
		"--- a/evil",             // a removed line, not a header
		`diff --git "a/tab\there.txt" "b/tab\there.txt"`,
		"new file mode 100644",
		"--- /dev/null",
		`+++ "b/tab\there.txt"`,
		"@@ -0,0 +1 @@",
		"+q",
		`diff --git "a/\303\274n\303\257.txt" "b/\303\274n\303\257.txt"`,
		"new file mode 100644",
		"Binary files /dev/null and \"b/\\303\\274n\\303\\257.txt\" differ",
		"diff --git a/x b/y z",
		"",
	}, "\n")
	got := DiffPaths(diff)
	want := []string{"bin.dat", "del.txt", "renamed.txt", "sp ace.txt", "tab\there.txt", "ünï.txt", ""}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if got := DiffPaths(""); len(got) != 0 {
		t.Fatalf("empty diff: %q", got)
	}
}

func TestDiffPathsOfARealDiff(t *testing.T) {
	m, _ := newManager(t)
	w := provision(t, m, newRepo(t, nil), "01PATHS")
	write(t, filepath.Join(w.Path, "sp ace.txt"), "a\n")
	write(t, filepath.Join(w.Path, "dir", "new.go"), "package x\n")
	write(t, filepath.Join(w.Path, "README.md"), "changed\n")
	o, err := m.Diff(ctxT(t), w)
	if err != nil {
		t.Fatal(err)
	}
	got := DiffPaths(o.Diff)
	want := []string{"README.md", "dir/new.go", "sp ace.txt"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q want %q\n%s", got, want, o.Diff)
	}
}
