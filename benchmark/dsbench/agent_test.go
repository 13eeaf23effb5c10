package dsbench

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/benchmark/dsbench/score"
	"github.com/evalmd/evalmd/harness"
	"github.com/evalmd/evalmd/internal/setting"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/providers"
	"github.com/evalmd/evalmd/prompt"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/runner"
	"github.com/evalmd/evalmd/sandbox"
	"github.com/evalmd/evalmd/schema"
	"github.com/evalmd/evalmd/sheet"
	"github.com/evalmd/evalmd/workbook"
)

// The competition given workbooks in the tests (the corpus has none): it
// has three questions.
const agentComp = "00000003"

// agentCorpus copies the DSBench corpus (texts only) into a temporary
// folder and puts two real workbooks of the workbook corpus, an .xlsx and
// an .xlsb, into competition agentComp's folder.
func agentCorpus(t *testing.T) string {
	t.Helper()
	src := shared.Path(t, "corpora", "dsbench")
	books := shared.Path(t, "corpora", "workbooks", "files")
	dst := t.TempDir()
	copyFile := func(from, to string) {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(filepath.Join(src, "data.json"), filepath.Join(dst, "data.json"))
	texts, err := filepath.Glob(filepath.Join(src, "data", "*", "*.txt"))
	if err != nil || len(texts) == 0 {
		t.Fatalf("no texts under %s: %v", src, err)
	}
	for _, p := range texts {
		rel, _ := filepath.Rel(src, p)
		copyFile(p, filepath.Join(dst, rel))
	}
	for _, b := range []string{"header-row.xlsx", "issues.xlsb"} {
		copyFile(filepath.Join(books, b), filepath.Join(dst, "data", agentComp, b))
	}
	return dst
}

// TestConvertAgent converts the corpus into agent sheets: as many sheets as
// chat mode; the competition with workbooks names them and each of their
// sheets' CSV in its files, every CSV is workbook.CSV's text, and the
// prompt says what is in the working directory instead of the workbook
// text, with the notebook's introduction and question after it.
func TestConvertAgent(t *testing.T) {
	data := agentCorpus(t)
	out := t.TempDir()
	paths, errs := Convert(t.Context(), Options{Data: data, Out: out, Mode: modeAgent})
	for _, err := range problems(t, errs, 37) {
		t.Error(err)
	}
	if len(paths) != 38 {
		t.Fatalf("%d sheets written, want 38", len(paths))
	}
	path := filepath.Join(out, sheetName(agentComp))
	doc, err := sheet.ParseFile(path, schema.Default())
	if err != nil {
		t.Fatal(err)
	}
	info, items := doc.Resolve()
	if info.Meta["mode"] != "agent" || info.Meta["benchmark"] != score.Name {
		t.Errorf("meta %v", info.Meta)
	}
	// Every CSV the converter wrote is one sheet of a workbook, as
	// workbook.CSV gives it, and a file of the sheet.
	want := map[string]string{} // file -> csv
	var names []string
	for _, book := range []string{"header-row.xlsx", "issues.xlsb"} {
		stem := strings.TrimSuffix(book, filepath.Ext(book))
		err := workbook.CSV(context.Background(), filepath.Join(data, "data", agentComp, book), workbook.Options{}, func(name string, csv []byte) error {
			file := fileSafe(stem + "-" + name + ".csv")
			want[file] = string(csv)
			names = append(names, file)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	b := &prompt.Builder{Dir: out, SheetMeta: info.Meta, RenderWorkbook: workbook.Render, DataRoots: []string{data}}
	req, err := b.Build(t.Context(), path, &items[0])
	if err != nil {
		t.Fatal(err)
	}
	if req.Solve == nil || req.Solve.Mode != model.ModeAgent {
		t.Fatalf("solve %+v", req.Solve)
	}
	got := map[string]bool{}
	for _, f := range req.Solve.Files {
		got[filepath.Base(f)] = true
		if w, ok := want[filepath.Base(f)]; ok {
			data, err := os.ReadFile(f)
			if err != nil || string(data) != w {
				t.Errorf("%s: %v\n%q\nwant %q", f, err, data, w)
			}
		}
	}
	for _, n := range append([]string{"header-row.xlsx", "issues.xlsb"}, names...) {
		if !got[n] {
			t.Errorf("%s is not among the question's files %v", n, req.Solve.Files)
		}
	}
	user := req.Messages[0].Content
	for _, s := range []string{
		"The workbooks of this task are in the working directory of the python tool, read-only, under these names: header-row.xlsx, issues.xlsb.",
		"but not .xlsb, so each sheet of each workbook is also there as a CSV file",
		"- issues-issue2.csv: sheet \"issue2\" of issues.xlsb\n",
		"- issues-spc_chrs.csv: sheet \"spc_chrs\" of issues.xlsb\n",
		"The introduction is detailed as follows. \n " + doc.Blocks[0].Sections[2].Text,
		"The questions are detailed as follows. \n " + items[0].Text,
	} {
		if !strings.Contains(user, s) {
			t.Errorf("the prompt lacks %q:\n%s", s, user)
		}
	}
	if strings.Contains(user, "The workbook is detailed as follows") || strings.Contains(user, "Sheet name: ") {
		t.Errorf("an agent prompt must not hold the workbook text:\n%s", user)
	}
	// A competition without workbooks is its chat sheet plus mode: agent.
	other, err := os.ReadFile(filepath.Join(out, sheetName("00000001")))
	if err != nil || !strings.Contains(string(other), "mode: agent") || strings.Contains(string(other), ".csv") {
		t.Errorf("competition 00000001: %v\n%s", err, other)
	}
}

// TestAgentReadsWorkbooks runs the agent sheet of the competition with
// workbooks against a fake OpenAI model scripted as an agent: it reads the
// .xlsx with pandas (openpyxl) in the sandbox, then the CSV of an .xlsb
// sheet, and answers with what it saw. The transcript must hold the
// workbook's real sheet names and the .xlsb sheet as pandas (with pyxlsb)
// prints it.
func TestAgentReadsWorkbooks(t *testing.T) {
	if _, err := sandbox.Check(context.Background(), sandbox.Config{Warm: -1}); err != nil {
		shared.Missing(t, err.Error())
	}
	data := agentCorpus(t)
	sheets := t.TempDir()
	if _, errs := Convert(t.Context(), Options{Data: data, Out: sheets, Mode: modeAgent}); len(problems(t, errs, 37)) > 0 {
		t.Fatal(errs)
	}
	var xlsxSheets []string
	workbook.CSV(context.Background(), filepath.Join(data, "data", agentComp, "header-row.xlsx"), workbook.Options{}, func(name string, _ []byte) error {
		xlsxSheets = append(xlsxSheets, strconv.Quote(name))
		return nil
	})
	text, err := workbook.Render(t.Context(), filepath.Join(data, "data", agentComp, "issues.xlsb"))
	if err != nil {
		t.Fatal(err)
	}
	_, issue2, _ := strings.Cut(text, "Sheet name: issue2\n")
	issue2, _, _ = strings.Cut(issue2, "\n\n")

	codes := []string{
		"import pandas as pd\nbook = pd.read_excel('header-row.xlsx', sheet_name=None)\nprint(list(book))",
		"df = pd.read_csv('issues-issue2.csv')\nprint(df.to_string(index=False))",
	}
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 20, Reply: func(c fakeserver.Call) fakeserver.Reply {
		var results []string
		for _, m := range c.Messages {
			if m.Role == "tool" {
				results = append(results, m.Text)
			}
		}
		if n := len(results); n < len(codes) {
			args, _ := json.Marshal(map[string]string{"code": codes[n]})
			return fakeserver.Reply{ToolCalls: []fakeserver.ToolCall{{ID: "c" + strconv.Itoa(n), Name: "python", Arguments: string(args)}}}
		}
		return fakeserver.Reply{Text: "I read: " + strings.Join(results, " | ")}
	}})
	out := t.TempDir()
	_, err = harness.Run(context.Background(), harness.Config{NewModel: providers.New, DataRoots: []string{data},
		Sheets: []string{filepath.Join(sheets, sheetName(agentComp))}, Models: []string{"openai-api/local/agent"},
		OutDir: out, Settings: []setting.Layer{{Source: setting.Flag, Values: map[string]string{"grader": "lime", "context_limit": "128000", "encoding": "o200k_base"}}},
		Model:   model.Options{BaseURL: srv.URL, Getenv: func(string) string { return "" }},
		Runner:  runner.Options{Concurrency: 1},
		Sandbox: sandbox.Config{MaxInFlight: 1}, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	outputs, _ := filepath.Glob(filepath.Join(out, "output-*.json"))
	if len(outputs) != 1 {
		t.Fatalf("outputs %v", outputs)
	}
	f, err := result.Read(outputs[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Questions) != 3 {
		t.Fatalf("%d questions, want 3", len(f.Questions))
	}
	for _, q := range f.Questions {
		if q.Mode != "agent" || q.Turns != 3 || len(q.Transcript) != 5 || q.Error != nil {
			t.Fatalf("%s: mode %q, %d turns, %d transcript entries, error %v", q.Name, q.Mode, q.Turns, len(q.Transcript), q.Error)
		}
		if got, want := q.Transcript[1].Content, "["+strings.Join(xlsxSheets, ", ")+"]\n"; got != strings.ReplaceAll(want, `"`, "'") {
			t.Errorf("%s: the .xlsx read in the sandbox gave %q, want its sheets %q", q.Name, got, want)
		}
		if got := q.Transcript[3].Content; got != issue2+"\n" {
			t.Errorf("%s: the .xlsb sheet's CSV read in the sandbox gave\n%q\nwant pandas' (pyxlsb) text\n%q", q.Name, got, issue2+"\n")
		}
	}
}
