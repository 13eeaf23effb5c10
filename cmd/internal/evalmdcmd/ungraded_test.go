package evalmdcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/result"
)

// Every question that cannot be graded follows one rule, whatever the
// reason (no ground truth: a misspelt answer section or an empty one; a
// tolerance that is no number; a truth naming no option): run finds it
// before asking anything, names it at its sheet's line with the reason and
// runs nothing (exit 1), after the parser's warning that says why; grade,
// on an output file holding such a question, grades the others, counts it
// on the file's line, names it with the same reason and exits 3.
func TestUngradedOneRule(t *testing.T) {
	const head = "# U\n## Q1\n#### question\nPick.\n#### answer\nC\n## Q2\n"
	s := func(x string) *string { return &x }
	yes := true
	for _, tc := range []struct {
		name, q2 string
		meta     map[string]string // Q2's, in the output file grade reads
		truth    *string
		reason   string
		warning  string // said when the sheet is read, or ""
	}{
		{name: "misspelt answer section", q2: "#### question\nHow many?\n#### answr\n3\n",
			reason: "it has no answer section (saved half-written?)", warning: `input-u.md:10: "#### answr" is not a section (did you mean "answer"?)`},
		{name: "empty answer section", q2: "#### question\nHow many?\n#### answer\n",
			reason: "no ground truth"},
		{name: "bad tolerance", q2: "#### meta\ngrader: numeric\ntolerance: abc\n#### question\nHow many?\n#### answer\n3\n",
			meta: map[string]string{"grader": "numeric", "tolerance": "abc"}, truth: s("3"),
			reason: `numeric: meta tolerance "abc" is not a non-negative number`},
		{name: "truth without an option", q2: "#### meta\ngrader: choice\n#### question\nWhich?\n#### answer\nmaybe\n",
			meta: map[string]string{"grader": "choice"}, truth: s("maybe\n"), // LIME keeps a truth's last newline
			reason: `ground truth "maybe\n" names no option letter`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t.TempDir(), nil)
			dir := t.TempDir()
			sheet, out := filepath.Join(dir, "input-u.md"), filepath.Join(dir, "out")
			if err := os.WriteFile(sheet, []byte(head+tc.q2), 0o644); err != nil {
				t.Fatal(err)
			}
			_, stderr, code := evalmd(t, env, "run", "-f", sheet, "-m", "mock", "--mock-reply", "C", "-o", out)
			want := "evalmd run: not run: " + sheet + `:7: question "Q2" cannot be graded: ` + tc.reason + "\n"
			if code != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, tc.warning) ||
				tc.warning != "" && strings.Index(stderr, tc.warning) > strings.Index(stderr, want) {
				t.Errorf("run: exit %d, want 1, saying %q after %q:\n%s", code, want, tc.warning, stderr)
			}
			if found, _ := filepath.Glob(filepath.Join(out, "*")); len(found) > 0 {
				t.Errorf("run wrote %v", found)
			}

			// The same question in an output file (LIME's, or one written
			// before the sheet changed): grade names it alike.
			f := &result.File{Sheet: result.Sheet{Name: "U", ModelName: "mock"}, Questions: []result.Question{
				{Name: "Q1", GroundTruth: s("C"), Completion: s("C"), Grade: &yes},
				{Name: "Q2", MetaData: tc.meta, GroundTruth: tc.truth, Completion: s("C")},
			}}
			output := filepath.Join(dir, "output-u-mock.json")
			if err := f.Write(output, outfile.Options{}); err != nil {
				t.Fatal(err)
			}
			reason := tc.reason
			if tc.truth == nil {
				reason = "no ground truth" // what the file tells of a question without an answer section
			}
			stdout, stderr, code := evalmd(t, env, "grade", "-o", output)
			if code != 3 || !strings.Contains(stdout, output+": 2 questions, 0 grades changed, 1 could not be graded\n") ||
				!strings.Contains(stderr, "evalmd grade: grade: 1 question could not be graded (grade null, the reason in grade_detail): "+output+`: question "Q2": `+reason+"\n") {
				t.Errorf("grade: exit %d, want 3, and the question named:\n%s%s", code, stdout, stderr)
			}
		})
	}
}
