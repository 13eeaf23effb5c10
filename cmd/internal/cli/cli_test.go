package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"
)

// toy is a command with a flag, and a parent with two subcommands.
func toy(run func(args []string) error) *Command {
	fs := flag.NewFlagSet("toy", flag.ContinueOnError)
	n := fs.Int("n", 1, "how many")
	return &Command{
		Name: "toy", Usage: "-n N FILE", Short: "Does toy things.", Flags: fs,
		Run: func(ctx context.Context, stdout, stderr io.Writer, args []string) error {
			if *n < 0 {
				return Usagef("-n %d: give 0 or more", *n)
			}
			return run(args)
		},
	}
}

func parent() *Command {
	a := toy(func([]string) error { return nil })
	a.Name = "a"
	a.Aliases = []string{"alpha"}
	b := &Command{Name: "b", Usage: "X", Run: func(_ context.Context, _, _ io.Writer, args []string) error {
		if len(args) > 0 {
			return errors.New("b failed")
		}
		return nil
	}}
	return &Command{Name: "p", Usage: "COMMAND [flags]", Commands: []*Command{a, b}}
}

func TestExecuteAndReport(t *testing.T) {
	failing := func(err error) func([]string) error { return func([]string) error { return err } }
	for _, tc := range []struct {
		name       string
		cmd        *Command
		args       []string
		code       int
		stdout     string // substring of stdout
		stderr     string // substring of stderr ("" : stderr empty)
		stderrOnce string // must appear exactly once on stderr
	}{
		{"done", toy(failing(nil)), []string{"f"}, 0, "", "", ""},
		{"-h", toy(failing(nil)), []string{"-h"}, 0, "usage: toy -n N FILE\n\nDoes toy things.\n\nflags:\n  -n int", "", ""},
		{"--help", toy(failing(nil)), []string{"--help"}, 0, "usage: toy -n N FILE", "", ""},
		{"unknown flag", toy(failing(nil)), []string{"-bogus"}, 2, "", "usage: toy -n N FILE (-h for help)", "flag provided but not defined: -bogus"},
		{"bad flag value", toy(failing(nil)), []string{"-n", "x"}, 2, "", "toy: invalid value \"x\" for flag -n", ""},
		{"usage error from Run", toy(failing(nil)), []string{"-n", "-1"}, 2, "", "toy: -n -1: give 0 or more\nusage: toy -n N FILE", ""},
		{"could not run", toy(failing(errors.New("x.md:3: bad"))), nil, 1, "", "toy: x.md:3: bad\n", ""},
		{"partial", toy(failing(&PartialError{Failed: 2, Total: 7})), nil, 3, "", "toy: 2 of 7 questions failed or could not be graded\n", ""},
		{"partial, one", toy(failing(&PartialError{Failed: 1, What: "could not be graded"})), nil, 3, "", "toy: 1 question could not be graded\n", ""},
		{"wrapped partial", toy(failing(errors.Join(errors.New("grade"), &PartialError{Failed: 1, Total: 2}))), nil, 3, "", "1 of 2 questions", ""},
		{"gate", toy(failing(&GateError{Reasons: []string{"m is significantly worse"}})), nil, 4, "", "toy: gate failed: m is significantly worse\n", ""},
		{"a name's escapes shown", toy(failing(errors.New("model \"x\x1b]0;pwned\x07\u202e\": bad\nsecond line"))), nil, 1, "", "toy: model \"x\\x1b]0;pwned\\x07\\u202e\": bad\nsecond line\n", ""},
		{"gate and unread files", toy(failing(errors.Join(&GateError{Reasons: []string{"m"}}, errors.New("1 of 3 output files could not be read")))), nil, 4, "", "gate failed: m\n1 of 3", ""},
		{"subcommand", parent(), []string{"a", "-n", "2"}, 0, "", "", ""},
		{"subcommand -h", parent(), []string{"a", "-h"}, 0, "usage: p a -n N FILE", "", ""},
		{"parent -h", parent(), []string{"-h"}, 0, "commands:\n  a, alpha  Does toy things.\n  b         X\n", "", ""},
		{"parent help", parent(), []string{"help"}, 0, "commands:\n  a, alpha", "", ""},
		{"help TOPIC", parent(), []string{"help", "a"}, 0, "usage: p a -n N FILE\n\nDoes toy things.\n\nflags:\n  -n int", "", ""},
		{"help alias", parent(), []string{"help", "alpha"}, 0, "usage: p alpha -n N FILE", "", ""},
		{"help unknown topic", parent(), []string{"help", "bb"}, 2, "", "p: unknown command \"bb\" (did you mean \"b\"?); \"p -h\" lists the commands\n", ""},
		{"alias", parent(), []string{"alpha", "-n", "-1"}, 2, "", "p alpha: -n -1: give 0 or more\nusage: p alpha -n N FILE", ""},
		{"subcommand error names it", parent(), []string{"b", "x"}, 1, "", "p b: b failed\n", ""},
		{"no subcommand", parent(), nil, 2, "", "p: missing command\nusage: p COMMAND [flags]", ""},
		{"unknown subcommand", parent(), []string{"c"}, 2, "", "p: unknown command \"c\"; \"p -h\" lists the commands\n", ""},
		{"typo", parent(), []string{"alhpa"}, 2, "", "p: unknown command \"alhpa\" (did you mean \"alpha\"?); \"p -h\" lists the commands\n", ""},
		{"prefix", parent(), []string{"alp"}, 2, "", "(did you mean \"alpha\"?)", ""},
		{"subcommand flag error", parent(), []string{"b", "-x"}, 2, "", "usage: p b X (-h for help)", "-x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := Execute(context.Background(), &stdout, &stderr, tc.cmd, tc.args)
			code := Report(&stderr, tc.cmd.Name, err)
			if code != tc.code {
				t.Errorf("exit %d, want %d (err %v)", code, tc.code, err)
			}
			if !strings.Contains(stdout.String(), tc.stdout) {
				t.Errorf("stdout %q lacks %q", stdout.String(), tc.stdout)
			}
			if tc.stderr == "" && tc.stderrOnce == "" && stderr.Len() > 0 {
				t.Errorf("stderr %q, want nothing", stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr %q lacks %q", stderr.String(), tc.stderr)
			}
			if tc.stderrOnce != "" && strings.Count(stderr.String(), tc.stderrOnce) != 1 {
				t.Errorf("stderr %q holds %q %d times, want once", stderr.String(), tc.stderrOnce, strings.Count(stderr.String(), tc.stderrOnce))
			}
		})
	}
}

