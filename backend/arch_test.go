package backend

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/clawboo/desktop"

// archDoc is the house plan; its packages table is the one list of
// packages and arrows (see its "Packages and arrows" section for the shape).
var archDoc = filepath.Join("..", "docs", "architecture.md")

// The Arch tests run `go list`, whose inputs the test cache does not see:
// the Makefile runs them with -count=1.

// archTags are the build-tag sets the arrows are checked under: app/ keeps
// its Wails code behind the desktop tag, so a plain `go list` would miss it.
var archTags = []string{"", "desktop,production,webkit2_41,e2e"}

// arrows is the parsed packages table: a row's package (a module-relative
// path, "main" for the module root, or a "/..." pattern) to what it may
// import (the same forms).
type arrows map[string][]string

var (
	tableHeader = regexp.MustCompile(`^\|\s*package\s*\|\s*owns\s*\|\s*may import\s*\|\s*$`)
	backticked  = regexp.MustCompile("`([^`]+)`")
)

// readArrows parses the one `| package | owns | may import |` table of the
// document. It is strict on purpose: a row the parser cannot read is an
// error, not a silently missing arrow.
//
// order is the rows' names from top to bottom: the floors
// TestArchArrowsPointDown reads.
func readArrows(t *testing.T, path string) (table arrows, order []string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the architecture document: %v", err)
	}
	table = arrows{}
	tables := 0
	in := false
	for n, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case tableHeader.MatchString(line):
			tables++
			in = true
			continue
		case !in:
			continue
		case !strings.HasPrefix(line, "|"):
			in = false
			continue
		case strings.HasPrefix(line, "|---") || strings.HasPrefix(line, "| ---"):
			continue
		}
		cells := strings.Split(strings.ReplaceAll(strings.Trim(line, "|"), `\|`, ""), "|")
		if len(cells) != 3 {
			t.Fatalf("%s:%d: a packages row has 3 cells, this has %d: %s", path, n+1, len(cells), line)
		}
		pkg := backticked.FindAllStringSubmatch(cells[0], -1)
		if len(pkg) != 1 {
			t.Fatalf("%s:%d: the package cell names one `package`: %s", path, n+1, cells[0])
		}
		name := pkg[0][1]
		if _, dup := table[name]; dup {
			t.Fatalf("%s:%d: %s has two rows", path, n+1, name)
		}
		deps := []string{}
		if strings.TrimSpace(cells[2]) != "—" {
			for _, m := range backticked.FindAllStringSubmatch(cells[2], -1) {
				deps = append(deps, m[1])
			}
			if len(deps) == 0 {
				t.Fatalf("%s:%d: may import is `pkg`, `pkg` or —: %s", path, n+1, cells[2])
			}
		}
		table[name] = deps
		order = append(order, name)
	}
	if tables != 1 {
		t.Fatalf("%s: want exactly one | package | owns | may import | table, found %d", path, tables)
	}
	return table, order
}

// matches reports whether a module-relative package matches a table name.
func matches(pattern, pkg string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == pattern
}

// rowOf finds a package's row: the exact one, else the longest pattern.
func (a arrows) rowOf(pkg string) (string, bool) {
	if _, ok := a[pkg]; ok {
		return pkg, true
	}
	best := ""
	for name := range a {
		if strings.HasSuffix(name, "/...") && matches(name, pkg) && len(name) > len(best) {
			best = name
		}
	}
	return best, best != ""
}

// rel turns an import path of this module into the table's form.
func rel(imp string) (string, bool) {
	if imp == module {
		return "main", true
	}
	r, ok := strings.CutPrefix(imp, module+"/")
	return r, ok
}

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

// moduleImports lists every package of the module with its production
// imports of the module, unioned over archTags.
func moduleImports(t *testing.T) map[string]map[string]bool {
	t.Helper()
	imports := map[string]map[string]bool{}
	for _, tags := range archTags {
		for _, line := range goList(t, "-tags", tags, "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"/...") {
			fields := strings.Fields(line)
			pkg, _ := rel(fields[0])
			if imports[pkg] == nil {
				imports[pkg] = map[string]bool{}
			}
			for _, imp := range fields[1:] {
				if dep, ok := rel(imp); ok {
					imports[pkg][dep] = true
				}
			}
		}
	}
	return imports
}

