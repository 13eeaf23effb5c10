package convertcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/testkit/shared"
)

// Rerunning a conversion over sheets a person edited keeps the edits (and
// says which) unless --force; sheets nobody touched are rewritten. A file
// evalmd did not write is kept the same way, and an input never written
// over.
func TestConvertRerunKeepsEdits(t *testing.T) {
	for _, tc := range []struct {
		what string
		in   string
	}{
		{"dsbench", shared.Path(t, "corpora", "dsbench")},
		{"dabench", shared.Path(t, "corpora", "dabench")},
	} {
		t.Run(tc.what, func(t *testing.T) {
			out := t.TempDir()
			run := func(extra ...string) (string, error) {
				var stderr bytes.Buffer
				err := convert(context.Background(), &stderr, &stderr, append([]string{tc.what, "-i", tc.in, "-o", out}, extra...))
				return stderr.String(), err
			}
			if msg, err := run(); err != nil {
				t.Fatalf("%v\n%s", err, msg)
			}
			sheets, _ := filepath.Glob(filepath.Join(out, "input-*.md"))
			if len(sheets) < 3 {
				t.Fatalf("%d sheets", len(sheets))
			}
			edited := sheets[0]
			os.WriteFile(edited, []byte("# my edit\n"), 0o644)
			msg, err := run()
			if err == nil || !strings.Contains(msg+err.Error(), edited+" was changed since evalmd wrote it") {
				t.Fatalf("rerun over an edited sheet: %v\n%s", err, msg)
			}
			if b, _ := os.ReadFile(edited); string(b) != "# my edit\n" {
				t.Error("the edit was lost")
			}
			// Without the record (a folder copied elsewhere), no sheet
			// counts as evalmd's.
			os.Remove(filepath.Join(out, outfile.Record))
			before, _ := os.ReadFile(sheets[1])
			msg, err = run()
			if err == nil || !strings.Contains(msg+err.Error(), sheets[1]+" exists and was not written by evalmd") {
				t.Fatalf("rerun without the record: %v\n%s", err, msg)
			}
			if b, _ := os.ReadFile(sheets[1]); !bytes.Equal(b, before) {
				t.Error("a sheet not known as evalmd's was rewritten")
			}
			if msg, err := run("--force"); err != nil {
				t.Fatalf("--force: %v\n%s", err, msg)
			}
			if b, _ := os.ReadFile(edited); string(b) == "# my edit\n" {
				t.Error("--force did not rewrite the sheet")
			}
		})
	}
}

// An export never writes over its input, even with --force.
func TestExportNotOverInput(t *testing.T) {
	src := shared.Path(t, "corpora", "lime", "results", "output-wsu-1-gpt-4-1063.json")
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "output-x.json")
	// semeval-predictions writes predictions.txt into the -o folder: an
	// input of that name must be refused too.
	named := filepath.Join(dir, "predictions.txt")
	for _, f := range []string{p, named} {
		os.WriteFile(f, orig, 0o644)
	}
	var b bytes.Buffer
	for _, args := range [][]string{{"dabench-responses", "-i", p, "-o", p}, {"semeval-predictions", "-i", named, "-o", dir}} {
		err := convert(context.Background(), &b, &b, append(args, "--force"))
		if err == nil || !strings.Contains(err.Error(), "is an input") {
			t.Errorf("%s over its input: %v", args[0], err)
		}
	}
	for _, f := range []string{p, named} {
		if after, _ := os.ReadFile(f); !bytes.Equal(after, orig) {
			t.Errorf("the input %s was changed", filepath.Base(f))
		}
	}
}
