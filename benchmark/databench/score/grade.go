package score

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/internal/pandasdate"
	"github.com/evalmd/evalmd/internal/py"
)

// This file is DataBench's answer check: Evaluator.default_compare of the
// databench_eval package (jorses/databench_eval, src/databench_eval/eval.py)
// in version 4.0.1 (grader "databench") and 3.0.0, the SemEval 2025 Task 8
// scorer (grader "databench-semeval"). The two differ only for numbers.

// comparer runs default_compare. The zero value is version 4.0.1 on
// the wall clock.
type comparer struct {
	// SemEval selects version 3.0.0, the one SemEval 2025 Task 8 scored
	// with: numbers compare after Python's round(x, 2) instead of v4's
	// truncation.
	SemEval bool
	// Now is the clock for the dates pandas fills in from "today"
	// (time-only strings such as "12:30" parse to today's date; two-digit
	// years pivot on the current year). Nil means time.Now.
	Now func() time.Time
}

// semanticError is default_compare's `raise Exception(f"Semantic
// not supported: {semantic}")` for a semantic type it does not know. The
// original only gets there when neither value nor truth is null.
type semanticError struct{ Semantic string }

// Error is the original's message.
func (e *semanticError) Error() string {
	return "Semantic not supported: " + e.Semantic
}

// overflowError is the OverflowError pandas lets out of
// pd.to_datetime when dateutil builds a date field past a C int (a
// "category" answer like "Jan 1 99999999999"): default_compare catches only
// ValueError and TypeError there, so the original call raises.
type overflowError struct{ Text string }

// Error names the string whose date overflowed.
func (e *overflowError) Error() string {
	return "signed integer is greater than maximum: " + e.Text
}

// databenchStripChars is default_compare's STRIP_CHARS.
const databenchStripChars = "[]'\" "

// databenchNull reports whether s is in valid_null_set once it is a stripped
// string: None and np.nan never equal a str, so only these remain.
func databenchNull(s string) bool {
	switch s {
	case "nan", "", " ", "np.nan", "None":
		return true
	}
	return false
}

// pyStripChars is Python's str.strip(chars).
func pyStripChars(s, chars string) string {
	return strings.Trim(s, chars)
}

// Compare is default_compare(value, truth, semantic). It returns an error
// where the original raises.
func (c comparer) Compare(value, truth, semantic string) (bool, error) {
	semantic = strings.TrimFunc(semantic, py.IsSpace)
	v := pyStripChars(value, databenchStripChars)
	t := pyStripChars(truth, databenchStripChars)
	// Null handling comes before the semantic check, so an unknown semantic
	// with a null on either side still gives a verdict.
	vn, tn := databenchNull(v), databenchNull(t)
	if vn && tn {
		return true, nil
	}
	if vn || tn {
		return false, nil
	}
	switch semantic {
	case "boolean":
		lv, lt := strings.ToLower(v), strings.ToLower(t)
		isTrue := func(s string) bool { return s == "true" || s == "yes" || s == "y" }
		isFalse := func(s string) bool { return s == "false" || s == "no" || s == "n" }
		return isTrue(lv) && isTrue(lt) || isFalse(lv) && isFalse(lt), nil
	case "category":
		return c.category(v, t)
	case "number":
		return c.number(value, truth), nil
	case "list[category]":
		return c.listCategory(value, truth), nil
	case "list[number]":
		return databenchListNumber(value, truth), nil
	}
	return false, &semanticError{Semantic: semantic}
}

func (c comparer) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// category: equal strings, else equal dates when both parse with
// pd.to_datetime (a failed parse falls back to the string test, which has
// already failed).
func (c comparer) category(v, t string) (bool, error) {
	if v == t {
		return true, nil
	}
	now := c.now()
	// Python parses value first; a ValueError there skips the truth.
	vd, err := databenchToDate(v, now)
	if err != nil {
		return false, databenchOverflowOnly(err)
	}
	td, err := databenchToDate(t, now)
	if err != nil {
		return false, databenchOverflowOnly(err)
	}
	// NaT == NaT is False.
	return !vd.NaT && !td.NaT && vd == td, nil
}

// databenchToDate is pd.to_datetime(s).date(), its OverflowError reported
// as an *overflowError.
func databenchToDate(s string, now time.Time) (pandasdate.Date, error) {
	d, err := pandasdate.ToDate(s, now)
	var oe *pandasdate.OverflowError
	if errors.As(err, &oe) {
		return d, &overflowError{Text: oe.Text}
	}
	return d, err
}

// databenchOverflowOnly keeps the errors the original lets escape.
func databenchOverflowOnly(err error) error {
	if _, ok := err.(*overflowError); ok {
		return err
	}
	return nil
}

// number: keep digits, '.' and '-' of each side, read as floats, compare to
// two decimals. Quirk: "1e3" cleans to "13", "$1,234" to "1234", and
// "1-2" fails (False). v4 truncates x*100 toward zero in floating point, so
// float artefacts decide (0.29*100 is 28.999999999999996: 0.29 matches 0.28).
// v3 uses Python's round(x, 2), half to even on the exact binary value.
func (c comparer) number(value, truth string) bool {
	a, err := py.ParseFloat(databenchCleanNumber(value))
	if err != nil {
		return false
	}
	b, err := py.ParseFloat(databenchCleanNumber(truth))
	if err != nil {
		return false
	}
	if c.SemEval {
		if math.IsInf(a, 0) || math.IsInf(b, 0) {
			return a == b // round(inf, 2) is inf
		}
		return databenchRound2(a) == databenchRound2(b)
	}
	ta, tb := a*100, b*100
	if math.IsInf(ta, 0) || math.IsInf(tb, 0) {
		return false // math.trunc(inf) raises OverflowError, caught: False
	}
	return math.Trunc(ta) == math.Trunc(tb)
}

