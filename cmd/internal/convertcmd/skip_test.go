package convertcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every converter skips just a bad entry, with one line naming the file
// and line, writes the rest, and counts what it skipped.
func TestConvertersSkipBadEntries(t *testing.T) {
	for _, tc := range []struct {
		what  string
		setup func(t *testing.T, dir string) []string // returns the args after the subcommand, without -o
		// sheets written, and the questions they hold
		sheets    int
		questions []string
		stderr    []string
	}{
		{
			what: "dabench",
			setup: func(t *testing.T, dir string) []string {
				os.MkdirAll(filepath.Join(dir, "da-dev-tables"), 0o755)
				for _, n := range []string{"a.csv", "c.csv"} {
					os.WriteFile(filepath.Join(dir, "da-dev-tables", n), []byte("x\n1\n"), 0o644)
				}
				os.WriteFile(filepath.Join(dir, "da-dev-questions.jsonl"), []byte(strings.Join([]string{
					`{"id": 1, "question": "q1", "file_name": "a.csv"}`,
					`{"id": 2, "question": "q2", "file_name": `,         // cut
					`{"id": 3, "question": "q3", "file_name": "b.csv"}`, // table missing
					`{"id": 4, "question": "q4", "file_name": "c.csv"}`,
					`{"id": 5, "question": "q5", "file_name": "c.csv"}`, // no labels
				}, "\n")), 0o644)
				os.WriteFile(filepath.Join(dir, "da-dev-labels.jsonl"), []byte(strings.Join([]string{
					`{"id": 1, "common_answers": [["x", "1"]]}`,
					`{"id": 3, "common_answers": [["x", "1"]]}`,
					`{"id": 4, "common_answers": [["x", "1"]]}`,
					`{"id": 9, "common_answers": [["x", "1"]]}`, // no such question
				}, "\n")), 0o644)
				return []string{"-i", dir}
			},
			sheets:    2,
			questions: []string{"DABench-1", "DABench-4"},
			stderr:    []string{"da-dev-questions.jsonl:2: ", "b.csv", "da-dev-questions.jsonl:5: question 5 has no labels", "da-dev-labels.jsonl:4: labels for id 9", "4 problems"},
		},
		{
			what: "databench",
			setup: func(t *testing.T, dir string) []string {
				qa := filepath.Join(dir, "qa.jsonl")
				os.WriteFile(qa, []byte(strings.Join([]string{
					`{"question": "q0", "dataset": "d1", "answer": "1"}`,
					`{"question": "q1", "dataset": `, // cut
					`{"question": "q2", "dataset": "d2", "answer": "2"}`,
					`{"question": "q3", "answer": "3"}`, // no dataset
					`[1]`,                               // not an object
					`{"question": "q5", "dataset": "d1", "answer": "5"}`,
				}, "\n")), 0o644)
				return []string{"-i", qa, "-mode", "chat"} // no tables: chat sheets
			},
			sheets: 2,
			// Row numbers stay those of the QA table.
			questions: []string{"DataBench-0", "DataBench-5", "DataBench-2"},
			stderr:    []string{"qa.jsonl:2: ", "qa.jsonl:4: row 3: no dataset", "qa.jsonl:5: ", "3 problems"},
		},
		{
			what: "databench",
			setup: func(t *testing.T, dir string) []string {
				qa := filepath.Join(dir, "qa.csv")
				os.WriteFile(qa, []byte("question,dataset,answer\nq0,d1,1\nq\"1,d1,1\nq2,d1,2\n"), 0o644)
				return []string{"-i", qa, "-mode", "chat"} // no tables: chat sheets
			},
			sheets:    1,
			questions: []string{"DataBench-0", "DataBench-2"},
			stderr:    []string{"qa.csv:3: ", "1 problem (named above)"},
		},
	} {
		t.Run(tc.what, func(t *testing.T) {
			in, out := t.TempDir(), t.TempDir()
			args := append([]string{tc.what}, tc.setup(t, in)...)
			var stderr bytes.Buffer
			err := convert(context.Background(), &stderr, &stderr, append(args, "-o", out))
			msg := stderr.String()
			if err == nil {
				t.Fatalf("no error\n%s", msg)
			}
			for _, want := range tc.stderr {
				if !strings.Contains(msg+err.Error(), want) {
					t.Errorf("no %q in\n%s%v", want, msg, err)
				}
			}
			for _, line := range strings.Split(strings.TrimSpace(msg), "\n") {
				if !strings.HasPrefix(line, "convert: "+tc.what+": ") && !strings.HasPrefix(line, "wrote ") {
					t.Errorf("line %q is not one problem", line)
				}
			}
			sheets, _ := filepath.Glob(filepath.Join(out, "input-*.md"))
			if len(sheets) != tc.sheets {
				t.Errorf("%d sheets, want %d", len(sheets), tc.sheets)
			}
			var all string
			for _, p := range sheets {
				b, _ := os.ReadFile(p)
				all += string(b)
			}
			for _, q := range tc.questions {
				if !strings.Contains(all, "## "+q+"\n") {
					t.Errorf("question %s not written", q)
				}
			}
		})
	}
}
