// Package gate compares a folder of output files with a baseline folder,
// as a CI gate does before a change to a prompt, a sheet or a model
// merges: per model, question by question on the questions both folders
// have graded answers to (the same sheet, name and ground truth), with
// the paired statistics of agg's own tables (McNemar's exact test, paired
// differences clustered by question), and a verdict that fails only on a
// significant drop, never on noise alone.
//
// Compare reads Folders (the current data, the baseline's, a reducer)
// into a Comparison: per model a ModelChange (accuracy before and after,
// the paired difference with its interval, McNemar's p, each Flip worse
// or better, a verdict), each question not compared as Unpaired (a
// QuestionRef names it), and what the Rules (FailOn: FailRegression or
// FailNever, ParseFailOn, FailOnNames; a significance level, a least
// drop, an accuracy floor) say of them. A Comparison is written as a pull
// request comment (Markdown, opened by Marker), stderr lines and tables.
// JUnit writes the graded answers as JUnit XML.
package gate

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/evalmd/evalmd/agg/load"
	"github.com/evalmd/evalmd/agg/render"
	"github.com/evalmd/evalmd/agg/stats"
)

// FailOn says which comparison with the baseline fails the gate.
type FailOn uint8

// The values of FailOn.
const (
	FailNever      FailOn = iota // the comparison is reported, never fails
	FailRegression               // a model significantly worse than the baseline fails
)

// FailOnNames lists the values ParseFailOn accepts, for help text.
const FailOnNames = "regression, never"

// ParseFailOn reads --fail-on's value: regression or never ("" is never).
func ParseFailOn(s string) (FailOn, error) {
	switch s {
	case "", "never":
		return FailNever, nil
	case "regression":
		return FailRegression, nil
	}
	return FailNever, fmt.Errorf("%q: known values are %s", s, FailOnNames)
}

// Rules say when a comparison, or a model's accuracy, fails.
type Rules struct {
	// FailOn fails the gate on a significant drop (FailRegression).
	FailOn FailOn
	// Alpha is the significance level of the tests and 1 - the level of
	// the intervals; 0 means 0.05.
	Alpha float64
	// MinDrop is the least drop in accuracy (0..1) that counts as a
	// regression, however significant: a practical floor.
	MinDrop float64
	// FailUnder fails a model whose accuracy's interval (over every
	// question of the current folder, at 1 - Alpha) starts below it; 0
	// is no floor.
	FailUnder float64
}

// alpha is g.Alpha, 0.05 when not set.
func (g Rules) alpha() float64 {
	if g.Alpha == 0 {
		return 0.05
	}
	return g.Alpha
}

// Check says what is wrong with g's values, or nil.
func (g Rules) Check() error {
	switch a := g.alpha(); {
	case !(a > 0 && a < 1):
		return fmt.Errorf("--alpha %g: a significance level between 0 and 1, such as 0.05", a)
	case !(g.MinDrop >= 0 && g.MinDrop < 1):
		return fmt.Errorf("--min-drop %g: a drop in accuracy from 0 to 1, such as 0.02 (2 points)", g.MinDrop)
	case !(g.FailUnder >= 0 && g.FailUnder <= 1):
		return fmt.Errorf("--fail-under %g: an accuracy from 0 to 1, such as 0.7", g.FailUnder)
	}
	return nil
}

// Verdicts of a ModelChange.
const (
	verdictRegression = "regression"
	verdictSmallDrop  = "worse, by less than --min-drop"
	verdictBetter     = "better"
	verdictNoChange   = "no significant change"
	verdictNew        = "new: not in the baseline"
	verdictGone       = "gone: not in this folder"
	verdictNoPairs    = "no question graded in both"
)

// QuestionRef names a question: its sheet, its name, and which question
// of that name in its sheet it is (0 for the first; LIME lets a name
// repeat).
type QuestionRef struct {
	Sheet, Name string
	Occ         int
}

// String is "sheet / name", with "(#2)" after a repeated name.
func (q QuestionRef) String() string { return q.Sheet + " / " + q.nameCell() }

func (q QuestionRef) compare(o QuestionRef) int {
	return cmp.Or(strings.Compare(q.Sheet, o.Sheet), strings.Compare(q.Name, o.Name), cmp.Compare(q.Occ, o.Occ))
}

// Flip is a question whose score changed from the baseline: Before and
// After are its scores (1 right, 0 wrong; with several answers their
// reduction), from Answers answers each.
type Flip struct {
	QuestionRef
	Before, After               float64
	BeforeAnswers, AfterAnswers int
}

