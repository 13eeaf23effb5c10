package grade

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// jsonGrader grades a structured answer: the first JSON value of the
// reply (jsonFind: a ```json fence, the whole reply, the first object or
// array in it, else a Python literal) against the ground truth, JSON or a
// Python literal (jsonTruth), compared recursively:
//   - objects: the same member names (exact bytes), in any order, each
//     member's values equal; a member missing or extra is a difference;
//   - arrays: the same length, elements equal in order, or, with the
//     "json_arrays: set" meta, each truth element matched to its own
//     answer element in any order;
//   - numbers: within the "tolerance" (absolute) or "rel_tolerance" meta,
//     the numeric grader's keys and defaults (1e-9, 1e-6);
//   - strings: as the exact grader compares them (trimmed, white space
//     collapsed, case ignored);
//   - true, false and null: equal to themselves only. Types are never
//     converted: the string "7" is not the number 7.
//
// The verdict's detail names the first difference found (members in name
// order) by its path, the answer's value first: `$.Q: 2 != 1`.
type jsonGrader struct{}

func newJSON(Options) Grader { return jsonGrader{} }

// Name is "json".
func (jsonGrader) Name() string { return "json" }

// jsonOptions are what a question's meta says of the comparison.
type jsonOptions struct {
	abs, rel float64
	set      bool // arrays compare as multisets
}

func jsonOptionsOf(meta map[string]string) (jsonOptions, error) {
	abs, rel, err := numericTolerances(meta)
	if err != nil {
		return jsonOptions{}, fmt.Errorf("json: %w", err)
	}
	o := jsonOptions{abs: abs, rel: rel}
	switch s := strings.ToLower(strings.TrimSpace(meta["json_arrays"])); s {
	case "", "order", "ordered":
	case "set":
		o.set = true
	default:
		return o, metaErr("json_arrays", fmt.Errorf("json: meta json_arrays %q is not order or set", s))
	}
	return o, nil
}

// Check refuses a truth that is neither JSON nor a Python literal, and
// meta the comparison cannot read.
func (jsonGrader) Check(in Input) error {
	if exactNorm(in.Truth) == "" {
		return errNoTruth
	}
	if _, err := jsonOptionsOf(in.Meta); err != nil {
		return err
	}
	_, err := jsonTruth(in.Truth)
	return err
}

// Grade compares the reply's JSON value with the truth's.
func (g jsonGrader) Grade(_ context.Context, in Input) (Verdict, error) {
	if err := g.Check(in); err != nil {
		return Verdict{Detail: err.Error()}, nil
	}
	opt, _ := jsonOptionsOf(in.Meta)
	want, _ := jsonTruth(in.Truth)
	got, how, ok := jsonFind(in.Completion)
	if !ok {
		return Verdict{Correct: Bool(false), Detail: "json: no JSON value in the answer; want " + jsonText(want)}, nil
	}
	if d := opt.diff("$", got, want); d != "" {
		return Verdict{Correct: Bool(false), Detail: fmt.Sprintf("json (%s): %s", how, d)}, nil
	}
	return Verdict{Correct: Bool(true), Detail: fmt.Sprintf("json (%s): equal to the truth", how)}, nil
}

// diff is the first difference between got (the answer's) and want (the
// truth's) at path, or "" when they are equal.
func (o jsonOptions) diff(path string, got, want any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: %s != %s (%s, not an object)", path, jsonText(got), jsonText(want), jsonKind(got))
		}
		return o.diffObject(path, g, w)
	case []any:
		g, ok := got.([]any)
		if !ok {
			return fmt.Sprintf("%s: %s != %s (%s, not an array)", path, jsonText(got), jsonText(want), jsonKind(got))
		}
		if len(g) != len(w) {
			return fmt.Sprintf("%s: %d elements != %d", path, len(g), len(w))
		}
		if o.set {
			return o.diffSet(path, g, w)
		}
		for i := range w {
			if d := o.diff(fmt.Sprintf("%s[%d]", path, i), g[i], w[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if jsonKind(got) != jsonKind(want) {
		return fmt.Sprintf("%s: %s != %s (%s, not %s)", path, jsonText(got), jsonText(want), jsonKind(got), jsonKind(want))
	}
	if !o.equalScalar(got, want) {
		return fmt.Sprintf("%s: %s != %s", path, jsonText(got), jsonText(want))
	}
	return ""
}

func (o jsonOptions) diffObject(path string, g, w map[string]any) string {
	names := make([]string, 0, len(w))
	for k := range w {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		gv, ok := g[k]
		if !ok {
			return fmt.Sprintf("%s: missing (want %s)", jsonPath(path, k), jsonText(w[k]))
		}
		if d := o.diff(jsonPath(path, k), gv, w[k]); d != "" {
			return d
		}
	}
	extra := make([]string, 0)
	for k := range g {
		if _, ok := w[k]; !ok {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return fmt.Sprintf("%s: not in the truth (%d extra members)", jsonPath(path, extra[0]), len(extra))
	}
	return ""
}

// diffSet matches each truth element to an answer element of its own
// (bipartite matching by augmenting paths: with a tolerance, equality is
// not transitive, so a greedy match could miss one).
func (o jsonOptions) diffSet(path string, g, w []any) string {
	eq := make([][]bool, len(w))
	for i := range w {
		eq[i] = make([]bool, len(g))
		for j := range g {
			eq[i][j] = o.diff("", g[j], w[i]) == ""
		}
	}
	owner := make([]int, len(g)) // the truth element each answer element matches, -1 none
	for j := range owner {
		owner[j] = -1
	}
	var try func(i int, seen []bool) bool
	try = func(i int, seen []bool) bool {
		for j := range g {
			if eq[i][j] && !seen[j] {
				seen[j] = true
				if owner[j] < 0 || try(owner[j], seen) {
					owner[j] = i
					return true
				}
			}
		}
		return false
	}
	for i := range w {
		if !try(i, make([]bool, len(g))) {
			return fmt.Sprintf("%s: no element matches %s (the truth's [%d]; arrays compared as sets)", path, jsonText(w[i]), i)
		}
	}
	return ""
}

func (o jsonOptions) equalScalar(got, want any) bool {
	switch w := want.(type) {
	case json.Number:
		g := got.(json.Number)
		if g == w {
			return true
		}
		gf, err1 := strconv.ParseFloat(string(g), 64)
		wf, err2 := strconv.ParseFloat(string(w), 64)
		if err1 != nil || err2 != nil {
			return false
		}
		return math.Abs(gf-wf) <= math.Max(o.abs, o.rel*math.Abs(wf))
	case string:
		return strings.EqualFold(exactNorm(got.(string)), exactNorm(w))
	default: // bool, nil
		return got == want
	}
}

// jsonKind names v's JSON type.
func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

var jsonIdentRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// jsonPath is path's member name: $.Q, or $["# of words"] for a name that
// is no identifier.
func jsonPath(path, name string) string {
	if jsonIdentRe.MatchString(name) {
		return path + "." + name
	}
	b, _ := json.Marshal(name)
	return path + "[" + string(b) + "]"
}
