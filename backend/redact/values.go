package redact

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
)

// MinValue is the shortest value Values hides: shorter ones would mangle
// ordinary text, so the places that store named secrets refuse them.
const MinValue = 4

// Hider replaces known secret values (a task's vault secrets) with
// "[secret NAME]". The zero Hider and a nil *Hider hide nothing.
type Hider struct{ r *strings.Replacer }

// Values builds a Hider for name → value; values shorter than MinValue
// are skipped. Longer values are matched first, so a value that contains
// another is hidden whole.
func Values(secrets map[string]string) *Hider {
	type pair struct{ name, value string }
	var ps []pair
	for n, v := range secrets {
		if len(v) >= MinValue {
			ps = append(ps, pair{n, v})
		}
	}
	if len(ps) == 0 {
		return nil
	}
	sort.Slice(ps, func(i, j int) bool {
		if len(ps[i].value) != len(ps[j].value) {
			return len(ps[i].value) > len(ps[j].value)
		}
		return ps[i].name < ps[j].name
	})
	args := make([]string, 0, 2*len(ps))
	for _, p := range ps {
		args = append(args, p.value, "[secret "+p.name+"]")
	}
	return &Hider{r: strings.NewReplacer(args...)}
}

// Hide returns s with every known value replaced.
func (h *Hider) Hide(s string) string {
	if h == nil || h.r == nil || s == "" {
		return s
	}
	return h.r.Replace(s)
}

// HideJSON hides known values in every string of a JSON document (keys
// included) and re-encodes it; a document that is not JSON is hidden as
// text and returned as a JSON string, so the result is always valid JSON.
func (h *Hider) HideJSON(doc []byte) []byte {
	if h == nil || h.r == nil || len(doc) == 0 {
		return doc
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		out, _ := json.Marshal(h.Hide(string(doc)))
		return out
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(h.walk(v)); err != nil {
		out, _ := json.Marshal(h.Hide(string(doc)))
		return out
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func (h *Hider) walk(v any) any {
	switch t := v.(type) {
	case string:
		return h.Hide(t)
	case []any:
		for i := range t {
			t[i] = h.walk(t[i])
		}
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[h.Hide(k)] = h.walk(x)
		}
		return out
	}
	return v
}
