package runcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/convertcmd"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/result"
)

// Every sheet convert writes from the real benchmarks runs as converted:
// with oracle every question is graded right, with -y
// and with mock the run succeeds, each with -d and -m only, in each mode a
// converter writes; and no line is said twice (a warning per sheet was
// said 38 times). The oracle answers code and agent questions without
// running code, so only the sandbox's start is paid.
func TestConvertedSheetsRunAsConverted(t *testing.T) {
	corpora := shared.Path(t, "corpora")
	dsbench := filepath.Join(corpora, "dsbench")
	dabench := filepath.Join(corpora, "dabench")
	iberlef := filepath.Join(corpora, "databench", "iberlef")
	databench := []string{"databench", "-i", filepath.Join(iberlef, "iberlef_blindtest.csv"),
		"-answers", filepath.Join(iberlef, "iberlef_groundtruth", "answers.txt"),
		"-semantics", filepath.Join(iberlef, "iberlef_groundtruth", "semantics.txt")}
	// The corpus has DataBench's questions and answers but not its
	// parquet tables, which code sheets read their columns from: a table
	// of one column per dataset stands in (the oracle runs no code).
	tables := t.TempDir()
	for _, ds := range iberlefDatasets(t, filepath.Join(iberlef, "iberlef_blindtest.csv")) {
		for _, name := range []string{"all.parquet", "sample.parquet"} {
			writeParquet(t, filepath.Join(tables, ds, name))
		}
	}
	for _, tc := range []struct {
		name    string
		convert []string
		sandbox bool // code or agent sheets: a sandbox starts
		// oneSheet keeps the first sheet only: mock's code runs in the
		// sandbox, 0.5 s a question.
		oneSheet bool
		// filesIn: the folder below the sheets' that convert puts the
		// files they send in, and says so.
		filesIn string
	}{
		{name: "dsbench-chat", convert: []string{"dsbench", "-i", dsbench}},
		{name: "dsbench-agent", convert: []string{"dsbench", "-mode", "agent", "-i", dsbench}, sandbox: true},
		{name: "dabench-agent", convert: []string{"dabench", "-i", dabench}, sandbox: true, filesIn: "da-dev-tables"},
		{name: "dabench-chat", convert: []string{"dabench", "-mode", "chat", "-i", dabench}, filesIn: "da-dev-tables"},
		{name: "databench-chat", convert: append(databench, "-mode", "chat")},
		{name: "databench-code", convert: append(databench, "-tables", tables), sandbox: true, oneSheet: true, filesIn: "data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.sandbox {
				needSandbox(t)
			}
			// An empty config folder: no data_roots vouch for the files'
			// folder, so the sheets must send theirs from below their own.
			dir, xdg := t.TempDir(), t.TempDir()
			var conv bytes.Buffer
			if err := cli.Execute(context.Background(), &conv, &conv, convertcmd.Command(), append(tc.convert, "-o", dir)); err != nil {
				t.Fatalf("convert: %v\n%s", err, conv.String())
			}
			if said := "the files they send are in " + filepath.Join(dir, tc.filesIn); tc.filesIn != "" && !strings.Contains(conv.String(), said) {
				t.Errorf("convert did not say %q:\n%s", said, conv.String())
			}
			sheets, _ := filepath.Glob(filepath.Join(dir, "input-*.md"))
			if len(sheets) == 0 {
				t.Fatalf("convert wrote no sheets:\n%s", conv.String())
			}
			if tc.oneSheet {
				for _, p := range sheets[1:] {
					os.Remove(p)
				}
				sheets = sheets[:1]
			}
			runSheets := func(args ...string) string {
				t.Helper()
				args = append([]string{"-d", dir}, args...)
				_, stderr, err := runIn(t.TempDir(), map[string]string{"XDG_CONFIG_HOME": xdg}, args...)
				if err != nil {
					t.Fatalf("run %s: %v\n%s", strings.Join(args, " "), err, stderr)
				}
				seen := map[string]bool{}
				for _, line := range strings.Split(stderr, "\n") {
					if line != "" && seen[line] {
						t.Errorf("run %s said twice: %s", strings.Join(args, " "), line)
					}
					seen[line] = true
				}
				return stderr
			}

			runSheets("-m", "oracle")
			outs, _ := filepath.Glob(filepath.Join(dir, "output-*.json"))
			if len(outs) != len(sheets) {
				t.Fatalf("oracle: %d outputs for %d sheets", len(outs), len(sheets))
			}
			questions := 0
			for _, p := range outs {
				f, err := result.Read(p)
				if err != nil {
					t.Fatal(err)
				}
				for _, q := range f.Questions {
					questions++
					if q.Grade == nil || !*q.Grade {
						t.Errorf("oracle on %s, %s: grade %v (%s)", filepath.Base(p), q.Name, q.Grade, q.GradeDetail)
					}
				}
			}
			if questions == 0 {
				t.Fatal("oracle: no questions")
			}
			t.Logf("%d sheets, %d questions, oracle 100%%", len(sheets), questions)
			for _, p := range outs { // -d takes outputs beside the sheets for none
				os.Remove(p)
				os.Remove(strings.TrimSuffix(p, ".json") + ".md")
			}

			runSheets("-m", "oracle", "-y")
			dry, _ := filepath.Glob(filepath.Join(dir, "output-*.json"))
			if len(dry) != len(sheets) {
				t.Errorf("-y: %d outputs for %d sheets", len(dry), len(sheets))
			}
			runSheets("-m", "mock")
		})
	}
}

