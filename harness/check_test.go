package harness

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/setting"
)

// A sheet and its problems as Check says them ("S" stands for the
// sheet's path).
var checkCases = []struct {
	name, sheet string
	want        []string
}{
	{"clean", "# S\n#### meta\ngrader: exact\n## Q\n#### question\nq\n#### answer\na\n", nil},
	{"not a sheet", "no header at all\n", []string{`S:1: no "# " sheet or "## " question header: not a sheet`}},
	{"unknown section", "# S\n## Q\n#### question\nq\n#### anwser\na\n#### answer\na\n",
		[]string{`S:5: warning: "#### anwser" is not a section (did you mean "answer"?): its lines are text of the question section, as in LIME`}},
	{"unknown meta keys", "# S\n#### meta\nmax_tokns: 9\n## Q\n#### meta\ncolour: red\n#### question\nq\n#### answer\na\n",
		[]string{"S:3: warning: meta max_tokns is not a setting or key evalmd reads (did you mean max_tokens?); it is kept as data",
			"S:6: warning: meta colour is not a setting or key evalmd reads; it is kept as data"}},
	{"missing answers", "# S\n## Q1\n#### question\nq\n## Q2\n#### question\nq\n#### answer\na\n## Q3\n#### question\nq\n",
		[]string{`S:2: question "Q1" cannot be graded: it has no answer section (saved half-written?)`,
			`S:10: question "Q3" cannot be graded: it has no answer section (saved half-written?)`}},
	{"missing question", "# S\n## Q\n#### answer\na\n", []string{`S:2: question "Q" has no question section (saved half-written?)`}},
	{"no question", "# S\n#### question\nq\n", []string{"S:1: the sheet has no question (saved half-written?)"}},
	{"misspelt answer section", "# S\n## Q\n#### question\nq\n#### answr\na\n", []string{
		`S:2: question "Q" cannot be graded: it has no answer section (saved half-written?)`,
		`S:5: warning: "#### answr" is not a section (did you mean "answer"?): its lines are text of the question section, as in LIME`}},
	{"duplicate names", "# S\n## Q\n#### question\nq\n#### answer\na\n## Q\n#### question\nr\n#### answer\nb\n",
		[]string{`S:7: warning: duplicate question name "Q" (first at line 2): both kept`}},
	{"settings out of range", "# S\n#### meta\nmax_tokens: 100000\nepochs: 0\n## Q\n#### meta\nmode: agents\ntool_memory: 64G\nsandbox: none\n#### question\nq\n#### answer\na\n",
		[]string{
			`S:3: meta max_tokens: "100000" is over 65536, the most a sheet or a workspace evalmd.yaml may ask; to allow it, run with --ceiling max_tokens=100000 (or ceilings: in your own config file), or set it yourself with --max-tokens`,
			`S:4: question "Q": meta epochs: "0" is not a whole number from 1 to 10000`,
			`S:7: question "Q": meta mode: "agents" is not chat, code or agent`,
			`S:8: question "Q": meta tool_memory: "64G" is over 4G, the most a sheet or a workspace evalmd.yaml may ask; to allow it, run with --ceiling tool_memory=64G (or ceilings: in your own config file), or set it yourself with --tool-memory`,
			`S:9: question "Q": meta sandbox: "none" cannot come from a sheet; only your config or --sandbox sets it`}},
	{"unreadable generation setting", "# S\n#### meta\nseed: None\n## Q\n#### question\nq\n#### answer\na\n",
		[]string{`S:3: warning: meta seed: "None" is not a whole number; ignored, as LIME ignores a setting it cannot read`}},
	{"unknown grader", "# S\n## Q\n#### meta\ngrader: choise\n#### question\nq\n#### answer\na\n",
		[]string{`S:2: question "Q" cannot be graded: unknown grader "choise" (known: `}},
	{"truth no grader reads", "# S\n#### meta\ngrader: numeric\ntolerance: abc\n## Q\n#### question\nq\n#### answer\n3\n",
		[]string{`S:5: question "Q" cannot be graded: numeric: meta tolerance "abc" is not a non-negative number`}},
	{"pattern that does not compile", "# S\n## Q\n#### meta\ngrader: regex\npattern: a(b\n#### question\nq\n#### answer\na\n",
		[]string{`S:5: question "Q" cannot be graded: regex: meta pattern "a(b" does not compile: error parsing regexp: missing closing ): ` + "`a(b`"}},
	{"truth not JSON", "# S\n#### meta\ngrader: json\n## Q\n#### question\nq\n#### answer\nParis\n",
		[]string{`S:4: question "Q" cannot be graded: json: ground truth "Paris" is not JSON (invalid character 'P' looking for beginning of value) nor a Python literal`}},
	{"missing script", "# S\n## Q\n#### meta\ngrader: script\nscript: grade.py\n#### question\nq\n#### answer\na\n",
		[]string{`S:5: question "Q" cannot be graded: script grade.py: lstat `}},
	{"also_grade that cannot grade", "# S\n## Q\n#### meta\ngrader: exact\nalso_grade: json\n#### question\nq\n#### answer\na\n",
		[]string{`S:5: question "Q" cannot be graded: also_grade json: json: ground truth "a" is not JSON`}},
	{"missing file", "# S\n## Q\n#### question\nq\n#### files\nnone.csv\n#### answer\na\n",
		[]string{"S:6: open "}},
	{"empty section", "# S\n## Q\n#### question\nq\n#### system\n\n#### answer\na\n",
		[]string{"S:5: warning: empty system section"}},
}

