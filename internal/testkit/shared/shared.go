// Package shared locates the ../shared folder (corpora and reference outputs)
// that tests compare against. It sits beside the checkout; tests never copy it.
package shared

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Dir returns the absolute path of the shared folder, found as "shared"
// beside the module root (the folder holding go.mod). EVALMD_SHARED
// overrides it. When the folder is missing the test is skipped with the path
// it looked for, so a missing corpus never passes silently; under CI
// (EVALMD_REQUIRE_SHARED=1, set by .ci/run) the test fails instead.
func Dir(t testing.TB) string {
	t.Helper()
	d, err := dir()
	if err != nil {
		Missing(t, err.Error())
	}
	return d
}

func dir() (string, error) {
	if d := os.Getenv("EVALMD_SHARED"); d != "" {
		return d, nil
	}
	root, err := moduleRoot()
	if err != nil {
		return "", fmt.Errorf("shared corpus: cannot find module root: %v", err)
	}
	d := filepath.Join(filepath.Dir(root), "shared")
	if _, err := os.Stat(filepath.Join(d, "DESIGN.md")); err != nil {
		return "", fmt.Errorf("shared corpus not found: looked for %s", d)
	}
	return d, nil
}

// Seeds returns the shared files matching the glob pattern elem (joined),
// each cut to at most max bytes, for a fuzz target's seed corpus. A missing
// shared folder gives none and does not skip: the target keeps its own
// seeds and its corpus under testdata/fuzz (under CI the folder is
// required, as for Dir).
func Seeds(tb testing.TB, max int, elem ...string) [][]byte {
	tb.Helper()
	d, err := dir()
	if err != nil {
		if Required() {
			tb.Fatalf("%s (EVALMD_REQUIRE_SHARED=1: required here)", err)
		}
		return nil
	}
	paths, err := filepath.Glob(filepath.Join(append([]string{d}, elem...)...))
	if err != nil {
		tb.Fatal(err)
	}
	var seeds [][]byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		seeds = append(seeds, data[:min(len(data), max)])
	}
	return seeds
}

// Required reports whether a missing test input must fail the test rather
// than skip it: CI sets EVALMD_REQUIRE_SHARED=1 so that nothing it is meant
// to check (the corpus, a Debian package such as bubblewrap or chromium) is
// passed over unseen.
func Required() bool { return os.Getenv("EVALMD_REQUIRE_SHARED") == "1" }

// Missing ends the test because an input it needs is absent: a skip naming
// what is missing, or a failure when Required.
func Missing(t testing.TB, why string) {
	t.Helper()
	if Required() {
		t.Fatalf("%s (EVALMD_REQUIRE_SHARED=1: required here)", why)
	}
	t.Skip(why)
}

// Path is Dir joined with elem.
func Path(t testing.TB, elem ...string) string {
	t.Helper()
	return filepath.Join(append([]string{Dir(t)}, elem...)...)
}

func moduleRoot() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		p := filepath.Dir(d)
		if p == d {
			return "", os.ErrNotExist
		}
		d = p
	}
}

// LIMEAgg runs LIME's own agg.py on dir and returns the markdown it
// writes. LIME's source (github.com/sutt/lime at e03f8c2, the version agg
// follows) is the checkout EVALMD_LIME_SRC names, run by Debian's Python
// with pandas and tabulate (DataFrame.to_markdown). LIME's source is not
// in ../shared and CI reaches no code host, so without EVALMD_LIME_SRC the
// test is skipped, in CI too; a named checkout that is not one fails.
func LIMEAgg(t testing.TB, dir string) string {
	t.Helper()
	src := os.Getenv("EVALMD_LIME_SRC")
	if src == "" {
		t.Skip("EVALMD_LIME_SRC names no checkout of github.com/sutt/lime (git checkout e03f8c2)")
	}
	if _, err := os.Stat(filepath.Join(src, "agg.py")); err != nil {
		t.Fatalf("EVALMD_LIME_SRC: %v", err)
	}
	const python = "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import pandas, tabulate").Run(); err != nil {
		Missing(t, "needs "+python+" with pandas and tabulate (apt-get install python3-pandas python3-tabulate): "+err.Error())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out := filepath.Join(t.TempDir(), "agg-lime.md")
	cmd := exec.CommandContext(ctx, python, "agg.py", "-i", dir, "-o", out)
	cmd.Dir = src
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("LIME's agg.py: %v\n%s", err, msg)
	}
	lime, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(lime)
}
