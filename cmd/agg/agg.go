// Command agg turns a folder of output files into markdown leaderboards
// (LIME's agg.py, with its flags): evalmd agg, as a command of its own.
//
//	agg -i DIR|'GLOB' [-o FILE.md|-] [--completions|--discrepancies-full] [--md|--terminal]
//	    [-v] [-charts] [--log-dir DIR] [-html FILE.html] [-xlsx FILE.xlsx]
package main

import (
	"os"

	"github.com/evalmd/evalmd/cmd/internal/aggcmd"
	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/config"
)

func main() { cli.Main(aggcmd.Command(config.System(), cli.IsTerminal, os.Getenv)) }
