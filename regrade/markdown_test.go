package regrade

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/result"
)

// runOutput writes an output file and its .md as run does, and returns the
// output's path.
func runOutput(t *testing.T, f *result.File) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "output-s-m.json")
	if err := f.Write(path, outfile.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := result.WriteMarkdown(result.MarkdownPath(path), f, outfile.Options{}); err != nil {
		t.Fatal(err)
	}
	return path
}

// rendered is the .md run would write for the output file at path now.
func rendered(t *testing.T, path string) string {
	t.Helper()
	f, err := result.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	md := filepath.Join(t.TempDir(), "want.md")
	if err := result.WriteMarkdown(md, f, outfile.Options{}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func readString(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// grade -w rewrites the readable .md beside the output with the refreshed
// ground truth and grade, rendered as run renders it.
func TestRegradeRewritesMarkdown(t *testing.T) {
	s := func(x string) *string { return &x }
	path := runOutput(t, &result.File{Sheet: result.Sheet{Name: "S", ModelName: "m"}, Questions: []result.Question{
		{Name: "q1", GroundTruth: s("Paris"), Completion: s("Lyon"), Grade: boolp(false)},
		{Name: "q2", GroundTruth: s("4"), Completion: s("4"), Grade: boolp(true)},
	}})
	sheet := &SheetTruths{Path: "input-s.md", Truths: map[string]*string{"q1": s("Lyon")}}
	rep, err := Regrade(context.Background(), []string{path}, Options{Sheet: sheet, Write: true})
	if err != nil {
		t.Fatal(err)
	}
	md := result.MarkdownPath(path)
	got := readString(t, md)
	if want := rendered(t, path); got != want {
		t.Errorf(".md after grade -w:\n%s\nwant run's rendering of the regraded file:\n%s", got, want)
	}
	if !strings.Contains(got, "**Ground Truth:**\n```\nLyon\n```\n\n**Grade:**\nTrue\n") {
		t.Errorf(".md lacks the refreshed truth and grade:\n%s", got)
	}
	if rep.Files[0].MarkdownPath != md {
		t.Errorf("report names %q as the .md written, want %q", rep.Files[0].MarkdownPath, md)
	}
}

// A .md edited by hand since evalmd wrote it keeps the edit: without
// --force nothing of its output is written (the JSON and its .md never
// disagree) and the refusal is one line naming the .md; --force writes all.
func TestRegradeKeepsEditedMarkdown(t *testing.T) {
	s := func(x string) *string { return &x }
	path := runOutput(t, &result.File{Sheet: result.Sheet{Name: "S", ModelName: "m"}, Questions: []result.Question{
		{Name: "q1", GroundTruth: s("Paris"), Completion: s("Lyon"), Grade: boolp(false)},
	}})
	md := result.MarkdownPath(path)
	edited := readString(t, md) + "\nmy notes on this run\n"
	if err := os.WriteFile(md, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	before := readString(t, path)
	sheet := &SheetTruths{Path: "input-s.md", Truths: map[string]*string{"q1": s("Lyon")}}
	rep, err := Regrade(context.Background(), []string{path}, Options{Sheet: sheet, Write: true})
	if err == nil || !errors.Is(err, outfile.ErrEdited) || !strings.Contains(err.Error(), md) ||
		!strings.Contains(err.Error(), "nothing written for "+path) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %v, want one line naming %s, edited, nothing written", err, md)
	}
	if readString(t, md) != edited || readString(t, path) != before {
		t.Error("the edited .md or its output was changed")
	}
	if _, err := os.Stat(GradePath(path)); err == nil || rep.Files[0].GradePath != "" {
		t.Error("a grade file was written for a refused output")
	}
	if _, err := Regrade(context.Background(), []string{path}, Options{Sheet: sheet, Write: true, Force: true}); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, md); got != rendered(t, path) {
		t.Errorf("--force: .md\n%s\nwant the regraded file's", got)
	}
}

// An output file that is a symbolic link is not written through: grade -w
// refuses it in one line naming it, and neither the link's target, nor
// its .md, nor a .md or grade file beside the link is written.
func TestRegradeRefusesLink(t *testing.T) {
	s := func(x string) *string { return &x }
	target := runOutput(t, &result.File{Sheet: result.Sheet{Name: "S", ModelName: "m"}, Questions: []result.Question{
		{Name: "q1", GroundTruth: s("Lyon"), Completion: s("Lyon"), Grade: boolp(false)},
	}})
	before := readString(t, target)
	beforeMD := readString(t, result.MarkdownPath(target))
	link := filepath.Join(t.TempDir(), "output-link.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	rep, err := Regrade(context.Background(), []string{link}, Options{Write: true})
	if err == nil || len(rep.Files) != 1 || rep.Files[0].Err == nil || !strings.Contains(rep.Files[0].Err.Error(), link+" is a symbolic link") {
		t.Fatalf("%v; report %+v, want the link refused, naming it", err, rep.Files)
	}
	if readString(t, target) != before || readString(t, result.MarkdownPath(target)) != beforeMD {
		t.Error("the link's target or its .md was rewritten")
	}
	for _, p := range []string{result.MarkdownPath(link), filepath.Join(filepath.Dir(link), "grade-link.json")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was made beside the link", p)
		}
	}
}

// grade -w keeps the seal of an output evalmd sealed here, so a rerun
// still reuses its answers, and seals no output that had none: regrading
// a stranger's answers does not make them this machine's.
func TestRegradeKeepsSealOnlyWhenSealed(t *testing.T) {
	key, err := outfile.NewKey([]byte("the key of the machine of a test"))
	if err != nil {
		t.Fatal(err)
	}
	s := func(x string) *string { return &x }
	for _, sealed := range []bool{true, false} {
		f := &result.File{Sheet: result.Sheet{Name: "S", ModelName: "m"}, Questions: []result.Question{
			{Name: "q1", GroundTruth: s("Paris"), Completion: s("Lyon"), Grade: boolp(false)}}}
		path := filepath.Join(t.TempDir(), "output-s-m.json")
		opt := outfile.Options{}
		if sealed {
			opt.Seal = key
		}
		if err := f.Write(path, opt); err != nil {
			t.Fatal(err)
		}
		sheet := &SheetTruths{Path: "input-s.md", Truths: map[string]*string{"q1": s("Lyon")}}
		if _, err := Regrade(context.Background(), []string{path}, Options{Sheet: sheet, Write: true, Seal: key}); err != nil {
			t.Fatal(err)
		}
		seals, err := outfile.ReadSeals(filepath.Dir(path), key)
		if err != nil {
			t.Fatal(err)
		}
		sum, _ := outfile.State(path)
		if got := seals.Sealed(filepath.Base(path), sum); got != sealed || !strings.Contains(readString(t, path), `"grade": true`) {
			t.Errorf("sealed before %v: regraded, sealed %v\n%s", sealed, got, readString(t, path))
		}
	}
}
