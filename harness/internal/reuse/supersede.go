package reuse

import (
	"maps"
	"reflect"

	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/result"
)

// An answer is one sample however many files carry it (result.Sample).
// After a rerun, then, an earlier output of the same sheet and model may
// hold nothing the new one does not: every answer it has to a question as
// the sheet is now is in the new output too, reused. It is superseded: the
// run moves it aside, into the result.Superseded folder beside it, where
// it stays readable as history and no reader of the folder counts it
// (Supersedes). And a rerun that would write what an earlier output holds
// already, the same answers graded alike, writes nothing: that output is
// current (Repeats). Both compare Outlines, which a run of a million
// questions holds in a few dozen bytes a question.

// Repeats returns the newest earlier output that f, the Outline of a
// run's output answered and graded, would only repeat: of the same model
// and settings, epoch, subset, shard and version of the sheet, and
// question by question the same sample (every answer reused), meta,
// texts, grader, grade and grading mode. A nil f (an output with no
// earlier one) repeats none.
func Repeats(f *Outline, earlier []Earlier) (Earlier, bool) {
	if f == nil {
		return Earlier{}, false
	}
	for i := len(earlier) - 1; i >= 0; i-- {
		if e := earlier[i]; sameRun(&e.File.Sheet, f.Sheet) && sameAnswers(e.Outline, f) {
			return e, true
		}
	}
	return Earlier{}, false
}

// sameRun says whether two outputs' sheet parts are alike but for their
// run: its id, time, totals and connection limits.
func sameRun(a, b *result.Sheet) bool {
	ae, an := a.EpochOf()
	be, bn := b.EpochOf()
	return a.Name == b.Name && a.ModelLabel() == b.ModelLabel() && ae == be && an == bn && !a.DryRun && !b.DryRun &&
		a.Version != "" && a.Version == b.Version && maps.Equal(a.MetaData, b.MetaData) && eqString(a.Question, b.Question) &&
		reflect.DeepEqual(a.Subset, b.Subset) && a.Shard == b.Shard && a.Shards == b.Shards && reflect.DeepEqual(a.Settings, b.Settings)
}

// sameAnswers says whether a and b hold the same samples, question by
// question, asked and graded alike. The samples' occurrences need no
// comparing: the names are the same in the same order.
func sameAnswers(a, b *Outline) bool {
	if len(a.qs) != len(b.qs) {
		return false
	}
	for i := range a.qs {
		p, q := &a.qs[i], &b.qs[i]
		if !p.keyed || p.sample != q.sample || p.asked != q.asked {
			return false
		}
	}
	return true
}

// Supersedes says whether f, the Outline of a run's output just written,
// supersedes the earlier output e: e is another file, of the same model
// and configuration (sameConfiguration) and the same epoch, and each answer e holds (a question
// with a request key, answered) is carried by f (the same sample) or is
// an answer to a question that is no longer as it was: f holds the
// question under its name with another text or ground truth, or f is of
// the whole sheet (no subset, no shard's part) and does not hold it at all
// (it was removed or renamed). An error, or a question the model had no answer to, is
// superseded by f's asking the question again; one f does not hold keeps
// e where it is (a subset's failed run, to be resumed). An answer f does
// not carry to a question f holds as it was (run --fresh) is another
// sample: e stays. A question is as it was when its text, ground truth
// and the settings sent with it are: a setting the sheet's meta changed
// makes each question it steers another. So does every file with a
// question without a request key (LIME's, evalmd's before keys): which
// run asked it cannot be told; and a shard's part but for the same shard's
// part of an earlier run split alike (keptPart).
func Supersedes(f *Outline, e Earlier) bool {
	es := &e.File.Sheet
	ek, _ := es.EpochOf()
	fk, _ := f.Sheet.EpochOf()
	if sameFile(f.Path, e.Path) || es.DryRun || es.Name != f.Sheet.Name || ek != fk ||
		es.ModelLabel() != f.Sheet.ModelLabel() || !sameConfiguration(es, f.Sheet) ||
		keptPart(es, f.Sheet) {
		return false
	}
	carried, now := f.sets()
	whole := f.Sheet.Subset == nil && f.Sheet.Shards == 0 // every question of the sheet
	occ := occurrences(e.Outline.qs)
	for i := range e.Outline.qs {
		q := &e.Outline.qs[i]
		if !q.keyed {
			return false
		}
		if has(carried, q.sample.with(occ[i])) {
			continue
		}
		text, ok := textAt(now, q.name.with(occ[i]))
		if !ok && !whole || ok && q.answered && text == q.text {
			return false
		}
	}
	return true
}

// keptPart says whether e is a shard's part (run --shard) that f may not
// supersede: a part goes only as a part, for the same shard's part of a
// later run split alike, or for a whole output. Another shard's part of
// f's own run is a part of the one file they make, also when it holds no
// question; a part of a run split otherwise has its questions spread over
// several of f's parts, none of which carries them all.
func keptPart(e, f *result.Sheet) bool {
	if e.Shards == 0 || f.Shards == 0 {
		return false
	}
	return e.RunID == f.RunID || e.Shards != f.Shards || e.Shard != f.Shard
}

// sameConfiguration says whether two outputs' runs are of one
// configuration: the settings their flags and config files gave
// (Configuration). A setting the sheet's meta holds is not one: a run after
// it changed supersedes the runs before, as one after a text changed.
func sameConfiguration(a, b *result.Sheet) bool {
	var ac, bc model.Settings
	if a.Configuration != nil {
		ac = *a.Configuration
	}
	if b.Configuration != nil {
		bc = *b.Configuration
	}
	return ac.Equal(bc)
}

func eqString(a, b *string) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }
