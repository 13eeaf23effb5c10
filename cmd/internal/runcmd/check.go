package runcmd

import (
	"cmp"
	"context"
	"flag"
	"io"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/config"
)

// checkFlags are the flags of run that run --check reads, with what they
// mean there (empty: as for run): which config (found from -f or -d), the
// sandbox checked, and -v.
var checkFlags = [][2]string{
	{"f", "check the config found from this sheet's folder, as run -f would"},
	{"d", "check the config found from this folder, as run -d would"},
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
	c.Short = "Say which providers are configured, whether the sandbox works, and the config in force (run --check)."
	return c
}
