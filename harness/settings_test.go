package harness

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/setting"
	"github.com/evalmd/evalmd/model/providers"
	"github.com/evalmd/evalmd/result"
)

// How a prompt is cut (truncate, reserve_tokens, context_limit, encoding),
// how its tables are written (table_rows, table_format) and its grader are
// settings like the others: default < config < sheet meta < question meta
// < flag, each question's recorded as it was resolved.
func TestPromptSettingsResolved(t *testing.T) {
	long := strings.Repeat("word ", 200)
	config := func(kv ...string) setting.Layer {
		l := setting.Layer{Source: setting.Workspace, File: "evalmd.yaml", Values: map[string]string{}}
		for i := 0; i < len(kv); i += 2 {
			l.Values[kv[i]] = kv[i+1]
		}
		return l
	}
	flags := func(kv ...string) setting.Layer {
		l := config(kv...)
		l.Source, l.File = setting.Flag, ""
		return l
	}
	for _, tc := range []struct {
		name     string
		meta     string // the sheet's meta
		settings []setting.Layer
		cut      bool   // the long prompt is cut
		table    string // a part of the prompt: the table as written
		grader   string
	}{
		{"meta alone: an offline model keeps it whole", "truncate: keep-last\nreserve_tokens: 5\n", nil, false, " a b\n 1 x\n 2 y", "lime"},
		{"the config's context limit", "truncate: keep-last\nreserve_tokens: 5\n", []setting.Layer{config("context_limit", "25")}, true, " 2 y", "lime"},
		{"the config's truncate", "reserve_tokens: 5\n", []setting.Layer{config("truncate", "keep-last", "context_limit", "25")}, true, " 2 y", "lime"},
		{"the flag over the meta", "truncate: keep-last\nreserve_tokens: 5\ncontext_limit: 4000\n", []setting.Layer{flags("context_limit", "25")}, true, " 2 y", "lime"},
		{"the meta over the config", "truncate: none\n", []setting.Layer{config("truncate", "keep-last", "context_limit", "25")}, false, " 2 y", "lime"},
		{"tables: the config's format, the meta's rows", "table_rows: 1\n", []setting.Layer{config("table_format", "csv")}, false, "a,b\n1,x\n\n", "lime"},
		{"tables: the meta's format over the config's", "table_format: markdown\n", []setting.Layer{config("table_format", "csv")}, false, "| a | b |", "lime"},
		{"grader: the sheet's over the config's", "grader: exact\n", []setting.Layer{config("grader", "numeric")}, false, " 2 y", "exact"},
		{"grader: the flag's over the sheet's", "grader: exact\n", []setting.Layer{config("grader", "numeric"), flags("grader", "choice")}, false, " 2 y", "choice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "t.csv"), []byte("a,b\n1,x\n2,y\n"), 0o644)
			path := filepath.Join(dir, "input-s.md")
			text := "# S\n#### meta\n" + tc.meta + "#### templates\n{{.Table \"t.csv\"}}\n{{.Question}}\n## Q\n#### files\nt.csv\n#### question\n" + long + "end\n#### answer\nx\n"
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			sum, err := Run(context.Background(), Config{Sheets: []string{path}, Models: []string{"oracle"}, DryRun: true, Describe: providers.Registry().Describe, OutDir: filepath.Join(dir, "out"),
				Settings: tc.settings, Stderr: &stderr})
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			f, err := result.Read(sum.Outputs[0])
			if err != nil {
				t.Fatal(err)
			}
			q := f.Questions[0]
			if cut := !strings.Contains(q.Question, long); cut != tc.cut || !strings.HasSuffix(strings.TrimSpace(q.Question), "end") {
				t.Errorf("cut %v, want %v: %q", cut, tc.cut, q.Question)
			}
			if !tc.cut && !strings.Contains(q.Question, tc.table) {
				t.Errorf("the table is not written as %q:\n%s", tc.table, q.Question[:min(len(q.Question), 80)])
			}
			if q.Grader != tc.grader {
				t.Errorf("grader %q, want %q", q.Grader, tc.grader)
			}
		})
	}
}
