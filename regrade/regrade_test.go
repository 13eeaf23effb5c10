package regrade

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/setting"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/result"
)

// copyLime copies LIME's real output files (and its grade files) into a
// fresh folder, so the test can write without touching the corpus.
func copyLime(t *testing.T) (dir string, outputs []string) {
	t.Helper()
	src := shared.Path(t, "corpora", "lime", "results")
	all, err := filepath.Glob(filepath.Join(src, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	for _, p := range all {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, filepath.Base(p))
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(filepath.Base(p), "output-") {
			outputs = append(outputs, dst)
		}
	}
	if len(outputs) != 26 {
		t.Fatalf("found %d LIME outputs, want 26", len(outputs))
	}
	return dir, outputs
}

// reference reads LIME's grades for an output file.
func reference(t *testing.T, output string) (normal, liberal []*bool) {
	t.Helper()
	data, err := os.ReadFile(shared.Path(t, "reference", "lime", "grade", filepath.Base(output)))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct{ Normal, Liberal []*bool }
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	return ref.Normal, ref.Liberal
}

// gradingFlag is the settings of grade -l when liberal, else none.
func gradingFlag(liberal bool) []setting.Layer {
	if !liberal {
		return nil
	}
	return []setting.Layer{{Source: setting.Flag, Values: map[string]string{"grading": result.GradingLiberal}}}
}

func TestRegradeWritesLimeGrades(t *testing.T) {
	for _, liberal := range []bool{false, true} {
		dir, outputs := copyLime(t)
		// LIME's own grade files, before they are overwritten.
		limeGrades := map[string][]byte{}
		for _, o := range outputs {
			if data, err := os.ReadFile(GradePath(o)); err == nil {
				limeGrades[o] = data
			}
		}
		// LIME's grade files were written by LIME, not evalmd: refused
		// without --force, and nothing is rewritten.
		before, _ := os.ReadFile(outputs[0])
		rep, err := Regrade(context.Background(), []string{dir}, Options{Settings: gradingFlag(liberal), Write: true})
		if err == nil || !strings.Contains(err.Error(), "not written by evalmd") {
			t.Fatalf("without --force: %v", err)
		}
		if after, _ := os.ReadFile(outputs[0]); !bytes.Equal(before, after) || rep.Failed() != len(limeGrades) {
			t.Fatalf("without --force: output rewritten or %d of %d refused", rep.Failed(), len(limeGrades))
		}
		rep, err = Regrade(context.Background(), []string{dir}, Options{Settings: gradingFlag(liberal), Write: true, Force: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Files) != 26 || rep.Failed() != 0 {
			t.Fatalf("regraded %d files, %d failed", len(rep.Files), rep.Failed())
		}
		sameBytes := 0
		for _, o := range outputs {
			normal, lib := reference(t, o)
			want := normal
			if liberal {
				want = lib
			}
			data, err := os.ReadFile(GradePath(o))
			if err != nil {
				t.Fatal(err)
			}
			var got []*bool
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatalf("%s: %v", GradePath(o), err)
			}
			if fmtList(got) != fmtList(want) {
				t.Errorf("%s (liberal %t): grade file %s, want %s", filepath.Base(o), liberal, fmtList(got), fmtList(want))
			}
			f, err := result.Read(o)
			if err != nil {
				t.Fatal(err)
			}
			var inFile []*bool
			for _, q := range f.Questions {
				inFile = append(inFile, q.Grade)
				if q.Grader != "lime" {
					t.Errorf("%s %s: grader %q", o, q.Name, q.Grader)
				}
			}
			if fmtList(inFile) != fmtList(want) {
				t.Errorf("%s: rewritten grades %s, want %s", filepath.Base(o), fmtList(inFile), fmtList(want))
			}
			// Where LIME's stored grade file holds the same grades, the
			// bytes we write must be LIME's bytes.
			if old, ok := limeGrades[o]; ok {
				var oldGrades []*bool
				if json.Unmarshal(old, &oldGrades) == nil && fmtList(oldGrades) == fmtList(got) {
					sameBytes++
					if !bytes.Equal(old, data) {
						t.Errorf("%s: grade file bytes %q, LIME wrote %q", filepath.Base(o), data, old)
					}
				}
			}
		}
		if sameBytes < 15 {
			t.Errorf("liberal %t: only %d grade files comparable byte for byte", liberal, sameBytes)
		}
		t.Logf("liberal %t: 26 files regraded, %d grade files byte-identical to LIME's", liberal, sameBytes)
	}
}

func fmtList(gs []*bool) string { return pyGrades(gs) }

func TestRegradeDryRun(t *testing.T) {
	dir, outputs := copyLime(t)
	before := map[string][]byte{}
	for _, o := range outputs {
		before[o], _ = os.ReadFile(o)
	}
	rep, err := Regrade(context.Background(), []string{dir}, Options{Verbose: true})
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	for i, fr := range rep.Files {
		if fr.GradePath != "" {
			t.Errorf("dry run wrote %s", fr.GradePath)
		}
		normal, _ := reference(t, outputs[i])
		// The changes are exactly the stored grades that differ from LIME's.
		f, err := result.Read(fr.Path)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for j, q := range f.Questions {
			if fmtGrade(q.Grade) != fmtGrade(normal[j]) {
				want = append(want, q.Name+": "+fmtGrade(q.Grade)+" -> "+fmtGrade(normal[j]))
			}
		}
		var got []string
		for _, c := range fr.Changes {
			got = append(got, c.Name+": "+fmtGrade(c.Old)+" -> "+fmtGrade(c.New))
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: changes\n%s\nwant\n%s", fr.Path, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		changed += len(fr.Changes)
	}
	for _, o := range outputs {
		after, _ := os.ReadFile(o)
		if !bytes.Equal(before[o], after) {
			t.Errorf("dry run changed %s", o)
		}
	}
	var out bytes.Buffer
	if _, err := rep.WriteTo(&out); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"orig_grades:   [", "new_grades:    [", "Script done. To overwrite run with -w flag.", " -> "} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}
	if changed == 0 {
		t.Error("no stored grade differs from LIME's current grader; the corpus says some do")
	}
	t.Logf("dry run: %d grades would change over %d files", changed, len(rep.Files))
}

