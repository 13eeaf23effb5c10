package runcmd

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/config"
	"github.com/evalmd/evalmd/harness"
)

// checkFlags are the flags of run that run --check reads, with what they
// mean there (empty: as for run): the sheets checked and the config found
// from them (-f, -d), how they are read (-s, --allow-outside-files), the
// sandbox checked, and -v.
var checkFlags = [][2]string{
	{"f", "check this sheet (every problem, FILE:LINE each; any is exit 1) and the config found from its folder, as run -f would"},
	{"d", "check every input*.md sheet below this folder, and the config found from it, as run -d would"},
	{"s", ""},
	{"allow-outside-files", ""},
	{"base-url", "also probe the server at this URL (where run --base-url sends every model)"},
	{"sandbox", ""},
	{"sandbox-image", ""},
	{"v", "name the config files read, on stderr"},
}

// CheckCommand is evalmd check: run --check (which providers are
// configured, the sandbox's state, the config in force) under LIME's name.
// It is run's command with --check set, so the two share every line of
// code; it lists and takes only the flags that --check reads.
func CheckCommand(look config.Lookup, getenv func(string) string, environ func() []string) *cli.Command {
	c := Command(look, getenv, environ)
	runFlags, runCheck := c.Flags, c.Run
	c.Flags = flag.NewFlagSet("check", flag.ContinueOnError)
	for _, nu := range checkFlags {
		f := runFlags.Lookup(nu[0])
		c.Flags.Var(f.Value, f.Name, cmp.Or(nu[1], f.Usage))
	}
	c.Run = func(ctx context.Context, stdout, stderr io.Writer, args []string) error {
		// The values are run's own; run's flag set is told which were
		// given, as the config gives only the others.
		err := runFlags.Set("check", "true")
		c.Flags.Visit(func(f *flag.Flag) {
			if err == nil {
				err = runFlags.Set(f.Name, f.Value.String())
			}
		})
		if err != nil {
			return err
		}
		return runCheck(ctx, stdout, stderr, args)
	}
	c.Name = "check"
	c.Aliases = nil
	c.Usage = "[-f SHEET | -d DIR] [--base-url URL] [--sandbox bwrap|docker|none] [-v]"
	c.Short = "Say which providers are configured, whether the sandbox works, and the config in force (run --check); with -f or -d, every problem of the sheets."
	return c
}

// checkSheets is check's part with -f or -d, after the report: every
// problem of the sheets (harness.Check, the run's own checks), one a line
// as "FILE:LINE: ..." (a warning's "FILE:LINE: warning: ..."), by file and
// line. Any problem is an error (exit 1), for a pre-commit hook.
func checkSheets(ctx context.Context, stdout io.Writer, sheets func() (harness.Config, error)) error {
	cfg, err := sheets()
	if err != nil {
		return err
	}
	problems, err := harness.Check(ctx, cfg)
	if err != nil {
		return err
	}
	stops := 0
	var b strings.Builder
	for _, p := range problems {
		if !p.Warning {
			stops++
		}
		fmt.Fprintln(&b, p)
	}
	fmt.Fprintf(stdout, "sheets: %s checked, %s\n%s", count(len(cfg.Sheets), "sheet"), count(len(problems), "problem"), b.String())
	if len(problems) == 0 {
		return nil
	}
	var kinds []string
	if stops > 0 {
		kinds = append(kinds, fmt.Sprintf("%d would stop a run", stops))
	}
	if n := len(problems) - stops; n > 0 {
		kinds = append(kinds, count(n, "warning"))
	}
	return fmt.Errorf("%s in %s: %s", count(len(problems), "problem"), count(len(cfg.Sheets), "sheet"), strings.Join(kinds, ", "))
}
