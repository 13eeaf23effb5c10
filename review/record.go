package review

import (
	"cmp"
	"context"
	"errors"
	"os/user"
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
	return apply(ctx, a.Files, seal)
}

// applyAttempts bounds how often apply rewrites a file another reviewer
// rewrote meanwhile.
const applyAttempts = 20

// apply applies the verdicts to the output files, again for a file
// another process rewrote between its read and its write (a second
// reviewer applying a verdict of their own): each pass reads the
// verdicts anew, so both reviewers' verdicts end in the file.
func apply(ctx context.Context, files []string, seal *outfile.Key) (regrade.Report, error) {
	opt := regrade.Options{Write: true, VerdictsOnly: true, Seal: seal}
	rep, err := regrade.Regrade(ctx, files, opt)
	for range applyAttempts {
		var again []string
		for _, fr := range rep.Files {
			if errors.Is(fr.Err, outfile.ErrChanged) {
				again = append(again, fr.Path)
			}
		}
		if len(again) == 0 || ctx.Err() != nil {
			break
		}
		if rep, err = regrade.Regrade(ctx, again, opt); err == nil {
			break
		}
	}
	return rep, err
}

// Reviewer is who decides when no one is named: $EVALMD_REVIEWER, else
// $USER, else the login name of the process's user, else "someone".
func Reviewer(getenv func(string) string) string {
	name := cmp.Or(getenv("EVALMD_REVIEWER"), getenv("USER"))
	if name == "" {
		if u, err := user.Current(); err == nil {
			name = u.Username
		}
	}
	return cmp.Or(name, "someone")
}
