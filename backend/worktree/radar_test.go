package worktree

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("line " + strings.Repeat("x", i%3) + "\n")
	}
	return b.String()
}

// edit rewrites line n (from 1) of a file in a worktree.
func edit(t *testing.T, w Worktree, name string, n int, text string) {
	t.Helper()
	p := filepath.Join(w.Path, name)
	lines := strings.Split(read(t, p), "\n")
	lines[n-1] = text
	write(t, p, strings.Join(lines, "\n"))
}

func changesOf(t *testing.T, m *Manager, ws ...Worktree) []Changes {
	t.Helper()
	var out []Changes
	for _, w := range ws {
		c, err := m.Changes(ctxT(t), w)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

func TestRadarFindsOverlappingHunksFileOverlapsAndNothingElse(t *testing.T) {
	m, _ := newManager(t)
	repo := newRepo(t, map[string]string{"a.txt": numbered(40), "b.txt": numbered(5), "c.txt": "c\n"})
	w1, w2, w3, w4 := provision(t, m, repo, "T1"), provision(t, m, repo, "T2"), provision(t, m, repo, "T3"), provision(t, m, repo, "T4")
	edit(t, w1, "a.txt", 10, "one")
	edit(t, w1, "a.txt", 11, "one again")
	edit(t, w2, "a.txt", 11, "two") // the same line as T1: a hunk overlap
	edit(t, w2, "b.txt", 1, "two")
	edit(t, w3, "a.txt", 35, "three")                     // same file, far away: a file overlap
	write(t, filepath.Join(w4.Path, "new.txt"), "four\n") // untracked, elsewhere: no pair

	// The agent's own index is untouched: the new file stays untracked.
	before := git(t, w4.Path, "status", "--porcelain")
	cs := changesOf(t, m, w1, w2, w3, w4)
	if after := git(t, w4.Path, "status", "--porcelain"); after != before || !strings.HasPrefix(after, "??") {
		t.Fatalf("status changed: %q → %q", before, after)
	}
	if got := cs[0].Files["a.txt"]; !reflect.DeepEqual(got, []Span{{Start: 10, End: 11}}) {
		t.Fatalf("T1 hunks = %+v", got)
	}
	if _, ok := cs[3].Files["new.txt"]; !ok {
		t.Fatalf("T4 files = %+v", cs[3].Files)
	}

	pairs := Overlaps(cs)
	byKey := map[string]Pair{}
	for _, p := range pairs {
		byKey[p.A+"-"+p.B] = p
	}
	if len(pairs) != 3 {
		t.Fatalf("pairs = %+v", pairs)
	}
	p12 := byKey["T1-T2"]
	if len(p12.Files) != 1 || p12.Files[0].Path != "a.txt" || len(p12.Files[0].Hunks) != 1 || !p12.SameBase {
		t.Fatalf("T1-T2 = %+v", p12)
	}
	if h := p12.Files[0].Hunks[0]; h.A != (Span{Start: 10, End: 11}) || h.B != (Span{Start: 11, End: 11}) {
		t.Fatalf("T1-T2 hunk = %+v", h)
	}
	for _, k := range []string{"T1-T3", "T2-T3"} {
		p := byKey[k]
		if len(p.Files) != 1 || p.Files[0].Path != "a.txt" || len(p.Files[0].Hunks) != 0 {
			t.Fatalf("%s = %+v", k, p)
		}
	}
	// T3 has no colliding hunk; T1 (2 changed lines... 4 in numstat) is
	// smaller than T2 (a.txt and b.txt), so goes first. T4 is in no pair.
	if got := MergeOrder(cs, pairs); !reflect.DeepEqual(got, []string{"T3", "T1", "T2"}) {
		t.Fatalf("order = %v (lines %d %d %d)", got, cs[0].Lines, cs[1].Lines, cs[2].Lines)
	}
}

func TestRadarReadsAPausedWorktreeFromItsBranch(t *testing.T) {
	m, _ := newManager(t)
	repo := newRepo(t, map[string]string{"a.txt": numbered(10)})
	w1, w2 := provision(t, m, repo, "T1"), provision(t, m, repo, "T2")
	edit(t, w1, "a.txt", 3, "one")
	edit(t, w2, "a.txt", 3, "two")
	if err := m.Pause(ctxT(t), w1); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w1.Path); !os.IsNotExist(err) {
		t.Fatalf("paused worktree still there: %v", err)
	}
	pairs := Overlaps(changesOf(t, m, w1, w2))
	if len(pairs) != 1 || len(pairs[0].Files) != 1 || len(pairs[0].Files[0].Hunks) != 1 {
		t.Fatalf("pairs = %+v", pairs)
	}
}

func TestSpanMeets(t *testing.T) {
	for _, c := range []struct {
		a, b Span
		want bool
	}{
		{Span{Start: 1, End: 3}, Span{Start: 3, End: 5}, true},
		{Span{Start: 1, End: 3}, Span{Start: 4, End: 5}, false},
		{Span{Start: 4, End: 4, Add: true}, Span{Start: 4, End: 4, Add: true}, true}, // both add after line 4
		{Span{Start: 4, End: 4, Add: true}, Span{Start: 6, End: 6, Add: true}, false},
		{Span{Start: 4, End: 4, Add: true}, Span{Start: 5, End: 7}, true}, // right before the rewrite
		{Span{Start: 7, End: 7, Add: true}, Span{Start: 5, End: 7}, true}, // right after it
		{Span{Start: 9, End: 9, Add: true}, Span{Start: 5, End: 7}, false},
		{Span{Start: 5, End: 7}, Span{Start: 2, End: 2, Add: true}, false},
	} {
		if got := c.a.Meets(c.b); got != c.want {
			t.Errorf("%+v meets %+v = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := c.b.Meets(c.a); got != c.want {
			t.Errorf("%+v meets %+v = %v, want %v (reversed)", c.b, c.a, got, c.want)
		}
	}
}

func TestParseSpan(t *testing.T) {
	for line, want := range map[string]Span{
		"@@ -3 +3 @@":            {Start: 3, End: 3},
		"@@ -3,2 +3,4 @@ func x": {Start: 3, End: 4},
		"@@ -0,0 +1,2 @@":        {Start: 0, End: 0, Add: true},
	} {
		if got, ok := parseSpan(line); !ok || got != want {
			t.Errorf("%q = %+v %v", line, got, ok)
		}
	}
}

func TestRadarComparesOnlyFilesAcrossDifferentBases(t *testing.T) {
	m, _ := newManager(t)
	repo := newRepo(t, map[string]string{"a.txt": numbered(10)})
	w1 := provision(t, m, repo, "T1")
	write(t, filepath.Join(repo, "b.txt"), "moved on\n")
	git(t, repo, "add", "b.txt")
	git(t, repo, "commit", "-q", "-m", "later")
	w2 := provision(t, m, repo, "T2")
	edit(t, w1, "a.txt", 3, "one")
	edit(t, w2, "a.txt", 3, "two")
	pairs := Overlaps(changesOf(t, m, w1, w2))
	if len(pairs) != 1 || pairs[0].SameBase || len(pairs[0].Files) != 1 || len(pairs[0].Files[0].Hunks) != 0 {
		t.Fatalf("pairs = %+v", pairs)
	}
}
