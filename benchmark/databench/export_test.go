package databench

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/benchmark"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/result"
)

// pySplitlines is Python's str.splitlines, which databench_eval uses to
// read predictions.txt.
func pySplitlines(s string) []string {
	var out []string
	start := 0
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		switch rs[i] {
		case '\n', '\r', '\v', '\f', '\x1c', '\x1d', '\x1e', '\u0085', '\u2028', '\u2029':
			out = append(out, string(rs[start:i]))
			if rs[i] == '\r' && i+1 < len(rs) && rs[i+1] == '\n' {
				i++
			}
			start = i + 1
		}
	}
	if start < len(rs) {
		out = append(out, string(rs[start:]))
	}
	return out
}

// TestSemEvalPredictionsLIME writes the predictions of every LIME output
// file and reads them back as databench_eval does: line n must be
// completion n, with its line breaks turned into spaces.
func TestSemEvalPredictionsLIME(t *testing.T) {
	files, err := filepath.Glob(shared.Path(t, "corpora", "lime", "results", "output-*.json"))
	if err != nil || len(files) != 26 {
		t.Fatalf("%d LIME output files, %v", len(files), err)
	}
	multiline := 0
	for _, path := range files {
		f, err := result.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := writePredictions(&buf, f); err != nil {
			t.Fatal(err)
		}
		lines := pySplitlines(buf.String())
		if len(lines) != len(f.Questions) {
			t.Fatalf("%s: %d lines, %d questions", filepath.Base(path), len(lines), len(f.Questions))
		}
		for i, q := range f.Questions {
			want := ""
			if q.Completion != nil {
				want = strings.Join(pySplitlinesKeepEmpty(*q.Completion), " ")
				if strings.ContainsAny(*q.Completion, "\n\r") {
					multiline++
				}
			}
			if lines[i] != want {
				t.Errorf("%s: line %d = %q, want %q", filepath.Base(path), i+1, lines[i], want)
			}
		}
	}
	if multiline == 0 {
		t.Error("no multi-line completion exercised")
	}
}

// pySplitlinesKeepEmpty splits at every line break, keeping a trailing
// empty part, so joining with spaces puts one space per break.
func pySplitlinesKeepEmpty(s string) []string {
	parts := pySplitlines(s)
	if s != "" && strings.ContainsRune("\n\r\v\f\x1c\x1d\x1e\u0085\u2028\u2029", []rune(s)[len([]rune(s))-1]) {
		parts = append(parts, "")
	}
	if len(parts) == 0 {
		return []string{""}
	}
	return parts
}

func TestWritePredictions(t *testing.T) {
	s := func(v string) *string { return &v }
	tests := []struct {
		name string
		qs   []result.Question
		want string
	}{
		{"plain", []result.Question{{Completion: s("True")}, {Completion: s("['a', 'b']")}}, "True\n['a', 'b']\n"},
		{"null is an empty line", []result.Question{{Completion: s("1")}, {}, {Completion: s("3")}}, "1\n\n3\n"},
		{"breaks become spaces", []result.Question{{Completion: s("a\r\nb\nc\rd\u2028e\x0bf")}}, "a b c d e f\n"},
		{"empty completion", []result.Question{{Completion: s("")}}, "\n"},
		{"no questions", nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := writePredictions(&buf, &result.File{Questions: tc.qs}); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tc.want {
				t.Errorf("got %q, want %q", buf.String(), tc.want)
			}
			if n := len(pySplitlines(buf.String())); n != len(tc.qs) {
				t.Errorf("databench_eval would read %d lines for %d questions", n, len(tc.qs))
			}
		})
	}
	if err := writePredictions(&bytes.Buffer{}, nil); err == nil {
		t.Error("nil file gave no error")
	}
}

// codeFile builds an output file of code-mode questions with ids and answers ("" for none).
func codeFile(model string, lite bool, ids []int, answers []string) *result.File {
	f := &result.File{Sheet: result.Sheet{Name: "DataBench x", RunID: "r1", ModelName: model,
		MetaData: map[string]string{"lite": map[bool]string{true: "true", false: "false"}[lite]}}}
	for i, id := range ids {
		q := result.Question{Name: questionName(id), MetaData: map[string]string{"id": strconv.Itoa(id)}, Mode: "code"}
		if answers[i] != "" {
			a := answers[i]
			q.Answer, q.Completion = &a, &a
		}
		f.Questions = append(f.Questions, q)
	}
	return f
}