func TestRegradeBadFiles(t *testing.T) {
	dir, outputs := copyLime(t)
	whole, _ := os.ReadFile(outputs[0])
	half := filepath.Join(dir, "output-half-written.json")
	foreign := filepath.Join(dir, "sub", "output-foreign.json")
	if err := os.WriteFile(half, whole[:len(whole)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(foreign), 0o755)
	if err := os.WriteFile(foreign, []byte(`{"foo": [1, 2]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "output-missing.json")
	rep, err := Regrade(context.Background(), []string{dir, missing}, Options{Write: true, Force: true})
	if err == nil {
		t.Fatal("no error for broken files")
	}
	if rep.Failed() != 2 || len(rep.Files) != 28 {
		t.Errorf("%d files, %d failed; want 28 and 2", len(rep.Files), rep.Failed())
	}
	for _, name := range []string{half, foreign, missing} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error does not name %s:\n%v", name, err)
		}
	}
	for _, fr := range rep.Files {
		if fr.Err != nil && strings.Contains(fr.Err.Error(), "\n") {
			t.Errorf("error is not one line: %q", fr.Err)
		}
	}
	// The good files were still written.
	for _, o := range outputs {
		if _, err := os.Stat(GradePath(o)); err != nil {
			t.Errorf("good file not done: %v", err)
		}
	}
	if _, err := os.Stat(GradePath(half)); err == nil {
		t.Error("grade file written for a broken output")
	}
}

func TestRegradeSheetTruths(t *testing.T) {
	dir, _ := copyLime(t)
	o := filepath.Join(dir, "output-rules-qa-1-gpt-4-09fa.json")
	f, err := result.Read(o)
	if err != nil {
		t.Fatal(err)
	}
	q0 := f.Questions[0]
	if q0.Completion == nil || q0.GroundTruth == nil {
		t.Fatal("corpus changed: first question has no completion or truth")
	}
	// A truth the completion certainly does not contain flips the grade to
	// false; a nil truth makes it null; an unknown name matches nothing.
	wrong := "Z) nothing like it"
	sheet := &SheetTruths{Path: "input-rules-qa-1.md", Truths: map[string]*string{
		q0.Name:             &wrong,
		f.Questions[1].Name: nil,
		"No-Such-Question":  &wrong,
	}}
	// The question left without a truth could not be graded: named so,
	// as every question that cannot be.
	rep, err := Regrade(context.Background(), []string{o}, Options{Sheet: sheet, Write: true, Verbose: true, Force: true})
	var ue *UngradedError
	if !errors.As(err, &ue) || len(ue.Questions) != 1 || ue.Questions[0].Name != f.Questions[1].Name || ue.Questions[0].Why != "no ground truth" {
		t.Fatalf("error %v, want it to name %s without a ground truth", err, f.Questions[1].Name)
	}
	fr := rep.Files[0]
	if fr.TruthsFound != 3 || fr.TruthsMatched != 2 || fr.TruthsOverwritten != 2 {
		t.Errorf("found %d matched %d overwritten %d; want 3 2 2", fr.TruthsFound, fr.TruthsMatched, fr.TruthsOverwritten)
	}
	g, err := result.Read(o)
	if err != nil {
		t.Fatal(err)
	}
	if g.Questions[0].GroundTruth == nil || *g.Questions[0].GroundTruth != wrong || g.Questions[0].Grade == nil || *g.Questions[0].Grade {
		t.Errorf("question 0: truth %v grade %s; want %q false", g.Questions[0].GroundTruth, fmtGrade(g.Questions[0].Grade), wrong)
	}
	if g.Questions[1].GroundTruth != nil || g.Questions[1].Grade != nil {
		t.Errorf("question 1: want null truth and grade, got %v %s", g.Questions[1].GroundTruth, fmtGrade(g.Questions[1].Grade))
	}
	var out bytes.Buffer
	rep.WriteTo(&out)
	if !strings.Contains(out.String(), "ground_truth entries from input: input-rules-qa-1.md\nfound:  3\nmatched: 2\noverwritten: 2\n") {
		t.Errorf("report:\n%s", out.String())
	}
}

func TestRegradeOverrideAndUnknownGrader(t *testing.T) {
	dir, _ := copyLime(t)
	o := filepath.Join(dir, "output-rules-qa-1-gpt-4-09fa.json")
	rep, err := Regrade(context.Background(), []string{o}, Options{GraderOverride: "choice", Write: true, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := result.Read(o)
	for _, q := range f.Questions {
		if q.Grader != "choice" || q.GradeDetail == "" {
			t.Errorf("%s: grader %q detail %q", q.Name, q.Grader, q.GradeDetail)
		}
	}
	if len(rep.Files[0].New) != len(f.Questions) {
		t.Errorf("%d grades for %d questions", len(rep.Files[0].New), len(f.Questions))
	}
	rep, err = Regrade(context.Background(), []string{o}, Options{GraderOverride: "nope"})
	if err == nil || !strings.Contains(err.Error(), "could not be graded") || len(rep.ungraded()) != len(f.Questions) {
		t.Errorf("unknown grader: %v, %d failures", err, len(rep.ungraded()))
	}
}

// One grading path: a question whose grader fails (an unknown grader, a
// bad tolerance) is graded null with the reason; the others are graded, the
// file is written, and the count is reported. A grader
// a run recorded (run --grader X) is the one grade uses.
func TestGraderErrorsKeepTheRest(t *testing.T) {
	s := func(x string) *string { return &x }
	f := &result.File{Sheet: result.Sheet{Name: "S", ModelName: "m"}, Questions: []result.Question{
		{Name: "ok", GroundTruth: s("B"), Completion: s("B")},
		{Name: "unknown", MetaData: map[string]string{"grader": "nope"}, GroundTruth: s("B"), Completion: s("B")},
		{Name: "tolerance", MetaData: map[string]string{"grader": "numeric", "tolerance": "abc"}, GroundTruth: s("1"), Completion: s("1")},
		{Name: "recorded", Grader: "numeric", GroundTruth: s("3.0"), Completion: s("3")},
	}}
	path := filepath.Join(t.TempDir(), "output-s-m.json")
	if err := f.Write(path, outfile.Options{}); err != nil {
		t.Fatal(err)
	}
	rep, err := Regrade(context.Background(), []string{path}, Options{Write: true})
	if err == nil || !strings.Contains(err.Error(), "2 questions could not be graded") {
		t.Errorf("error %v, want one counting 2 ungraded questions", err)
	}
	if rep.Files[0].Err != nil || rep.Files[0].GradePath == "" {
		t.Fatalf("file not written: %+v", rep.Files[0])
	}
	got, err := result.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		grade, grader, detail string
	}{
		{"true", "lime", ""},
		{"null", "nope", "grader error: unknown grader"},
		{"null", "numeric", `numeric: meta tolerance "abc" is not a non-negative number`},
		{"true", "numeric", ""}, // LIME's rule would say false
	}
	for i, w := range want {
		q := got.Questions[i]
		if fmtGrade(q.Grade) != w.grade || q.Grader != w.grader || !strings.Contains(q.GradeDetail, w.detail) {
			t.Errorf("%s: grade %s grader %q detail %q; want %s %q %q", q.Name, fmtGrade(q.Grade), q.Grader, q.GradeDetail, w.grade, w.grader, w.detail)
		}
	}
	lime, _ := grade.NewRegistry().New("lime", grade.Options{})
	if v, _ := lime.Grade(context.Background(), grade.Input{Truth: "3.0", Completion: "3"}); v.Correct == nil || *v.Correct {
		t.Errorf("lime grades the recorded question %s: the test cannot tell the graders apart", fmtGrade(v.Correct))
	}
	var out bytes.Buffer
	rep.WriteTo(&out)
	if !strings.Contains(out.String(), "2 could not be graded") {
		t.Errorf("report does not say it:\n%s", out.String())
	}
}

func TestGradePathAndJSON(t *testing.T) {
	paths := []struct{ in, want string }{
		{"results/output-wsu-1-gpt-4-1063.json", "results/grade-wsu-1-gpt-4-1063.json"},
		{"output/output-x.json", "output/grade-x.json"}, // only the file name changes
		{"mine.json", "grade-mine.json"},
	}
	for _, p := range paths {
		if got := GradePath(filepath.FromSlash(p.in)); got != filepath.FromSlash(p.want) {
			t.Errorf("GradePath(%q) = %q, want %q", p.in, got, p.want)
		}
	}
	tr, fa := true, false
	jsons := []struct {
		in   []*bool
		want string
	}{
		{nil, "[]"},
		{[]*bool{&tr}, "[\n  true\n]"},
		{[]*bool{&tr, &fa, nil}, "[\n  true,\n  false,\n  null\n]"},
	}
	for _, j := range jsons {
		if got := string(gradeJSON(j.in)); got != j.want {
			t.Errorf("gradeJSON(%s) = %q, want %q", pyGrades(j.in), got, j.want)
		}
	}
}

func TestRegradeCanceled(t *testing.T) {
	dir, _ := copyLime(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Regrade(ctx, []string{dir}, Options{Write: true}); err == nil {
		t.Error("canceled context: no error")
	}
}

// TestRegradeGraderByMeta builds an output whose questions each name a
// grader in their meta, and checks each is graded by it.
func TestRegradeGraderByMeta(t *testing.T) {
	str := func(s string) *string { return &s }
	f := &result.File{Sheet: result.Sheet{Name: "mixed", RunID: "0001", ModelName: "mock"}}
	cases := []struct {
		grader, truth, completion string
		want                      *bool
	}{
		{"choice", "B) 6", "The answer is (B).", boolp(true)},
		{"numeric", "1661626", "The NPV is $1,661,626.", boolp(true)},
		{"exact", "Paris", "Lyon", boolp(false)},
		{"", "B) 6", "b) six", boolp(false)}, // no meta: LIME's rule
	}
	for i, c := range cases {
		var meta map[string]string
		if c.grader != "" {
			meta = map[string]string{"grader": c.grader}
		}
		f.Questions = append(f.Questions, result.Question{Name: "Q" + string(rune('0'+i)), MetaData: meta,
			GroundTruth: str(c.truth), Completion: str(c.completion), Question: "A) 5\nB) 6\n"})
	}
	f.Questions = append(f.Questions, result.Question{Name: "unanswered", GroundTruth: str("B"), Error: str("timeout")})
	p := filepath.Join(t.TempDir(), "output-mixed-mock-0001.json")
	if err := f.Write(p, outfile.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Regrade(context.Background(), []string{p}, Options{Write: true}); err != nil {
		t.Fatal(err)
	}
	g, err := result.Read(p)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		q := g.Questions[i]
		wantGrader := c.grader
		if wantGrader == "" {
			wantGrader = "lime"
		}
		if q.Grader != wantGrader || fmtGrade(q.Grade) != fmtGrade(c.want) {
			t.Errorf("%s: grader %q grade %s; want %q %s (%s)", q.Name, q.Grader, fmtGrade(q.Grade), wantGrader, fmtGrade(c.want), q.GradeDetail)
		}
	}
	if last := g.Questions[len(g.Questions)-1]; last.Grade != nil {
		t.Errorf("question without a completion graded %s, want null", fmtGrade(last.Grade))
	}
	data, err := os.ReadFile(GradePath(p))
	if err != nil {
		t.Fatal(err)
	}
	if want := "[\n  true,\n  true,\n  false,\n  false,\n  null\n]"; string(data) != want {
		t.Errorf("grade file %q, want %q", data, want)
	}
}

func boolp(b bool) *bool { return &b }

// A question that ran and gave no answer is wrong, in code and agent mode
// alike, with the limit that stopped it in grade_detail; it is graded from
// the file's fields, without running code.
func TestNoAnswerIsWrong(t *testing.T) {
	s := func(x string) *string { return &x }
	code := func(name, answer, limit string) result.Question {
		q := result.Question{Name: name, Mode: "code", GroundTruth: s("49"), Completion: s("```python\nx = bytearray(8 << 30)\n```"), Limit: limit}
		if answer != "" {
			q.Answer = s(answer)
		}
		return q
	}
	agent := func(name, completion, limit string) result.Question {
		return result.Question{Name: name, Mode: "agent", GroundTruth: s("49"), Completion: s(completion), Limit: limit}
	}
	f := &result.File{Sheet: result.Sheet{Name: "S", ModelName: "m"}, Questions: []result.Question{
		code("code right", "49", ""),
		code("code wrong", "48", ""),
		code("code raised", "__CODE_ERROR__: boom", ""),
		code("code memory", "", "memory"),
		code("code timeout", "", "tool_timeout"),
		agent("agent right", "49", ""),
		agent("agent max_turns", "", "max_turns"),
		agent("agent question_timeout", "", "question_timeout"),
	}}
	path := filepath.Join(t.TempDir(), "output-s-m.json")
	if err := f.Write(path, outfile.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Regrade(context.Background(), []string{path}, Options{Write: true}); err != nil {
		t.Fatalf("every question is graded: %v", err)
	}
	got, err := result.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ grade, detail string }{
		{"true", ""},
		{"false", ""},
		{"false", ""},
		{"false", "no answer: stopped by the memory limit"},
		{"false", "no answer: stopped by the tool_timeout limit"},
		{"true", ""},
		{"false", "no answer: stopped by the max_turns limit"},
		{"false", "no answer: stopped by the question_timeout limit"},
	}
	for i, w := range want {
		q := got.Questions[i]
		if fmtGrade(q.Grade) != w.grade || !strings.Contains(q.GradeDetail, w.detail) || q.Limit != f.Questions[i].Limit {
			t.Errorf("%s: grade %s detail %q limit %q; want %s %q", q.Name, fmtGrade(q.Grade), q.GradeDetail, q.Limit, w.grade, w.detail)
		}
	}
}

// A question left with a null grade although it was answered and has a
// ground truth could not be graded: the regrade says so (exit status 3).
// Failed and unanswered questions are counted apart, as failures.
func TestNullGradeIsUngraded(t *testing.T) {
	s := func(x string) *string { return &x }
	f := &result.File{Sheet: result.Sheet{Name: "S", ModelName: "m"}, Questions: []result.Question{
		{Name: "ok", GroundTruth: s("B"), Completion: s("B")},
		{Name: "no code answer", Mode: "code", GroundTruth: s("B"), Completion: s("B")},
		{Name: "failed", GroundTruth: s("B"), Error: s("timeout")},
		{Name: "unanswered", GroundTruth: s("B"), Unanswered: true},
	}}
	path := filepath.Join(t.TempDir(), "output-s-m.json")
	if err := f.Write(path, outfile.Options{}); err != nil {
		t.Fatal(err)
	}
	_, err := Regrade(context.Background(), []string{path}, Options{Write: true})
	if err == nil || !strings.Contains(err.Error(), "1 question could not be graded") {
		t.Errorf("error %v, want one counting 1 ungraded question", err)
	}
}

// racingGrader is a grader during whose work another process (a run)
// replaces the output file being regraded.
type racingGrader struct{ once func() }

func (g *racingGrader) Name() string { return "racing" }

func (g *racingGrader) Grade(ctx context.Context, in grade.Input) (grade.Verdict, error) {
	g.once()
	ok := in.Completion == in.Truth
	return grade.Verdict{Correct: &ok}, nil
}

// grade -w replaces an output file only while it holds what was read: a
// run that replaced it meanwhile keeps its version, and the regrade of
// that file fails with one line naming it, writing no grade file.
func TestRegradeLosesRaceToRun(t *testing.T) {
	s := func(x string) *string { return &x }
	file := func(answer string) *result.File {
		return &result.File{Sheet: result.Sheet{Name: "S", ModelName: "m"}, Questions: []result.Question{
			{Name: "q", GroundTruth: s("NEW"), Completion: s(answer)},
		}}
	}
	path := filepath.Join(t.TempDir(), "output-s-m.json")
	if err := file("OLD").Write(path, outfile.Options{}); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	g := &racingGrader{once: func() {
		once.Do(func() {
			if err := file("NEW").Write(path, outfile.Options{}); err != nil {
				t.Error(err)
			}
		})
	}}
	reg := grade.NewRegistry()
	if err := reg.Add("racing", func(grade.Options) (grade.Grader, error) { return g, nil }); err != nil {
		t.Fatal(err)
	}
	rep, err := Regrade(context.Background(), []string{path}, Options{Write: true, Force: true, Graders: reg, GraderOverride: "racing"})
	if err == nil || !errors.Is(err, outfile.ErrChanged) || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %v, want one line naming %s: %v", err, path, outfile.ErrChanged)
	}
	got, rerr := result.Read(path)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if q := got.Questions[0]; q.Completion == nil || *q.Completion != "NEW" || q.Grade != nil {
		t.Errorf("the file holds %q graded %s, want the run's NEW, ungraded", fmt.Sprint(q.Completion), fmtGrade(q.Grade))
	}
	if _, serr := os.Stat(GradePath(path)); serr == nil || rep.Files[0].GradePath != "" {
		t.Errorf("a grade file was written for a file that was not")
	}
}

// An output written before reasoning support may hold a model's <think>
// block in its completion: the regrade grades only the answer after it,
// by the think_tags rule the question ran with, as run grades a reply.
// A file whose run split off only the first of two leading blocks (its
// reasoning member holds the first) is graded after both, and think_tags:
// keep grades the whole text.
func TestRegradeGradesAfterThink(t *testing.T) {
	s := func(x string) *string { return &x }
	q := func(name, completion string) result.Question {
		return result.Question{Name: name, GroundTruth: s("B"), Completion: s(completion),
			MetaData: map[string]string{"grader": "exact"}}
	}
	keep := q("keep", "<think>maybe A</think>\nB")
	keep.SolveSettings = map[string]string{"think_tags": "keep"}
	split := q("one of two blocks split by its run", "<think>or A?</think> B")
	split.Reasoning = "it was B"
	lime := q("lime contains the truth only in the thinking", "<think>is it B?</think>\nA")
	lime.MetaData = nil
	f := &result.File{Sheet: result.Sheet{Name: "S", ModelName: "m"}, Questions: []result.Question{
		q("think block", "<think>maybe A</think>\nB"),
		q("opened in the prompt", "maybe A</think>\n\nB"),
		q("never closed", "<think>B, or A"),
		keep,
		split,
		lime,
	}}
	path := filepath.Join(t.TempDir(), "output-s-m.json")
	if err := f.Write(path, outfile.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Regrade(context.Background(), []string{path}, Options{Write: true}); err != nil {
		t.Fatal(err)
	}
	got, err := result.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"true", "true", "false", "false", "true", "false"}
	for i, w := range want {
		g := got.Questions[i]
		if fmtGrade(g.Grade) != w {
			t.Errorf("%s: grade %s, want %s", g.Name, fmtGrade(g.Grade), w)
		}
		if *g.Completion != *f.Questions[i].Completion {
			t.Errorf("%s: completion rewritten to %q", g.Name, *g.Completion)
		}
	}
}
