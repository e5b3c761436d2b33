package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/config"
)

// The page's copy of the backend's tables is the generated file, and it is
// current: a change to the board's moves or the provider table that was
// not generated fails here, before the page can disagree with the server.
func TestTheGeneratedFactsAreCurrent(t *testing.T) {
	on, err := os.ReadFile(filepath.Join("..", "..", Output))
	if err != nil {
		t.Fatalf("%v: run go generate ./build/genfacts", err)
	}
	if string(on) != Render() {
		t.Fatalf("%s is stale: run go generate ./build/genfacts", Output)
	}
}

// What is rendered is the tables: every status and move, every provider
// with its slot and default model (a renderer that dropped rows would keep
// the file "current" and still lie).
func TestRenderHoldsEveryRow(t *testing.T) {
	out := Render()
	for _, s := range board.Statuses {
		row := "  " + string(s) + ": ["
		i := strings.Index(out, row)
		if i < 0 {
			t.Fatalf("no moves row for %s", s)
		}
		line := out[i : i+strings.Index(out[i:], "\n")]
		for _, m := range board.Moves(s) {
			if !strings.Contains(line, `"`+string(m)+`"`) {
				t.Errorf("%s: %s lacks %s", s, line, m)
			}
		}
		if strings.Count(line, `"`) != 2*len(board.Moves(s)) {
			t.Errorf("%s: %s holds more than the table", s, line)
		}
	}
	for _, p := range config.Providers {
		env := "null"
		if p.EnvVar != "" {
			env = `"` + p.EnvVar + `"`
		}
		want := `{ id: "` + p.ID + `", name: "` + p.Name + `", envVar: ` + env + `, defaultModel: "` + p.DefaultModel + `" }`
		if !strings.Contains(out, want) {
			t.Errorf("no row %s", want)
		}
	}
}