func exported(t *testing.T, parts []benchmark.ExportFile) map[string]string {
	t.Helper()
	got := map[string]string{}
	for _, p := range parts {
		var b bytes.Buffer
		if err := p.Write(&b); err != nil {
			t.Fatal(err)
		}
		got[p.Name] = b.String()
	}
	return got
}

// TestPredictions: a run's files (datasets in any order, full and lite)
// give predictions.txt and predictions_lite.txt a line per QA row in row
// order, each line what Runner.save_responses writes.
func TestPredictions(t *testing.T) {
	limit := codeFile("m", false, []int{2}, []string{""})
	limit.Questions[0].CodeError, limit.Questions[0].Limit = "stopped by the sandbox's time limit", "time"
	failed := codeFile("m", false, []int{3}, []string{""})
	e := "boom"
	// A failed call ran nothing: the sheet's mode meta says code mode.
	failed.Questions[0].Error, failed.Questions[0].Mode, failed.Sheet.MetaData["mode"] = &e, "", "code"
	chat := codeFile("m", false, []int{4}, []string{""})
	chat.Questions[0].Mode = ""
	files := []*result.File{
		codeFile("m", false, []int{1, 0}, []string{"['a', 'b']", "True"}),
		codeFile("m", true, []int{0, 1}, []string{"3.5", "x\ny\rz"}),
		limit, failed, chat,
		{Sheet: result.Sheet{Name: "dry", ModelName: "other", DryRun: true}}, // left out
	}
	parts, err := predictionFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	got := exported(t, parts)
	want := map[string]string{
		predictionsFile: "True\n['a', 'b']\n__CODE_ERROR__: stopped by the sandbox's time limit\n" +
			// The baseline's failed model call: "__CODE_GEN_ERROR__" has no
			// second "return" (Python's IndexError message).
			"__CODE_ERROR__: list index out of range\n" +
			"\n", // chat mode without a completion
		predictionsLiteFile: "3.5\nx y z\n",
	}
	if len(got) != 2 || got[predictionsFile] != want[predictionsFile] || got[predictionsLiteFile] != want[predictionsLiteFile] {
		t.Errorf("got %q\nwant %q", got, want)
	}

	for name, tc := range map[string]struct {
		files []*result.File
		err   string
	}{
		"two models":           {[]*result.File{codeFile("a", false, []int{0}, []string{"1"}), codeFile("b", false, []int{1}, []string{"1"})}, "2 models (a, b)"},
		"row twice":            {[]*result.File{codeFile("a", false, []int{0, 1}, []string{"1", "2"}), codeFile("a", false, []int{1}, []string{"1"})}, "QA row 1 answered twice"},
		"a gap":                {[]*result.File{codeFile("a", false, []int{0, 3}, []string{"1", "2"})}, "2 QA rows before row 3 have no answer in the output files (rows 1, 2)"},
		"a planted row number": {[]*result.File{codeFile("a", false, []int{0, 1_000_000_000_000}, []string{"1", "2"})}, "999999999999 QA rows before row 1000000000000 have no answer in the output files (rows 1, 2, 3, 4, 5, ...)"},
		"no id":                {[]*result.File{codeFile("a", false, []int{0}, []string{"1"}), {Sheet: result.Sheet{ModelName: "a"}, Questions: []result.Question{{Name: "q"}}}}, `question "q" has no QA row number`},
		"only dry run":         {[]*result.File{{Sheet: result.Sheet{DryRun: true}}}, "no output file with answers"},
	} {
		if _, err := predictionFiles(tc.files); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %v; want %q", name, err, tc.err)
		}
	}

	// One file made elsewhere (no ids): its own order.
	lime := &result.File{Sheet: result.Sheet{ModelName: "m"}, Questions: []result.Question{{Completion: ptr("b")}, {Completion: ptr("a")}}}
	parts, err = predictionFiles([]*result.File{lime})
	if err != nil {
		t.Fatal(err)
	}
	if got := exported(t, parts); got[predictionsFile] != "b\na\n" || len(got) != 1 {
		t.Errorf("one file without ids: %q", got)
	}
}

func ptr(s string) *string { return &s }
