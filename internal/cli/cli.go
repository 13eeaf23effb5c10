// Package cli is the command line of every evalmd command: a small command
// table (a usage line, one flag set and a Run function per command or
// subcommand), the exit statuses, and the flags several commands share.
//
// Exit statuses (../shared/DESIGN.md): 0 done (and -h, which prints the
// synopsis and the flags on stdout); 1 could not run (the error, one line
// on stderr); 2 usage error (the error once, then the usage line); 3
// finished, but some questions failed or could not be graded (a
// *PartialError, whose count goes to stderr).
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/evalmd/evalmd/internal/grace"
)

// Command is a command, or a subcommand of one (convert's).
type Command struct {
	// Name is what is typed: "run", or "workbook" under "convert".
	Name string
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
}

// UsageError is a command line the command cannot run (exit status 2).
type UsageError struct {
	Msg   string
	usage string // "usage: NAME USAGE", filled in by Execute
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

// ErrHelp is returned by Execute after -h printed the help.
var ErrHelp = flag.ErrHelp

// ExitCode is the exit status for what Execute returned.
func ExitCode(err error) int {
	var ue *UsageError
	var pe *PartialError
	var pf partial
	switch {
	case err == nil, errors.Is(err, ErrHelp):
		return 0
	case errors.As(err, &ue):
		return 2
	case errors.As(err, &pe), errors.As(err, &pf) && pf.Partial():
		return 3
	}
	return 1
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
		case "-h", "-help", "--help", "help":
			printHelp(stdout, name, cmd)
			return ErrHelp
		}
		for _, sub := range cmd.Commands {
			if sub.Name == args[0] {
				return execute(ctx, stdout, stderr, sub, name+" "+sub.Name, args[1:])
			}
		}
		return withUsage(Usagef("unknown command %q", args[0]), name, cmd)
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
	}
	return err
}

func withUsage(err error, name string, cmd *Command) error {
	err.(*UsageError).usage = usageLine(name, cmd)
	return err
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
		fmt.Fprintf(w, "\ncommands:\n")
		for _, sub := range cmd.Commands {
			fmt.Fprintf(w, "  %s %s\n", sub.Name, sub.Usage)
			if sub.Short != "" {
				fmt.Fprintf(w, "    \t%s\n", sub.Short)
			}
		}
		fmt.Fprintf(w, "\n\"%s COMMAND -h\" prints a command's flags.\n", name)
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
	msg := err.Error()
	if !strings.HasPrefix(msg, name+":") {
		msg = name + ": " + msg
	}
	fmt.Fprintln(stderr, msg)
	var ue *UsageError
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
// (the judge's own flags are bound once by internal/judgeflag, which needs
// the providers that this package, linked into every command, must not).
type GradeFlags struct {
	Grader string // grader for every question, over the sheet's grader meta
}

// Bind defines the flags on fs.
func (g *GradeFlags) Bind(fs *flag.FlagSet) {
	fs.StringVar(&g.Grader, "grader", "", "grade every question with this grader (over the sheet's grader meta)")
}