// iberlefDatasets returns the datasets the IberLEF QA table names.
func iberlefDatasets(t *testing.T, qa string) []string {
	t.Helper()
	b, err := os.ReadFile(qa)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		i := strings.LastIndexByte(line, ',')
		if ds := strings.TrimSpace(line[i+1:]); ds != "" && !seen[ds] {
			seen[ds] = true
			out = append(out, ds)
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no datasets", qa)
	}
	return out
}

// writeParquet writes a table of one column at path.
func writeParquet(t *testing.T, path string) {
	t.Helper()
	type row struct {
		Value int64 `parquet:"value"`
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := parquet.Write(f, []row{{1}, {2}}); err != nil {
		t.Fatal(err)
	}
}

// An offline model has no context: a truncating sheet's prompts are kept
// whole for it, said once for the run; --context-limit cuts them as a
// model of that context would, by o200k_base when no encoding is named,
// said once too.
func TestOfflineModelTruncation(t *testing.T) {
	long := strings.Repeat("word ", 200)
	text := "# T\n#### meta\ntruncate: keep-last\nreserve_tokens: 5\n"
	for _, q := range []string{"Q1", "Q2"} {
		text += "## " + q + "\n#### question\n" + long + q + "\n#### answer\nx\n"
	}
	for _, tc := range []struct {
		flags []string
		said  string
		cut   bool
	}{
		{nil, "oracle: prompts are not cut (truncate: keep-last): an offline model has no context limit", false},
		{[]string{"--context-limit", "25"}, "oracle: prompts are cut by tiktoken's o200k_base token counts", true},
	} {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "input-a.md"), text)
		writeFile(t, filepath.Join(dir, "input-b.md"), text)
		_, stderr, err := runIn(t.TempDir(), nil, append([]string{"-d", dir, "-m", "oracle", "-y"}, tc.flags...)...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", tc.flags, err, stderr)
		}
		if n := strings.Count(stderr, tc.said); n != 1 {
			t.Errorf("%v: said %d times, want once:\n%s", tc.flags, n, stderr)
		}
		outs, _ := filepath.Glob(filepath.Join(dir, "output-*.json"))
		if len(outs) != 2 {
			t.Fatalf("%v: %d outputs", tc.flags, len(outs))
		}
		for _, p := range outs {
			f, err := result.Read(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range f.Questions {
				whole := strings.HasPrefix(q.Question, long)
				if whole == tc.cut || !strings.HasSuffix(q.Question, q.Name+"\n") && !strings.HasSuffix(q.Question, q.Name) {
					t.Errorf("%v: %s's prompt (%d bytes) cut %v, want %v: %q", tc.flags, q.Name, len(q.Question), !whole, tc.cut, q.Question)
				}
			}
		}
	}
}
