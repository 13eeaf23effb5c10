package main

import (
	"os/exec"
	"strings"
	"testing"
)

// agg reads output files and never calls a model: it must not link the
// providers' SDKs (about 9 MB of code it would never run).
func TestNoProviderSDKs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "github.com/openai/openai-go") || strings.HasPrefix(pkg, "github.com/anthropics/anthropic-sdk-go") ||
			strings.HasPrefix(pkg, "github.com/evalmd/evalmd/model/") {
			t.Errorf("cmd/agg depends on %s", pkg)
		}
	}
}
