package score

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/internal/py"
)

// This file is InfiAgent-DABench's closed-form rule (eval_closed_form.py,
// examples/DA-Agent in InfiAgent/InfiAgent, commit d02d18a): the model writes
// its answers as @name[value] and each labelled name is checked on its own.

// pattern is the script's extraction regex `@(\w+)\[(.*?)\]`. Python's
// \w on str is Unicode-aware (letters, numbers, underscore), Go's is ASCII,
// so the class is spelled out; '.' excludes '\n' in both.
var pattern = regexp.MustCompile(`@([\p{L}\p{N}_]+)\[(.*?)\]`)

// Pair is one @name[value] answer.
type Pair struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// extract returns the @name[value] answers in a response as the
// script keeps them: dict(zip(names, answers)), so a name that appears twice
// keeps the place of its first occurrence and the value of its last.
func extract(response string) []Pair {
	return dedup(findAll(response))
}

// findAll is re.findall(pattern, s), written out: at each '@'
// the longest run of word characters must be followed by '[' (a shorter run
// cannot be, since '[' is no word character), and the value runs to the
// first ']' unless a newline comes first; scanning resumes after the match,
// or after the '@' when there is none. FuzzDABenchExtract checks it against
// the regular expression.
func findAll(s string) []Pair {
	var out []Pair
	for i := 0; i < len(s); {
		at := strings.IndexByte(s[i:], '@')
		if at < 0 {
			break
		}
		start := i + at + 1
		j := start
		for j < len(s) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) {
				j += size
				continue
			}
			break
		}
		if j > start && j < len(s) && s[j] == '[' {
			if end := strings.IndexAny(s[j+1:], "]\n"); end >= 0 && s[j+1+end] == ']' {
				out = append(out, Pair{Name: s[start:j], Value: s[j+1 : j+1+end]})
				i = j + 1 + end + 1
				continue
			}
		}
		i = start
	}
	return out
}

// dedup reproduces a Python dict built from pairs: first position,
// last value.
func dedup(pairs []Pair) []Pair {
	idx := make(map[string]int, len(pairs))
	var out []Pair
	for _, p := range pairs {
		if i, ok := idx[p.Name]; ok {
			out[i].Value = p.Value
			continue
		}
		idx[p.Name] = len(out)
		out = append(out, p)
	}
	return out
}

// parseLabels reads a ground truth written as one `@name[value]` line per
// label, the way the dabench converter stores DABench's common_answers. The
// value runs from the first '[' to the line's last ']', so a label such as
// id 273's "[" survives ("@outlier_list[[]"). Labels are deduplicated as the
// script's {ans[0]: ans[1]} does: a repeated name (id 734) keeps its first
// place and its last value. Blank lines are skipped.
func parseLabels(truth string) ([]Pair, error) {
	var raw []Pair
	for i, line := range strings.Split(truth, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		p, ok := labelLine(line)
		if !ok {
			return nil, fmt.Errorf("dabench ground truth line %d: want @name[value], got %q", i+1, line)
		}
		raw = append(raw, p)
	}
	return dedup(raw), nil
}

func labelLine(line string) (Pair, bool) {
	if !strings.HasPrefix(line, "@") || !strings.HasSuffix(line, "]") {
		return Pair{}, false
	}
	open := strings.IndexByte(line, '[')
	if open < 2 || open == len(line)-1 {
		return Pair{}, false
	}
	return Pair{Name: line[1:open], Value: line[open+1 : len(line)-1]}, true
}

// LabelsText writes labels as the ground-truth text the grader reads
// (parseLabels): one `@name[value]` line per pair, duplicates kept. The
// converter writes each question's labels with it.
func LabelsText(labels []Pair) string {
	var b strings.Builder
	for i, p := range labels {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("@" + p.Name + "[" + p.Value + "]")
	}
	return b.String()
}

// valuesEqual is the script's is_equal: equal as strings, or both parse as
// Python floats and differ by less than 1e-6 (so "nan" never matches and
// "inf" never matches "inf", whose difference is nan).
func valuesEqual(got, want string) bool {
	if got == want {
		return true
	}
	a, err1 := py.ParseFloat(got)
	b, err2 := py.ParseFloat(want)
	if err1 != nil || err2 != nil {
		return false
	}
	return math.Abs(a-b) < 1e-6
}

// grader grades one DABench question.
type grader struct{}

// Name implements Grader.
func (grader) Name() string { return "dabench" }

// Grade implements Grader: one SubAnswer per labelled name; the question is
// correct when every part is (Python's all(): a question without labels is
// correct).
func (grader) Grade(_ context.Context, in grade.Input) (grade.Verdict, error) {
	labels, err := parseLabels(in.Truth)
	if err != nil {
		return grade.Verdict{}, err
	}
	parts := partsOf(labels, extract(in.Completion))
	ok := 0
	for _, p := range parts {
		if p.Correct {
			ok++
		}
	}
	return grade.Verdict{
		Correct: grade.Bool(ok == len(parts)),
		Detail:  fmt.Sprintf("dabench: %d/%d sub-answers correct", ok, len(parts)),
		Parts:   parts,
	}, nil
}

// partsOf checks each label against the extracted answers; a name the
// response lacks is wrong (is_equal(None, label) is False).
func partsOf(labels, got []Pair) []grade.SubAnswer {
	byName := make(map[string]string, len(got))
	for _, g := range got {
		byName[g.Name] = g.Value
	}
	parts := make([]grade.SubAnswer, 0, len(labels))
	for _, l := range labels {
		v, found := byName[l.Name]
		parts = append(parts, grade.SubAnswer{
			Name:    l.Name,
			Want:    l.Value,
			Got:     v,
			Found:   found,
			Correct: found && valuesEqual(v, l.Value),
		})
	}
	return parts
}
