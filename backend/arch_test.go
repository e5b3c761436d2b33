package backend

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/clawboo/desktop/"

// The Arch tests run `go list`, whose inputs the test cache does not see:
// the Makefile runs them with -count=1.

// allowed is DESIGN.md section 3: which backend packages each package may
// import. Arrows point one way; a package missing here may import nothing
// from backend. Test-only imports (mock in the supervisor's tests) are not
// counted: `go list -deps` without -test sees production code only.
var allowed = map[string][]string{
	"backend/config":                {},
	"backend/bus":                   {},
	"backend/store":                 {},
	"backend/proc":                  {},
	"backend/executor":              {},
	"backend/executor/executortest": {"executor"},
	"backend/llm":                   {},
	"backend/perf":                  {},
	"backend/redact":                {},
	"backend/jail":                  {},
	"backend/fakes/fakeanthropic":   {}, // test support: the scripted Messages API
	"backend/fakes/fakeprovider":    {}, // test support: the scripted provider APIs (Messages, Chat Completions)
	"backend/fakes/fakeresponses":   {}, // test support: the scripted OpenAI Responses API (Codex, OpenClaw)
	"backend/fakes/fakehermes":      {}, // test support: a stand-in hermes program (PyPI is unreachable here)
	"backend/vault":                 {"config"},
	"backend/mcp":                   {"store", "redact"},
	"backend/worktree":              {"proc", "redact"},
	"backend/board":                 {"store", "bus"},
	"backend/approval":              {"store", "bus", "redact"},
	"backend/budget":                {"store", "bus"},
	"backend/runtimes":              {"config", "vault", "proc", "executor"},
	"backend/agents":                {"store", "budget", "vault", "config", "executor"},
	"backend/supervisor":            {"redact", "executor", "board", "worktree", "approval", "budget", "vault", "store", "bus"},
	"backend/api":                   {"redact", "config", "bus", "store", "vault", "proc", "executor", "llm", "mcp", "worktree", "board", "approval", "budget", "runtimes", "supervisor", "agents"},
}

// adapters may use the contract, child processes and typed pub/sub;
// native also the provider clients and the in-process MCP servers.
var adapterAllowed = []string{"executor", "proc", "llm", "mcp", "redact", "bus", "jail"}

func goList(t *testing.T, args ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("go list %v: %v\n%s", args, err, stderr)
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

func TestArchImportArrowsPointDown(t *testing.T) {
	for _, line := range goList(t, "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		if pkg == "backend" {
			continue // the composition root wires everything
		}
		var ok []string
		switch {
		case strings.HasPrefix(pkg, "backend/adapters/"):
			ok = adapterAllowed
		default:
			var known bool
			ok, known = allowed[pkg]
			if !known {
				t.Errorf("%s is not in DESIGN.md's package table: add it there and here", pkg)
				continue
			}
		}
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			dep := strings.TrimPrefix(strings.TrimPrefix(imp, module), "backend/")
			if dep == "app" || strings.HasPrefix(dep, "app/") || imp == module[:len(module)-1] {
				t.Errorf("%s imports %s: backend never imports app or main", pkg, imp)
				continue
			}
			if !permitted(ok, dep) {
				t.Errorf("%s imports backend/%s, which DESIGN.md does not allow", pkg, dep)
			}
		}
	}
}

func permitted(ok []string, dep string) bool {
	for _, o := range ok {
		if dep == o || strings.HasPrefix(dep, o+"/") {
			return true
		}
	}
	return false
}

func TestArchBackendIsCgoFreeAndWailsFree(t *testing.T) {
	for _, line := range goList(t, "-deps", "-f", "{{.ImportPath}} {{len .CgoFiles}}", "./...") {
		fields := strings.Fields(line)
		if strings.Contains(fields[0], "wailsapp") {
			t.Errorf("backend depends on %s: only main.go and app/ may use Wails", fields[0])
		}
		if fields[1] != "0" && !isStd(fields[0]) {
			t.Errorf("backend depends on cgo package %s", fields[0])
		}
	}
}

// isStd reports standard-library packages, whose optional cgo (net, os/user)
// is not ours to remove.
func isStd(pkg string) bool {
	first := strings.SplitN(pkg, "/", 2)[0]
	return !strings.Contains(first, ".")
}

// TestArchMCPGoIsConfined keeps mark3labs/mcp-go inside backend/mcp (test
// code may use its client to act as a real MCP client).
func TestArchMCPGoIsConfined(t *testing.T) {
	for _, line := range goList(t, "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		for _, dep := range fields[1:] {
			if strings.HasPrefix(dep, "github.com/mark3labs/mcp-go") && pkg != "backend/mcp" {
				t.Errorf("%s imports %s: only backend/mcp may", pkg, dep)
			}
		}
	}
}
