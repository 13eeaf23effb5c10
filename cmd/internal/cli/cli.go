// Package cli is the command line that every evalmd command shares.
//
// It holds a small command table (a usage line, one flag set and a Run
// function per command or subcommand), the flags several commands take,
// and the exit statuses:
//
//   - 0: done; -h prints the synopsis and the flags on stdout.
//   - 1: could not run; the error is one line on stderr.
//   - 2: a usage error; the error once, then the usage line.
//   - 3: finished, but some questions failed or could not be graded
//     (a *PartialError, whose count goes to stderr).
//   - 4: finished, and a gate failed: agg's comparison with a baseline
//     found a model significantly worse, or under a floor (a *GateError).
//   - 5: stopped at its spending cap (run --max-cost): the answers are
//     written, some questions were not asked (an error whose
//     BudgetReached says so: the runner's *BudgetError).
package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/evalmd/evalmd/internal/grace"
	"github.com/evalmd/evalmd/internal/visible"
)

// Command is a command, or a subcommand of one (convert's).
type Command struct {
	// Name is what is typed: "run", or "workbook" under "convert".
	Name string
	// Aliases are other names typed for it ("eval" for evalmd's run).
	Aliases []string
	// Usage is the synopsis after the name, as in
	// "-f SHEET | -d DIR -m MODEL[,MODEL...] [flags]".
	Usage string
	// Short says in one line what the command does.
	Short string
	// Flags are the command's own flags; nil for none. Make a new
	// Command (and flag set) for every Execute, so that flag values never
	// outlive one run.
	Flags *flag.FlagSet
	// Run does the work with the arguments left after the flags. A
	// command with subcommands has no Run.
	Run func(ctx context.Context, stdout, stderr io.Writer, args []string) error
	// Commands are the subcommands, chosen by the first argument.
	Commands []*Command
	// Topics are help texts that are not commands ("NAME help settings"),
	// as go help has; only a command with subcommands lists them.
	Topics []Topic
}

// Topic is a help text: "help NAME" prints Text(), made when asked so that
// a table generated from declarations costs nothing otherwise.
type Topic struct {
	Name  string
	Short string
	Text  func() string
}

// UsageError is a command line the command cannot run (exit status 2).
type UsageError struct {
	Msg   string
	usage string // "usage: NAME USAGE", filled in by Execute
	name  string // the command as typed ("evalmd run"), filled in by Execute
}

func (e *UsageError) Error() string { return e.Msg }

// Usagef makes a usage error: a command line that cannot run as given.
func Usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// PartialError is what a command returns when it finished but some
// questions failed or could not be graded (exit status 3).
type PartialError struct {
	Failed int    // questions that failed or could not be graded
	Total  int    // questions in all; 0 when unknown
	What   string // what happened to them; "failed or could not be graded" when empty
}

func (e *PartialError) Error() string {
	what := e.What
	if what == "" {
		what = "failed or could not be graded"
	}
	noun := "questions"
	if e.Failed == 1 && e.Total <= 1 {
		noun = "question"
	}
	if e.Total > 0 {
		return fmt.Sprintf("%d of %d %s %s", e.Failed, e.Total, noun, what)
	}
	return fmt.Sprintf("%d %s %s", e.Failed, noun, what)
}

// GateError is what agg returns when its gate failed (exit status 4): the
// reports were written, and a model got significantly worse than the
// baseline (--fail-on regression) or its accuracy fell under the floor
// (--fail-under).
type GateError struct {
	Reasons []string // one line each
}

func (e *GateError) Error() string {
	return "gate failed: " + strings.Join(e.Reasons, "; ")
}

// ErrHelp is returned by Execute after -h printed the help.
var ErrHelp = flag.ErrHelp

// ExitCode is the exit status for what Execute returned.
func ExitCode(err error) int {
	var ue *UsageError
	var pe *PartialError
	var pf partial
	var ge *GateError
	var br budgetReached
	switch {
	case err == nil, errors.Is(err, ErrHelp):
		return 0
	case errors.As(err, &ue):
		return 2
	case errors.As(err, &ge):
		return 4
	case errors.As(err, &br) && br.BudgetReached():
		return 5
	case errors.As(err, &pe), errors.As(err, &pf) && pf.Partial():
		return 3
	}
	return 1
}

// budgetReached is implemented by the runner's error of a run stopped at
// its spending cap: exit status 5.
type budgetReached interface {
	error
	BudgetReached() bool
}

// partial is implemented by the errors of library packages (harness,
// regrade) that mean "finished, but some questions failed or could not be
// graded": exit status 3, without those packages knowing the command line.
type partial interface {
	error
	Partial() bool
}