func TestArchImportArrows(t *testing.T) {
	table, _ := readArrows(t, archDoc)
	imports := moduleImports(t)
	pkgs := make([]string, 0, len(imports))
	for p := range imports {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	used := map[string]bool{}
	arrowUsed := map[[2]string]bool{} // row, allowed arrow
	for _, pkg := range pkgs {
		row, ok := table.rowOf(pkg)
		if !ok {
			t.Errorf("%s has no row in %s: add it there", pkg, archDoc)
			continue
		}
		used[row] = true
		deps := make([]string, 0, len(imports[pkg]))
		for d := range imports[pkg] {
			deps = append(deps, d)
		}
		sort.Strings(deps)
		for _, dep := range deps {
			if matches("backend/...", pkg) && (dep == "main" || matches("app/...", dep)) {
				t.Errorf("%s imports %s: backend never imports app or main", pkg, dep)
				continue
			}
			if !permitted(table[row], dep) {
				t.Errorf("%s imports %s, which %s does not allow (row %s)", pkg, dep, archDoc, row)
			}
			for _, allowed := range table[row] {
				if matches(allowed, dep) {
					arrowUsed[[2]string{row, allowed}] = true
				}
			}
		}
	}
	// An allowed arrow nothing uses is a plan the code does not follow: the
	// table says only what is.
	for row, allowed := range table {
		for _, a := range allowed {
			if used[row] && !arrowUsed[[2]string{row, a}] {
				t.Errorf("%s lets %s import %s, which nothing there does: remove the arrow", archDoc, row, a)
			}
		}
	}
	// A row with no package is a document that has drifted from the code.
	for name := range table {
		if !used[name] {
			t.Errorf("%s has a row for %s, which matches no package", archDoc, name)
		}
	}
}

func permitted(ok []string, dep string) bool {
	for _, o := range ok {
		if matches(o, dep) {
			return true
		}
	}
	return false
}

// TestArchReadsTheTable keeps the parser honest on a table of known shape.
func TestArchReadsTheTable(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "a.md")
	err := os.WriteFile(doc, []byte("intro\n\n| package | owns | may import |\n|---|---|---|\n"+
		"| `main` | the `cli` \\| flags | `app`, `backend` |\n"+
		"| `backend/x` | x | — |\n"+
		"| `backend/adapters/...` | y | `backend/executor` |\n\nafter | not a row\n"), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := readArrows(t, doc)
	if len(a) != 3 || len(a["main"]) != 2 || len(a["backend/x"]) != 0 {
		t.Fatalf("%v", a)
	}
	if row, _ := a.rowOf("backend/adapters/openclaw/gatewaytest"); row != "backend/adapters/..." {
		t.Fatalf("pattern row: %q", row)
	}
	if permitted(a["main"], "backend/store") || !permitted(a["main"], "backend") {
		t.Fatal("an arrow to backend is not an arrow to all of backend")
	}
}

func TestArchBackendIsCgoFreeAndWailsFree(t *testing.T) {
	for _, line := range goList(t, "-deps", "-f", "{{.ImportPath}} {{len .CgoFiles}}", module+"/backend/...") {
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

// TestArchMCPGoIsConfined keeps mark3labs/mcp-go inside backend/mcp and its
// subpackages (test code, and the fakes that stand in for agents, may use
// its client to act as a real MCP client).
func TestArchMCPGoIsConfined(t *testing.T) {
	for _, tags := range archTags {
		for _, line := range goList(t, "-tags", tags, "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"/...") {
			fields := strings.Fields(line)
			pkg, _ := rel(fields[0])
			for _, dep := range fields[1:] {
				if strings.HasPrefix(dep, "github.com/mark3labs/mcp-go") && !matches("backend/mcp/...", pkg) && !matches("backend/fakes/...", pkg) {
					t.Errorf("%s imports %s: only backend/mcp (and the fakes) may", pkg, dep)
				}
			}
		}
	}
}

// climbing lists the table's arrows that climb back up: a row may import
// only rows below it, so an allowed arrow matching a row above it (the
// dependency the house plan says never happens, such as a part's policy
// reaching up into the composition root) is one.
func climbing(table arrows, order []string) []string {
	var up []string
	for i, row := range order {
		for _, allowed := range table[row] {
			for _, other := range order[:i] {
				if matches(allowed, strings.TrimSuffix(other, "/...")) {
					up = append(up, row+" may import "+allowed+", which is above it (row "+other+")")
				}
			}
		}
	}
	return up
}

// The table is written in floors: no arrow climbs back up.
func TestArchArrowsPointDown(t *testing.T) {
	table, order := readArrows(t, archDoc)
	for _, c := range climbing(table, order) {
		t.Errorf("%s: %s: an arrow that climbs back up the table", archDoc, c)
	}
}

// The floors check itself: an arrow to a row above is found, one below is
// not.
func TestArchArrowsPointDownReadsFloors(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "a.md")
	rows := "| package | owns | may import |\n|---|---|---|\n| `top` | x | `low` |\n| `low` | y | `top` |\n"
	if err := os.WriteFile(doc, []byte(rows), 0o600); err != nil {
		t.Fatal(err)
	}
	table, order := readArrows(t, doc)
	if up := climbing(table, order); len(up) != 1 || !strings.HasPrefix(up[0], "low may import top") {
		t.Fatalf("want the one arrow from low back up to top, got %v", up)
	}
}