// Check says every problem of a sheet, each at its file and line, by line:
// the parser's, the completeness run asks, meta keys, settings (each bad
// value of a question, a sheet's once), graders, files. The run, on the
// same sheet, stops at one of the problems Check says stop it, and runs
// when there is none: one code path.
func TestCheck(t *testing.T) {
	for _, c := range checkCases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "input-s.md")
			if err := os.WriteFile(path, []byte(c.sheet), 0o644); err != nil {
				t.Fatal(err)
			}
			problems, err := Check(context.Background(), Config{Sheets: []string{path}})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range problems {
				got = append(got, strings.ReplaceAll(p.String(), path, "S"))
			}
			if len(got) != len(c.want) {
				t.Fatalf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], c.want[i]) {
					t.Errorf("problem %d:\n%s\nwant:\n%s", i, got[i], c.want[i])
				}
			}
			var stops []string
			for _, p := range problems {
				if !p.Warning {
					stops = append(stops, p.Msg)
				}
			}
			_, err = Run(context.Background(), Config{NewModel: builtins(), Sheets: []string{path}, Models: []string{"mock"}, OutDir: filepath.Join(dir, "out")})
			stopped := false
			for _, m := range stops {
				stopped = stopped || err != nil && strings.Contains(err.Error(), m)
			}
			if (err != nil) != (len(stops) > 0) || err != nil && !stopped {
				t.Errorf("run: %v, where check finds these stop it: %q", err, stops)
			}
		})
	}
}

// A config's settings are the run's own: a workspace evalmd.yaml's value
// over its ceiling is a problem at its line, and one the user's own
// config raises is none.
func TestCheckConfigSettings(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "input-s.md")
	if err := os.WriteFile(path, []byte(checkCases[0].sheet), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := setting.Layer{Source: setting.Workspace, File: "/w/evalmd.yaml", Values: map[string]string{"max_turns": "80"}, Lines: map[string]int{"max_turns": 3}}
	problems, err := Check(context.Background(), Config{Sheets: []string{path}, Settings: []setting.Layer{ws}})
	if err != nil || len(problems) != 1 || problems[0].Path != "/w/evalmd.yaml" || problems[0].Line != 3 || !strings.HasPrefix(problems[0].Msg, `max_turns "80": is over 50`) {
		t.Fatalf("problems %+v, %v", problems, err)
	}
	user := setting.Layer{Source: setting.UserConfig, Ceilings: map[string]string{"max_turns": "100"}}
	if problems, err := Check(context.Background(), Config{Sheets: []string{path}, Settings: []setting.Layer{user, ws}}); err != nil || len(problems) != 0 {
		t.Errorf("raised: problems %+v, %v", problems, err)
	}
}