// The shared grading flags are bound by one helper and read back.
func TestGradeFlags(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	var g GradeFlags
	g.Bind(fs)
	if err := fs.Parse([]string{"--grader", "exact"}); err != nil {
		t.Fatal(err)
	}
	if g.Grader != "exact" {
		t.Errorf("%+v", g)
	}
}

// libPartial stands for a library's "finished, some questions failed"
// error, which the library defines without importing cli.
type libPartial struct{}

func (libPartial) Error() string { return "3 of 10 questions failed" }
func (libPartial) Partial() bool { return true }

// libBudget is a library's error of a run stopped at its cap, as the
// runner's BudgetError is.
type libBudget struct{}

func (libBudget) Error() string       { return "the budget was reached" }
func (libBudget) BudgetReached() bool { return true }

func TestExitCodeOfLibraryPartialErrors(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{libPartial{}, 3},
		{fmt.Errorf("wrapped: %w", libPartial{}), 3},
		{errors.Join(libPartial{}, libPartial{}), 3},
		{errors.New("could not run"), 1},
		{&PartialError{Failed: 1}, 3},
		{fmt.Errorf("run: %w; kept", libBudget{}), 5},
		{errors.Join(libPartial{}, libBudget{}), 5},
	} {
		if got := ExitCode(tc.err); got != tc.want {
			t.Errorf("ExitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}
