package dsbench

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/tokens"
)

// writeTree creates files (name -> content) under a temporary folder.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadErrors(t *testing.T) {
	dataJSON := strings.Join([]string{
		`{"id": "001", "questions": ["question1", "question2"], "answers": ["A", 12]}`,
		`{"id": "002", "questions": ["question1"], "answers": ["B"]`, // cut short
		``,
		`{"id": "003", "questions": ["question1", "question9"], "answers": ["C", "D"]}`, // question9 missing
		`{"id": "004", "questions": ["question1"], "answers": [true]}`,                  // eval() has no true
		`  {"id": "005", "questions": ["question1"], "answers": [{"Q": 1, "w": "X"}]}  `,
		`{"id": "006", "questions": ["question1"], "answers": []}`,
	}, "\n")
	dir := writeTree(t, map[string]string{
		"data.json":                 dataJSON,
		"data/001/introduction.txt": "Intro one\r\nline two\r",
		"data/001/question1.txt":    "Q1",
		"data/001/question2.txt":    "Q2",
		"data/003/introduction.txt": "Intro three",
		"data/003/question1.txt":    "Q1",
		"data/005/introduction.txt": "Intro five",
		"data/005/question1.txt":    "Q1",
	})
	comps, errs := Load(dir)
	var ids []string
	for _, c := range comps {
		ids = append(ids, c.ID)
	}
	if !slices.Equal(ids, []string{"001", "005"}) {
		t.Errorf("loaded %v, want [001 005]", ids)
	}
	path := filepath.Join(dir, "data.json")
	wantErrs := []string{
		path + ":2: not a data.json entry",
		"competition 003 (" + path + ":4)",
		filepath.Join(dir, "data", "003", "question9.txt"),
		path + ":5: " + errNotEval.Error(),
		path + ":7: competition 006: 1 questions but 0 answers",
	}
	all := errors.Join(errs...).Error()
	for _, w := range wantErrs {
		if !strings.Contains(all, w) {
			t.Errorf("errors do not mention %q:\n%s", w, all)
		}
	}
	if len(errs) != 4 {
		t.Errorf("%d errors, want 4:\n%s", len(errs), all)
	}
	if len(comps) == 2 {
		if got := comps[0].Introduction; got != "Intro one\nline two\n" {
			t.Errorf("introduction %q: universal newlines not applied", got)
		}
		if comps[0].Line != 1 || comps[1].Line != 6 {
			t.Errorf("lines %d, %d; want 1, 6", comps[0].Line, comps[1].Line)
		}
		if a := comps[0].Questions[1].Answer; a.Kind != kindNumber || a.JSON != "12" {
			t.Errorf("answer %+v, want number 12", a)
		}
		if a := comps[1].Questions[0].Answer; a.Kind != kindObject || a.JSON != `{"Q":1,"w":"X"}` {
			t.Errorf("answer %+v, want compact object", a)
		}
	}
	if _, errs := Load(t.TempDir()); len(errs) != 1 || !strings.Contains(errs[0].Error(), "data.json") {
		t.Errorf("missing data.json: %v", errs)
	}
}

func TestParseLine(t *testing.T) {
	tests := []struct {
		name, line, err string
		kinds           []answerKind
	}{
		{"ok", `{"id": "1", "questions": ["q1", "q2", "q3"], "answers": ["A", 0.25, [1, "x"]]}`, "", []answerKind{kindString, kindNumber, kindArray}},
		{"extra fields", `{"id": "1", "txt": "", "year": 2017, "questions": [], "answers": []}`, "", nil},
		{"no id", `{"questions": [], "answers": []}`, `no "id"`, nil},
		{"id with slash", `{"id": "../x", "questions": [], "answers": []}`, `id "../x": not a plain name`, nil},
		// A case id and a question name are joined to the input and output
		// folders: plain names only.
		{"id with NUL", `{"id": "a\u0000b", "questions": [], "answers": []}`, `id "a\x00b": not a plain name`, nil},
		{"id up", `{"id": "..", "questions": [], "answers": []}`, `id "..": not a plain name`, nil},
		{"id with a line end", `{"id": "a\nb", "questions": [], "answers": []}`, `not a plain name`, nil},
		{"no questions", `{"id": "1", "answers": []}`, `no "questions"`, nil},
		{"question path", `{"id": "1", "questions": ["../q"], "answers": [1]}`, `question 1: "../q": not a plain name`, nil},
		{"question with NUL", `{"id": "1", "questions": ["q\u0000"], "answers": [1]}`, `question 1: "q\x00": not a plain name`, nil},
		{"count mismatch", `{"id": "1", "questions": ["q"], "answers": ["A", "B"]}`, "1 questions but 2 answers", nil},
		{"null", `{"id": "1", "questions": ["q"], "answers": [null]}`, "null", nil},
		{"false", `{"id": "1", "questions": ["q"], "answers": [false]}`, "false", nil},
		{"slash escape", `{"id": "1", "questions": ["q"], "answers": ["a\/b"]}`, `\/`, nil},
		{"escaped backslash then slash is fine", `{"id": "1", "questions": ["q"], "answers": ["a\\/b"]}`, "", []answerKind{kindString}},
		{"python dict", `{'id': '1', 'questions': [], 'answers': []}`, "not a data.json entry", nil},
		{"trailing text", `{"id": "1", "questions": [], "answers": []} x`, "text after", nil},
		{"not an object", `[1, 2]`, "not a data.json entry", nil},
		{"year not a number", `{"id": "1", "year": "2017", "questions": [], "answers": []}`, "not a data.json entry", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := parseLine([]byte(tt.line))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var kinds []answerKind
			for _, a := range e.Answers {
				kinds = append(kinds, a.Kind)
			}
			if !slices.Equal(kinds, tt.kinds) {
				t.Errorf("kinds %v, want %v", kinds, tt.kinds)
			}
		})
	}
}

