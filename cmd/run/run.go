// Command run asks models the questions of markdown sheets and writes graded
// output files (LIME's main.py, with its flags): evalmd run, as a command of
// its own.
//
//	run -f SHEET | -d DIR -m MODEL[,MODEL...] [-o DIR] [-u N] [-y] [-v]
//
// See docs/models.md for models, resuming and the offline built-ins.
package main

import (
	"os"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/config"
	"github.com/evalmd/evalmd/cmd/internal/runcmd"
)

func main() { cli.Main(runcmd.Command(config.System(), os.Getenv, os.Environ)) }
