package evalmd_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeLayout checks the Layout table of docs/architecture.md against the tree: every
// folder it names exists, and every Go package is named there, itself or
// through a folder above it.
func TestReadmeLayout(t *testing.T) {
	data, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	start := strings.Index(text, "\n## Layout\n")
	if start < 0 {
		t.Fatal("docs/architecture.md has no Layout section")
	}
	section := text[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	listed := map[string]bool{}
	cell := regexp.MustCompile("`([^`]+)`")
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first := strings.Split(line, "|")[1]
		for _, m := range cell.FindAllStringSubmatch(first, -1) {
			listed[m[1]] = true
		}
	}
	if len(listed) == 0 {
		t.Fatal("the Layout table names no folder")
	}
	for dir := range listed {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			t.Errorf("the Layout table names %s, which is not a folder", dir)
		}
	}
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || filepath.Dir(path) == "." {
			return nil
		}
		for dir := filepath.Dir(path); dir != "."; dir = filepath.Dir(dir) {
			if listed[filepath.ToSlash(dir)] {
				return nil
			}
		}
		t.Errorf("%s: its package is not in the Layout table of docs/architecture.md", path)
		return filepath.SkipDir
	})
	if err != nil {
		t.Fatal(err)
	}
}