func TestAnswerForms(t *testing.T) {
	tests := []struct{ json, text, python string }{
		{`"D"`, "D", "D"},
		{`"it's"`, "it's", "it's"},
		{`1661626`, "1661626", "1661626"},
		{`-0`, "-0", "0"},
		{`123456789012345678901234567890`, "123456789012345678901234567890", "123456789012345678901234567890"},
		{`0.25`, "0.25", "0.25"},
		{`1.0`, "1.0", "1.0"},
		{`1e5`, "1e5", "100000.0"},
		{`0.0001`, "0.0001", "0.0001"},
		{`0.00001`, "0.00001", "1e-05"},
		{`1e16`, "1e16", "1e+16"},
		{`1234567890123456.7`, "1234567890123456.7", "1234567890123456.8"},
		{`1.5E300`, "1.5E300", "1.5e+300"},
		{`-0.0`, "-0.0", "-0.0"},
		{`1e999`, "1e999", "inf"},
		{`0.1`, "0.1", "0.1"},
		{`{"Q": 1, "# of words": 7, "Xth word": "ALIBI", "Highest Score": 21}`,
			`{"Q":1,"# of words":7,"Xth word":"ALIBI","Highest Score":21}`,
			`{'Q': 1, '# of words': 7, 'Xth word': 'ALIBI', 'Highest Score': 21}`},
		{`{"b": 1, "a": 2, "b": 3}`, `{"b":1,"a":2,"b":3}`, `{'b': 3, 'a': 2}`},
		{`["it's", "say \"hi\"", "both ' \"", "tab\there", "é\u00a0\u2028😀\\"]`,
			`["it's","say \"hi\"","both ' \"","tab\there","é\u00a0\u2028😀\\"]`,
			`["it's", 'say "hi"', 'both \' "', 'tab\there', 'é\xa0\u2028😀\\']`},
		{`[[], {}, [0.5]]`, `[[],{},[0.5]]`, `[[], {}, [0.5]]`},
	}
	for _, tt := range tests {
		e, err := parseLine([]byte(`{"id": "x", "questions": ["q"], "answers": [` + tt.json + `]}`))
		if err != nil {
			t.Errorf("%s: %v", tt.json, err)
			continue
		}
		a := e.Answers[0]
		if a.Text() != tt.text {
			t.Errorf("%s: Text() = %s, want %s", tt.json, a.Text(), tt.text)
		}
		if a.Python() != tt.python {
			t.Errorf("%s: Python() = %s, want %s", tt.json, a.Python(), tt.python)
		}
	}
}

func TestDiscovery(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"b.xlsx":             "",
		"A.XLSM":             "",
		"data.xlsb":          "",
		"answer.xlsx":        "",
		"Model_ANSWERS.xlsm": "",
		"notes.xls":          "",
		"plainxlsx":          "", // the notebook's test has no dot
		"z.png":              "",
		"c.JPG":              "",
		"d.jpeg":             "",
		"introduction.txt":   "",
	})
	wb, err := findWorkbooks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"A.XLSM", "b.xlsx", "data.xlsb", "plainxlsx"}; !slices.Equal(wb, want) {
		t.Errorf("workbooks %v, want %v", wb, want)
	}
	img, err := findImage(dir)
	if err != nil || img != "c.JPG" {
		t.Errorf("image %q, %v; want c.JPG (first by name)", img, err)
	}
	if img, err := findImage(t.TempDir()); img != "" || err != nil {
		t.Errorf("empty folder: image %q, %v", img, err)
	}
	if _, err := findWorkbooks(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing folder: no error")
	}
}

func TestSendsImage(t *testing.T) {
	tests := []struct {
		model    string
		hasImage bool
		want     bool
	}{
		{"gpt-4o-2024-05-13", true, true},
		{"gpt-4o-2024-05-13", false, false},
		{"gpt-3.5-turbo-0125", true, false},
		{"openai/gpt-3.5-turbo", true, false},
		{"gpt-3", true, true}, // model[:7] is "gpt-3", not "gpt-3.5"
		{"claude-3-5-sonnet", true, true},
	}
	for _, tt := range tests {
		if got := sendsImage(tt.model, tt.hasImage); got != tt.want {
			t.Errorf("sendsImage(%q, %v) = %v", tt.model, tt.hasImage, got)
		}
	}
	if systemFor(true) != System+" " || systemFor(false) != System {
		t.Error("the image system text must be the text-only one plus one space")
	}
	if !strings.Contains(System, "give  you") || !strings.HasSuffix(System, "question. ") {
		t.Errorf("system text lost the notebook's spacing: %q", System)
	}
}

