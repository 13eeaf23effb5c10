package regrade

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/sandbox"
)

// grade runs a script grader beside the sheet the output names
// (sheet_file), and grades against accepted answers through it too.
func TestScriptBesideSheetFile(t *testing.T) {
	if _, err := sandbox.Check(context.Background(), sandbox.Config{Preload: []string{}}); err != nil {
		shared.Missing(t, "script grader: no sandbox here: "+err.Error())
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	script := "import json, sys\nq = json.load(sys.stdin)\nprint(json.dumps({'correct': q['answer'] == q['truth'], 'message': 'vs ' + q['truth']}))\n"
	if err := os.WriteFile(filepath.Join(dir, "same.py"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	s := func(x string) *string { return &x }
	meta := map[string]string{"grader": "script", "script": "same.py"}
	f := &result.File{Sheet: result.Sheet{Name: "S", SheetFile: filepath.Join(dir, "input-s.md")}}
	for _, tc := range []struct {
		answer   string
		accepted []string
		want     string
	}{
		{"Paris", nil, "script: vs Paris"},
		{"Lutetia", []string{"Lutece", "Lutetia"}, `accepted answer 2 "Lutetia": script: vs Lutetia`},
		{"Lyon", []string{"Lutece"}, "script: vs Paris"},
	} {
		q := &result.Question{Name: "Q", MetaData: meta, GroundTruth: s("Paris"), Completion: s(tc.answer), Accepted: tc.accepted}
		g := NewGraders(nil, grade.Options{Scripts: sandbox.Config{Environ: []string{}}.RunScript}, "")
		if err := g.CheckIn(q, &f.Sheet); err != nil {
			t.Fatalf("CheckIn: %v", err)
		}
		ok, err := GradeQuestion(context.Background(), f, q, g, Verdicts{})
		want := tc.answer != "Lyon"
		if !ok || err != nil || q.Grade == nil || *q.Grade != want || q.GradeDetail != tc.want || q.Grader != "script" {
			t.Errorf("%s: %v %v, grade %v %q by %s; want %v %q", tc.answer, ok, err, q.Grade, q.GradeDetail, q.Grader, want, tc.want)
		}
	}
	// Without a runner (a command that runs no script), the question is
	// ungradable, saying why; so is one whose output names no sheet.
	q := &result.Question{Name: "Q", MetaData: meta, GroundTruth: s("Paris"), Completion: s("Paris")}
	if err := NewGraders(nil, grade.Options{}, "").CheckIn(q, &f.Sheet); err == nil || !strings.Contains(err.Error(), "no sandbox") {
		t.Errorf("no runner: %v", err)
	}
	if err := NewGraders(nil, grade.Options{Scripts: sandbox.Config{}.RunScript}, "").CheckIn(q, &result.Sheet{}); err == nil || !strings.Contains(err.Error(), "names no sheet_file") {
		t.Errorf("no sheet file: %v", err)
	}
}
