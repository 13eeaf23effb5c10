package grade

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/evalmd/evalmd/internal/py"
)

// This file is InfiAgent-DABench's closed-form rule (eval_closed_form.py,
// examples/DA-Agent in InfiAgent/InfiAgent, commit d02d18a): the model writes
// its answers as @name[value] and each labelled name is checked on its own.

// dabenchPattern is the script's extraction regex `@(\w+)\[(.*?)\]`. Python's
// \w on str is Unicode-aware (letters, numbers, underscore), Go's is ASCII,
// so the class is spelled out; '.' excludes '\n' in both.
var dabenchPattern = regexp.MustCompile(`@([\p{L}\p{N}_]+)\[(.*?)\]`)

// DABenchPair is one @name[value] answer.
type DABenchPair struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// DABenchExtract returns the @name[value] answers in a response as the
// script keeps them: dict(zip(names, answers)), so a name that appears twice
// keeps the place of its first occurrence and the value of its last.
func DABenchExtract(response string) []DABenchPair {
	return dabenchDedup(dabenchFindAll(response))
}

// dabenchFindAll is re.findall(dabenchPattern, s), written out: at each '@'
// the longest run of word characters must be followed by '[' (a shorter run
// cannot be, since '[' is no word character), and the value runs to the
// first ']' unless a newline comes first; scanning resumes after the match,
// or after the '@' when there is none. FuzzDABenchExtract checks it against
// the regular expression.
func dabenchFindAll(s string) []DABenchPair {
	var out []DABenchPair
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
				out = append(out, DABenchPair{Name: s[start:j], Value: s[j+1 : j+1+end]})
				i = j + 1 + end + 1
				continue
			}
		}
		i = start
	}
	return out
}

// dabenchDedup reproduces a Python dict built from pairs: first position,
// last value.
func dabenchDedup(pairs []DABenchPair) []DABenchPair {
	idx := make(map[string]int, len(pairs))
	var out []DABenchPair
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

// DABenchLabels reads a ground truth written as one `@name[value]` line per
// label, the way the dabench converter stores DABench's common_answers. The
// value runs from the first '[' to the line's last ']', so a label such as
// id 273's "[" survives ("@outlier_list[[]"). Labels are deduplicated as the
// script's {ans[0]: ans[1]} does: a repeated name (id 734) keeps its first
// place and its last value. Blank lines are skipped.
func DABenchLabels(truth string) ([]DABenchPair, error) {
	var raw []DABenchPair
	for i, line := range strings.Split(truth, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		p, ok := dabenchLabelLine(line)
		if !ok {
			return nil, fmt.Errorf("dabench ground truth line %d: want @name[value], got %q", i+1, line)
		}
		raw = append(raw, p)
	}
	return dabenchDedup(raw), nil
}

func dabenchLabelLine(line string) (DABenchPair, bool) {
	if !strings.HasPrefix(line, "@") || !strings.HasSuffix(line, "]") {
		return DABenchPair{}, false
	}
	open := strings.IndexByte(line, '[')
	if open < 2 || open == len(line)-1 {
		return DABenchPair{}, false
	}
	return DABenchPair{Name: line[1:open], Value: line[open+1 : len(line)-1]}, true
}

// DABenchLabelText writes labels as the ground-truth text DABenchLabels reads:
// one `@name[value]` line per pair, duplicates kept.
func DABenchLabelText(labels []DABenchPair) string {
	var b strings.Builder
	for i, p := range labels {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("@" + p.Name + "[" + p.Value + "]")
	}
	return b.String()
}

// DABenchEqual is the script's is_equal: equal as strings, or both parse as
// Python floats and differ by less than 1e-6 (so "nan" never matches and
// "inf" never matches "inf", whose difference is nan).
func DABenchEqual(got, want string) bool {
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

// dabenchGrader grades one DABench question.
type dabenchGrader struct{}

func newDABench(Options) Grader { return dabenchGrader{} }

// Name implements Grader.
func (dabenchGrader) Name() string { return "dabench" }

// Grade implements Grader: one Part per labelled name; the question is
// correct when every part is (Python's all(): a question without labels is
// correct).
func (dabenchGrader) Grade(_ context.Context, in Input) (Verdict, error) {
	labels, err := DABenchLabels(in.Truth)
	if err != nil {
		return Verdict{}, err
	}
	parts := DABenchParts(labels, DABenchExtract(in.Completion))
	ok := 0
	for _, p := range parts {
		if p.Correct {
			ok++
		}
	}
	return Verdict{
		Correct: Bool(ok == len(parts)),
		Detail:  fmt.Sprintf("dabench: %d/%d sub-answers correct", ok, len(parts)),
		Parts:   parts,
	}, nil
}

// DABenchParts checks each label against the extracted answers; a name the
// response lacks is wrong (is_equal(None, label) is False).
func DABenchParts(labels, got []DABenchPair) []Part {
	byName := make(map[string]string, len(got))
	for _, g := range got {
		byName[g.Name] = g.Value
	}
	parts := make([]Part, 0, len(labels))
	for _, l := range labels {
		v, found := byName[l.Name]
		parts = append(parts, Part{
			Name:    l.Name,
			Want:    l.Value,
			Got:     v,
			Found:   found,
			Correct: found && DABenchEqual(v, l.Value),
		})
	}
	return parts
}