// Execute runs cmd with args (the process's arguments after its name).
// -h, -help and --help print the help on stdout and return ErrHelp; a flag
// or argument the command cannot take is a *UsageError.
func Execute(ctx context.Context, stdout, stderr io.Writer, cmd *Command, args []string) error {
	return execute(ctx, stdout, stderr, cmd, cmd.Name, args)
}

func execute(ctx context.Context, stdout, stderr io.Writer, cmd *Command, name string, args []string) error {
	if len(cmd.Commands) > 0 {
		if len(args) == 0 {
			return withUsage(Usagef("missing command"), name, cmd)
		}
		switch args[0] {
		case "-h", "-help", "--help":
			printHelp(stdout, name, cmd)
			return ErrHelp
		case "help": // help [TOPIC...]: the help of a command, or of this one
			if len(args) == 2 {
				for _, t := range cmd.Topics {
					if t.Name == args[1] {
						_, err := io.WriteString(stdout, t.Text())
						if err != nil {
							return err
						}
						return ErrHelp
					}
				}
			}
			for _, topic := range args[1:] {
				sub := cmd.lookup(topic)
				if sub == nil {
					return unknown(topic, name, cmd)
				}
				cmd, name = sub, name+" "+topic
				if len(sub.Commands) == 0 {
					break
				}
			}
			printHelp(stdout, name, cmd)
			return ErrHelp
		}
		if sub := cmd.lookup(args[0]); sub != nil {
			return execute(ctx, stdout, stderr, sub, name+" "+args[0], args[1:])
		}
		return unknown(args[0], name, cmd)
	}
	fs := cmd.Flags
	if fs == nil {
		fs = flag.NewFlagSet(name, flag.ContinueOnError)
	}
	// The flag package would print its error and the defaults itself; here
	// the error is returned once, and -h prints on stdout.
	fs.Init(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printHelp(stdout, name, cmd)
			return ErrHelp
		}
		return withUsage(Usagef("%v", err), name, cmd)
	}
	err := cmd.Run(ctx, stdout, stderr, fs.Args())
	var ue *UsageError
	if errors.As(err, &ue) && ue.usage == "" {
		ue.usage = usageLine(name, cmd)
		ue.name = name
	}
	if err != nil && !errors.Is(err, ErrHelp) {
		err = &namedError{name: name, err: err}
	}
	return err
}

// namedError carries the command as typed ("evalmd run", "convert
// dsbench") to Report, which names it; the message is the error's own.
type namedError struct {
	name string
	err  error
}

func (e *namedError) Error() string { return e.err.Error() }
func (e *namedError) Unwrap() error { return e.err }

func withUsage(err error, name string, cmd *Command) error {
	err.(*UsageError).usage = usageLine(name, cmd)
	err.(*UsageError).name = name
	return err
}

// lookup is the subcommand typed as name (its name or an alias), or nil.
func (c *Command) lookup(name string) *Command {
	for _, sub := range c.Commands {
		if sub.Name == name || slices.Contains(sub.Aliases, name) {
			return sub
		}
	}
	return nil
}

// unknown is the one-line usage error for a command name that is not one
// of cmd's: it names the nearest (a typo) and how to list them.
func unknown(typed, name string, cmd *Command) error {
	hint := ""
	if near := nearest(typed, cmd); near != "" {
		hint = fmt.Sprintf(" (did you mean %q?)", near)
	}
	return &UsageError{Msg: fmt.Sprintf("unknown command %q%s; \"%s -h\" lists the commands", typed, hint, name), name: name}
}

// nearest is the subcommand name (or alias) closest to typed, or "" when
// none is close: a typo (one edit in a short name, two in a longer one,
// fewer than typed has letters) or a prefix of two letters or more.
func nearest(typed string, cmd *Command) string {
	best, bestDist := "", 1
	if len(typed) > 4 {
		bestDist = 2
	}
	bestDist = min(bestDist, len(typed)-1) + 1
	for _, sub := range cmd.Commands {
		for _, n := range append([]string{sub.Name}, sub.Aliases...) {
			d := editDistance(typed, n)
			if len(typed) >= 2 && strings.HasPrefix(n, typed) {
				d = min(d, 1)
			}
			if d < bestDist {
				best, bestDist = n, d
			}
		}
	}
	return best
}

// editDistance is the optimal string alignment distance of a and b, by
// bytes: insertions, deletions, substitutions and transpositions of two
// neighbours ("rnu" is one edit from "run").
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

func usageLine(name string, cmd *Command) string {
	if cmd.Usage == "" {
		return "usage: " + name
	}
	return "usage: " + name + " " + cmd.Usage
}

