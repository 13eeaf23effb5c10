// Package golden compares what a test makes with a golden file under
// testdata/, and rewrites the file instead when the test runs with
// -update (go test ./report -update): a change in output then shows in
// review as a change in the file, and git diff shows all of it.
//
// The -update flag is declared here, once, for every test package that
// imports golden; a package must not declare its own. A test that writes
// something other than one file's bytes (report's screenshots) asks
// Update. A file of which the test makes only a part (docs/settings.md's
// settings table) is checked whole: the test passes the file with its
// part remade.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// update is the -update flag of the test binaries that import golden.
var update = flag.Bool("update", false, "rewrite the golden files with what the tests make")

// Update reports whether the test runs with -update.
func Update() bool { return *update }

// Check compares got with the golden file at path, or writes got there
// under -update. A mismatch fails the test (without stopping it) with the
// first line that differs.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if err := check(path, got, *update); err != nil {
		t.Error(err)
	}
}

// check is Check with the flag's value as an argument, so that its test
// does not depend on the flag.
func check(path string, got []byte, update bool) error {
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		return os.WriteFile(path, got, 0o644)
	}
	file, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("golden file: %w (go test -update writes it)", err)
	}
	if d := diff(file, got); d != "" {
		return fmt.Errorf("%s differs from the test's output (go test -update rewrites it): %s", path, d)
	}
	return nil
}

// excerpt is how many bytes of a long differing line diff shows before
// its first differing byte; it shows twice that after it.
const excerpt = 40

// diff describes where got first departs from the file's bytes: the line's
// number and both versions of the line (quoted, so that spaces, tabs and a
// missing final newline show; a long line is cut around its first
// difference). It returns "" when they are equal.
func diff(file, got []byte) string {
	if bytes.Equal(file, got) {
		return ""
	}
	fl, gl := bytes.SplitAfter(file, []byte("\n")), bytes.SplitAfter(got, []byte("\n"))
	i := 0
	for i < len(fl) && i < len(gl) && bytes.Equal(fl[i], gl[i]) {
		i++
	}
	f, g := lineAt(fl, i), lineAt(gl, i)
	col := 0
	for col < len(f) && col < len(g) && f[col] == g[col] {
		col++
	}
	d := fmt.Sprintf("line %d, column %d:\n  file %s\n  test %s", i+1, col+1, quote(f, col), quote(g, col))
	if nf, ng := lines(file), lines(got); nf != ng {
		d += fmt.Sprintf("\n(the file has %d lines, the test's output %d)", nf, ng)
	}
	return d
}

// lineAt returns the i-th line of ls, or nil past its end.
func lineAt(ls [][]byte, i int) []byte {
	if i < len(ls) {
		return ls[i]
	}
	return nil
}

// quote shows line quoted, cut to an excerpt around col when it is long.
func quote(line []byte, col int) string {
	if len(line) == 0 {
		return "(end of file)"
	}
	from, to := max(col-excerpt, 0), min(col+2*excerpt, len(line))
	s := fmt.Sprintf("%q", line[from:to])
	if from > 0 {
		s = "…" + s
	}
	if to < len(line) {
		s += "…"
	}
	return s
}

// lines counts the lines of data, a last one without its newline included.
func lines(data []byte) int {
	n := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}
