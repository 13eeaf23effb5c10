package score

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/internal/py"
)

// scoredQuestion is one DABench question as the metrics see it: plain data an
// aggregator can fill from output files.
type scoredQuestion struct {
	ID string
	// Concepts are the question's concepts; nil means the question is not in
	// the questions file, and the script then leaves it out of the concept
	// tables (it still counts in the main figures).
	Concepts []string
	Level    string
	// Parts are the sub-answer results, one per distinct label name.
	Parts []grade.SubAnswer
	// Answered is false when the question has no non-empty response: the
	// script then leaves it out of every figure, denominators included.
	Answered bool
	// Limited is true when a limit of agent mode ended the question. The
	// script does not know limits: a limit-stopped question with a
	// non-empty response is scored as any other. strictABQ counts it wrong.
	Limited bool
}

// strictABQ is ABQ over every question, the figure eval_closed_form.py's
// would be if it did not skip empty responses: a question without a
// response, or one a limit ended, counts as wrong. It returns the figure
// and how many questions it is over.
func strictABQ(qs []scoredQuestion) (rateFigure, int) {
	right := 0
	for _, q := range qs {
		if !q.Answered || q.Limited {
			continue
		}
		all := true
		for _, p := range q.Parts {
			all = all && p.Correct
		}
		if all {
			right++
		}
	}
	return rateOf(float64(right), len(qs)), len(qs)
}

// rateFigure is one figure of the report. Where the script divides by
// nothing it prints the integer 0 (Int set); otherwise a share rounded to
// four places with Python's round, printed as Python prints a float.
type rateFigure struct {
	Value float64
	Int   bool
}

// MarshalJSON writes the figure as Python's json.dump does: 0 for the
// integer, else the float's repr (1.0, 0.7519).
func (r rateFigure) MarshalJSON() ([]byte, error) {
	if r.Int {
		return []byte(strconv.Itoa(int(r.Value))), nil
	}
	return []byte(py.Repr(r.Value)), nil
}

// namedRate is one row of a per-concept or per-count table.
type namedRate struct {
	Name string
	Rate rateFigure
}

// scriptReport is what eval_closed_form.py writes to
// eval_outputs/<responses>_evaluation_analysis.json. Tables keep the
// script's order: first appearance among the scored questions.
type scriptReport struct {
	// ABQ is "Accuracy by Question": the share of questions whose every
	// sub-answer is right.
	ABQ rateFigure
	// PSAQ is "Accuracy Proportional by Sub-Question": the mean over
	// questions of the share of their sub-answers that are right.
	PSAQ rateFigure
	// UASQ is "Accuracy by Sub-Question": right sub-answers over all
	// sub-answers.
	UASQ rateFigure
	// Concepts is ABQ per concept.
	Concepts []namedRate
	// ConceptCounts is ABQ by number of concepts ("1", "2", ...).
	ConceptCounts []namedRate
	// TwoOrMore is ABQ over questions with two or more concepts; nil (JSON
	// null) when there are none.
	TwoOrMore *rateFigure
	// Scored is how many questions entered the figures.
	Scored int
}

// scriptMetrics computes the script's figures from graded questions.
func scriptMetrics(qs []scoredQuestion) scriptReport {
	var (
		rep      scriptReport
		allRight int
		subRight int
		subTotal int
		propSum  float64
		concept  orderedTally[string]
		count    orderedTally[int]
		two      rightOf
	)
	for _, q := range qs {
		if !q.Answered {
			continue
		}
		rep.Scored++
		right := 0
		for _, p := range q.Parts {
			if p.Correct {
				right++
			}
		}
		all := right == len(q.Parts) // Python's all(): true when empty
		if all {
			allRight++
		}
		subRight += right
		subTotal += len(q.Parts)
		if len(q.Parts) > 0 {
			// sum(correctness) * (1 / n), in the script's order of operations.
			propSum += float64(right) * (1 / float64(len(q.Parts)))
		}
		if q.Concepts == nil {
			continue
		}
		for _, c := range q.Concepts {
			concept.add(c, all)
		}
		n := len(q.Concepts)
		count.add(n, all)
		if n >= 2 {
			two.add(all)
		}
	}
	rep.ABQ = rateOf(float64(allRight), rep.Scored)
	rep.UASQ = rateOf(float64(subRight), subTotal)
	rep.PSAQ = rateOf(propSum, rep.Scored)
	for _, c := range concept.order {
		rep.Concepts = append(rep.Concepts, concept.of[c].rate(c))
	}
	for _, n := range count.order {
		rep.ConceptCounts = append(rep.ConceptCounts, count.of[n].rate(strconv.Itoa(n)))
	}
	if two.total > 0 {
		r := rateOf(float64(two.correct), two.total)
		rep.TwoOrMore = &r
	}
	return rep
}

// rateOf is a figure of the script: num/den rounded to 4 places, or the
// integer 0 when den is 0.
func rateOf(num float64, den int) rateFigure {
	if den == 0 {
		return rateFigure{Int: true}
	}
	return rateFigure{Value: round4(num / float64(den))}
}

// rightOf counts questions, and those all right.
type rightOf struct{ correct, total int }

func (t *rightOf) add(all bool) {
	t.total++
	if all {
		t.correct++
	}
}

// rate is the share all right, named.
func (t *rightOf) rate(name string) namedRate {
	return namedRate{name, rateOf(float64(t.correct), t.total)}
}

// orderedTally counts questions by a key (a concept, a number of
// concepts), keys in order of first use, as the script's dicts keep them.
type orderedTally[K comparable] struct {
	order []K
	of    map[K]*rightOf
}

func (o *orderedTally[K]) add(k K, all bool) {
	t := o.of[k]
	if t == nil {
		if o.of == nil {
			o.of = map[K]*rightOf{}
		}
		t = &rightOf{}
		o.of[k] = t
		o.order = append(o.order, k)
	}
	t.add(all)
}

// MarshalJSON writes the report with the script's keys and order.
func (r scriptReport) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	table := func(rows []namedRate) error {
		b.WriteByte('{')
		for i, row := range rows {
			if i > 0 {
				b.WriteString(", ")
			}
			k, err := json.Marshal(row.Name)
			if err != nil {
				return err
			}
			v, _ := row.Rate.MarshalJSON()
			b.Write(k)
			b.WriteString(": ")
			b.Write(v)
		}
		b.WriteByte('}')
		return nil
	}
	abq, _ := r.ABQ.MarshalJSON()
	psaq, _ := r.PSAQ.MarshalJSON()
	uasq, _ := r.UASQ.MarshalJSON()
	b.WriteString(`{"main_results": {"Accuracy by Question": `)
	b.Write(abq)
	b.WriteString(`, "Accuracy Proportional by Sub-Question": `)
	b.Write(psaq)
	b.WriteString(`, "Accuracy by Sub-Question": `)
	b.Write(uasq)
	b.WriteString(`}, "concept_accuracy_analysis": `)
	if err := table(r.Concepts); err != nil {
		return nil, err
	}
	b.WriteString(`, "concept_count_accuracy_analysis": `)
	if err := table(r.ConceptCounts); err != nil {
		return nil, err
	}
	b.WriteString(`, "two_or_more_concepts_accuracy": `)
	if r.TwoOrMore == nil {
		b.WriteString("null")
	} else {
		v, _ := r.TwoOrMore.MarshalJSON()
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// round4 is Python's round(x, 4): the decimal nearest the exact
// binary value, ties to even, which strconv's correctly rounded formatting
// gives.
func round4(x float64) float64 {
	f, err := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 4, 64), 64)
	if err != nil {
		return x
	}
	return f
}
