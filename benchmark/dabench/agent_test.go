package dabench

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/agg"
	"github.com/evalmd/evalmd/agg/render"
	"github.com/evalmd/evalmd/benchmark"
	"github.com/evalmd/evalmd/benchmark/dabench/score"
	"github.com/evalmd/evalmd/harness"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/providers"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/runner"
	"github.com/evalmd/evalmd/sandbox"
)

// fullEnv runs TestAgentEndToEnd on all 257 questions; without it the test
// takes every eighth question of each level (33 of them, every level and
// most tables).
const fullEnv = "EVALMD_DABENCH_FULL"

// TestAgentEndToEnd converts DABench into agent sheets and runs them
// against a fake OpenAI server scripted as an agent: its first turn calls
// the python tool to read the question's table in the sandbox and print its
// shape; its second answers the question's labels. Every transcript must
// hold the table's real shape (counted here from the CSV), every answer is
// graded right, and agg's ABQ, the script's and the strict one, is 1.
func TestAgentEndToEnd(t *testing.T) {
	if _, err := sandbox.Check(context.Background(), sandbox.Config{}); err != nil {
		shared.Missing(t, err.Error())
	}
	src := shared.Path(t, "corpora", "dabench")
	qs, errs := Load(src)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if os.Getenv(fullEnv) != "1" {
		qs = stratified(qs, 8)
	}
	data := subsetData(t, src, qs)
	sheets := t.TempDir()
	if _, errs := Convert(Options{Data: data, Out: sheets}); len(errs) > 0 {
		t.Fatal(errs)
	}

	// What the fake model knows: each question's user message -> its table
	// and labels.
	type known struct {
		table, truth string
	}
	byPrompt := map[string]known{}
	shapes := map[string]string{}
	for i := range qs {
		q := &qs[i]
		user := "The data is in the CSV file " + q.FileName + " in the working directory.\n" + q.Text()
		byPrompt[user] = known{q.FileName, score.LabelsText(q.Labels)}
		if _, ok := shapes[q.FileName]; !ok {
			shapes[q.FileName] = csvShape(t, filepath.Join(src, tablesDir, q.FileName))
		}
	}
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 2*len(qs) + 10, Reply: func(c fakeserver.Call) fakeserver.Reply {
		if len(c.Messages) == 0 {
			return fakeserver.Reply{Text: "no messages"}
		}
		k, ok := byPrompt[c.Messages[0].Text]
		if !ok {
			return fakeserver.Reply{Text: "unknown question"}
		}
		if c.Messages[len(c.Messages)-1].Role != "tool" {
			code := "import pandas as pd\ndf = pd.read_csv(" + strconv.Quote(k.table) + ")\nprint(df.shape)"
			args, _ := json.Marshal(map[string]string{"code": code})
			return fakeserver.Reply{ToolCalls: []fakeserver.ToolCall{{ID: "call-1", Name: "python", Arguments: string(args)}}}
		}
		return fakeserver.Reply{Text: "After reading the table:\n" + k.truth}
	}})

	set, err := benchmark.NewSet(score.Benchmark())
	if err != nil {
		t.Fatal(err)
	}
	found, err := harness.FindSheets(sheets)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	_, err = harness.Run(context.Background(), harness.Config{NewModel: providers.New, Sheets: found,
		Models: []string{"openai-api/local/agent"}, OutDir: out, Graders: set.Graders, DataRoots: []string{src},
		Model:   model.Options{BaseURL: srv.URL, Getenv: func(string) string { return "" }},
		Runner:  runner.Options{Concurrency: 2},
		Sandbox: sandbox.Config{MaxInFlight: 2}, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}

	outputs, _ := filepath.Glob(filepath.Join(out, "output-*.json"))
	graded := 0
	for _, p := range outputs {
		f, err := result.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		table := f.Sheet.MetaData["table"]
		for _, q := range f.Questions {
			if q.Mode != "agent" || q.Limit != "" {
				t.Errorf("%s: mode %q limit %q", q.Name, q.Mode, q.Limit)
			}
			if err := readTable(q.Transcript, table, shapes[table]); err != nil {
				t.Errorf("%s (%s): %v", q.Name, table, err)
			}
			if q.Grade == nil || !*q.Grade {
				t.Errorf("%s: grade %v, completion %v", q.Name, q.Grade, q.Completion)
			} else {
				graded++
			}
		}
	}
	if graded != len(qs) {
		t.Errorf("%d questions graded right, want %d", graded, len(qs))
	}
	// agg's DABench figures: every question scored and right, strict ABQ too.
	m := &tablesOf{Metric: score.Benchmark().Metric}
	d, err := agg.Load(context.Background(), out, io.Discard, agg.LoadOptions{Metrics: []agg.Metric{m}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Markdown(agg.ReportOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(m.tables) == 0 || len(m.tables[0].Rows) != 1 {
		t.Fatalf("agg's DABench tables %+v, want one run", m.tables)
	}
	cell := map[string]string{}
	for i, c := range m.tables[0].Columns {
		cell[c.Name] = m.tables[0].Rows[0][i]
	}
	n := strconv.Itoa(len(qs))
	if cell["scored"] != n || cell["ABQ"] != "1.0000" || cell["questions"] != n || cell["ABQ strict"] != "1.0000" {
		t.Errorf("agg: scored %s ABQ %s, strict over %s %s; want %s, 1, %s, 1",
			cell["scored"], cell["ABQ"], cell["questions"], cell["ABQ strict"], n, n)
	}
	t.Logf("%d questions on %d tables; %d model calls", len(qs), len(shapes), srv.Count())
}

// tablesOf is a benchmark's metric, keeping the tables it gives agg.
type tablesOf struct {
	agg.Metric
	tables []render.Table
}

func (m *tablesOf) Tables(qs []agg.Question) []render.Table {
	m.tables = m.Metric.Tables(qs)
	return m.tables
}

// readTable checks an agent transcript: one python call that read table,
// answered by a tool result holding the table's shape.
func readTable(tr []model.Message, table, shape string) error {
	if len(tr) != 3 || len(tr[0].ToolCalls) != 1 || tr[1].Role != "tool" {
		return fmt.Errorf("transcript of %d turns, want a tool call, its result and the answer", len(tr))
	}
	if !strings.Contains(tr[0].ToolCalls[0].Arguments, table) {
		return fmt.Errorf("the tool call does not read %s: %s", table, tr[0].ToolCalls[0].Arguments)
	}
	if got := strings.TrimSpace(tr[1].Content); got != shape {
		return fmt.Errorf("tool result %q, want the shape %s", got, shape)
	}
	return nil
}

// csvShape is the table's (rows, columns) as pandas prints a shape,
// counted by Go's CSV reader: every record after the header is a row
// (blank lines skipped, as both readers do; CR, CRLF and LF end lines).
func csvShape(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Two tables end lines with a bare CR, which pandas reads as a line end
	// and Go's CSV reader does not.
	text := strings.ReplaceAll(strings.ReplaceAll(string(data), "\r\n", "\n"), "\r", "\n")
	r := csv.NewReader(strings.NewReader(text))
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	header, err := r.Read()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	rows := 0
	for {
		_, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		rows++
	}
	return fmt.Sprintf("(%d, %d)", rows, len(header))
}

// stratified keeps every n-th question of each level, in file order.
func stratified(qs []Question, n int) []Question {
	seen := map[string]int{}
	var out []Question
	for _, q := range qs {
		if seen[q.Level]%n == 0 {
			out = append(out, q)
		}
		seen[q.Level]++
	}
	return out
}

// subsetData writes a DABench data folder holding only qs and their
// tables.
func subsetData(t *testing.T, src string, qs []Question) string {
	t.Helper()
	dir := t.TempDir()
	keep := map[int]bool{}
	for _, q := range qs {
		keep[q.ID] = true
	}
	for _, name := range []string{questionsFile, labelsFile} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, line := range strings.Split(string(data), "\n") {
			var row struct{ ID *int }
			if json.Unmarshal([]byte(line), &row) == nil && row.ID != nil && keep[*row.ID] {
				b.WriteString(line + "\n")
			}
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The tables are copied in: convert refuses a link out of its input.
	os.Mkdir(filepath.Join(dir, tablesDir), 0o755)
	for _, q := range qs {
		data, err := os.ReadFile(filepath.Join(src, tablesDir, q.FileName))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, tablesDir, q.FileName), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
