// Package evalmdcmd is the evalmd command: one command whose verbs are the
// commands of cmd/run, cmd/grade, cmd/agg and cmd/convert (the same code,
// from cmd/internal/runcmd and its siblings) and a few of its own: init and
// check (convert init and run --check under LIME's names), trust, render,
// schema, version and completion.
//
//	evalmd run|eval -f SHEET | -d DIR -m MODEL[,MODEL...] [flags]
//	evalmd grade -o OUTPUT.json|DIR [-l] [-w] [flags]
//	evalmd agg -i DIR [-o FILE.md|-] [flags]
//	evalmd convert COMMAND [flags]
//	evalmd init DIR
//	evalmd check
//	evalmd trust DIR...
//	evalmd render [-w] OUTPUT.json|DIR...
//	evalmd schema config|meta
//	evalmd version
//	evalmd help [COMMAND|settings]
//	evalmd completion bash|zsh|fish
package evalmdcmd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/evalmd/evalmd/cmd/internal/aggcmd"
	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/config"
	"github.com/evalmd/evalmd/cmd/internal/convertcmd"
	"github.com/evalmd/evalmd/cmd/internal/gradecmd"
	"github.com/evalmd/evalmd/cmd/internal/reviewcmd"
	"github.com/evalmd/evalmd/cmd/internal/runcmd"
	"github.com/evalmd/evalmd/cmd/internal/trustcmd"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/setting"
	"github.com/evalmd/evalmd/result"
)

// Env is what the commands take from the process: where config files are
// looked for, the environment, whether a writer is a terminal, and the
// build information. Tests give their own.
type Env struct {
	Look       config.Lookup
	Getenv     func(string) string
	Environ    func() []string
	IsTerminal func(io.Writer) bool
	BuildInfo  func() (*debug.BuildInfo, bool)
	// Console is the person's terminal for evalmd review; nil: none.
	Console reviewcmd.Console
}

// System is the process's Env.
func System() Env {
	return Env{Look: config.System(), Getenv: os.Getenv, Environ: os.Environ, IsTerminal: cli.IsTerminal, BuildInfo: debug.ReadBuildInfo, Console: reviewcmd.Stdio}
}

// Command is evalmd's command table, with fresh flags.
func Command(env Env) *cli.Command {
	run := runcmd.Command(env.Look, env.Getenv, env.Environ)
	run.Aliases = []string{"eval"}
	root := &cli.Command{
		Name:  "evalmd",
		Usage: "COMMAND [flags]",
		Short: "Evaluate language models on markdown question sheets.",
		Commands: []*cli.Command{
			run,
			gradecmd.Command(env.Look, env.Getenv),
			reviewcmd.Command(env.Look, env.Getenv, env.Console),
			aggcmd.Command(env.Look, env.IsTerminal, env.Getenv),
			convertcmd.Command(),
			convertcmd.InitCommand(),
			runcmd.CheckCommand(env.Look, env.Getenv, env.Environ),
			trustcmd.Command(env.Look),
			renderCommand(),
			schemaCommand(),
			versionCommand(env.BuildInfo),
		},
	}
	root.Commands = append(root.Commands, completionCommand(root))
	root.Topics = []cli.Topic{{Name: "settings", Short: "every setting: its flag, config member and meta key, type, default, sources",
		Text: func() string {
			return "Settings come from (lowest first) the default, your config, evalmd.yaml, the sheet's meta, the\nquestion's meta and the flag; each is one row (docs/settings.md's table is the same, generated).\nA sheet or evalmd.yaml may set a setting with a ceiling at most to it (--ceiling raises one).\n\n" + setting.Table()
		}}}
	return root
}

// renderCommand prints output files as readable markdown (LIME's render),
// or with -w writes the .md beside each, as run does.
func renderCommand() *cli.Command {
	fs := flag.NewFlagSet("render", flag.ContinueOnError)
	write := fs.Bool("w", false, "write the .md beside each output file instead of printing it")
	force := fs.Bool("force", false, "with -w, write over files evalmd did not write, or changed since it wrote them")
	return &cli.Command{
		Name:  "render",
		Usage: "[-w] OUTPUT.json|DIR...",
		Short: "Output files as readable markdown (the .md run writes beside each): printed, or written with -w.",
		Flags: fs,
		Run: func(ctx context.Context, stdout, stderr io.Writer, args []string) error {
			if len(args) == 0 {
				return cli.Usagef("name output files or folders")
			}
			var paths []string
			for _, a := range args {
				st, err := os.Stat(a)
				if err != nil {
					return err
				}
				if !st.IsDir() {
					paths = append(paths, a)
					continue
				}
				found, err := result.Find(a, func(err error) { fmt.Fprintf(stderr, "warning: skipping %v\n", err) })
				if err != nil {
					return err
				}
				if len(found) == 0 {
					return fmt.Errorf("%s: no output files", a)
				}
				paths = append(paths, found...)
			}
			for _, p := range paths {
				if err := ctx.Err(); err != nil {
					return err
				}
				f, err := result.Read(p)
				if err != nil {
					return err
				}
				if !*write {
					if _, err := io.WriteString(stdout, result.Markdown(f)); err != nil {
						return err
					}
					continue
				}
				md := result.MarkdownPath(p)
				if err := result.WriteMarkdown(md, f, outfile.Options{Force: *force, Inputs: []string{p}}); err != nil {
					return err
				}
				fmt.Fprintf(stderr, "wrote %s\n", md)
			}
			return nil
		},
	}
}

// completionCommand prints a shell's completion script for root.
func completionCommand(root *cli.Command) *cli.Command {
	return &cli.Command{
		Name:  "completion",
		Usage: "bash|zsh|fish",
		Short: "Print a shell completion script: source <(evalmd completion bash), evalmd completion fish | source.",
		Run: func(ctx context.Context, stdout, stderr io.Writer, args []string) error {
			if len(args) != 1 {
				return cli.Usagef("name one shell: bash, zsh or fish")
			}
			return cli.WriteCompletion(stdout, args[0], root)
		},
	}
}
