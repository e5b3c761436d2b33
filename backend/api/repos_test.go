package api

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"
)

func TestRepoPicker(t *testing.T) {
	f := newFixture(t, nil)
	repo := gitRepo(t)
	parent := filepath.Dir(repo)
	for _, d := range []string{"plain", ".hidden"} {
		if err := os.Mkdir(filepath.Join(parent, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.WriteFile(filepath.Join(parent, "file.txt"), []byte("x"), 0o644)
	if err := os.Symlink(repo, filepath.Join(parent, "link")); err != nil {
		t.Fatal(err)
	}

	type entry struct {
		Name, Path string
		IsRepo     bool
	}
	type listing struct {
		Path    string
		Parent  *string
		IsRepo  bool
		Branch  *string
		Entries []entry
	}
	code, _, b := f.do(t, "GET", "/api/repos/browse?path="+url.QueryEscape(parent+"/"), "")
	if code != 200 {
		t.Fatal(code, string(b))
	}
	l := decode[listing](t, b)
	if l.Path != parent || l.Parent == nil || *l.Parent != filepath.Dir(parent) || l.IsRepo {
		t.Fatalf("%+v", l)
	}
	want := []entry{{"link", filepath.Join(parent, "link"), true}, {"plain", filepath.Join(parent, "plain"), false}, {"repo", repo, true}}
	if len(l.Entries) != len(want) {
		t.Fatalf("entries %+v", l.Entries)
	}
	for i := range want {
		if l.Entries[i] != want[i] {
			t.Fatalf("entry %d: %+v, want %+v", i, l.Entries[i], want[i])
		}
	}
	code, _, b = f.do(t, "GET", "/api/repos/browse?path="+url.QueryEscape(repo), "")
	if l = decode[listing](t, b); code != 200 || !l.IsRepo || l.Branch == nil || *l.Branch != "main" {
		t.Fatal(code, string(b))
	}
	for q, wantCode := range map[string]int{"relative/dir": 400, "/no/such/folder/anywhere": 404, filepath.Join(parent, "file.txt"): 400} {
		if code, _, b := f.do(t, "GET", "/api/repos/browse?path="+url.QueryEscape(q), ""); code != wantCode {
			t.Errorf("%s: %d %s", q, code, b)
		}
	}

	code, _, b = f.do(t, "GET", "/api/repos", "")
	if code != 200 || string(b) != `{"recent":[]}`+"\n" {
		t.Fatalf("%d %q", code, b)
	}
	f.createTask(t, `{"title":"a","repoPath":"`+repo+`"}`)
	f.createTask(t, `{"title":"b","repoPath":"`+repo+`"}`)
	// A repository a task used that is no repository any more (its .git
	// removed since) is listed, marked as not a repository.
	gone := gitRepo(t)
	f.createTask(t, `{"title":"c","repoPath":"`+gone+`","kind":"research"}`)
	if err := os.RemoveAll(filepath.Join(gone, ".git")); err != nil {
		t.Fatal(err)
	}
	type recent struct {
		Recent []struct {
			Path   string
			IsRepo bool
			Branch *string
		}
	}
	code, _, b = f.do(t, "GET", "/api/repos", "")
	r := decode[recent](t, b)
	if code != 200 || len(r.Recent) != 2 || r.Recent[0].Path != gone || r.Recent[0].IsRepo ||
		r.Recent[1].Path != repo || !r.Recent[1].IsRepo || *r.Recent[1].Branch != "main" {
		t.Fatalf("%d %s", code, b)
	}
}
