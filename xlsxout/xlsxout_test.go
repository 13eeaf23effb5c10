package xlsxout

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/xuri/excelize/v2"

	"github.com/evalmd/evalmd/agg"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/report"
	"github.com/evalmd/evalmd/result"
)

// long is a completion over Excel's cell limit, with characters outside
// the BMP, which count twice.
var long = strings.Repeat("ab😀 ", 10000)

var completions = []string{"=1+1", "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)", long, "bell\x07 and tab\t"}

// writeOutputs writes one sheet answered by two models: m1 right on even
// questions, m2 wrong on all but the last, which it leaves ungraded.
func writeOutputs(t *testing.T, dir string) {
	t.Helper()
	for _, m := range []string{"m1", "m2"} {
		f := &result.File{Sheet: result.Sheet{Name: "=HYPERLINK(\"x\")", ModelName: m, RunID: "r" + m}}
		for i, c := range completions {
			truth := "=A" + strconv.Itoa(i)
			c := c
			q := result.Question{Name: "q" + strconv.Itoa(i), Question: "?", GroundTruth: &truth, Completion: &c, ModelName: m}
			g := m == "m1" && i%2 == 0
			if !(m == "m2" && i == len(completions)-1) {
				q.Grade = &g
			}
			f.Questions = append(f.Questions, q)
		}
		if err := f.Write(filepath.Join(dir, result.FileName("input-s.md", m, "r"+m)), outfile.Options{}); err != nil {
			t.Fatal(err)
		}
	}
}

// The workbook reads back: its sheets, LIME's leaderboard numbers, the
// models' intervals, a grade per question and run linked to its
// completion, every text as text (no formula), long text cut with a
// marker, frozen headers, filters and grade colours.
func TestWorkbookReadBack(t *testing.T) {
	dir := t.TempDir()
	writeOutputs(t, dir)
	path := filepath.Join(t.TempDir(), "agg.xlsx")
	if err := WriteFile(context.Background(), path, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := f.GetSheetList(); !slices.Equal(got, []string{"Leaderboard", "Models", "Grades", "Completions"}) {
		t.Fatalf("sheets %q", got)
	}
	rows, _ := f.GetRows("Leaderboard")
	if len(rows) != 3 || rows[1][1] != "m1" || rows[1][2] != "6" || rows[1][0] != `=HYPERLINK("x")` {
		t.Errorf("leaderboard %q", rows)
	}
	if v, _ := f.GetCellValue("Leaderboard", "D2", excelize.Options{RawCellValue: true}); v != "0.5" {
		t.Errorf("m1's pct_correct %q, want 0.5", v)
	}
	if v, _ := f.GetCellValue("Leaderboard", "D3", excelize.Options{RawCellValue: true}); v != "0" {
		t.Errorf("m2's pct_correct %q, want 0", v)
	}
	models, _ := f.GetRows("Models")
	if len(models) != 3 || models[0][8] != "ci_low" || models[1][0] != "m1" || models[1][2] != "6" || models[2][5] != "1" {
		t.Errorf("models %q", models)
	}
	lo, _ := f.GetCellValue("Models", "I2", excelize.Options{RawCellValue: true})
	hi, _ := f.GetCellValue("Models", "J2", excelize.Options{RawCellValue: true})
	if l, _ := strconv.ParseFloat(lo, 64); l <= 0.1 || l >= 0.5 {
		t.Errorf("m1's interval starts at %q", lo)
	}
	if h, _ := strconv.ParseFloat(hi, 64); h <= 0.5 || h >= 0.95 {
		t.Errorf("m1's interval ends at %q", hi)
	}

	grades, _ := f.GetRows("Grades")
	if !slices.Equal(grades[0], []string{"sheet", "question", "ground truth", "m1", "m2"}) {
		t.Errorf("grades header %q", grades[0])
	}
	if got := grades[1][2:]; !slices.Equal(got, []string{"=A0", "right", "wrong"}) {
		t.Errorf("q0 %q", got)
	}
	if got := grades[6][3:]; !slices.Equal(got, []string{"wrong", "not graded"}) {
		t.Errorf("q5 %q", got)
	}
	// Each grade links to its completion.
	ok, link, _ := f.GetCellHyperLink("Grades", "E2")
	if !ok || !strings.HasPrefix(link, "Completions!F") {
		t.Fatalf("E2 links to %q", link)
	}
	if v, _ := f.GetCellValue("Completions", strings.TrimPrefix(link, "Completions!")); v != completions[0] {
		t.Errorf("the link from m2's q0 leads to %q", v)
	}
	if v, _ := f.GetCellValue("Completions", "C"+strings.TrimPrefix(link, "Completions!F")); v != "m2" {
		t.Errorf("the link from m2's q0 leads to run %q", v)
	}

	comp, _ := f.GetRows("Completions")
	var texts []string
	for _, r := range comp[1:] {
		texts = append(texts, r[5])
	}
	for _, want := range []string{"=1+1", "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)", "bell\uFFFD and tab\t"} {
		if !slices.Contains(texts, want) {
			t.Errorf("completion %q not read back as written", want)
		}
	}
	// No cell is a formula, and text cells are formatted as text.
	for _, sheet := range f.GetSheetList() {
		rows, _ := f.GetRows(sheet)
		for r, row := range rows {
			for c := range row {
				ref := cell(c, r+1)
				if fm, _ := f.GetCellFormula(sheet, ref); fm != "" {
					t.Errorf("%s!%s is a formula: %q", sheet, ref, fm)
				}
			}
		}
	}
	id, _ := f.GetCellStyle("Completions", "F2")
	if st, _ := f.GetStyle(id); st == nil || st.NumFmt != 49 {
		t.Errorf("completion cells are not formatted as text: %+v", st)
	}
	// The long completion, cut.
	var cut string
	for _, s := range texts {
		if strings.HasPrefix(s, "ab😀") {
			cut = s
		}
	}
	if n := len(utf16.Encode([]rune(cut))); n > maxCell || n < maxCell-10 {
		t.Errorf("the long completion is %d UTF-16 units, want just under %d", n, maxCell)
	}
	if !strings.Contains(cut, "[... cut by evalmd: ") || !strings.HasPrefix(long, cut[:strings.Index(cut, "\n[...")]) {
		t.Errorf("the cut text lacks its marker or changed: ...%q", cut[max(0, len(cut)-80):])
	}

	for _, sheet := range f.GetSheetList() {
		p, _ := f.GetPanes(sheet)
		if !p.Freeze || p.YSplit != 1 {
			t.Errorf("%s: header not frozen: %+v", sheet, p)
		}
	}
	cf, _ := f.GetConditionalFormats("Grades")
	if len(cf["D2:E7"]) != 3 {
		t.Errorf("grade colours: %+v", cf)
	}
}

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		in      string
		cut     bool
		wantLen int // UTF-16 units
	}{
		{"short", false, 5},
		{strings.Repeat("x", maxCell), false, maxCell},
		{strings.Repeat("x", maxCell+1), true, maxCell},
		{strings.Repeat("😀", maxCell), true, maxCell},
	} {
		got, cut := cutCell(tc.in)
		// A cut text fills the cell but for a few units: the marker is
		// sized for the longest count it could hold, and a surrogate pair
		// does not fit in one unit.
		n := len(utf16.Encode([]rune(got)))
		if cut != tc.cut || n > tc.wantLen || n < tc.wantLen-8 {
			t.Errorf("cutCell(%d runes) = %d units, cut %v; want %d, %v", len([]rune(tc.in)), n, cut, tc.wantLen, tc.cut)
		}
	}
}

