// Package reviewcmd is evalmd review: a person reads answers and says
// which are right, one answer at a time on a terminal (keys y, n, a, s,
// b, q: the screen is screen.go, the keys session.go), or one chosen by
// flags; where stdin or stdout is no terminal, or with --list, it lists
// the answers it would show. A verdict lasts (package verdict): it is
// written beside the outputs and outranks every grader wherever its
// answer is graded.
//
//	evalmd review -i RESULTS [-q GLOB] [-m MODEL] [--only SUBSET] [--list]
//	evalmd review -i RESULTS -q QUESTION [-m MODEL] --right|--wrong|--accept [--reason TEXT]
package reviewcmd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"strings"
	"syscall"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/config"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/regrade"
	"github.com/evalmd/evalmd/review"
	"github.com/evalmd/evalmd/verdict"
)

// multi collects a repeatable flag.
type multi []string

func (m *multi) String() string { return strings.Join(*m, ",") }
func (m *multi) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*m = append(*m, v)
		}
	}
	return nil
}

// flags are review's flags.
type flags struct {
	inputs, questions, models multi
	only                      string
	right, wrong, accept      bool
	list                      bool
	reason, by                string
}

func (f *flags) bind(fs *flag.FlagSet) {
	fs.Var(&f.inputs, "i", "output file or folder of results to review (repeatable)")
	fs.Var(&f.questions, "q", "review only the questions whose name or id matches this glob (repeatable, or comma-separated)")
	fs.Var(&f.questions, "questions", "the same as -q")
	fs.Var(&f.models, "m", "review only the answers of the models matching this glob (repeatable, or comma-separated)")
	fs.StringVar(&f.only, "only", "", "review only the answers that are "+strings.Join(review.Only, "|"))
	fs.BoolVar(&f.right, "right", false, "the chosen answer is right: record it without asking")
	fs.BoolVar(&f.wrong, "wrong", false, "the chosen answer is wrong: record it without asking")
	fs.BoolVar(&f.accept, "accept", false, "the chosen answer is right, and one of its question's accepted answers: add it to the sheet the run read, and record it, without asking")
	fs.BoolVar(&f.list, "list", false, "list the chosen answers, one a line, even on a terminal")
	fs.StringVar(&f.reason, "reason", "", "why, recorded with the verdict")
	fs.StringVar(&f.by, "by", "", "who decides (default: $EVALMD_REVIEWER, else $USER, else your login name)")
}

// Command is review's entry in the command table; look says where the
// machine's key is (outputs sealed here stay sealed as rewritten), getenv
// names the reviewer, console gives the person's terminal (nil: never
// one, review lists).
func Command(look config.Lookup, getenv func(string) string, console Console) *cli.Command {
	fs := flag.NewFlagSet("review", flag.ContinueOnError)
	var f flags
	f.bind(fs)
	return &cli.Command{
		Name:  "review",
		Usage: "-i RESULTS [-q GLOB] [-m MODEL] [--only SUBSET] [--list | --right|--wrong|--accept [--reason TEXT]]",
		Short: "Say which answers are right: a person's verdict outranks every grader, and lasts.",
		Flags: fs,
		Run: func(ctx context.Context, stdout, stderr io.Writer, args []string) error {
			f.inputs = append(f.inputs, args...)
			if len(f.inputs) == 0 {
				return cli.Usagef("name the results to review with -i")
			}
			if said := f.verdictFlags(); len(said) > 1 {
				return cli.Usagef("%s: say one", strings.Join(said, " and "))
			}
			if f.by == "" {
				f.by = review.Reviewer(getenv)
			}
			flt := review.Filter{Questions: f.questions, Models: f.models, Only: f.only}
			if err := flt.Check(); err != nil {
				return cli.Usagef("%v", err)
			}
			q, err := review.Load(f.inputs, flt)
			if err != nil {
				return err
			}
			for _, err := range q.Bad {
				fmt.Fprintf(stderr, "warning: %v\n", err)
			}
			if f.right || f.wrong || f.accept {
				return decide(ctx, stdout, q, &f, look)
			}
			if console != nil && !f.list && len(q.Answers) > 0 {
				if t, ok := console(stdout); ok {
					return walk(ctx, t, q, f.by, sealOf(look))
				}
			}
			list(stdout, q)
			return nil
		},
	}
}