// TestPromptsWithWorkbooks checks the message assembly when workbooks and an
// image are present (the real corpus has neither).
func TestPromptsWithWorkbooks(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"data.json":                  `{"id": "7", "questions": ["question2", "question1"], "answers": ["B", 3]}`,
		"data/7/introduction.txt":    "INTRO",
		"data/7/question1.txt":       "first?",
		"data/7/question2.txt":       "second?",
		"data/7/b.xlsx":              "",
		"data/7/a.xlsm":              "",
		"data/7/answers.xlsx":        "",
		"data/7/chart.png":           "",
		"data/7/question_answer.txt": "",
	})
	comps, errs := Load(dir)
	if len(errs) > 0 || len(comps) != 1 {
		t.Fatalf("%d competitions, errors %v", len(comps), errs)
	}
	c := &comps[0]
	render := func(path string) (string, error) {
		return "Sheet name: S\n<" + filepath.Base(path) + ">\n\n", nil
	}
	ps, err := c.Prompts(render, "gpt-4o-2024-05-13")
	if err != nil {
		t.Fatal(err)
	}
	wantContext := "The workbook is detailed as follows. " +
		"The excel file a.xlsm is: Sheet name: S\n<a.xlsm>\n\n" +
		"The excel file b.xlsx is: Sheet name: S\n<b.xlsx>\n\n" +
		" \nThe introduction is detailed as follows. \n INTRO \n"
	want := []notebookPrompt{
		{"7", "question2", SystemImage, wantContext + "The questions are detailed as follows. \n second?", filepath.Join(c.Dir, "chart.png"), c.Questions[0].Answer},
		{"7", "question1", SystemImage, wantContext + "The questions are detailed as follows. \n first?", filepath.Join(c.Dir, "chart.png"), c.Questions[1].Answer},
	}
	if !slices.Equal(ps, want) {
		t.Errorf("prompts:\n%+v\nwant:\n%+v", ps, want)
	}
	// gpt-3.5 gets neither the image nor the image's system text.
	ps, err = c.Prompts(render, "gpt-3.5-turbo-0125")
	if err != nil {
		t.Fatal(err)
	}
	if ps[0].Image != "" || ps[0].System != System {
		t.Errorf("gpt-3.5: image %q, system %q", ps[0].Image, ps[0].System)
	}
	// A renderer failure names the workbook; no renderer is an error too.
	_, err = c.Prompts(func(string) (string, error) { return "", errors.New("boom") }, "gpt-4o")
	if err == nil || !strings.Contains(err.Error(), "a.xlsm") || !strings.Contains(err.Error(), "boom") {
		t.Errorf("render error: %v", err)
	}
	if _, err := c.Prompts(nil, "gpt-4o"); err == nil {
		t.Error("workbooks and no renderer: no error")
	}
	// Without workbooks the workbook sentence is absent.
	if got := Context("", "I"); got != "The introduction is detailed as follows. \n I \n" {
		t.Errorf("Context without workbooks: %q", got)
	}
	// A competition without questions is skipped, as in the notebook.
	empty := Competition{}
	if ps, err := empty.Prompts(nil, "gpt-4o"); ps != nil || err != nil {
		t.Errorf("no questions: %v, %v", ps, err)
	}
}

func TestTruncate(t *testing.T) {
	long := strings.Repeat("Revenue grows 5% a year; costs 3%. ", 3000) // about 30k tokens
	n, err := tokens.Count(long, tokens.Cl100kBase)
	if err != nil {
		t.Fatal(err)
	}
	if n <= 16385-tokens.Reserve {
		t.Fatalf("test text has %d tokens, too few to be cut", n)
	}
	got, err := Truncate(long, "gpt-3.5-turbo-0125")
	if err != nil {
		t.Fatal(err)
	}
	kept, err := tokens.Count(got, tokens.Cl100kBase)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(long, got) || kept > 16385-tokens.Reserve || kept < 16385-tokens.Reserve-2 {
		t.Errorf("cut to %d bytes and %d tokens, want the last %d tokens (from %d bytes)", len(got), kept, 16385-tokens.Reserve, len(long))
	}
	if got, _ := Truncate(long, "gpt-4o-2024-05-13"); got != long {
		t.Error("a prompt that fits gpt-4o was changed")
	}
	if _, err := Truncate(long, "mystery-model"); err == nil {
		t.Error("unknown model: no error")
	}
}

// Text is the answer as a sheet's answer section should hold it: a string
// answer's own text, any other answer's compact JSON.
func (a answer) Text() string {
	if a.Kind == kindString {
		var s string
		if err := json.Unmarshal([]byte(a.JSON), &s); err == nil {
			return s
		}
	}
	return a.JSON
}