// printHelp writes the synopsis, what the command does, and its flags or
// subcommands.
func printHelp(w io.Writer, name string, cmd *Command) {
	fmt.Fprintln(w, usageLine(name, cmd))
	if cmd.Short != "" {
		fmt.Fprintf(w, "\n%s\n", cmd.Short)
	}
	if len(cmd.Commands) > 0 {
		// One line a command, so that the list fits a screen; a command's
		// own -h gives its synopsis and flags.
		fmt.Fprintf(w, "\ncommands:\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, sub := range cmd.Commands {
			typed := sub.Name
			if len(sub.Aliases) > 0 {
				typed += ", " + strings.Join(sub.Aliases, ", ")
			}
			fmt.Fprintf(tw, "  %s\t%s\n", typed, cmp.Or(sub.Short, sub.Usage))
		}
		tw.Flush()
		fmt.Fprintf(w, "\n\"%s help COMMAND\" or \"%s COMMAND -h\" prints a command's synopsis and flags.\n", name, name)
		if len(cmd.Topics) > 0 {
			fmt.Fprintf(w, "\nhelp topics (\"%s help TOPIC\"):\n", name)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			for _, t := range cmd.Topics {
				fmt.Fprintf(tw, "  %s\t%s\n", t.Name, t.Short)
			}
			tw.Flush()
		}
		return
	}
	if cmd.Flags != nil {
		has := false
		cmd.Flags.VisitAll(func(*flag.Flag) { has = true })
		if has {
			fmt.Fprintf(w, "\nflags:\n")
			cmd.Flags.SetOutput(w)
			cmd.Flags.PrintDefaults()
			cmd.Flags.SetOutput(io.Discard)
		}
	}
}

// Report writes what err means for the user on stderr and returns the exit
// status: nothing for success or help; a usage error once, then the usage
// line; any other error as one line prefixed with name.
func Report(stderr io.Writer, name string, err error) int {
	code := ExitCode(err)
	if err == nil || errors.Is(err, ErrHelp) {
		return code
	}
	var ne *namedError
	var ue *UsageError
	if errors.As(err, &ne) {
		name = ne.name
	} else if errors.As(err, &ue) && ue.name != "" {
		name = ue.name
	}
	// An error quotes names and paths from files: made visible, so that
	// an escape sequence in one does not drive the terminal.
	msg := visible.Lines(err.Error())
	if !strings.HasPrefix(msg, name+":") {
		msg = name + ": " + msg
	}
	fmt.Fprintln(stderr, msg)
	if errors.As(err, &ue) && ue.usage != "" {
		fmt.Fprintf(stderr, "%s (-h for help)\n", ue.usage)
	}
	return code
}

// IsTerminal says whether w is a terminal (a character device), as
// Python's isatty: what LIME's agg asks before laying tables out for the
// screen. Commands take it as a function so that tests can say yes.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Main runs cmd with the process's arguments and streams and a context
// that the first Ctrl-C ends, and exits with its status.
func Main(cmd *Command) {
	ctx, release := interrupts()
	err := Execute(ctx, os.Stdout, os.Stderr, cmd, os.Args[1:])
	release()
	os.Exit(Report(os.Stderr, cmd.Name, err))
}

// interrupts returns the commands' context, which the first Ctrl-C ends
// gracefully: nothing new starts, and work in flight may finish under
// grace.Finish (a run's requests, so that what is paid for is kept). The
// second Ctrl-C ends that too, and from then on Ctrl-C is no longer
// caught: a third kills the process. release stops listening.
func interrupts() (ctx context.Context, release func()) {
	finish, abort := context.WithCancel(context.Background())
	ctx, stop := context.WithCancel(grace.WithFinish(finish))
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	done := make(chan struct{})
	go func() {
		for _, end := range []func(){stop, abort} {
			select {
			case <-sig:
				end()
			case <-done:
				return
			}
		}
		signal.Reset(os.Interrupt)
	}()
	return ctx, func() {
		signal.Stop(sig)
		close(done)
		stop()
		abort()
	}
}

// GradeFlags are the grading flags run and grade share, bound once here
// (the judge's own flags are bound once by cmd/internal/judgeflag, which needs
// the providers that this package, linked into every command, must not).
type GradeFlags struct {
	Grader string // grader for every question, over the sheet's grader meta
}

// Bind defines the flags on fs.
func (g *GradeFlags) Bind(fs *flag.FlagSet) {
	fs.StringVar(&g.Grader, "grader", "", "grade every question with this grader (over the sheet's grader meta)")
}
