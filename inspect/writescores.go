package inspect

// This file is a log's scores: each sample's, reduced over epochs,
// and the metrics over samples.

import (
	"maps"
	"math"
	"slices"

	"github.com/evalmd/evalmd/result"
)

// finite reports a number JSON can carry (NaN and infinities it cannot).
func finite(p *float64) bool { return p != nil && !math.IsNaN(*p) && !math.IsInf(*p, 0) }

func scorerName(q *result.Question) string {
	if q.Grader != "" {
		return q.Grader
	}
	return scorerDefault
}

// epochsReducer is the reducer of a sample's scores over its epochs, the
// log's config.epochs_reducer: Inspect's default, the mean. Inspect names
// a reducer given in the config in every score and reduction, whatever
// the number of epochs.
const epochsReducer = "mean"

// scoreTally gathers the samples' scores per scorer, in order of first
// use, and per sample id, in order of first score, as Inspect's
// reduce_scores (_eval/task/results.py) groups them.
type scoreTally struct {
	order  []string
	ids    map[string][]SampleID                 // scorer -> sample ids
	scores map[string]map[SampleID][]sampleScore // scorer -> sample id -> its epochs' scores
}

func newScoreTally() *scoreTally {
	return &scoreTally{ids: map[string][]SampleID{}, scores: map[string]map[SampleID][]sampleScore{}}
}

func (t *scoreTally) add(s *evalSample) {
	for _, name := range slices.Sorted(maps.Keys(s.Scores)) {
		if _, ok := t.scores[name]; !ok {
			t.order = append(t.order, name)
			t.scores[name] = map[SampleID][]sampleScore{}
		}
		if _, ok := t.scores[name][s.ID]; !ok {
			t.ids[name] = append(t.ids[name], s.ID)
		}
		t.scores[name][s.ID] = append(t.scores[name][s.ID], s.Scores[name])
	}
}

// reductions is each scorer's score of every sample it scored, the
// sample's epochs reduced by meanScore (as Inspect's
// compute_eval_scores_for_views reduces them); nil when no sample was
// scored, as Inspect writes none without a scorer.
func (t *scoreTally) reductions() []sampleReductions {
	var out []sampleReductions
	for _, name := range t.order {
		r := sampleReductions{Scorer: name, Reducer: epochsReducer}
		for _, id := range t.ids[name] {
			r.Samples = append(r.Samples, reducedScore{sampleScore: meanScore(t.scores[name][id]), SampleID: id})
		}
		out = append(out, r)
	}
	return out
}

// meanScore is Inspect's mean_score reducer (scorer/_reducer/reducer.py)
// of one sample's scores over its epochs: the mean of their values as
// floats (statistics.mean, exact for the 0s and 1s here, as the division
// of their integer sum is), with the answer and explanation when every
// epoch has the same, and the first epoch's metadata (_reduced_score).
func meanScore(epochs []sampleScore) sampleScore {
	sum := 0.0
	for _, s := range epochs {
		sum += valueToFloat(s.Value)
	}
	first := epochs[0]
	r := sampleScore{Value: float(sum / float64(len(epochs))), Answer: first.Answer, Explanation: first.Explanation,
		Metadata: first.Metadata, History: []scoreEdit{}}
	for _, s := range epochs[1:] {
		if !sameText(s.Answer, r.Answer) {
			r.Answer = nil
		}
		if !sameText(s.Explanation, r.Explanation) {
			r.Explanation = nil
		}
	}
	return r
}

func sameText(a, b *string) bool { return a == b || a != nil && b != nil && *a == *b }

// valueToFloat is Inspect's value_to_float (scorer/_metric.py) for the
// values this package writes: "C" is 1, "I" 0, a number itself.
func valueToFloat(v any) float64 {
	switch v := v.(type) {
	case float:
		return float64(v)
	case float64:
		return v
	case string:
		if v == "C" {
			return 1
		}
	}
	return 0
}

// evalScorers are the log's scorers, in the order of its results, each
// with the metrics scoresOf computes, named as Inspect registers them
// (its own accuracy and stderr); nil when nothing was scored.
func (t *scoreTally) evalScorers() []evalScorer {
	var out []evalScorer
	for _, name := range t.order {
		out = append(out, evalScorer{Name: name, Options: map[string]any{}, Metadata: map[string]any{},
			Metrics: []metricDefinition{{Name: "inspect_ai/accuracy", Options: map[string]any{}}, {Name: "inspect_ai/stderr", Options: map[string]any{}}}})
	}
	return out
}

// scoresOf is one EvalScore per reduction, with Inspect's accuracy and
// stderr metrics over its reduced scores (compute_eval_scores).
func scoresOf(reductions []sampleReductions) []evalScore {
	out := []evalScore{}
	for _, r := range reductions {
		vals := make([]float64, len(r.Samples))
		for i, s := range r.Samples {
			vals[i] = valueToFloat(s.Value)
		}
		// Inspect's unscored_samples counts the reduced scores whose value
		// is NaN (its sentinel for "not scored"); these are means of C and
		// I, never NaN. A sample without a score (failed, ungraded) is in
		// neither count, as in Inspect.
		scored, unscored := len(vals), 0
		out = append(out, evalScore{
			Name:            r.Scorer,
			Scorer:          r.Scorer,
			ScoredSamples:   &scored,
			UnscoredSamples: &unscored,
			Reducer:         r.Reducer,
			Params:          map[string]any{},
			Metrics: map[string]evalMetric{
				"accuracy": {Name: "accuracy", Value: float(accuracyMetric(vals)), Params: map[string]any{}},
				"stderr":   {Name: "stderr", Value: float(stderrMetric(vals)), Params: map[string]any{}},
			},
		})
	}
	return out
}

// accuracyMetric is Inspect's accuracy metric
// (scorer/_metrics/accuracy.py): the mean of the values (C = 1, I = 0); 0
// for no values.
func accuracyMetric(vals []float64) float64 {
	if len(vals) == 0 {
		return 0
	}
	sum := 0.0
	for _, v := range vals {
		sum += v
	}
	return sum / float64(len(vals))
}

// stderrMetric is Inspect's stderr metric (scorer/_metrics/std.py): the
// sample standard deviation (ddof=1) over the square root of n, and 0 when
// n < 2.
func stderrMetric(vals []float64) float64 {
	n := len(vals)
	if n < 2 {
		return 0
	}
	mean := accuracyMetric(vals)
	ss := 0.0
	for _, v := range vals {
		d := v - mean
		ss += d * d
	}
	return math.Sqrt(ss/float64(n-1)) / math.Sqrt(float64(n))
}
