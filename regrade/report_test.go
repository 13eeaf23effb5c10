package regrade

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/testkit/golden"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/result"
)

// report runs a dry regrade of paths and prints its report with dir
// written as "results".
func report(t *testing.T, dir string, paths []string, opt Options) []byte {
	t.Helper()
	rep, err := Regrade(context.Background(), paths, opt)
	var ue *UngradedError
	if err != nil && !errors.As(err, &ue) { // the report says those
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := rep.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return bytes.ReplaceAll(b.Bytes(), []byte(dir+string(filepath.Separator)), []byte("results/"))
}

// The dry run over LIME's own results, read in place: strict regrading
// changes 5 grades (LIME stored them from an older grader), liberal mode
// 15 more, and the listing says which is which; a name that repeats in
// its file is told apart by its position.
func TestReportLimeResults(t *testing.T) {
	dir := shared.Path(t, "corpora", "lime", "results")
	golden.Check(t, "testdata/lime-strict.txt", report(t, dir, []string{dir}, Options{}))
	golden.Check(t, "testdata/lime-liberal.txt", report(t, dir, []string{dir}, Options{Settings: gradingFlag(true)}))
}

// Each cause on a file of its own: the sheet's ground truth, liberal mode,
// both, and neither (the recorded grade is not the grader's); names that
// repeat carry their position.
func TestReportCauses(t *testing.T) {
	s := func(x string) *string { return &x }
	f := &result.File{Sheet: result.Sheet{Name: "S", ModelName: "m"}, Questions: []result.Question{
		{Name: "truth", GroundTruth: s("Paris"), Completion: s("Lyon"), Grade: boolp(false)},
		{Name: "liberal", GroundTruth: s("B) 6"), Completion: s("b, since 6"), Grade: boolp(false)},
		{Name: "both", GroundTruth: s("A) 5"), Completion: s("c is right"), Grade: boolp(false)},
		{Name: "grader", GroundTruth: s("4"), Completion: s("5"), Grade: boolp(true)},
		{Name: "twice", GroundTruth: s("yes"), Completion: s("no"), Grade: boolp(true)},
		{Name: "twice", GroundTruth: s("yes"), Completion: s("yes"), Grade: boolp(false)},
		{Name: "long truth", GroundTruth: s(strings.Repeat("a long ground truth, ", 4)), Completion: s("x"), Grade: boolp(false)},
		{Name: "unchanged", GroundTruth: s("4"), Completion: s("4"), Grade: boolp(true)},
	}}
	dir := t.TempDir()
	path := filepath.Join(dir, "output-s-m.json")
	if err := f.Write(path, outfile.Options{}); err != nil {
		t.Fatal(err)
	}
	sheet := &SheetTruths{Path: "input-s.md", Truths: map[string]*string{
		"truth":      s("Lyon"),
		"both":       s("C) 7"),
		"long truth": nil,
	}}
	golden.Check(t, "testdata/causes-strict.txt", report(t, dir, []string{path}, Options{Sheet: sheet}))
	golden.Check(t, "testdata/causes-liberal.txt", report(t, dir, []string{path}, Options{Sheet: sheet, Settings: gradingFlag(true)}))
}
