package review

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestRisky(t *testing.T) {
	cases := []struct {
		parent bool
		c      Change
		want   bool
	}{
		{false, Change{Files: 1, Insertions: 10}, false},
		{true, Change{Files: 1, Insertions: 1}, true},
		{false, Change{Files: 5, Insertions: 150, Deletions: 150}, false},
		{false, Change{Files: 6}, true},
		{false, Change{Files: 1, Insertions: 200, Deletions: 101}, true},
	}
	for _, c := range cases {
		if got := Risky(c.parent, c.c); got != c.want {
			t.Errorf("Risky(%v, %+v) = %v, want %v", c.parent, c.c, got, c.want)
		}
	}
}

func TestWanted(t *testing.T) {
	cases := []struct {
		m           Mode
		team, risky bool
		want        bool
	}{
		{Auto, true, true, true},
		{Auto, true, false, false},
		{Auto, false, true, false},
		{On, false, false, true},
		{Off, true, true, false},
	}
	for _, c := range cases {
		if got := Wanted(c.m, c.team, c.risky); got != c.want {
			t.Errorf("Wanted(%s, team %v, risky %v) = %v", c.m, c.team, c.risky, got)
		}
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": Auto, "AUTO": Auto, " on ": On, "off": Off} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseMode("sometimes"); err == nil {
		t.Error("ParseMode accepted sometimes")
	}
}

func TestSeverityBlocks(t *testing.T) {
	for _, s := range []Severity{Security, Crash, DataLoss, WrongAlgorithm, MissingAC} {
		if !s.Blocks() {
			t.Errorf("%s does not block", s)
		}
	}
	for _, s := range []Severity{Style, Perf, TestGap, Other, "weird"} {
		if s.Blocks() {
			t.Errorf("%s blocks", s)
		}
	}
}

func TestParse(t *testing.T) {
	cases := map[string]struct {
		in   string
		want []Finding
	}{
		"bare":  {`{"findings":[{"severity":"crash","file":"a.go","line":3,"note":"nil map"}]}`, []Finding{{Crash, "a.go", 3, "nil map"}}},
		"empty": {`{"findings":[]}`, []Finding{}},
		"null":  {`{"findings":null}`, []Finding{}},
		"fence": {"Here is my review.\n```json\n{\"findings\":[{\"severity\":\"Data loss\",\"note\":\"drops rows\"}]}\n```\n", []Finding{{DataLoss, "", 0, "drops rows"}}},
		"after prose with braces": {
			"I checked {everything}. {\"a\":1} Final: {\"findings\":[{\"severity\":\"style\",\"file\":\"x\",\"line\":\"7\",\"note\":\"naming\"}]}",
			[]Finding{{Style, "x", 7, "naming"}},
		},
		"reference shape": {
			`{"findings":[{"severity":"security","title":"SQL injection","body":"use a placeholder","filePath":"db.go","startLine":12}]}`,
			[]Finding{{Security, "db.go", 12, "SQL injection: use a placeholder"}},
		},
		"unknown severity": {`{"findings":[{"severity":"catastrophic","note":"x"}]}`, []Finding{{Other, "", 0, "x"}}},
		"last wins":        {`{"findings":[{"severity":"crash","note":"draft"}]} then {"findings":[]}`, []Finding{}},
		"not json":         {"looks fine to me", []Finding{{Other, "", 0, notJSON}}},
		"no findings key":  {`{"ok":true}`, []Finding{{Other, "", 0, notJSON}}},
		"bad list":         {`{"findings":"none"}`, []Finding{{Other, "", 0, notJSON}}},
	}
	for name, c := range cases {
		got := Parse(c.in)
		if len(got) != len(c.want) {
			t.Errorf("%s: Parse = %+v, want %+v", name, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: finding %d = %+v, want %+v", name, i, got[i], c.want[i])
			}
		}
	}
}

func TestParseHostileIsBounded(t *testing.T) {
	in := strings.Repeat("{", 1<<20)
	if got := Parse(in); len(got) != 1 || got[0].Note != notJSON {
		t.Fatalf("Parse = %+v", got)
	}
}

func TestVerdictSplitsBlockingAndDebt(t *testing.T) {
	v := Verdict{Ran: true, Findings: []Finding{{Severity: Crash, Note: "a"}, {Severity: Style, Note: "b"}, {Severity: MissingAC, Note: "c"}}}
	if b, d := v.Blocking(), v.Debt(); len(b) != 2 || len(d) != 1 || d[0].Note != "b" {
		t.Fatalf("blocking %+v debt %+v", b, d)
	}
}

func TestPromptBoundsTheDiff(t *testing.T) {
	diff := strings.Repeat("+line of the change\n", 10_000)
	p := Prompt(Request{TaskID: "T1", Title: "Add a thing", Description: "AC: it works", Diff: diff})
	if len(p) > MaxDiff+4096 {
		t.Fatalf("prompt is %d bytes", len(p))
	}
	for _, want := range []string{"T1", "Add a thing", "AC: it works", "diff cut at 60 KiB", `{"findings":[`} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	if i := strings.Index(p, "=== END DIFF ==="); i < 0 || !strings.HasSuffix(p[:strings.Index(p, "[diff cut")], "\n") {
		t.Error("diff not cut at a line end")
	}
}

func TestList(t *testing.T) {
	got := List([]Finding{{Severity: Crash, File: "a.go", Line: 2, Note: "boom\nnow"}, {Severity: Style, Note: "n"}})
	want := "- [crash] a.go:2 — boom now\n- [style] n\n"
	if got != want {
		t.Fatalf("List = %q, want %q", got, want)
	}
}

type fakeRunner struct {
	answer string
	err    error
	prompt string
}

func (f *fakeRunner) Run(_ context.Context, prompt, dir string, round int) (string, string, error) {
	f.prompt = prompt
	return "run-1", f.answer, f.err
}

func TestCritique(t *testing.T) {
	r := &fakeRunner{answer: `{"findings":[{"severity":"crash","note":"x"}]}`}
	v := Critique(context.Background(), r, Request{TaskID: "T", Title: "t", Diff: "d"}, "/tmp")
	if !v.Ran || v.RunID != "run-1" || len(v.Blocking()) != 1 || !strings.Contains(r.prompt, "task T") {
		t.Fatalf("verdict %+v", v)
	}
	v = Critique(context.Background(), &fakeRunner{err: errors.New("runtime down")}, Request{}, "")
	if v.Ran || v.Why != "runtime down" || len(v.Findings) != 0 {
		t.Fatalf("failed critic: %+v", v)
	}
}
