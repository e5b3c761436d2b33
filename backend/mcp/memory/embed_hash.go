package memory

import (
	"context"
	"hash/fnv"
	"math"
	"strings"
	"unicode"
)

// HashEmbedder is the built-in offline embedder: deterministic, no
// network, no model file. It hashes features of the text into a fixed
// number of signed buckets (the "hashing trick") and L2-normalises them:
//
//   - each word (lowercased, stop words dropped), weight 0.5;
//   - its light stem ("deployments" → "deploy"), weight 1;
//   - the character trigrams of the word padded with '#', together weight 1,
//     so inflections and near-spellings still overlap.
//
// Term frequency is damped (1 + ln tf). Texts that share stems or most of
// their trigrams land close; it knows no synonyms.
type HashEmbedder struct{ dim int }

// hashDim is the HashEmbedder's vector length.
const hashDim = 384

// hashEmbedderID names the feature set above; change it with the features.
const hashEmbedderID = "clawboo-hash-v1"

// NewHashEmbedder is the offline embedder.
func NewHashEmbedder() *HashEmbedder { return &HashEmbedder{dim: hashDim} }

// ID names the feature set; vectors of another version are never compared.
func (e *HashEmbedder) ID() string { return hashEmbedderID }

// Dim is the vector length.
func (e *HashEmbedder) Dim() int { return e.dim }

// Embed never fails.
func (e *HashEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = e.vector(t)
	}
	return out, nil
}

func (e *HashEmbedder) vector(text string) []float32 {
	feats := map[string]float64{}
	for _, w := range words(text) {
		if stopWords[w] {
			continue
		}
		feats["w:"+w] += 0.5
		feats["s:"+stem(w)]++
		tri := trigrams(w)
		for _, g := range tri {
			feats["t:"+g] += 1 / float64(len(tri))
		}
	}
	v := make([]float32, e.dim)
	for f, w := range feats {
		h := fnv.New64a()
		h.Write([]byte(f))
		x := h.Sum64()
		weight := 1 + math.Log(w)
		if w < 1 {
			weight = w // damping only counts repeats
		}
		if x>>63 == 1 {
			weight = -weight
		}
		v[x%uint64(e.dim)] += float32(weight)
	}
	return normalize(v)
}

// maxWordLen drops tokens longer than this (hashes, base64, minified code).
const maxWordLen = 40

// words splits text into lowercased runs of letters and digits.
func words(text string) []string {
	f := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	out := f[:0]
	for _, w := range f {
		if len(w) <= maxWordLen {
			out = append(out, w)
		}
	}
	return out
}

// trigrams of "#word#"; a one-letter word is its own feature.
func trigrams(w string) []string {
	r := []rune("#" + w + "#")
	if len(r) < 3 {
		return []string{string(r)}
	}
	out := make([]string, 0, len(r)-2)
	for i := 0; i+3 <= len(r); i++ {
		out = append(out, string(r[i:i+3]))
	}
	return out
}

// stemSuffixes are stripped longest first; the stem must keep three runes.
var stemSuffixes = []struct{ suffix, repl string }{
	{"izations", "ize"},
	{"ization", "ize"},
	{"ational", "ate"},
	{"fulness", "ful"},
	{"ations", "ate"},
	{"ation", "ate"},
	{"ements", ""},
	{"ement", ""},
	{"ments", ""},
	{"ment", ""},
	{"ness", ""},
	{"ities", ""},
	{"ity", ""},
	{"ings", ""},
	{"ing", ""},
	{"ies", "y"},
	{"ied", "y"},
	{"ers", ""},
	{"er", ""},
	{"ed", ""},
	{"es", ""},
	{"ly", ""},
	{"s", ""},
}

// stem is a light English suffix stripper: it folds the common inflections
// and derivations onto one form ("configured", "configuring",
// "configuration" → "configur"), which is all a hashed bag of words needs.
func stem(w string) string {
	if len([]rune(w)) <= 3 {
		return w
	}
	stripped := false
	for _, s := range stemSuffixes {
		if base, ok := strings.CutSuffix(w, s.suffix); ok && len([]rune(base)) >= 3 {
			if s.suffix == "s" && strings.HasSuffix(w, "ss") {
				break // "process", "class"
			}
			w, stripped = base+s.repl, true
			break
		}
	}
	// "ate"/"ize"/"e" endings fold once more, and so does the "at" left by
	// "-ated" ("calculated", "calculate", "calculation" → "calcul").
	folds := []string{"ate", "ize", "e"}
	if stripped {
		folds = append(folds, "at")
	}
	for _, suf := range folds {
		if base, ok := strings.CutSuffix(w, suf); ok && len([]rune(base)) >= 3 {
			w = base
			break
		}
	}
	if n := len(w); n >= 4 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		w = w[:n-1] // "running" → "runn" → "run"
	}
	return w
}

// stopWords carry no topic; they are dropped from vectors and from
// full-text queries (unless a query has nothing else).
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be been but by can could did do does doing for from
		had has have how i if in into is it its me my no not of on or our so some such than that the their them
		then there these they this to too us was we were what when where which who whom why will with would
		you your yours about after all also am any before being both each few more most other over own same
		should only very just should now get got`) {
		m[w] = true
	}
	return m
}()
