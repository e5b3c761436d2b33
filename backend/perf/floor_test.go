package perf

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// floorSource is the simplest Go HTTP server: it answers every path with a
// small JSON body, as /api/health does. Built with the same toolchain and
// flags as clawboo, its cold start, memory and request rate are this
// machine's floor for a Go HTTP server — what clawboo is compared with.
const floorSource = `package main

import (
	"net/http"
	"os"
)

func main() {
	addr := "127.0.0.1:0"
	for i, a := range os.Args {
		if a == "--addr" && i+1 < len(os.Args) {
			addr = os.Args[i+1]
		}
	}
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte("{\"ok\":true}\n"))
	})
	if err := http.ListenAndServe(addr, nil); err != nil {
		os.Exit(1)
	}
}
`

// floorBinary builds floorSource (CGO_ENABLED=0, -s -w, as `make
// build-headless` builds clawboo).
func floorBinary(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(floorSource), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module floor\n\ngo 1.22\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(dir, "floor")
	cmd := exec.Command("go", "build", "-ldflags", "-s -w", "-o", out, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=", "GOWORK=off")
	if o, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build floor server: %v\n%s", err, o)
	}
	return out
}

// startFloor launches the floor server on a free port.
func startFloor(b *testing.B, bin string) *proc {
	b.Helper()
	port := freePort(b)
	cmd := exec.Command(bin, "--addr", "127.0.0.1:"+strconv.Itoa(port))
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	p := &proc{cmd: cmd, url: fmt.Sprintf("http://127.0.0.1:%d", port)}
	b.Cleanup(p.stop)
	return p
}