// verdictFlags are the flags given of those that say what to do with
// the answers: one at most.
func (f *flags) verdictFlags() []string {
	var said []string
	for _, fl := range []struct {
		name string
		on   bool
	}{{"--list", f.list}, {"--right", f.right}, {"--wrong", f.wrong}, {"--accept", f.accept}} {
		if fl.on {
			said = append(said, fl.name)
		}
	}
	return said
}

// decide records the verdict flags give on the one answer chosen.
func decide(ctx context.Context, stdout io.Writer, q *review.Queue, f *flags, look config.Lookup) error {
	switch n := len(q.Answers); {
	case n == 0:
		return fmt.Errorf("no answer of %d matches -q %s -m %s", q.Total, f.questions.String(), f.models.String())
	case n > 1:
		var names []string
		for _, a := range q.Answers[:min(n, 5)] {
			names = append(names, a.Label())
		}
		return cli.Usagef("%d answers match (%s%s): narrow with -q and -m", n, strings.Join(names, "; "), more(n, 5))
	}
	a := q.Answers[0]
	d := review.Decision{Right: f.right || f.accept, By: f.by, Reason: f.reason}
	accepted, rep, err := record(ctx, a, d, f.accept, sealOf(look))
	if err != nil {
		return err
	}
	wrote := 0
	for _, fr := range rep.Files {
		if fr.GradePath != "" {
			wrote++
		}
	}
	fmt.Fprintf(stdout, "%s: %s by %s's verdict%s (the grader said %s); %d of %d output files rewritten\n",
		a.Label(), verdict.GradeWord(&d.Right), f.by, accepted, verdict.GradeWord(a.Grader), wrote, len(a.Files))
	return nil
}

// record makes d the verdict on a; accept adds the answer to its
// question's accepted answers first, and accepted says in which sheet.
func record(ctx context.Context, a *review.Answer, d review.Decision, accept bool, seal *outfile.Key) (accepted string, rep regrade.Report, err error) {
	if !accept {
		rep, err = review.Record(ctx, a, d, seal)
		return "", rep, err
	}
	path, rep, err := review.Accept(ctx, a, d, seal)
	if err != nil {
		return "", rep, err
	}
	return ", its answer accepted in " + path, rep, nil
}

// sealOf is the machine's key, or nil: the outputs rewritten then stay
// unsealed, and a rerun asks their questions again.
func sealOf(look config.Lookup) *outfile.Key {
	seal, err := look.Key()
	if err != nil {
		return nil
	}
	return seal
}

// walk reviews q's answers on t, then says what else there is to know.
// A kill (SIGTERM) or the terminal's hangup ends the review as Ctrl-C
// does, the terminal restored.
func walk(ctx context.Context, t *Terminal, q *review.Queue, by string, seal *outfile.Key) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	decide := func(ctx context.Context, a *review.Answer, d review.Decision, accept bool) (string, error) {
		accepted, _, err := record(ctx, a, d, accept, seal)
		return accepted, err
	}
	err := interactive(ctx, t, q.Answers, by, true, decide)
	if n := len(q.Stale); n > 0 {
		fmt.Fprintf(t.Out, "%s; review --list names them\n", plural(n, "stale verdict"))
	}
	return err
}

func more(n, shown int) string {
	if n > shown {
		return fmt.Sprintf("; %d more", n-shown)
	}
	return ""
}

// list prints the chosen answers, one a line, and the stale verdicts.
func list(w io.Writer, q *review.Queue) {
	for i, a := range q.Answers {
		said := ""
		if a.Graded != nil {
			said = oneLine(*a.Graded, 60)
		}
		grade := verdict.GradeWord(a.Grader) + " (grader)"
		if a.Verdict != nil {
			grade = fmt.Sprintf("%s (%s; the grader said %s)", verdict.GradeWord(&a.Verdict.Right), a.Verdict.By, verdict.GradeWord(a.Grader))
		}
		fmt.Fprintf(w, "%d/%d %s: %s  %q\n", i+1, len(q.Answers), a.Label(), grade, said)
	}
	fmt.Fprintf(w, "%d of %d answers chosen", len(q.Answers), q.Total)
	if n := len(q.Stale); n > 0 {
		fmt.Fprintf(w, "; %d stale verdicts", n)
	}
	fmt.Fprintln(w)
	for _, s := range q.Stale {
		fmt.Fprintln(w, s)
	}
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
