// Package shared locates the ../shared folder (corpora and reference outputs)
// that tests compare against. It sits beside the checkout; tests never copy it.
package shared

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the absolute path of the shared folder, found as "shared"
// beside the module root (the folder holding go.mod). EVALMD_SHARED
// overrides it. When the folder is missing the test is skipped with the path
// it looked for, so a missing corpus never passes silently.
func Dir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("EVALMD_SHARED"); d != "" {
		return d
	}
	root, err := moduleRoot()
	if err != nil {
		t.Skipf("shared corpus: cannot find module root: %v", err)
	}
	d := filepath.Join(filepath.Dir(root), "shared")
	if _, err := os.Stat(filepath.Join(d, "DESIGN.md")); err != nil {
		t.Skipf("shared corpus not found: looked for %s", d)
	}
	return d
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