// Unpaired is a question of a model that only one folder has a graded
// answer to, or whose ground truth differs between them.
type Unpaired struct {
	Model string
	QuestionRef
	Why string // one of the unpaired constants
}

// Why a question is not compared.
const (
	unpairedBaseline   = "only in the baseline"
	unpairedCurrent    = "only in this folder"
	unpairedTruth      = "ground truth changed"
	ungradedHere       = "not graded in this folder (an error, or no grade)"
	ungradedInBaseline = "not graded in the baseline (an error, or no grade)"
)

// ModelChange is one model's comparison with the baseline.
type ModelChange struct {
	Model string
	// Questions is the number of questions compared: graded in both
	// folders, with the same ground truth.
	Questions int
	// Before and After are the mean scores over those questions (a
	// question's answers reduced by the Reducer of the current data).
	Before, After float64
	// Diff is After - Before, the mean of the per-question differences;
	// Stderr, Lo and Hi its standard error and interval at 1 - alpha,
	// over questions (paired, clustered by question).
	Diff, Stderr, Lo, Hi float64
	// P is McNemar's exact test on the questions whose score went down
	// (Worse) or up (Better): with one answer a question, the flips of a
	// grade; with several, the sign test on questions, which is the same
	// test over per-question scores.
	P             float64
	Worse, Better []Flip
	// Unpaired counts the model's questions not compared.
	Unpaired int
	// Accuracy is the model's score over the AccQuestions questions it
	// has in the current folder (what the floor is checked on), AccLo and
	// AccHi its interval at 1 - alpha, NaN without one.
	Accuracy, AccLo, AccHi float64
	AccQuestions           int
	// Verdict is one of the verdict constants; BelowFloor says the
	// accuracy's interval starts below Rules.FailUnder.
	Verdict    string
	BelowFloor bool
}

// Comparison is every model's comparison with a baseline, and what the
// gate says of it.
type Comparison struct {
	// Baseline names the baseline folder; empty when there is none (a
	// floor checked alone).
	Baseline string
	compared bool // there is a baseline
	Rules    Rules
	Models   []ModelChange
	// Unpaired lists the questions not compared, by model then question.
	Unpaired []Unpaired
	// Reducer is how a question's answers became its score.
	Reducer stats.Reducer
}

// Failures are the reasons the gate fails, one line a model, or none.
func (c *Comparison) Failures() []string {
	return c.failures(func(s string) string { return s })
}

// failures are Failures, each name written through name.
func (c *Comparison) failures(name func(string) string) []string {
	var out []string
	for _, m := range c.Models {
		if c.Rules.FailOn == FailRegression && m.Verdict == verdictRegression {
			out = append(out, fmt.Sprintf("%s is significantly worse than the baseline: accuracy %s -> %s on %d questions (%+.3f), McNemar's p %s < %g; %d questions worse (%s)",
				name(m.Model), render.Frac(m.Before), render.Frac(m.After), m.Questions, m.Diff, render.PValue(m.P), c.Rules.alpha(), len(m.Worse), flipNames(m.Worse, 5, name)))
		}
		if m.BelowFloor {
			out = append(out, fmt.Sprintf("%s is below the floor: accuracy %s, its %s interval starts at %.3f < %g",
				name(m.Model), render.Frac(m.Accuracy), c.level(), m.AccLo, c.Rules.FailUnder))
		}
	}
	return out
}

// level is the intervals' level, "95%".
func (c *Comparison) level() string {
	return strconv.FormatFloat(100*(1-c.Rules.alpha()), 'f', -1, 64) + "%"
}

// flipNames names the first max flips (each written through name), then
// how many more.
func flipNames(fs []Flip, max int, name func(string) string) string {
	var names []string
	for i, f := range fs {
		if i == max {
			names = append(names, fmt.Sprintf("and %d more", len(fs)-max))
			break
		}
		names = append(names, name(f.String()))
	}
	return strings.Join(names, ", ")
}

// side is one folder's scores: per model, per question key, the model's
// answers to it; and per question without its truth, the keys with one.
type side struct {
	scores map[string]map[string]score // model -> question key -> score
	refs   map[string]QuestionRef      // question key -> the question
	truths map[string]bool             // "model\x00question key without truth" present
}

type score struct {
	score   float64
	answers int
}

