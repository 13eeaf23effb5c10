package aggcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/result"
)

// copyLIME copies two of LIME's output files into a fresh folder.
func copyLIME(t *testing.T) (dir string, outputs []string) {
	t.Helper()
	src := shared.Path(t, "corpora", "lime", "results")
	dir = t.TempDir()
	for _, n := range []string{"output-rules-qa-1-gpt-4-09fa.json", "output-wsu-1-gpt-4-1063.json"} {
		b, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, n)
		os.WriteFile(p, b, 0o644)
		outputs = append(outputs, p)
	}
	return dir, outputs
}

// agg never writes over a file it did not write, one edited since, or one
// of its own inputs, a run's readable .md beside an output file included
// (--force allows the first two, never the last), and
// always over its own unchanged report.
func TestAggOverwrite(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string, outputs []string) []string // returns the args after -i DIR
		want  string                                                    // "" = written
		keep  bool                                                      // the old content stays
	}{
		{"new file", func(t *testing.T, dir string, _ []string) []string {
			return []string{"-o", filepath.Join(dir, "board.md")}
		}, "", false},
		{"a file agg did not write", func(t *testing.T, dir string, _ []string) []string {
			os.WriteFile(filepath.Join(dir, "notes.md"), []byte("mine"), 0o644)
			return []string{"-o", filepath.Join(dir, "notes.md")}
		}, "not written by evalmd", true},
		{"the same, --force", func(t *testing.T, dir string, _ []string) []string {
			os.WriteFile(filepath.Join(dir, "notes.md"), []byte("mine"), 0o644)
			return []string{"-o", filepath.Join(dir, "notes.md"), "--force"}
		}, "", false},
		{"one of its input files", func(t *testing.T, dir string, outputs []string) []string {
			return []string{"-o", outputs[0]}
		}, "is an input", true},
		{"one of its input files, --force", func(t *testing.T, dir string, outputs []string) []string {
			return []string{"-o", outputs[1], "--force"}
		}, "is an input", true},
		{"a run's readable .md", func(t *testing.T, dir string, outputs []string) []string {
			return []string{"-o", runMarkdown(t, outputs[0])}
		}, "is an input", true},
		{"a run's readable .md, --force", func(t *testing.T, dir string, outputs []string) []string {
			return []string{"-o", runMarkdown(t, outputs[1]), "--force"}
		}, "is an input", true},
		{"its own report, again", func(t *testing.T, dir string, _ []string) []string {
			p := filepath.Join(dir, "board.md")
			runAgg(t, "-i", dir, "-o", p)
			return []string{"-o", p}
		}, "", false},
		{"its own report, edited since", func(t *testing.T, dir string, _ []string) []string {
			p := filepath.Join(dir, "board.md")
			runAgg(t, "-i", dir, "-o", p)
			os.WriteFile(p, []byte("mine"), 0o644)
			return []string{"-o", p}
		}, "changed since evalmd wrote it", true},
		{"a read-only report, --force", func(t *testing.T, dir string, _ []string) []string {
			p := filepath.Join(dir, "board.md")
			os.WriteFile(p, []byte("mine"), 0o444)
			return []string{"-o", p, "--force"}
		}, "read-only", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, outputs := copyLIME(t)
			args := tc.setup(t, dir, outputs)
			target := args[1]
			before, _ := os.ReadFile(target)
			var stdout, stderr bytes.Buffer
			err := aggregate(context.Background(), &stdout, &stderr, append([]string{"-i", dir}, args...))
			after, _ := os.ReadFile(target)
			if tc.want == "" {
				if err != nil || !bytes.HasPrefix(after, []byte("### Leaderboard")) {
					t.Fatalf("err %v, file starts %.20q", err, after)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), target) {
				t.Fatalf("err %v, want %q naming %s", err, tc.want, target)
			}
			if tc.keep && !bytes.Equal(before, after) {
				t.Error("the file was changed")
			}
		})
	}
}

// runMarkdown writes the readable .md a run writes beside output, as
// evalmd's (so only its being a run's output keeps agg off it).
func runMarkdown(t *testing.T, output string) string {
	t.Helper()
	p := result.MarkdownPath(output)
	if err := outfile.Write(p, []byte("# the run's answers\n"), outfile.Options{}); err != nil {
		t.Fatal(err)
	}
	return p
}

func runAgg(t *testing.T, args ...string) {
	t.Helper()
	var b bytes.Buffer
	if err := aggregate(context.Background(), &b, &b, args); err != nil {
		t.Fatalf("agg %q: %v\n%s", args, err, b.String())
	}
}

// -charts with the report printed writes its SVGs beside the outputs (not
// into the current folder), names them on stderr and links them from the
// printed report; not over a file agg did not write, and nothing at all
// when one chart is refused.
func TestAggChartsToStdoutKeepFiles(t *testing.T) {
	dir, _ := copyLIME(t)
	cwd := t.TempDir()
	t.Chdir(cwd)
	chart := filepath.Join(dir, "agg-leaderboard.svg")
	os.WriteFile(chart, []byte("my drawing"), 0o644)
	var stdout, stderr bytes.Buffer
	err := aggregate(context.Background(), &stdout, &stderr, []string{"-i", dir, "-o", "-", "-charts"})
	if err == nil || !strings.Contains(err.Error(), "agg-leaderboard.svg") {
		t.Fatalf("err %v", err)
	}
	if b, _ := os.ReadFile(chart); string(b) != "my drawing" {
		t.Error("the chart was overwritten")
	}
	if stdout.Len() != 0 {
		t.Error("a report was printed")
	}
	os.Remove(chart)
	runAgg(t, "-i", dir, "-o", "-", "-charts")
	stdout.Reset()
	stderr.Reset()
	if err := aggregate(context.Background(), &stdout, &stderr, []string{"-i", dir, "-charts"}); err != nil { // its own charts, rewritten
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if b, _ := os.ReadFile(chart); !bytes.Contains(b, []byte("<svg")) {
		t.Error("no chart written beside the outputs")
	}
	if !strings.Contains(stderr.String(), "wrote "+chart+"\n") {
		t.Errorf("stderr does not name %s:\n%s", chart, stderr.String())
	}
	if !strings.Contains(stdout.String(), "("+filepath.ToSlash(chart)+")") {
		t.Errorf("the printed report does not link %s", chart)
	}
	if left, _ := filepath.Glob(filepath.Join(cwd, "*")); len(left) > 0 {
		t.Errorf("written into the current folder: %q", left)
	}
}