// Code and agent answers show what ran beside the completion: code mode's
// answer (the text graded) and its code, or the code's error; an agent's
// transcript turn by turn. A chat answer has neither.
func TestWorkbookCodeAndAgent(t *testing.T) {
	dir := t.TempDir()
	str := func(s string) *string { return &s }
	yes, no := true, false
	f := &result.File{Sheet: result.Sheet{Name: "tables", ModelName: "m", RunID: "r1"}}
	f.Questions = []result.Question{
		{Name: "count", Question: "?", GroundTruth: str("20"), Completion: str("```python\ndef answer(df):\n    return len(df)\n```"), Grade: &yes,
			Mode: "code", Code: str("def answer(df):\n    return len(df)"), Answer: str("20")},
		{Name: "broken", Question: "?", GroundTruth: str("9.5"), Completion: str("return df.price.max("), Grade: &no,
			Mode: "code", Code: str("def answer(df):\n    return df.price.max("), Answer: str("__CODE_ERROR__: SyntaxError"), CodeError: "SyntaxError: '(' was never closed"},
		{Name: "agent", Question: "?", GroundTruth: str("@mean[3.5]"), Completion: str("@mean[3.5]"), Grade: &yes, Mode: "agent",
			Transcript: []model.Message{
				{Role: "assistant", ToolCalls: []model.ToolCall{{ID: "c1", Name: "python", Arguments: `{"code": "df = pd.read_csv('t.csv')\ndf.x.mean()"}`}}},
				{Role: "tool", Content: "3.5", ToolCallID: "c1"},
				{Role: "assistant", Content: "@mean[3.5]"},
			}},
		{Name: "chat", Question: "?", GroundTruth: str("B"), Completion: str("B"), Grade: &yes},
	}
	if err := f.Write(filepath.Join(dir, result.FileName("input-tables.md", "m", "r1")), outfile.Options{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "agg.xlsx")
	if err := WriteFile(context.Background(), path, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	x, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	rows, _ := x.GetRows("Completions")
	if !slices.Equal(rows[0][5:8], []string{"completion", "answer graded", "code or transcript"}) {
		t.Fatalf("header %q", rows[0])
	}
	got := map[string][]string{}
	for _, r := range rows[1:] {
		for len(r) < 10 {
			r = append(r, "")
		}
		got[r[1]] = r
	}
	if r := got["count"]; r[6] != "20" || r[7] != "def answer(df):\n    return len(df)" || !strings.HasPrefix(r[5], "```python") {
		t.Errorf("code mode: completion %q, answer %q, code %q", r[5], r[6], r[7])
	}
	if r := got["broken"]; !strings.HasPrefix(r[6], "__CODE_ERROR__") || !strings.Contains(r[7], "Code:\ndef answer(df)") || !strings.Contains(r[7], "Code error:\nSyntaxError") {
		t.Errorf("code mode with an error: answer %q, work %q", r[6], r[7])
	}
	if r := got["agent"]; r[6] != "" || !strings.Contains(r[7], "calls python:\ndf = pd.read_csv('t.csv')") || !strings.Contains(r[7], "Turn 1: tool:\n3.5") {
		t.Errorf("agent mode: answer %q, transcript %q", r[6], r[7])
	}
	if r := got["chat"]; r[6] != "" || r[7] != "" {
		t.Errorf("chat: answer %q, work %q", r[6], r[7])
	}
}

// The Models sheet's accuracy is agg's, over questions: a question asked
// in two epochs is one. Epoch 1 has q1 right and q2 wrong, epoch 2 only q1
// right: 2 of 3 answers, but (1 + 0)/2 over the questions, the figure its
// interval is about.
func TestWorkbookModelsOverQuestions(t *testing.T) {
	dir := t.TempDir()
	for e := 1; e <= 2; e++ {
		f := &result.File{Sheet: result.Sheet{Name: "s", ModelName: "m", RunID: "r", Epoch: e, Epochs: 2}}
		for i, right := range []bool{true, false}[:3-e] {
			c, g := "x", right
			f.Questions = append(f.Questions, result.Question{Name: "q" + strconv.Itoa(i+1), Question: "?", Completion: &c, ModelName: "m", Grade: &g})
		}
		if err := f.Write(filepath.Join(dir, result.EpochName(result.FileName("input-s.md", "m", "r"), e, 2)), outfile.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "agg.xlsx")
	if err := WriteFile(context.Background(), path, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if v, _ := f.GetCellValue("Models", "H2", excelize.Options{RawCellValue: true}); v != "0.5" {
		t.Errorf("accuracy %q, want 0.5 (over 2 questions, not 3 answers)", v)
	}
	// Grades: one cell per run and question, saying its epochs; each
	// epoch's completion a row of Completions, named by its epoch.
	grades, _ := f.GetRows("Grades")
	if len(grades) != 3 || grades[1][3] != "right" || grades[2][3] != "wrong" {
		t.Errorf("grades %q", grades)
	}
	comps, _ := f.GetRows("Completions")
	if len(comps) != 4 || comps[1][2] != "m · epoch 1" || comps[2][2] != "m · epoch 2" {
		t.Errorf("completions %q", comps)
	}
}

// A run whose epochs disagree on a question says how many were right.
func TestEpochGrades(t *testing.T) {
	as := []report.Answer{{Run: 0, Grade: 1}, {Run: 0, Grade: 0}, {Run: 0, Grade: 1}, {Run: 1, Grade: 0}}
	if got := epochGrades(as, 0); got != "2 of 3 right" {
		t.Errorf("epochGrades = %q", got)
	}
	if got := epochGrades(as[3:], 1); got != "wrong" {
		t.Errorf("epochGrades of one = %q", got)
	}
}

// WriteFile writes the workbook of the output files below dir to path.
func WriteFile(ctx context.Context, path, dir string, opt Options) error {
	if opt.Warn == nil {
		opt.Warn = io.Discard
	}
	// agg decides which files count and hands each counted one, whole,
	// to the questions' builder: the folder is read once.
	qs := report.NewBuilder(dir)
	d, err := agg.Load(ctx, dir, opt.Warn, agg.LoadOptions{IncludeDryRuns: opt.IncludeDryRuns,
		Each: func(path string, f *result.File, counted bool) {
			if counted {
				qs.Add(path, f)
			}
		}})
	if err != nil {
		return fmt.Errorf("xlsx: %w", err)
	}
	if d.Files == 0 {
		return fmt.Errorf("xlsx: %s: %w", dir, agg.ErrNoOutputs)
	}
	return Save(path, d, qs.Data(), opt)
}
