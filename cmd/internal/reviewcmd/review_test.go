package reviewcmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/config"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/verdict"
)

const twoModels = `{"sheet": {"name": "S", "run_id": "1", "model_name": "%s", "meta_data": {}, "question": null},
"questions": [{"name": "Q", "meta_data": null, "ground_truth": "B", "question": "?", "completion": "(b)", "error": null, "model_name": "%[1]s", "eval_time": 1, "grade": false, "grader": "exact"}]}`

func TestCommandLine(t *testing.T) {
	dir := t.TempDir()
	for _, m := range []string{"a", "b"} {
		data := strings.ReplaceAll(twoModels, "%[1]s", m)
		data = strings.Replace(data, "%s", m, 1)
		if err := os.WriteFile(filepath.Join(dir, "output-s-"+m+"-1.json"), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{[]string{"-h"}, 0, "usage: review -i RESULTS", ""},
		{nil, 2, "", "review: name the results to review with -i\n"},
		{[]string{"-i", dir, "--right", "--wrong"}, 2, "", "review: --right and --wrong: say one\n"},
		{[]string{"-i", dir, "--list", "--accept", "--wrong"}, 2, "", "review: --list and --wrong and --accept: say one\n"},
		{[]string{"-i", dir, "-q", "Q", "-m", "a", "--accept"}, 1, "", "review: S / Q / a: its output records no sheet file\n"},
		{[]string{"-i", dir, "--only", "maybe"}, 2, "", `review: --only "maybe": not one of`},
		{[]string{"-i", dir, "-q", "["}, 2, "", `review: pattern "[": syntax error in pattern`},
		{[]string{"-i", dir, "-q", "Q", "--right"}, 2, "", "review: 2 answers match (S / Q / a; S / Q / b): narrow with -q and -m\n"},
		{[]string{"-i", dir, "-q", "Nope", "--right"}, 1, "", "review: no answer of 2 matches -q Nope -m \n"},
		{[]string{"-i", filepath.Join(dir, "missing")}, 1, "", "missing: no such file or directory"},
		{[]string{"-i", dir}, 0, "1/2 S / Q / a: wrong (grader)  \"(b)\"\n2/2 S / Q / b: wrong (grader)  \"(b)\"\n2 of 2 answers chosen\n", ""},
		{[]string{"-i", dir, "-q", "Q", "-m", "b", "--right", "--by", "cy"}, 0, "S / Q / b: right by cy's verdict (the grader said wrong); 1 of 1 output files rewritten\n", ""},
		{[]string{"-i", dir, "--only", "disagree"}, 0, "1/1 S / Q / b: right (cy; the grader said wrong)", ""},
	} {
		var stdout, stderr bytes.Buffer
		cmd := Command(config.Lookup{Dir: t.TempDir(), Getenv: func(string) string { return "" }}, func(string) string { return "" }, nil)
		err := cli.Execute(context.Background(), &stdout, &stderr, cmd, tc.args)
		code := cli.Report(&stderr, "review", err)
		if code != tc.code || !strings.Contains(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("review %q: exit %d, stdout %q, stderr %q; want %d, %q, %q", tc.args, code, stdout.String(), stderr.String(), tc.code, tc.stdout, tc.stderr)
		}
	}
}

// On a terminal, review walks the answers and records each decision in
// the verdicts file and the outputs; --list, or no terminal, lists them.
func TestCommandOnTerminal(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		terminal bool
		stdout   string
		verdicts []string
	}{
		{"keys", nil, true, "2 recorded: 1 right, 1 wrong, 0 accepted; skipped 0\n", []string{"right", "wrong"}},
		{"--list", []string{"--list"}, true, "1/2 S / Q / a: wrong (grader)", nil},
		{"no terminal", nil, false, "1/2 S / Q / a: wrong (grader)", nil},
		{"--list and --right", []string{"--list", "--right"}, true, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, m := range []string{"a", "b"} {
				data := strings.ReplaceAll(twoModels, "%[1]s", m)
				data = strings.Replace(data, "%s", m, 1)
				if err := os.WriteFile(filepath.Join(dir, "output-s-"+m+"-1.json"), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			console := func(stdout io.Writer) (*Terminal, bool) {
				return &Terminal{In: strings.NewReader("y(b) is B\rn\r"), Out: stdout}, tc.terminal
			}
			var stdout, stderr bytes.Buffer
			cmd := Command(config.Lookup{Dir: t.TempDir(), Getenv: func(string) string { return "" }}, func(string) string { return "" }, console)
			err := cli.Execute(context.Background(), &stdout, &stderr, cmd, append([]string{"-i", dir, "--by", "ann"}, tc.args...))
			if !strings.Contains(stdout.String(), tc.stdout) || (err != nil) != (tc.stdout == "") {
				t.Errorf("stdout %q, error %v; want %q", stdout.String(), err, tc.stdout)
			}
			set, bad, err := verdict.Read(dir)
			if err != nil || len(bad) > 0 {
				t.Fatal(err, bad)
			}
			var got []string
			for _, v := range set.All() {
				got = append(got, verdict.GradeWord(&v.Right))
				if v.By != "ann" {
					t.Errorf("a verdict by %q, want ann", v.By)
				}
			}
			if strings.Join(got, " ") != strings.Join(tc.verdicts, " ") {
				t.Errorf("verdicts %v, want %v", got, tc.verdicts)
			}
			if len(tc.verdicts) == 0 {
				return
			}
			f, err := result.Read(filepath.Join(dir, "output-s-a-1.json"))
			if err != nil {
				t.Fatal(err)
			}
			if q := f.Questions[0]; q.Grade == nil || !*q.Grade || q.Review == nil || q.Review.Reason != "(b) is B" {
				t.Errorf("output a: grade %v, review %+v; want ann's right, with her reason", q.Grade, q.Review)
			}
		})
	}
}

// --accept records the answer right and adds it to the sheet its output
// names.
func TestAcceptFlag(t *testing.T) {
	dir := t.TempDir()
	sheetPath := filepath.Join(dir, "input-s.md")
	if err := os.WriteFile(sheetPath, []byte("# S\n\n## Q\n#### answer\nB<EVAL-ENDCHAR>\n#### question\n?\n<EVAL-ENDCHAR>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data := strings.ReplaceAll(twoModels, "%[1]s", "a")
	data = strings.Replace(data, `"model_name": "%s",`, fmt.Sprintf(`"model_name": "a", "sheet_file": %q,`, sheetPath), 1)
	if err := os.WriteFile(filepath.Join(dir, "output-s-a-1.json"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd := Command(config.Lookup{Dir: t.TempDir(), Getenv: func(string) string { return "" }}, func(string) string { return "" }, nil)
	err := cli.Execute(context.Background(), &stdout, &stderr, cmd, []string{"-i", dir, "-q", "Q", "--accept", "--by", "ann", "--reason", "(b) is B"})
	want := "S / Q / a: right by ann's verdict, its answer accepted in " + sheetPath + " (the grader said wrong); 1 of 1 output files rewritten\n"
	if err != nil || stdout.String() != want {
		t.Fatalf("review --accept: %v\n%s%s\nwant %s", err, stdout.String(), stderr.String(), want)
	}
	if got, _ := os.ReadFile(sheetPath); !strings.Contains(string(got), "B<EVAL-ENDCHAR>\n- accept: (b)\n") {
		t.Errorf("the sheet does not accept (b):\n%s", got)
	}
	f, err := result.Read(filepath.Join(dir, "output-s-a-1.json"))
	if err != nil {
		t.Fatal(err)
	}
	if q := f.Questions[0]; q.Grade == nil || !*q.Grade || q.Review == nil || q.Review.By != "ann" {
		t.Errorf("grade %v, review %+v; want ann's right", q.Grade, q.Review)
	}
}
