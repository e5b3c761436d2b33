package app

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestGeometryFitsTheScreens(t *testing.T) {
	screen := []rect{{0, 0, 1280, 800}}
	two := []rect{{0, 0, 1280, 800}, {1280, 0, 1920, 1080}}
	for _, c := range []struct {
		name  string
		g     windowGeometry
		areas []rect
		want  windowGeometry
	}{
		{"inside stays", windowGeometry{150, 100, 900, 600, false}, screen, windowGeometry{150, 100, 900, 600, false}},
		{"off to the right and below", windowGeometry{4000, 3000, 900, 600, false}, screen, windowGeometry{1280 - 900 - frameAllowanceW, 800 - 600 - frameAllowanceH, 900, 600, false}},
		{"above and left", windowGeometry{-500, -300, 900, 600, false}, screen, windowGeometry{0, 0, 900, 600, false}},
		{"larger than the screen", windowGeometry{10, 10, 3000, 2000, false}, screen, windowGeometry{0, 0, 1280 - frameAllowanceW, 800 - frameAllowanceH, false}},
		{"below the minimum", windowGeometry{10, 10, 100, 100, false}, screen, windowGeometry{10, 10, 720, 480, false}},
		{"on the second monitor stays there", windowGeometry{1500, 200, 1000, 700, true}, two, windowGeometry{1500, 200, 1000, 700, true}},
		{"a monitor that is gone", windowGeometry{1500, 200, 1000, 700, false}, screen, windowGeometry{1280 - 1000 - frameAllowanceW, 800 - 700 - frameAllowanceH, 1000, 700, false}},
		{"no monitors known", windowGeometry{5, 6, 900, 600, false}, nil, windowGeometry{5, 6, 900, 600, false}},
	} {
		if got := c.g.fit(c.areas, 720, 480); got != c.want {
			t.Errorf("%s: fit(%+v) = %+v, want %+v", c.name, c.g, got, c.want)
		}
	}
}

func TestGeometryIsSavedAndLoaded(t *testing.T) {
	home := t.TempDir()
	if _, ok, err := loadGeometry(home); ok || err != nil {
		t.Fatalf("first launch: %v %v", ok, err)
	}
	k := newGeometryKeeper(home, slog.New(slog.DiscardHandler))
	k.delay = 20 * time.Millisecond
	k.seed(windowGeometry{Width: 1280, Height: 800})
	k.configured(windowGeometry{X: 10, Y: 20, Width: 900, Height: 600})
	k.configured(windowGeometry{X: 150, Y: 100, Width: 900, Height: 600})
	deadline := time.Now().Add(5 * time.Second)
	for {
		g, ok, err := loadGeometry(home)
		if ok && err == nil && g == (windowGeometry{X: 150, Y: 100, Width: 900, Height: 600}) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the move was not saved: %+v %v %v", g, ok, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Maximised: the normal size is kept, with the flag; flush saves at once.
	k.delay = time.Hour
	k.configured(windowGeometry{X: 0, Y: 0, Width: 1280, Height: 760, Maximized: true})
	k.flush()
	if g, _, _ := loadGeometry(home); g != (windowGeometry{X: 150, Y: 100, Width: 900, Height: 600, Maximized: true}) {
		t.Fatalf("maximised: %+v", g)
	}
	ents, _ := os.ReadDir(home)
	if len(ents) != 1 {
		t.Fatalf("temp files left: %v", ents)
	}
	// An unreadable file is reported and not used.
	if err := os.WriteFile(filepath.Join(home, geometryFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := loadGeometry(home); ok || err == nil {
		t.Fatalf("a broken file: %v %v", ok, err)
	}
}
