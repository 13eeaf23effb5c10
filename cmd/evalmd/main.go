// Command evalmd evaluates language models on markdown question sheets:
// one command whose verbs are run (or eval), grade, agg, convert, init,
// check, render, version, help and completion. "evalmd -h" lists them,
// "evalmd help VERB" tells one. The commands cmd/run, cmd/grade, cmd/agg
// and cmd/convert are the same code under their own names.
//
//	go install github.com/evalmd/evalmd/cmd/evalmd@latest
package main

import (
	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/evalmdcmd"
)

func main() { cli.Main(evalmdcmd.Command(evalmdcmd.System())) }