// gateKeys are a row's question key with its ground truth, and without.
func gateKeys(d *load.Data, r *load.Row) (withTruth, without string) {
	without = d.Str(r.Sheet) + "\x00" + d.Str(r.Name) + "\x00" + strconv.Itoa(int(r.Occ))
	t := "~" // a null truth, told from ""
	if r.Truth != load.NoStr {
		t = "=" + d.Str(r.Truth)
	}
	return without + "\x00" + t, without
}

// sideOf reduces d's answers, of the rows keep keeps, to scores; a
// question none of whose answers was graded has answers 0.
func sideOf(d *load.Data, keep func(int) bool, red stats.Reducer) side {
	idx, n := d.Units(true)
	first := make([]int, n) // a row of each question
	for i := len(d.Rows()) - 1; i >= 0; i-- {
		if idx[i] >= 0 {
			first[idx[i]] = i
		}
	}
	s := side{scores: map[string]map[string]score{}, refs: map[string]QuestionRef{}, truths: map[string]bool{}}
	for m, as := range d.Tallies(idx, keep, true) {
		model := d.Str(m)
		byQ := make(map[string]score, len(as))
		for _, a := range as {
			r := &d.Rows()[first[a.Q]]
			key, without := gateKeys(d, r)
			byQ[key] = score{math.NaN(), 0}
			if a.N > 0 {
				byQ[key] = score{red.Reduce(int(a.C), int(a.N)), int(a.N)}
			}
			s.refs[key] = QuestionRef{Sheet: d.Str(r.Sheet), Name: d.Str(r.Name), Occ: int(r.Occ)}
			s.truths[model+"\x00"+without] = true
		}
		s.scores[model] = byQ
	}
	return s
}

// current is the row filter of the current folder when it holds the
// baseline's runs too: a CI restores the baseline's results into the
// folder it runs in, so that unchanged questions are reused, not asked,
// and the run adds its own files beside them. Of a sheet and model that a
// run the baseline does not hold answered, only the answers such runs
// carry count (asked or reused: row.fresh); one that none answered keeps
// the answers it has.
func (f Folders) current() func(int) bool {
	d := f.Current
	if f.Baseline == nil {
		return func(int) bool { return true }
	}
	type sm struct{ sheet, model load.Str }
	fresh := map[sm]bool{}
	for i := range d.Rows() {
		if r := &d.Rows()[i]; r.Fresh {
			fresh[sm{r.Sheet, r.Model}] = true
		}
	}
	return func(i int) bool {
		r := &d.Rows()[i]
		return r.Fresh || !fresh[sm{r.Sheet, r.Model}]
	}
}

// Folders are what Compare and JUnit read: the current folder's data,
// the baseline's (nil when none was given) and its folder's name, and the
// reducer that turns a model's answers to a question into its score.
type Folders struct {
	Current     *load.Data
	Baseline    *load.Data
	BaselineDir string
	Reducer     stats.Reducer
}

// Compare compares each model's graded answers in f.Current with those of
// f.Baseline, question by question, and checks g; without a baseline it
// checks only g's floor.
func Compare(f Folders, g Rules) *Comparison {
	c := &Comparison{Rules: g, Reducer: f.Reducer, Baseline: f.BaselineDir, compared: f.Baseline != nil}
	if c.compared && c.Baseline == "" {
		c.Baseline = "the baseline"
	}
	keep := f.current()
	var before side
	if f.Baseline != nil {
		before = sideOf(f.Baseline, func(int) bool { return true }, f.Reducer)
	}
	after := sideOf(f.Current, keep, f.Reducer)
	models := map[string]bool{}
	for m := range after.scores {
		models[m] = true
	}
	for m := range before.scores {
		models[m] = true
	}
	floors := floors(f.Current, f.Reducer, keep, g)
	for _, m := range slices.Sorted(maps.Keys(models)) {
		mc := c.compareModel(m, before, after)
		f, ok := floors[m]
		if !ok {
			f = ModelChange{Accuracy: math.NaN(), AccLo: math.NaN(), AccHi: math.NaN()}
		}
		mc.Accuracy, mc.AccLo, mc.AccHi, mc.AccQuestions, mc.BelowFloor = f.Accuracy, f.AccLo, f.AccHi, f.AccQuestions, f.BelowFloor
		c.Models = append(c.Models, mc)
	}
	slices.SortFunc(c.Unpaired, func(a, b Unpaired) int {
		return cmp.Or(strings.Compare(a.Model, b.Model), a.QuestionRef.compare(b.QuestionRef))
	})
	return c
}

