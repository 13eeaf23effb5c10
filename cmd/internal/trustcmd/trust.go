// Package trustcmd is evalmd trust: it vouches for folders of output files
// that evalmd wrote elsewhere (a CI cache restored on a fresh runner, a
// teammate's results pulled from git), sealing them with this machine's
// key so that runs here reuse their answers (harness.Trust).
//
//	evalmd trust DIR...
package trustcmd

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/config"
	"github.com/evalmd/evalmd/harness"
)

// Command is trust's entry in the command table; look says where the
// machine's key is kept (config.Lookup.Key).
func Command(look config.Lookup) *cli.Command {
	return &cli.Command{
		Name:  "trust",
		Usage: "DIR...",
		Short: "Vouch for folders of outputs evalmd wrote elsewhere (a restored CI cache): runs here reuse their answers.",
		Run: func(ctx context.Context, stdout, stderr io.Writer, args []string) error {
			if len(args) == 0 {
				return cli.Usagef("name the folders of output files you trust")
			}
			key, err := look.Key()
			if err != nil {
				return fmt.Errorf("trust: %w", err)
			}
			warn := func(err error) { fmt.Fprintf(stderr, "warning: %v\n", err) }
			sealed, already, folders := 0, 0, 0
			for _, dir := range args {
				if err := ctx.Err(); err != nil {
					return err
				}
				vs, err := harness.Trust(dir, key, warn)
				for _, v := range vs {
					fmt.Fprintf(stdout, "%s: %d files sealed, %d sealed already\n", v.Dir, v.Sealed, v.Already)
					sealed, already, folders = sealed+v.Sealed, already+v.Already, folders+1
				}
				if err != nil {
					return err
				}
			}
			fmt.Fprintf(stdout, "%d files sealed, %d sealed already, in %d folders below %s\n", sealed, already, folders, joinNames(args))
			return nil
		},
	}
}

// joinNames is the folders named, cleaned and comma-separated.
func joinNames(dirs []string) string {
	s := ""
	for i, d := range dirs {
		if i > 0 {
			s += ", "
		}
		s += filepath.Clean(d)
	}
	return s
}
