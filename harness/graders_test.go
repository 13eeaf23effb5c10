package harness

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/sandbox"
)

// run grades by the json, regex and script graders, the script found
// beside the sheet and run in the sandbox, its message recorded.
func TestRunGradesByJSONRegexScript(t *testing.T) {
	if _, err := sandbox.Check(context.Background(), sandbox.Config{Preload: []string{}}); err != nil {
		shared.Missing(t, "script grader: no sandbox here: "+err.Error())
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	script := "import json, sys\nq = json.load(sys.stdin)\nprint(json.dumps({'correct': q['answer'] == q['truth'], 'message': 'same as %s' % q['truth']}))\n"
	if err := os.WriteFile(filepath.Join(dir, "same.py"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	sheet := filepath.Join(dir, "input-g.md")
	text := "# G\n## J\n#### meta\ngrader: json\n#### question\nq\n#### answer\n{'Q': 1, 'n': [1, 2]}\n" +
		"## R\n#### meta\ngrader: regex\npattern: ^Par\n#### question\nq\n#### answer\nParis\n" +
		"## S\n#### meta\ngrader: script\nscript: same.py\n#### question\nq\n#### answer\nLyon\n"
	if err := os.WriteFile(sheet, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	sum, err := Run(context.Background(), Config{NewModel: builtins(), Sheets: []string{sheet}, Models: []string{"oracle"}, OutDir: filepath.Join(dir, "out"), Stderr: &stderr})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	f, err := result.Read(sum.Outputs[0])
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"J": "json (Python literal at byte 0): equal to the truth", "R": "regex ^Par: found at byte 0", "S": "script: same as Lyon"}
	for _, q := range f.Questions {
		if q.Grade == nil || !*q.Grade || q.GradeDetail != want[q.Name] || !strings.EqualFold(q.Grader, strings.Fields(want[q.Name])[0]) && q.Name != "S" {
			t.Errorf("%s: grade %v by %s, %q; want true, %q", q.Name, q.Grade, q.Grader, q.GradeDetail, want[q.Name])
		}
	}
}
