package databench

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/shared"
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
		if err := WritePredictions(&buf, f); err != nil {
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
			if err := WritePredictions(&buf, &result.File{Questions: tc.qs}); err != nil {
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
	if err := WritePredictions(&bytes.Buffer{}, nil); err == nil {
		t.Error("nil file gave no error")
	}
}
