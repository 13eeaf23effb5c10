package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run does not write its output over a file evalmd did not write (a LIME
// output of the same name), unless --force.
func TestRunKeepsForeignOutput(t *testing.T) {
	out := t.TempDir()
	sheet, _ := filepath.Abs(filepath.Join("..", "..", "sheets", "input-solar-choice.md"))
	p := filepath.Join(out, "output-solar-choice-mock.json")
	os.WriteFile(p, []byte(`{"sheet": {"name": "LIME's"}, "questions": []}`), 0o644)
	args := []string{"-f", sheet, "-m", "mock", "-o", out, "-u", "0"}
	var stderr bytes.Buffer
	err := run(context.Background(), &stderr, &stderr, args)
	if err == nil || !strings.Contains(err.Error(), p+" exists and was not written by evalmd") {
		t.Fatalf("err %v\n%s", err, stderr.String())
	}
	if b, _ := os.ReadFile(p); !strings.Contains(string(b), "LIME's") {
		t.Error("the file was overwritten")
	}
	if _, err := os.Stat(filepath.Join(out, "output-solar-choice-mock.md")); err == nil {
		t.Error("the markdown was written beside a refused output")
	}
	if err := run(context.Background(), &stderr, &stderr, append(args, "--force")); err != nil {
		t.Fatalf("--force: %v", err)
	}
	if b, _ := os.ReadFile(p); strings.Contains(string(b), "LIME's") {
		t.Error("--force did not write")
	}
}

// A dry run's output says so in its sheet object, and a real run's does
// not, so agg can leave dry runs out.
func TestDryRunMarked(t *testing.T) {
	sheet, _ := filepath.Abs(filepath.Join("..", "..", "sheets", "input-solar-choice.md"))
	for _, dry := range []bool{true, false} {
		out := t.TempDir()
		args := []string{"-f", sheet, "-m", "mock", "-o", out, "-u", "0"}
		if dry {
			args = append(args, "-y")
		}
		var stderr bytes.Buffer
		if err := run(context.Background(), &stderr, &stderr, args); err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		b, err := os.ReadFile(filepath.Join(out, "output-solar-choice-mock.json"))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(b), `"dry_run": true`); got != dry {
			t.Errorf("dry run %v: marked %v", dry, got)
		}
	}
}