// compareModel compares one model's scores, noting its unpaired
// questions in c.
func (c *Comparison) compareModel(m string, before, after side) ModelChange {
	mc := ModelChange{Model: m, Before: math.NaN(), After: math.NaN(), Diff: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), P: 1}
	b, a := before.scores[m], after.scores[m]
	switch {
	case !c.compared:
		return mc
	case b == nil:
		mc.Verdict = verdictNew
		return mc
	case a == nil:
		mc.Verdict = verdictGone
		return mc
	}
	truthSaid := map[QuestionRef]bool{}
	unpaired := func(ref QuestionRef, why string) {
		c.Unpaired = append(c.Unpaired, Unpaired{Model: m, QuestionRef: ref, Why: why})
		mc.Unpaired++
	}
	// absent notes a question of s that other lacks: there under another
	// ground truth (said once, whichever folder has it twice), or not.
	absent := func(key string, s, other side, why string) {
		ref := s.refs[key]
		if other.truths[m+"\x00"+ref.Sheet+"\x00"+ref.Name+"\x00"+strconv.Itoa(ref.Occ)] {
			if truthSaid[ref] {
				return
			}
			truthSaid[ref] = true
			why = unpairedTruth
		}
		unpaired(ref, why)
	}
	var diffs []float64
	var sumB, sumA float64
	for _, key := range slices.Sorted(maps.Keys(a)) {
		sa := a[key]
		sb, ok := b[key]
		switch {
		case !ok:
			absent(key, after, before, unpairedCurrent)
			continue
		case sa.answers == 0:
			unpaired(after.refs[key], ungradedHere)
			continue
		case sb.answers == 0:
			unpaired(after.refs[key], ungradedInBaseline)
			continue
		}
		sumB += sb.score
		sumA += sa.score
		diffs = append(diffs, sa.score-sb.score)
		f := Flip{QuestionRef: after.refs[key], Before: sb.score, After: sa.score, BeforeAnswers: sb.answers, AfterAnswers: sa.answers}
		switch {
		case sa.score < sb.score:
			mc.Worse = append(mc.Worse, f)
		case sa.score > sb.score:
			mc.Better = append(mc.Better, f)
		}
	}
	for key := range b {
		if _, ok := a[key]; !ok {
			absent(key, before, after, unpairedBaseline)
		}
	}
	mc.Questions = len(diffs)
	if mc.Questions == 0 {
		mc.Verdict = verdictNoPairs
		return mc
	}
	for _, fs := range [][]Flip{mc.Worse, mc.Better} {
		slices.SortFunc(fs, func(x, y Flip) int { return x.QuestionRef.compare(y.QuestionRef) })
	}
	mc.Before, mc.After = sumB/float64(mc.Questions), sumA/float64(mc.Questions)
	mc.Diff, mc.Stderr, mc.Lo, mc.Hi, _ = stats.PairedDiffs(diffs, stats.ZFor(c.Rules.alpha()))
	mc.P = stats.McNemarExact(len(mc.Worse), len(mc.Better))
	mc.Verdict = c.verdict(mc)
	return mc
}

// verdict says what mc's numbers mean at the gate's level: a drop must be
// significant (McNemar's p under alpha, more questions worse than better,
// the mean lower) and at least MinDrop to be a regression.
func (c *Comparison) verdict(mc ModelChange) string {
	if mc.P >= c.Rules.alpha() {
		return verdictNoChange
	}
	switch {
	case len(mc.Worse) > len(mc.Better) && mc.Diff < 0:
		if -mc.Diff < c.Rules.MinDrop {
			return verdictSmallDrop
		}
		return verdictRegression
	case len(mc.Better) > len(mc.Worse) && mc.Diff > 0:
		return verdictBetter
	}
	return verdictNoChange
}

// floors is each model's score over every question it has in d (of the
// rows keep keeps), with its interval at 1 - g's alpha, and whether that
// interval starts below g.FailUnder.
func floors(d *load.Data, red stats.Reducer, keep func(int) bool, g Rules) map[string]ModelChange {
	idx, _ := d.Units(false)
	z := stats.ZFor(g.alpha())
	out := map[string]ModelChange{}
	for m, as := range d.Tallies(idx, keep, false) {
		scores := make([]float64, len(as))
		for i, a := range as {
			scores[i] = red.Reduce(int(a.C), int(a.N))
		}
		mc := ModelChange{AccQuestions: len(as)}
		mc.Accuracy, _, mc.AccLo, mc.AccHi = stats.OverQuestionsZ(scores, z)
		mc.BelowFloor = g.FailUnder > 0 && !(mc.AccLo >= g.FailUnder)
		out[d.Str(m)] = mc
	}
	return out
}
