package runcmd

import (
	"context"
	"io"

	"github.com/evalmd/evalmd/internal/cli"
	"github.com/evalmd/evalmd/internal/config"
)

// CheckCommand is evalmd check: run --check (which providers are
// configured, the sandbox's state, the config in force) under LIME's name.
// It is run's command with --check set, so the two share every flag and
// line of code.
func CheckCommand(look config.Lookup, getenv func(string) string, environ func() []string) *cli.Command {
	c := Command(look, getenv, environ)
	if err := c.Flags.Set("check", "true"); err != nil {
		c.Run = func(context.Context, io.Writer, io.Writer, []string) error { return err }
	}
	c.Name = "check"
	c.Aliases = nil
	c.Usage = "[--sandbox bwrap|docker|none] [-v]"
	c.Short = "Say which providers are configured, whether the sandbox works, and the config in force (run --check)."
	return c
}
