package review

import (
	"context"
	"time"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/regrade"
	"github.com/evalmd/evalmd/verdict"
)

// Decision is a person's verdict on an answer, as made.
type Decision struct {
	Right  bool
	By     string
	Reason string
	At     time.Time // zero: now
}

// Record makes d the verdict on a: written into the verdicts file of its
// folder (merged with what another reviewer wrote meanwhile), then applied
// to every output file that carries the answer, their .md and grade files
// with them, grading nothing again (no judge is called). seal, the
// machine's key, keeps an output evalmd sealed here sealed as rewritten.
// The report is of that rewrite.
func Record(ctx context.Context, a *Answer, d Decision, seal *outfile.Key) (regrade.Report, error) {
	at := d.At
	if at.IsZero() {
		at = time.Now()
	}
	v := verdict.Verdict{Key: a.Key, Right: d.Right, By: d.By, At: at.UTC().Truncate(time.Second), Reason: d.Reason, Grader: a.Grader}
	if a.Graded != nil {
		v.Said = *a.Graded
	}
	if err := verdict.Add(ctx, a.Dir, v); err != nil {
		return regrade.Report{}, err
	}
	a.Verdict = &v
	return regrade.Regrade(ctx, a.Files, regrade.Options{Write: true, VerdictsOnly: true, Seal: seal})
}
