package main

import (
	"os/exec"
	"strings"
	"testing"
)

// agg reads output files: it never calls a model, runs code, builds a
// prompt or converts a benchmark's data. So it must not link the
// providers, the sandbox and what runs in it (agent, codemode), the
// prompt builder, the tokenizers, or the readers of workbooks and parquet
// tables (each benchmark's converter is a package apart
// from its graders and metric). Of the benchmarks it links only what reads
// answers, benchmark/NAME/score and their list benchmark/benchmarks, never
// a converter (benchmark/NAME).
func TestAggDependencies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	const mod = "github.com/evalmd/evalmd/"
	// Each is a package with those below it.
	forbidden := []string{
		mod + "model/openai", mod + "model/anthropic", mod + "model/builtin",
		mod + "sandbox", mod + "agent", mod + "solve", mod + "codemode", mod + "prompt", mod + "harness", mod + "runner",
		mod + "tokens", mod + "workbook", mod + "table", "github.com/tiktoken-go/tokenizer", "github.com/parquet-go/parquet-go",
	}
	// Leaves below a forbidden package that agg may read with.
	allowed := map[string]bool{
		mod + "agentproto":    true, // what a transcript looks like, for the Inspect logs
		mod + "internal/aimd": true, // the connection-limit history in output files
	}
	pkgs := strings.Fields(string(out))
	for _, pkg := range pkgs {
		for _, f := range forbidden {
			if (pkg == f || strings.HasPrefix(pkg, f+"/")) && !allowed[pkg] {
				t.Errorf("cmd/agg depends on %s", pkg)
			}
		}
		if strings.HasPrefix(pkg, mod+"model/") { // a provider
			t.Errorf("cmd/agg depends on %s", pkg)
		}
		if name, ok := strings.CutPrefix(pkg, mod+"benchmark/"); ok && !strings.HasSuffix(name, "/score") && name != "benchmarks" {
			t.Errorf("cmd/agg depends on %s, a benchmark's converter", pkg)
		}
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list -deps gave %d packages: %q", len(pkgs), out)
	}
}
