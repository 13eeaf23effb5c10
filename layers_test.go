package evalmd_test

import (
	"go/parser"
	"go/token"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// layers lists the module's packages from the bottom up. A package's code
// imports packages of its own layer or of a layer below, never above, so
// that a change to a command cannot reach into the libraries it is built
// from. A pattern ending in "/..." names a folder and everything below it.
var layers = []struct {
	name string
	pkgs []string
}{
	{"foundations: Python's and pandas' rules, reads, the one writer, locks, journals, a graceful end, markdown cells, text a terminal shows",
		[]string{"internal/py", "internal/pandasdate", "internal/readfile", "internal/outfile",
			"internal/grace", "internal/filelock", "internal/jsonl", "internal/mdcell", "internal/visible", "internal/aimd", "internal/xlsb",
			"internal/pandastext"}},
	{"formats and models: sheets, outputs, people's verdicts, workbooks, tables, tokens, settings, the providers, the sandbox",
		[]string{"schema", "sheet", "result", "workbook", "table", "tokens", "internal/setting",
			"model", "model/...", "agentproto", "sandbox", "verdict"}},
	{"engines: prompts, graders, the runner, batches, answers that run code, regrading, reviewing",
		[]string{"prompt", "grade", "runner", "batch", "codemode", "agent", "solve", "regrade", "review"}},
	{"the reports' foundations: statistics, tables and charts as text", []string{"agg/stats", "agg/render"}},
	{"the reports' data: output files read and counted once", []string{"agg/load"}},
	{"reports: leaderboards, the HTML report, workbooks out, Inspect logs",
		[]string{"agg", "agg/gate", "report", "xlsxout", "inspect", "inspect/..."}},
	{"benchmarks and the run pipeline",
		[]string{"benchmark", "benchmark/...", "harness", "harness/..."}},
	{"commands: each verb's flags and its one call", []string{"cmd/internal/..."}},
	{"mains and scripts", []string{".", "cmd/...", "scripts/..."}},
}

// fixtures are packages only tests use: no production code imports them.
var fixtures = []string{"internal/testkit/...", "model/internal/providertest"}

func matches(pkg string, patterns []string) bool {
	for _, p := range patterns {
		if dir, ok := strings.CutSuffix(p, "/..."); ok && strings.HasPrefix(pkg, dir+"/") || p == pkg {
			return true
		}
	}
	return false
}

// layerOf returns the index of pkg's layer in layers, or -1 when none
// names it.
func layerOf(pkg string) int {
	for i, l := range layers {
		if matches(pkg, l.pkgs) {
			return i
		}
	}
	return -1
}

// TestLayers checks every import of the module's own packages in
// production code against layers and fixtures, and that every package
// has a place there.
func TestLayers(t *testing.T) {
	const module = "github.com/evalmd/evalmd"
	fset := token.NewFileSet()
	seen := map[string]bool{}
	walkGo(t, func(file string) error {
		pkg := path.Clean(filepath.ToSlash(filepath.Dir(file)))
		if !seen[pkg] {
			seen[pkg] = true
			if layerOf(pkg) < 0 && !matches(pkg, fixtures) {
				t.Errorf("%s: package %s is in no layer of layers_test.go", file, pkg)
			}
		}
		if strings.HasSuffix(file, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, file, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, im := range f.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			dep, ok := strings.CutPrefix(ip, module+"/")
			if !ok {
				continue
			}
			checkImport(t, fset.Position(im.Pos()).String(), pkg, dep)
		}
		return nil
	})
	if len(seen) < 50 {
		t.Fatalf("found %d packages; is the test running at the module's root?", len(seen))
	}
}

func checkImport(t *testing.T, pos, pkg, dep string) {
	t.Helper()
	if matches(dep, fixtures) {
		if !matches(pkg, fixtures) {
			t.Errorf("%s: %s imports the test fixture %s outside a _test.go file", pos, pkg, dep)
		}
		return
	}
	from, to := layerOf(pkg), layerOf(dep)
	if from < 0 || to < 0 { // reported as in no layer
		return
	}
	if to > from {
		t.Errorf("%s: %s (layer %q) imports %s, a layer above (%q)", pos, pkg, layers[from].name, dep, layers[to].name)
	}
}

func TestLayerOf(t *testing.T) {
	for _, c := range []struct {
		pkg  string
		want int
	}{
		{"internal/py", 0},
		{"model/openai", 1},
		{"model", 1},
		{"agg/stats", 3},
		{"agg/render", 3},
		{"agg/load", 4},
		{"agg", 5},
		{"agg/gate", 5},
		{"modelx", -1},
		{"cmd/internal/runcmd", 7},
		{"cmd/evalmd", 8},
		{"internal/testkit/golden", -1},
		{"internal/nolayer", -1},
	} {
		if got := layerOf(c.pkg); got != c.want {
			t.Errorf("layerOf(%q) = %d, want %d", c.pkg, got, c.want)
		}
	}
}

// partsOf names the packages that are another's parts, kept in its folder
// but layered below it so that the rest of its layer may import them too
// (report and xlsxout read agg's tables and statistics).
var partsOf = map[string]string{"agg/stats": "agg", "agg/render": "agg", "agg/load": "agg", "agg/gate": "agg"}

// TestFoldersShowLayers checks that the folder tree tells the layers: a
// package inside another package's folder is in that package's layer or
// above it, never below, so a foundation is never found under an engine;
// only a package's named parts (partsOf) sit below it. (internal/... and
// cmd/... are folders, not packages, and hold any layer.)
func TestFoldersShowLayers(t *testing.T) {
	pkgs := map[string]bool{}
	walkGo(t, func(file string) error {
		pkgs[path.Clean(filepath.ToSlash(filepath.Dir(file)))] = true
		return nil
	})
	for pkg := range pkgs {
		in := layerOf(pkg)
		if in < 0 {
			continue
		}
		for dir := path.Dir(pkg); dir != "."; dir = path.Dir(dir) {
			if !pkgs[dir] {
				continue
			}
			if up := layerOf(dir); up > in && partsOf[pkg] != dir {
				t.Errorf("%s (layer %q) is inside %s (layer %q), a layer above it: move it out", pkg, layers[in].name, dir, layers[up].name)
			}
		}
	}
}
