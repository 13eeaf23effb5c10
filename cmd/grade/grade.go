// Command grade regrades output files without new model calls (LIME's
// grader.py, with its flags): evalmd grade, as a command of its own.
//
//	grade -o OUTPUT.json|DIR [-o ...] [-i SHEET] [-l] [-w] [-v] [--grader NAME]
package main

import (
	"os"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/config"
	"github.com/evalmd/evalmd/cmd/internal/gradecmd"
)

func main() { cli.Main(gradecmd.Command(config.System(), os.Getenv)) }
