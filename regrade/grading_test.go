package regrade

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/setting"
	"github.com/evalmd/evalmd/result"
)

// Each question's grading mode is resolved as a run resolves it: config <
// sheet meta < question meta < flag, and with none set a question keeps
// the mode a flag gave it; the rewritten file records the mode and where
// it came from, the report says how many were graded liberally and how
// many kept a flag's mode, and a mode that is none leaves its question
// ungraded.
func TestGradingMode(t *testing.T) {
	s := func(x string) *string { return &x }
	layer := func(src setting.Source, mode string) setting.Layer {
		return setting.Layer{Source: src, File: "evalmd.yaml", Values: map[string]string{"grading": mode}}
	}
	for _, tc := range []struct {
		name          string
		sheetMeta     map[string]string
		questionMeta  map[string]string
		had, hadFrom  string
		layers        []setting.Layer
		grade         string // true, false or null
		mode, from    string
		report, error string
	}{
		{name: "default", grade: "false"},
		{name: "grade -l", layers: gradingFlag(true), grade: "true", mode: "liberal", from: "flag", report: "1 graded liberally\n"},
		{name: "grade -l kept", had: "liberal", hadFrom: "flag", grade: "true", mode: "liberal", from: "flag",
			report: "1 graded liberally (1 as a flag left them: grade -l or --grading; --grading strict grades them strictly)\n"},
		{name: "config over a flag's", had: "liberal", hadFrom: "flag", layers: []setting.Layer{layer(setting.Config, "strict")},
			grade: "false", mode: "strict", from: "config"},
		{name: "config", layers: []setting.Layer{layer(setting.Config, "liberal")}, grade: "true", mode: "liberal", from: "config"},
		{name: "sheet meta", sheetMeta: map[string]string{"grading": "liberal"}, grade: "true", mode: "liberal", from: "sheet meta"},
		{name: "sheet meta cascaded", sheetMeta: map[string]string{"grading": "liberal"}, questionMeta: map[string]string{"grading": "liberal"},
			grade: "true", mode: "liberal", from: "sheet meta"},
		{name: "question meta over sheet meta", sheetMeta: map[string]string{"grading": "liberal"}, questionMeta: map[string]string{"grading": "strict"},
			grade: "false", mode: "strict", from: "question meta"},
		{name: "flag over question meta", questionMeta: map[string]string{"grading": "strict"}, layers: gradingFlag(true),
			grade: "true", mode: "liberal", from: "flag"},
		{name: "meta gone: its mode too", had: "liberal", hadFrom: "sheet meta", grade: "false"},
		{name: "no such mode", questionMeta: map[string]string{"grading": "loose"}, grade: "null",
			report: "1 could not be graded", error: `meta grading: "loose" is not strict or liberal`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &result.File{Sheet: result.Sheet{Name: "S", ModelName: "m", MetaData: tc.sheetMeta}, Questions: []result.Question{
				{Name: "Q", MetaData: tc.questionMeta, GroundTruth: s("B) 6"), Completion: s("b, since 6"), Grading: tc.had, GradingFrom: tc.hadFrom},
			}}
			path := filepath.Join(t.TempDir(), "output-s-m.json")
			if err := f.Write(path, outfile.Options{}); err != nil {
				t.Fatal(err)
			}
			rep, err := Regrade(context.Background(), []string{path}, Options{Settings: tc.layers, Write: true})
			var ue *UngradedError
			if (tc.error == "") != (err == nil) || err != nil && !errors.As(err, &ue) {
				t.Fatalf("error %v, want one %v", err, tc.error != "")
			}
			var b bytes.Buffer
			rep.WriteTo(&b)
			if !strings.Contains(b.String(), tc.report) || strings.Contains(b.String(), ", 1 graded liberally") != (tc.mode == "liberal") {
				t.Errorf("report:\n%s\nwant %q", b.String(), tc.report)
			}
			got, err := result.Read(path)
			if err != nil {
				t.Fatal(err)
			}
			q := got.Questions[0]
			if fmtGrade(q.Grade) != tc.grade || q.Grading != tc.mode || q.GradingFrom != tc.from {
				t.Errorf("grade %s, grading %q from %q; want %s, %q from %q", fmtGrade(q.Grade), q.Grading, q.GradingFrom, tc.grade, tc.mode, tc.from)
			}
			if tc.error != "" && !strings.Contains(q.GradeDetail, tc.error) {
				t.Errorf("grade_detail %q, want it to say %q", q.GradeDetail, tc.error)
			}
		})
	}
}
