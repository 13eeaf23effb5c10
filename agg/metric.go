package agg

import (
	"fmt"

	"github.com/evalmd/evalmd/agg/load"
	"github.com/evalmd/evalmd/agg/render"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// Metric is one benchmark's own figures, which a benchmark package offers
// (agg knows no benchmark by name). agg gives it the questions of every
// output file whose "benchmark" meta names it, and prints its tables after
// its own.
type Metric interface {
	// Benchmark is the "benchmark" meta value of the files it reads (the
	// one its converter writes), compared without regard to case.
	Benchmark() string
	// MetaKeys lists the question meta keys it reads; only these are kept.
	MetaKeys() []string
	// Tables returns its report sections for the questions, which come in
	// the order the files were read (by file name), each file's in order.
	Tables(qs []Question) []render.Table
}

// ChartMetric is a Metric that also draws charts when agg writes them.
type ChartMetric interface {
	Metric
	Charts(qs []Question) ([]Plot, error)
}

// Plot is a chart a ChartMetric draws; agg writes it as SVG.
type Plot struct {
	Title         string // the chart's link text in the report
	Name          string // the file is <report>-<Name>.svg
	Plot          *plot.Plot
	Width, Height vg.Length
}

// Question is what a Metric sees of one question of one output file.
type Question struct {
	Sheet, Model, RunID, Name string
	// Epoch is the question's epoch in its run (1..N; 1 for a run of one
	// epoch). Unit numbers the question the way its epochs and other runs
	// share it (its sheet, its name and which question of that name in its
	// file it is): the answers of one model with one Unit are one
	// question asked several times, whose mean is the unit of MeanCI.
	Epoch, Unit int
	// Grade is nil when the question was not graded.
	Grade *bool
	// Errored: the model call failed. Unanswered: the model had no answer
	// for it (a replay file without it). Responded: the completion is
	// non-empty.
	Errored, Unanswered, Responded bool
	// Limited: a limit of agent mode (max_turns, question_timeout,
	// token_budget, ...) ended the question (the output's "limit").
	Limited bool
	// SubAnswers and SubCorrect count the grader's sub-answers and the
	// correct ones (DABench's @name[value] pairs).
	SubAnswers, SubCorrect int
	// Meta holds the values of the metric's MetaKeys the question has.
	Meta map[string]string
}

// metricQuestions returns the questions of metric i (0-based), in row order.
func (d *Data) metricQuestions(i int) []Question {
	var qs []Question
	keys := d.metrics[i].MetaKeys()
	units, _ := d.unitIndex()
	for j := range d.Rows() {
		r := &d.Rows()[j]
		if int(r.Metric) != i+1 {
			continue
		}
		q := Question{Sheet: d.Str(r.Sheet), Model: d.Str(r.Model), RunID: d.Str(r.Run),
			Epoch: int(r.Epoch), Unit: int(units[j]),
			Name: d.Str(r.Name), Errored: r.Errored, Unanswered: r.Unanswered, Responded: !r.NoResponse, Limited: r.Limited,
			SubAnswers: int(r.SubTotal), SubCorrect: int(r.SubCorrect)}
		switch r.Grade {
		case load.GradeTrue:
			t := true
			q.Grade = &t
		case load.GradeFalse:
			f := false
			q.Grade = &f
		}
		meta := d.Meta(r)
		for k, key := range keys {
			if v := meta[k]; v != load.NoStr {
				if q.Meta == nil {
					q.Meta = map[string]string{}
				}
				q.Meta[key] = d.Str(v)
			}
		}
		qs = append(qs, q)
	}
	return qs
}

// metricTables returns the tables of every metric that has questions.
func (d *Data) metricTables() []render.Table {
	var out []render.Table
	for i, m := range d.metrics {
		if qs := d.metricQuestions(i); len(qs) > 0 {
			out = append(out, m.Tables(qs)...)
		}
	}
	return out
}

// metricPlots returns the charts of every ChartMetric that has questions.
func (d *Data) metricPlots() ([]Plot, error) {
	var out []Plot
	for i, m := range d.metrics {
		cm, ok := m.(ChartMetric)
		if !ok {
			continue
		}
		qs := d.metricQuestions(i)
		if len(qs) == 0 {
			continue
		}
		ps, err := cm.Charts(qs)
		if err != nil {
			return nil, fmt.Errorf("agg: %s chart: %w", m.Benchmark(), err)
		}
		out = append(out, ps...)
	}
	return out, nil
}