// databenchRound2 is Python's round(x, 2).
func databenchRound2(x float64) float64 {
	f, err := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 2, 64), 64)
	if err != nil {
		return x
	}
	return f
}

// databenchCleanNumber keeps the characters for which Python's isdigit() is
// true, and '.' and '-'.
func databenchCleanNumber(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '.' || r == '-' || py.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// databenchSplitList is str(x).strip('[]').split(','): only brackets are
// stripped from the ends, and quotes stay with the items.
func databenchSplitList(s string) []string {
	return strings.Split(strings.Trim(s, "[]"), ",")
}

// listCategory: items stripped of STRIP_CHARS, nulls made "", a length
// check, then sets of dates when every item parses with pd.to_datetime,
// else sets of strings. Quirks: order and repeats do not count past the
// length check (['a','a','b'] matches ['a','b','b']); "" parses to NaT and
// NaT equals itself inside a set; a list of years compares as dates.
func (c comparer) listCategory(value, truth string) bool {
	items := func(s string) []string {
		parts := databenchSplitList(s)
		for i, p := range parts {
			p = pyStripChars(p, databenchStripChars)
			if databenchNull(p) {
				p = ""
			}
			parts[i] = p
		}
		return parts
	}
	vs, ts := items(value), items(truth)
	if len(vs) != len(ts) {
		return false
	}
	now := c.now()
	dates := func(xs []string) (map[pandasdate.Date]bool, error) {
		m := make(map[pandasdate.Date]bool, len(xs))
		for _, x := range xs {
			d, err := databenchToDate(x, now)
			if err != nil {
				return nil, err
			}
			m[d] = true
		}
		return m, nil
	}
	vd, err := dates(vs)
	if err == nil {
		var td map[pandasdate.Date]bool
		td, err = dates(ts)
		if err == nil {
			return databenchSameSet(vd, td)
		}
	}
	if _, ok := err.(*overflowError); ok {
		return false // the outer `except Exception` turns it into False
	}
	return databenchSameSet(databenchStringSet(vs), databenchStringSet(ts))
}

func databenchStringSet(xs []string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

func databenchSameSet[K comparable](a, b map[K]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// databenchListNumber: non-blank items cleaned as for numbers, read as
// floats (any failure: False), truncated to int(x*100)/100, then a length
// check and a set comparison: [1, 1, 2] matches [1, 2, 2]. Both versions.
func databenchListNumber(value, truth string) bool {
	read := func(s string) ([]float64, bool) {
		var out []float64
		for _, p := range databenchSplitList(s) {
			p = strings.TrimFunc(p, py.IsSpace)
			if p == "" {
				continue
			}
			f, err := py.ParseFloat(databenchCleanNumber(p))
			if err != nil {
				return nil, false
			}
			out = append(out, f)
		}
		for i, f := range out {
			t := f * 100
			if math.IsInf(t, 0) {
				return nil, false // int(inf) raises OverflowError
			}
			out[i] = math.Trunc(t) / 100
		}
		return out, true
	}
	vs, ok := read(value)
	if !ok {
		return false
	}
	ts, ok := read(truth)
	if !ok || len(vs) != len(ts) {
		return false
	}
	set := func(xs []float64) map[float64]bool {
		m := make(map[float64]bool, len(xs))
		for _, x := range xs {
			m[x] = true
		}
		return m
	}
	return databenchSameSet(set(vs), set(ts))
}

// databenchGrader grades a DataBench answer with default_compare.
type databenchGrader struct {
	cmp  comparer
	name string
}

func newGrader(semeval bool) grade.Grader {
	if semeval {
		return databenchGrader{cmp: comparer{SemEval: true}, name: "databench-semeval"}
	}
	return databenchGrader{name: "databench"}
}

// Name implements Grader.
func (g databenchGrader) Name() string { return g.name }

// semanticOf is the semantic type of a question: its `semantic` meta,
// else its `type` meta (DataBench's own column name).
func semanticOf(meta map[string]string) (string, bool) {
	if s, ok := meta["semantic"]; ok {
		return s, true
	}
	s, ok := meta["type"]
	return s, ok
}

// Grade implements Grader: the completion is the value, the ground truth the
// truth. Where the original raises, Grade returns the error and no verdict.
func (g databenchGrader) Grade(_ context.Context, in grade.Input) (grade.Verdict, error) {
	sem, ok := semanticOf(in.Meta)
	if !ok {
		return grade.Verdict{}, fmt.Errorf("%s: question has no semantic (or type) meta", g.name)
	}
	ok, err := g.cmp.Compare(in.Completion, in.Truth, sem)
	if err != nil {
		return grade.Verdict{}, fmt.Errorf("%s: %w", g.name, err)
	}
	return grade.Verdict{Correct: grade.Bool(ok), Detail: fmt.Sprintf("%s default_compare as %s", g.name, strings.TrimFunc(sem, py.IsSpace))}, nil
}
