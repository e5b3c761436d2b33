package memory

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
)

func embedOne(t *testing.T, e Embedder, text string) []float32 {
	t.Helper()
	v, err := e.Embed(context.Background(), []string{text})
	if err != nil || len(v) != 1 {
		t.Fatal(v, err)
	}
	return v[0]
}

func TestHashEmbedderIsDeterministicAndNormalised(t *testing.T) {
	e := NewHashEmbedder()
	a, b := embedOne(t, e, "Deploys run on Tuesdays."), embedOne(t, NewHashEmbedder(), "Deploys run on Tuesdays.")
	if len(a) != hashDim || e.Dim() != hashDim || e.ID() != hashEmbedderID {
		t.Fatal(len(a), e.Dim(), e.ID())
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("two embeddings of one text differ")
		}
	}
	if n := dot(a, a); math.Abs(n-1) > 1e-5 {
		t.Fatalf("norm² %v", n)
	}
	if v := embedOne(t, e, "!!! the a of"); dot(v, v) != 0 && math.Abs(dot(v, v)-1) > 1e-5 {
		t.Fatal("a text of stop words is zero or unit")
	}
}

func TestHashEmbedderRanksSharedStemsAbove(t *testing.T) {
	e := NewHashEmbedder()
	for _, tc := range []struct{ query, near, far string }{
		{"deploying the services", "Service deployments happen on Tuesday", "The frontend uses React"},
		{"configure caching", "Cache configuration lives in redis.yml", "Backups are nightly"},
		{"failing tests", "The test fails on CI sometimes", "Invoices are sent monthly"},
	} {
		q := embedOne(t, e, tc.query)
		if near, far := dot(q, embedOne(t, e, tc.near)), dot(q, embedOne(t, e, tc.far)); near <= far {
			t.Errorf("%q: near %.3f ≤ far %.3f", tc.query, near, far)
		}
	}
}

func TestStem(t *testing.T) {
	for _, group := range [][]string{
		{"deploy", "deploys", "deployed", "deploying", "deployment", "deployments"},
		{"configure", "configured", "configuring", "configuration"},
		{"calculate", "calculated", "calculation"},
		{"cache", "cached", "caching", "caches"},
		{"run", "running", "runs"},
		{"update", "updates", "updated"},
	} {
		for _, w := range group[1:] {
			if stem(w) != stem(group[0]) {
				t.Errorf("stem(%q) = %q, stem(%q) = %q", w, stem(w), group[0], stem(group[0]))
			}
		}
	}
	for w, want := range map[string]string{"process": "process", "class": "class", "api": "api", "users": "user", "dependencies": "dependency"} {
		if got := stem(w); got != want {
			t.Errorf("stem(%q) = %q, want %q", w, got, want)
		}
	}
}

func TestVectorCodecAndChecks(t *testing.T) {
	v := []float32{0.5, -1.25, 3, float32(math.SmallestNonzeroFloat32)}
	got, err := decodeVector(encodeVector(v), len(v), nil)
	if err != nil || len(got) != len(v) {
		t.Fatal(got, err)
	}
	for i := range v {
		if got[i] != v[i] {
			t.Fatal(got)
		}
	}
	if _, err := decodeVector(encodeVector(v), 3, nil); err == nil {
		t.Fatal("a wrong dimension decoded")
	}
	for name, in := range map[string][][]float32{
		"NaN":        {{1, float32(math.NaN())}},
		"Inf":        {{float32(math.Inf(1))}},
		"ragged":     {{1, 2}, {1}},
		"empty":      {{}},
		"too large":  {make([]float32, maxEmbedDim+1)},
		"zero count": nil,
	} {
		out, err := checkVectors(in, nil)
		if name == "zero count" {
			if err != nil || len(out) != 0 {
				t.Errorf("%s: %v %v", name, out, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	if _, err := checkVectors(nil, errors.New("boom")); err == nil {
		t.Fatal("an error was dropped")
	}
	if out, _ := checkVectors([][]float32{{3, 4}}, nil); math.Abs(float64(out[0][0])-0.6) > 1e-6 {
		t.Fatal("not normalised", out)
	}
}

func TestFuseIsReciprocalRank(t *testing.T) {
	a := []ranked{{seq: 1, score: 9}, {seq: 2, score: 5}, {seq: 3, score: 1}}
	b := []ranked{{seq: 2, score: 0.9}, {seq: 3, score: 0.8}}
	// One list keeps its scores.
	if got := fuse([][]ranked{a, nil}); len(got) != 3 || got[0].seq != 1 || got[0].score != 9 {
		t.Fatal(got)
	}
	// 2 (ranks 2 and 1) beats 3 (3 and 2), which beats 1 (first in one
	// list only): agreement outweighs a single top rank.
	got := fuse([][]ranked{a, b})
	if len(got) != 3 || got[0].seq != 2 || got[1].seq != 3 || got[2].seq != 1 {
		t.Fatal(got)
	}
	want := 1/float64(rrfK+2) + 1/float64(rrfK+1)
	if math.Abs(got[0].score-want) > 1e-12 {
		t.Fatal(got[0].score, want)
	}
}

func TestFTSQueryNeutralisesSyntax(t *testing.T) {
	for in, want := range map[string]string{
		`deploy OR "prod*" NEAR(x) -col:y`: `"deploy" OR "prod" OR "near" OR "x" OR "col" OR "y"`,
		"how do we deploy":                 `"deploy"`,
		"how do we":                        `"how" OR "do" OR "we"`,
		"!!!":                              ``,
	} {
		if got := ftsQuery(in); got != want {
			t.Errorf("ftsQuery(%q) = %s, want %s", in, got, want)
		}
	}
	long := ftsQuery(strings.Repeat("word ", 10) + strings.Join(strings.Fields("a1 a2 a3 a4 a5 a6 a7 a8 a9 b1 b2 b3 b4 b5 b6 b7 b8 b9 c1 c2 c3 c4 c5 c6 c7 c8 c9 d1 d2 d3 d4 d5 d6 d7"), " "))
	if n := strings.Count(long, " OR ") + 1; n != maxQueryTerms {
		t.Fatalf("%d terms", n)
	}
}
