package report

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/result"
)

// The page carries agg's tables of graders against people, from the same
// markdown; a grader's name in a heading stays text.
func TestAgreementTablesOnPage(t *testing.T) {
	dir := t.TempDir()
	yes, no := true, false
	truth, c := "x", "y"
	f := &result.File{Sheet: result.Sheet{Name: "S", ModelName: "m", RunID: "r1"}}
	for _, name := range []string{"a", "b", "c"} {
		f.Questions = append(f.Questions, result.Question{Name: name, Question: "q", GroundTruth: &truth, Completion: &c, Grade: &yes,
			Grader: `<b id="injected">g</b>`, Review: &result.Review{By: "ana", At: "2026-11-30T10:00:00Z", GraderGrade: &no}})
	}
	if err := f.Write(filepath.Join(dir, result.FileName("input-s.md", "m", "r1")), outfile.Options{}); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(context.Background(), &b, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"Graders against people: agreement with people", "against people: the answers graded otherwise", "people&rsquo;s grades"} {
		if !strings.Contains(page, want) && !strings.Contains(page, strings.ReplaceAll(want, "&rsquo;", "'")) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, `<b id="injected">`) {
		t.Error("a grader's name became markup")
	}
}
