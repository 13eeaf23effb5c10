package gradecmd

import (
	"context"
	"io"
	"os"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/config"
)

// grade is the whole command, callable from tests: it reads no config file.
func grade(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	return cli.Execute(ctx, stdout, stderr, Command(config.Lookup{}, os.Getenv), args)
}
