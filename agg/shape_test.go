package agg

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Files of the wrong shape are named, one line each, with what is wrong
// and where: Python's NaN names the line and the field.
func TestLoadWrongShapes(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"output-array.json": `[1,2]`,
		"output-null.json":  `null`,
		"output-sheet.json": `{"sheet":null}`,
		"output-nan.json":   "{\"sheet\": {\"name\": \"s\"},\n \"questions\": [{\"name\": \"q\"}, {\"name\": \"r\",\n \"eval_time\": NaN}]}",
	}
	for n, data := range files {
		os.WriteFile(filepath.Join(dir, n), []byte(data), 0o644)
	}
	var warn bytes.Buffer
	d, err := Load(context.Background(), dir, &warn, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Files != 0 || len(d.Skipped) != len(files) {
		t.Errorf("%d read, %d skipped", d.Files, len(d.Skipped))
	}
	lines := strings.Split(strings.TrimSpace(warn.String()), "\n")
	if len(lines) != len(files) {
		t.Fatalf("%d lines:\n%s", len(lines), warn.String())
	}
	want := `output-nan.json:3: not an output file: field "eval_time" holds NaN or Infinity, which is not a JSON number`
	if !strings.Contains(warn.String(), want) {
		t.Errorf("no %q in\n%s", want, warn.String())
	}
}
