package api

import (
	"reflect"
	"testing"
)

func TestRadarOverHTTP(t *testing.T) {
	f := newFixture(t, nil)
	repo := gitRepo(t)
	code, _, b := f.do(t, "GET", "/api/board/radar", "")
	if code != 200 {
		t.Fatal(code, string(b))
	}
	if got := decode[radarAnswer](t, b); len(got.Pairs) != 0 || len(got.Order) != 0 || got.Tasks != 0 {
		t.Fatalf("empty board: %s", b)
	}
	one := reviewedTask(t, f, repo, `!write shared.txt one`)
	two := reviewedTask(t, f, repo, `!write shared.txt two`)
	reviewedTask(t, f, repo, `!write other.txt three`)

	code, _, b = f.do(t, "GET", "/api/board/radar?repoPath="+repo, "")
	if code != 200 {
		t.Fatal(code, string(b))
	}
	got := decode[radarAnswer](t, b)
	if got.Tasks != 3 || len(got.Pairs) != 1 || len(got.Skipped) != 0 {
		t.Fatalf("%s", b)
	}
	p := got.Pairs[0]
	if p.A != one.ID || p.B != two.ID || !p.SameBase || len(p.Files) != 1 || p.Files[0].Path != "shared.txt" {
		t.Fatalf("%s", b)
	}
	// Both add the file: insertions at the same place (after line 0).
	if h := p.Files[0].Hunks; len(h) != 1 || !h[0].AAdd || !h[0].BAdd || h[0].A != (radarSpan{0, 0}) {
		t.Fatalf("%s", b)
	}
	if got.Titles[one.ID] != "add hello" || len(got.Titles) != 2 {
		t.Fatalf("titles %s", b)
	}
	if !reflect.DeepEqual(got.Order, []string{one.ID, two.ID}) {
		t.Fatalf("order %s", b)
	}
	// Another repository's radar is empty.
	code, _, b = f.do(t, "GET", "/api/board/radar?repoPath="+gitRepo(t), "")
	if code != 200 || len(decode[radarAnswer](t, b).Pairs) != 0 {
		t.Fatal(code, string(b))
	}
	code, _, _ = f.do(t, "POST", "/api/board/radar", "{}")
	if code != 405 {
		t.Fatal(code)
	}
}
