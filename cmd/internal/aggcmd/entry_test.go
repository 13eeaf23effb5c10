package aggcmd

import (
	"context"
	"io"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/config"
)

// aggregate is the whole command, callable from tests.
func aggregate(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	return cli.Execute(ctx, stdout, stderr, Command(config.Lookup{}, cli.IsTerminal, noEnv), args)
}

// noEnv is an environment without variables, so that tests never read
// the real one.
func noEnv(string) string { return "" }
