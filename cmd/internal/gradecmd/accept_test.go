package gradecmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/result"
)

// grade -i SHEET takes the sheet's accepted answers, as it takes its
// truths, and grades by them.
func TestGradeSheetAccepted(t *testing.T) {
	dir := t.TempDir()
	sheetPath := filepath.Join(dir, "input-s.md")
	sheet := "## Q1\n#### question\nHow many?\n#### answer\nB) 6<EVAL-ENDCHAR>\n- accept: six guesses\n"
	if err := os.WriteFile(sheetPath, []byte(sheet), 0o644); err != nil {
		t.Fatal(err)
	}
	truth, reply := "B) 6", "six guesses"
	f := &result.File{Sheet: result.Sheet{Name: "S", ModelName: "m"}, Questions: []result.Question{
		{Name: "Q1", GroundTruth: &truth, Completion: &reply, Question: "How many?\n"}}}
	out := filepath.Join(dir, "output-s-m.json")
	if err := f.Write(out, outfile.Options{}); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := grade(context.Background(), &stdout, &stderr, []string{"-o", out, "-i", sheetPath, "-w"}); err != nil {
		t.Fatalf("grade: %v\n%s", err, stderr.String())
	}
	got, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if q := got.Questions[0]; q.Grade == nil || !*q.Grade || !reflect.DeepEqual(q.Accepted, []string{"six guesses"}) {
		t.Errorf("grade %v (%s), accepted %q: want right by the sheet's accepted answer", q.Grade, q.GradeDetail, q.Accepted)
	}
}
