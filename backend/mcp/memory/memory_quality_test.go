package memory

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"
)

// evalSet is testdata/memory_eval.json: facts and labelled queries.
type evalSet struct {
	Facts []struct {
		ID      string   `json:"id"`
		Title   string   `json:"title"`
		Content string   `json:"content"`
		Tags    []string `json:"tags"`
	} `json:"facts"`
	Queries []struct {
		Query    string   `json:"query"`
		Relevant []string `json:"relevant"`
	} `json:"queries"`
}

// recallFloors are the recall@5 each mode must keep on the labelled set
// with the offline embedder, about two queries under what it reached when
// this was written (fts 0.895, vector 0.789, hybrid 0.895 over 19
// queries); the real numbers are logged on every run.
var recallFloors = map[string]float64{"fts": 0.80, "vector": 0.70, "hybrid": 0.80}

// hybridSlack is how far hybrid may fall below the best single mode.
const hybridSlack = 0.05

// TestMemoryRecallAt5 reports recall@5 of each search mode on a small
// labelled set (many of its queries are paraphrases sharing few words
// with their answer) and holds each mode to a floor.
func TestMemoryRecallAt5(t *testing.T) {
	raw, err := os.ReadFile("testdata/memory_eval.json")
	if err != nil {
		t.Fatal(err)
	}
	var set evalSet
	if err := json.Unmarshal(raw, &set); err != nil {
		t.Fatal(err)
	}
	h, _ := newMemoryHub(t, Options{})
	s := memSession(t, h, toolcall.Binding{})
	label := map[string]string{} // stored id → label
	for _, f := range set.Facts {
		tags := make([]any, len(f.Tags))
		for i, tg := range f.Tags {
			tags[i] = tg
		}
		label[mustSave(t, s, map[string]any{"title": f.Title, "content": f.Content, "tags": tags}).ID] = f.ID
	}
	recall := map[string]float64{}
	for _, mode := range []string{"fts", "vector", "hybrid"} {
		var sum float64
		for _, q := range set.Queries {
			a := memCall(t, s, "memory_search", map[string]any{"query": q.Query, "mode": mode, "limit": 5})
			if a.isError {
				t.Fatal(a.text)
			}
			top := map[string]bool{}
			var got []string
			for _, it := range a.Results {
				top[label[it.ID]] = true
				got = append(got, label[it.ID])
			}
			found := 0
			for _, r := range q.Relevant {
				if top[r] {
					found++
				}
			}
			sum += float64(found) / float64(len(q.Relevant))
			if found < len(q.Relevant) {
				t.Logf("%-6s miss: %q want %v, top5 %v", mode, q.Query, q.Relevant, got)
			}
		}
		recall[mode] = sum / float64(len(set.Queries))
	}
	t.Logf("recall@5 over %d queries, %d facts: fts %.3f, vector %.3f, hybrid %.3f",
		len(set.Queries), len(set.Facts), recall["fts"], recall["vector"], recall["hybrid"])
	for mode, floor := range recallFloors {
		if recall[mode] < floor {
			t.Errorf("%s recall@5 %.3f is under its floor %.2f", mode, recall[mode], floor)
		}
	}
	for _, single := range []string{"fts", "vector"} {
		if recall["hybrid"] < recall[single]-hybridSlack {
			t.Errorf("hybrid recall@5 %.3f is worse than %s's %.3f", recall["hybrid"], single, recall[single])
		}
	}
}
