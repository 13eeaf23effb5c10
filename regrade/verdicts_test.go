package regrade

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/verdict"
)

// reviewedFolder writes an output of three exact-graded questions, two
// named alike, and returns its path.
func reviewedFolder(t *testing.T) string {
	t.Helper()
	s := func(x string) *string { return &x }
	f := &result.File{Sheet: result.Sheet{Name: "Capitals", RunID: "r1", ModelName: "m"}}
	for _, q := range []struct{ name, truth, said string }{
		{"France", "Paris", "Paris, France"}, {"Twice", "B", "(b) six"}, {"Twice", "B", "(b) six"},
	} {
		f.Questions = append(f.Questions, result.Question{Name: q.name, GroundTruth: s(q.truth), Completion: s(q.said),
			ModelName: "m", Grader: "exact", MetaData: map[string]string{"grader": "exact"}})
	}
	data, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "output-capitals-m-r1.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func verdictOn(t *testing.T, path string, i int, right bool) verdict.Verdict {
	t.Helper()
	f, err := result.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	q := &f.Questions[i]
	return verdict.Verdict{Key: verdict.KeyOf(f, q, verdict.Occurrences(f)[i], q.Completion), Right: right,
		By: "ann", At: time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC), Reason: "same city", Grader: q.Grade}
}

func grades(t *testing.T, path string) (gs []string, reviewed int) {
	t.Helper()
	f, err := result.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range f.Questions {
		gs = append(gs, fmtGrade(q.Grade))
		if q.Review != nil {
			reviewed++
		}
	}
	return gs, reviewed
}

// A verdict outranks the grader wherever its answer is graded, grade -w
// never undoes it, it covers only the answer and occurrence it names,
// and a changed answer leaves it unapplied.
func TestVerdictOutranksTheGrader(t *testing.T) {
	ctx := context.Background()
	path := reviewedFolder(t)
	dir := filepath.Dir(path)
	if _, err := Regrade(ctx, []string{path}, Options{Write: true}); err != nil {
		t.Fatal(err)
	}
	if gs, _ := grades(t, path); strings.Join(gs, " ") != "false false false" {
		t.Fatalf("exact grades %v, want all False", gs)
	}
	if err := verdict.Add(ctx, dir, verdictOn(t, path, 0, true), verdictOn(t, path, 2, true)); err != nil {
		t.Fatal(err)
	}
	for range 2 { // once to apply, once more to show -w keeps it
		rep, err := Regrade(ctx, []string{path}, Options{Write: true})
		if err != nil {
			t.Fatal(err)
		}
		if gs, n := grades(t, path); strings.Join(gs, " ") != "true false true" || n != 2 || rep.Files[0].Reviewed != 2 {
			t.Fatalf("grades %v, %d reviewed (report %d), want true false true, 2", gs, n, rep.Files[0].Reviewed)
		}
	}
	f, _ := result.Read(path)
	r := f.Questions[0].Review
	if r == nil || r.By != "ann" || r.Reason != "same city" || r.GraderGrade == nil || *r.GraderGrade || r.At != "2026-12-02T01:00:00Z" {
		t.Errorf("review %+v, want ann's, the grader's false kept", r)
	}
	// The readable report says whose grade it is.
	var out bytes.Buffer
	rep, _ := Regrade(ctx, []string{path}, Options{})
	rep.WriteTo(&out)
	if !strings.Contains(out.String(), "2 by people's verdicts") {
		t.Errorf("report:\n%s", out.String())
	}

	// The answer changes: the verdict no longer applies; the grader's grade is back.
	f.Questions[0].Completion = ptrTo("Lyon")
	data, _ := f.Marshal()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Regrade(ctx, []string{path}, Options{Write: true}); err != nil {
		t.Fatal(err)
	}
	if gs, n := grades(t, path); strings.Join(gs, " ") != "false false true" || n != 1 {
		t.Errorf("after the answer changed: %v, %d reviewed; want false false true, 1", gs, n)
	}
}

func ptrTo(s string) *string { return &s }

// Applying verdicts grades nothing again: a question whose grader could
// not run keeps its grade, and a removed verdict gives the grader's back.
func TestVerdictsOnlyGradesNothing(t *testing.T) {
	ctx := context.Background()
	path := reviewedFolder(t)
	dir := filepath.Dir(path)
	f, _ := result.Read(path)
	f.Questions[1].Grader = "judge" // would need a judge model to grade again
	no := false
	for i := range f.Questions {
		f.Questions[i].Grade = &no
	}
	data, _ := f.Marshal()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := verdict.Add(ctx, dir, verdictOn(t, path, 1, true)); err != nil {
		t.Fatal(err)
	}
	rep, err := Regrade(ctx, []string{path}, Options{Write: true, VerdictsOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if gs, n := grades(t, path); strings.Join(gs, " ") != "false true false" || n != 1 || len(rep.Files[0].Changes) != 1 || rep.Files[0].Changes[0].Cause() != "verdict" {
		t.Fatalf("grades %v, %d reviewed, changes %+v", gs, n, rep.Files[0].Changes)
	}
	if err := os.WriteFile(verdict.PathIn(dir), []byte("# none left\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Regrade(ctx, []string{path}, Options{Write: true, VerdictsOnly: true}); err != nil {
		t.Fatal(err)
	}
	if gs, n := grades(t, path); strings.Join(gs, " ") != "false false false" || n != 0 {
		t.Errorf("verdict removed: %v, %d reviewed; want the grader's False back", gs, n)
	}
}

// A line of verdicts.txt that is no verdict is said by FILE:LINE; the
// others apply.
func TestBadVerdictLineIsSaid(t *testing.T) {
	ctx := context.Background()
	path := reviewedFolder(t)
	dir := filepath.Dir(path)
	good := verdict.Line(verdictOn(t, path, 0, true))
	if err := os.WriteFile(verdict.PathIn(dir), []byte("right q=oops\n"+good+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Regrade(ctx, []string{path}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep.WriteTo(&out)
	want := "warning: " + verdict.PathIn(dir) + ":1: "
	if !strings.Contains(out.String(), want) || rep.Files[0].Reviewed != 1 {
		t.Errorf("report:\n%s\nwant a line starting %q and 1 reviewed", out.String(), want)
	}
}
