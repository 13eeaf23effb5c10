package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/testkit/golden"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/result"
)

// Hostile model texts: each would add markup or close an element if it
// were inserted into the page as HTML.
const (
	hostileScript = `<script>alert("pwned")</script>`
	hostileTable  = `</table></section><b id="injected">bold</b>`
	hostileJSON   = `</script><script>alert(2)</script>`
)

// writeFixtures writes a small folder of output files: two sheets, model
// m1 with two runs and m2 with one, hostile completions, an error, an
// ungraded answer and a repeated long introduction.
func writeFixtures(t testing.TB, dir string) {
	t.Helper()
	intro := strings.Repeat("INTRODUCTION line of a case study that every question repeats.\n", 40)
	type ans struct {
		completion string
		grade      int // 1, 0, -1
		err        string
	}
	questions := []struct {
		sheet, name, truth, user string
		answers                  map[string]ans // by model@run
	}{
		{"Arithmetic", "add", "4", "What is 2+2?", map[string]ans{
			"m1@r1": {"4", 1, ""}, "m1@r2": {"4", 1, ""}, "m2@r9": {"5", 0, ""}}},
		{"Arithmetic", "mul", "6", "What is 2*3?", map[string]ans{
			"m1@r1": {"6", 1, ""}, "m1@r2": {"8", 0, ""}, "m2@r9": {"6", 1, ""}}},
		{"Arithmetic", "sub", "1", "What is 3-2?", map[string]ans{
			"m1@r1": {"1", 1, ""}, "m1@r2": {"1", 1, ""}, "m2@r9": {"1", 1, ""}}},
		{"Hostile", "script", "B", intro + "Pick A or B.", map[string]ans{
			"m1@r1": {hostileScript, 0, ""}, "m1@r2": {"B", 1, ""}, "m2@r9": {hostileJSON, 0, ""}}},
		{"Hostile", "table", "A", intro + "Pick A.", map[string]ans{
			"m1@r1": {hostileTable, 0, ""}, "m1@r2": {"", -1, "server said " + hostileScript}, "m2@r9": {"A", 1, ""}}},
		{"Hostile", `name <i>with</i> markup`, "C", intro + "Pick C.", map[string]ans{
			"m1@r1": {"C\n### not a heading\n```", 1, ""}, "m1@r2": {"C", 1, ""}, "m2@r9": {"D", 0, ""}}},
	}
	system := "You answer with one letter."
	for _, run := range []string{"m1@r1", "m1@r2", "m2@r9"} {
		model, id, _ := strings.Cut(run, "@")
		for _, sheet := range []string{"Arithmetic", "Hostile"} {
			f := &result.File{Sheet: result.Sheet{Name: sheet, ModelName: model, RunID: id}}
			for _, q := range questions {
				if q.sheet != sheet {
					continue
				}
				a := q.answers[run]
				truth, user := q.truth, q.user
				rq := result.Question{Name: q.name, Question: user, GroundTruth: &truth, ModelName: model, Grader: "lime"}
				if sheet == "Hostile" {
					rq.System = &system
				}
				if a.err != "" {
					e := a.err
					rq.Error = &e
				} else {
					c := a.completion
					rq.Completion = &c
				}
				if a.grade >= 0 {
					g := a.grade == 1
					rq.Grade = &g
				}
				f.Questions = append(f.Questions, rq)
			}
			name := result.FileName("input-"+strings.ToLower(sheet)+".md", model, id)
			if err := f.Write(filepath.Join(dir, name), outfile.Options{}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// fixturePage writes the fixtures and the page built from them.
func fixturePage(t testing.TB) (dir string, page []byte) {
	t.Helper()
	dir = t.TempDir()
	writeFixtures(t, dir)
	var b bytes.Buffer
	if err := Write(context.Background(), &b, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	return dir, b.Bytes()
}

// The page is what testdata/report.html holds (go test -update rewrites
// it): a change in the page shows in review.
func TestGoldenPage(t *testing.T) {
	_, page := fixturePage(t)
	golden.Check(t, "testdata/report.html", page)
}

// No model text reaches the page as markup: the page holds exactly its own
// two script elements, and the hostile texts appear only escaped.
func TestHostileTextEscaped(t *testing.T) {
	_, page := fixturePage(t)
	s := string(page)
	if n := strings.Count(strings.ToLower(s), "<script"); n != 2 {
		t.Errorf("%d <script in the page, want 2 (the data block and the page's script)", n)
	}
	for _, h := range []string{hostileScript, hostileTable, hostileJSON, "<i>with</i>", `alert("pwned")`} {
		if strings.Contains(s, h) {
			t.Errorf("the page holds %q verbatim", h)
		}
	}
	// The data block decodes back to the same texts.
	start := strings.Index(s, `<script type="application/json" id="data">`)
	end := strings.Index(s[start:], "</script>")
	var d Data
	if err := json.Unmarshal([]byte(s[start+len(`<script type="application/json" id="data">`):start+end]), &d); err != nil {
		t.Fatal(err)
	}
	texts := map[string]bool{}
	for i := range d.Texts {
		t, _ := d.Text(i)
		texts[t] = true
	}
	for _, h := range []string{hostileScript, hostileTable, hostileJSON, "server said " + hostileScript} {
		if !texts[h] {
			t.Errorf("text %q lost from the data", h)
		}
	}
}

// The data: runs ordered by model and run id and labelled with the run id
// only where a model has several; questions grouped by sheet with every
// run's answer; shared text stored once.
func TestData(t *testing.T) {
	dir := t.TempDir()
	writeFixtures(t, dir)
	os.WriteFile(filepath.Join(dir, "output-broken.json"), []byte("{\"sheet\": "), 0o644)
	var warn bytes.Buffer
	_, d, err := read(context.Background(), dir, Options{Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(warn.String(), "output-broken.json") {
		t.Errorf("the broken file is not named: %q", warn.String())
	}
	var labels []string
	for _, r := range d.Runs {
		labels = append(labels, r.Label)
	}
	if got := fmt.Sprint(labels); got != "[m1 · r1 m1 · r2 m2]" {
		t.Errorf("run labels %s", got)
	}
	if fmt.Sprint(d.Sheets) != "[Arithmetic Hostile]" || fmt.Sprint(d.Models) != "[m1 m2]" || d.Files != 6 {
		t.Errorf("sheets %v models %v files %d", d.Sheets, d.Models, d.Files)
	}
	if len(d.Questions) != 6 {
		t.Fatalf("%d questions", len(d.Questions))
	}
	for _, q := range d.Questions {
		if len(q.Answers) != 3 {
			t.Errorf("%s: %d answers", q.Key, len(q.Answers))
		}
		for i, a := range q.Answers {
			if a.Run != i {
				t.Errorf("%s: answer %d is run %d", q.Key, i, a.Run)
			}
		}
	}
	// The 2,500-byte introduction is in 9 prompts (3 questions x 3 runs)
	// but stored once, give or take the chunk that holds each question.
	var total int
	for _, c := range d.Chunks {
		total += len(c)
	}
	if total > 2600+2000 {
		t.Errorf("chunks hold %d bytes; the introduction is stored more than once", total)
	}
}

// Chunks join back to the text, and a run of lines shared by two texts at
// different offsets is cut into the same chunks.
func TestChunk(t *testing.T) {
	var shared strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&shared, "row %d of a workbook, %x\n", i, i*7919)
	}
	a := "short prefix\n" + shared.String() + "question one?"
	b := "a longer prefix that a context limit cut elsewhere\nand a second line\n" + shared.String()[517:] + "question two?"
	for _, s := range []string{"", "x", "no newline at all " + strings.Repeat("y", 3000), a, b, strings.Repeat("\n", 5000)} {
		if got := strings.Join(chunk(s), ""); got != s {
			t.Errorf("chunks of a %d-byte text join to %d bytes", len(s), len(got))
		}
	}
	st := newStore()
	st.text(a)
	st.text(b)
	var total int
	for _, c := range st.chunks {
		total += len(c)
	}
	if unique := len(a) + 2048; total > unique { // a few chunks until the cuts realign
		t.Errorf("two texts sharing %d bytes take %d bytes of chunks, want at most %d", shared.Len(), total, unique)
	}
}

// A folder without output files is an error naming it.
func TestNoOutputs(t *testing.T) {
	dir := t.TempDir()
	err := Write(context.Background(), &bytes.Buffer{}, dir, Options{})
	if err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("err = %v", err)
	}
}

// Code-mode answers and agent transcripts show as sections after the
// completion: the code, its answer and error; each turn, with a python
// call's code rather than its JSON.
func TestModeSections(t *testing.T) {
	dir := t.TempDir()
	code, answer, completion := "df['x'].sum()", "42", "```python\ndf['x'].sum()\n```"
	f := &result.File{Sheet: result.Sheet{Name: "S", ModelName: "m", RunID: "r"}, Questions: []result.Question{
		{Name: "code", Question: "sum x", Completion: &completion, Mode: "code", Code: &code, Answer: &answer},
		{Name: "agent", Question: "sum x", Completion: &answer, Mode: "agent", Turns: 2, Limit: "max_turns",
			Transcript: []model.Message{
				{Role: "assistant", Content: "Let me look.", ToolCalls: []model.ToolCall{{ID: "c1", Name: "python", Arguments: `{"code": "print(df.x.sum())"}`}}},
				{Role: "tool", Content: "42\n", ToolCallID: "c1", ToolLimit: "timeout"},
				{Role: "assistant", Content: "42"},
			}},
	}}
	if err := f.Write(filepath.Join(dir, "output-s-m-r.json"), outfile.Options{}); err != nil {
		t.Fatal(err)
	}
	_, d, err := read(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, q := range d.Questions {
		a := q.Answers[0]
		got[q.Name+" info"] = []string{a.Info}
		for _, s := range a.Sections {
			text, _ := d.Text(s.Text)
			got[q.Name] = append(got[q.Name], s.Title+"|"+s.Kind+"|"+text)
		}
	}
	want := map[string][]string{
		"code info":  {"code mode"},
		"code":       {"Code|code|df['x'].sum()", "Code's answer (graded)|code|42"},
		"agent info": {"agent mode · 2 turns · stopped by max_turns"},
		"agent": {
			"Turn 1: assistant||Let me look.",
			"Turn 1: assistant calls python|code|print(df.x.sum())",
			"Turn 1: tool (limit: timeout)|code|42\n",
			"Turn 2: assistant||42",
		},
	}
	// A turn is a model call: the labels end at the count the info gives.
	for k, w := range want {
		if !slices.Equal(got[k], w) {
			t.Errorf("%s:\n got %q\nwant %q", k, got[k], w)
		}
	}
}

// The counts line says "1 sheet", not "1 sheets".
func TestCountsSingular(t *testing.T) {
	dir := t.TempDir()
	c := "4"
	f := &result.File{Sheet: result.Sheet{Name: "S", ModelName: "m", RunID: "r"},
		Questions: []result.Question{{Name: "q", Question: "2+2?", Completion: &c}}}
	if err := f.Write(filepath.Join(dir, "output-s-m-r.json"), outfile.Options{}); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(context.Background(), &b, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	if want := `<p class="counts">1 output file, 1 run, 1 sheet, 1 question</p>`; !strings.Contains(b.String(), want) {
		t.Errorf("the page lacks %s", want)
	}
}

// The page shows the runs agg counts: a dry run's outputs only when asked.
func TestDryRunsLeftOut(t *testing.T) {
	dir := t.TempDir()
	writeFixtures(t, dir)
	f := &result.File{Sheet: result.Sheet{Name: "Arithmetic", ModelName: "dry", RunID: "d1", DryRun: true},
		Questions: []result.Question{{Name: "add", Question: "What is 2+2?"}}}
	if err := f.Write(filepath.Join(dir, "output-arithmetic-dry-d1.json"), outfile.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, include := range []bool{false, true} {
		var b bytes.Buffer
		if err := Write(context.Background(), &b, dir, Options{IncludeDryRuns: include}); err != nil {
			t.Fatal(err)
		}
		if got := bytes.Contains(b.Bytes(), []byte(`"key":"dry@d1"`)); got != include {
			t.Errorf("IncludeDryRuns %v: the dry run is in the page: %v", include, got)
		}
	}
}

// The header counts the files found beside those counted, and names each
// file left out with why: before, it said "6 output files" of a folder
// holding 9.
func TestLeftOutNamed(t *testing.T) {
	dir := t.TempDir()
	writeFixtures(t, dir)
	dry := &result.File{Sheet: result.Sheet{Name: "Arithmetic", ModelName: "dry", RunID: "d1", DryRun: true},
		Questions: []result.Question{{Name: "add", Question: "What is 2+2?"}}}
	if err := dry.Write(filepath.Join(dir, "output-arithmetic-dry-d1.json"), outfile.Options{}); err != nil {
		t.Fatal(err)
	}
	first := filepath.Join(dir, result.FileName("input-arithmetic.md", "m1", "r1"))
	data, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "zcopy"), 0o755) // after the original in name order
	os.WriteFile(filepath.Join(dir, "zcopy", filepath.Base(first)), data, 0o644)
	os.WriteFile(filepath.Join(dir, "output-broken.json"), []byte("{"), 0o644)
	var b bytes.Buffer
	if err := Write(context.Background(), &b, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`<p class="counts">6 output files counted of 9 found, 3 runs, 2 sheets, 6 questions</p>`,
		"<summary>3 output files of 9 found left out: why</summary>",
		"<li>1: the same run as a file counted, or a rerun every answer of which a file counted carries (one answer, one sample)<ul><li>zcopy/" + filepath.Base(first) + "</li></ul></li>",
		"<li>1: dry runs (run -y: prompts, no answers); --include-dry-runs counts them<ul><li>output-arithmetic-dry-d1.json</li></ul></li>",
		"<li>1: could not be read<ul><li>output-broken.json",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Contains(page, dir) {
		t.Errorf("the page names the folder %s", dir)
	}
}

// The table of contents names each table once: a benchmark's tables that
// share a prefix ("DABench: ...") are named in full, not "DABench" four
// times; the page opens on the headline (the Models summary, the
// benchmark's figures, the charts), LIME's tables after.
func TestTOCNamesEachTable(t *testing.T) {
	head, details := headlineFirst("### Leaderboard: x on y\n\n### DABench: ABQ per level\n\n### Models: accuracy\n\n### DABench: ABQ per concept\n\n### Usage: tokens\n")
	b, err := markdown(head, true, details)
	if err != nil {
		t.Fatal(err)
	}
	// The headline first (the Models summary, the benchmark's own figures,
	// the charts), then the details in agg's order.
	want := []string{">Models</a>", ">DABench: ABQ per level</a>", ">DABench: ABQ per concept</a>", ">Charts</a>", ">Leaderboard</a>", ">Usage</a>"}
	at := 0
	for _, w := range want {
		i := strings.Index(b.toc[at:], w)
		if i < 0 {
			t.Fatalf("the contents lack %s after %d, or out of order:\n%s", w, at, b.toc)
		}
		at += i
	}
	if !strings.Contains(b.headline, "Models: accuracy") || strings.Contains(b.headline, "Leaderboard") || !strings.Contains(b.details, "Leaderboard") {
		t.Errorf("headline %q, details %q", b.headline, b.details)
	}
}

// A '|' or a line break in a model's or a sheet's name stays in its cell
// of the page's tables: the leaderboard and the runs table keep one row
// per model, and the leaderboard and the Models table name it alike.
func TestNamesStayInTheirCells(t *testing.T) {
	dir := t.TempDir()
	for _, m := range []string{"honest", "mymodel | 1 | 100.0 |\n| Hostile | gpt-4o"} {
		g := true
		truth, c := "x", "x"
		f := &result.File{Sheet: result.Sheet{Name: "S|x\n| forged | sheet", ModelName: m, RunID: "r1"},
			Questions: []result.Question{{Name: "a", Question: "q", GroundTruth: &truth, Completion: &c, Grade: &g}}}
		if err := f.Write(filepath.Join(dir, result.FileName("input-s.md", m, "r1")), outfile.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	if err := Write(context.Background(), &b, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	// The board's tables, in order: each a list of rows, each of cells.
	var tables [][][]string
	for _, tb := range strings.Split(page, "<table>")[1:] {
		tb, _, _ = strings.Cut(tb, "</table>")
		var rows [][]string
		for _, tr := range strings.Split(tb, "<tr>")[1:] {
			tr, _, _ = strings.Cut(tr, "</tr>")
			var cells []string
			for _, td := range strings.Split(tr, "<t")[1:] {
				_, cell, _ := strings.Cut(td, ">")
				cell, _, _ = strings.Cut(cell, "</t")
				cells = append(cells, cell)
			}
			rows = append(rows, cells)
		}
		tables = append(tables, rows)
	}
	if len(tables) < 4 {
		t.Fatalf("%d tables on the page", len(tables))
	}
	// Goldmark leaves the cell's <br> out, as all raw HTML.
	want := "mymodel | 1 | 100.0 |<!-- raw HTML omitted -->| Hostile | gpt-4o"
	models, board, runs := tables[0], tables[1], tables[2] // the Models summary leads the page
	for name, tb := range map[string][][]string{"leaderboard": board, "runs": runs, "Models": models} {
		if len(tb) != 3 {
			t.Errorf("%s: %d rows, want the header and one per model: %q", name, len(tb), tb)
		}
	}
	if len(board) == 3 && len(models) == 3 && (board[2][1] != want || models[2][0] != want || board[2][0] != "S|x<!-- raw HTML omitted -->| forged | sheet") {
		t.Errorf("the leaderboard's row %q, the Models table's %q; want the model %q in both", board[2], models[2], want)
	}
}
