// Package gradecmd is the grade command (evalmd grade and the cmd/grade
// main): it regrades output files without new model calls (LIME's
// grader.py, with its flags): a dry run that prints what would change,
// unless -w rewrites the files and writes LIME's grade-*.json beside them.
//
//	grade -o OUTPUT.json|DIR [-o ...] [-i SHEET] [-l] [-w] [-v] [--grader NAME] [--grading MODE]
package gradecmd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/evalmd/evalmd/benchmark/benchmarks"
	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/config"
	"github.com/evalmd/evalmd/cmd/internal/judgeflag"
	"github.com/evalmd/evalmd/internal/setting"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/regrade"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/runner"
	"github.com/evalmd/evalmd/sandbox"
	"github.com/evalmd/evalmd/sheet"
)

// paths collects repeated -o flags.
type paths []string

func (p *paths) String() string     { return fmt.Sprint(*p) }
func (p *paths) Set(s string) error { *p = append(*p, s); return nil }

// Command is grade's entry in the command table, with fresh flags; look
// says where its config files are looked for (the judge's settings, as
// run's: from the outputs' folder, then look's), getenv reads keys and
// servers from the environment.
func Command(look config.Lookup, getenv func(string) string) *cli.Command {
	fs := flag.NewFlagSet("grade", flag.ContinueOnError)
	var outputs paths
	fs.Var(&outputs, "o", "output file or folder to regrade (repeatable; more may follow as arguments)")
	var (
		sheetPath = fs.String("i", "", "sheet whose answers replace the ground truths, by question name")
		liberal   = fs.Bool("l", false, "liberal grading (LIME's -l; --grading liberal): a completion that starts with the ground truth's first letter is right too")
		write     = fs.Bool("w", false, "write the regraded files, the .md beside each and the grade files (default: dry run)")
		force     = fs.Bool("force", false, "write .md and grade files over files evalmd did not write, or changed since it wrote them")
		verbose   = fs.Bool("v", false, "verbose report")
	)
	var grading cli.GradeFlags
	grading.Bind(fs)
	settings := setting.Bind(fs, "grading")
	judge := judgeflag.Bind(fs)
	return &cli.Command{
		Name:  "grade",
		Usage: "-o OUTPUT.json|DIR [-o ...] [-i SHEET] [-l] [-w] [-v] [flags]",
		Short: "Regrade output files without new model calls: a dry run that prints what would change, unless -w.",
		Flags: fs,
		Run: func(ctx context.Context, stdout, stderr io.Writer, args []string) error {
			outputs = append(outputs, args...)
			if len(outputs) == 0 {
				return cli.Usagef("name output files or folders with -o")
			}
			if *liberal {
				if m, ok := settings.Values["grading"]; ok && m != result.GradingLiberal {
					return cli.Usagef("-l is --grading liberal, not --grading %s", m)
				}
				settings.Values["grading"] = result.GradingLiberal
			}
			set, err := benchmarks.Set()
			if err != nil {
				return err
			}
			// A misspelt grader would grade every question null and
			// rewrite the files with -w.
			if g := grading.Grader; g != "" {
				if err := set.Graders.Known(g); err != nil {
					return cli.Usagef("--grader %q: %v", g, err)
				}
			}
			// As run's: the nearest evalmd.yaml at or above the outputs
			// (the first named), then the current folder's, under the
			// same rules (a workspace file names no server for a key);
			// one in or above the outputs' folders names no judge.
			conf, err := config.Load(look.ForResults(outputs...))
			if err != nil {
				return err
			}
			if conf.Ignored != "" {
				fmt.Fprintln(stderr, conf.Ignored)
			}
			if *verbose {
				fmt.Fprintln(stderr, conf.Used())
			}
			// The judge retries with the runner's default rules (run's
			// --retries and --max-wait defaults).
			jo, err := judge.Options(model.Options{Getenv: getenv}, runner.Options{}, conf, stderr)
			if err != nil {
				return err
			}
			opt := regrade.Options{Settings: slices.Concat(conf.Settings(), []setting.Layer{*settings}), Write: *write, Verbose: *verbose,
				GraderOverride: grading.Grader, Judge: jo, Force: *force, Graders: set.Graders}
			// A script grader runs where run would run it: the config's
			// sandbox (grade has no --sandbox).
			vals, err := setting.Resolve("", nil, opt.Settings...)
			if err != nil {
				return err
			}
			opt.Scripts = sandbox.Config{Backend: sandbox.Backend(vals.Sandbox), Image: vals.SandboxImage}.RunScript
			if *write {
				// An output evalmd sealed here stays sealed as regraded.
				if opt.Seal, err = look.Key(); err != nil {
					fmt.Fprintf(stderr, "warning: %v; the outputs rewritten are not sealed: a rerun asks their questions again\n", err)
				}
			}
			if *sheetPath != "" {
				truths, err := sheetTruths(*sheetPath)
				if err != nil {
					return err
				}
				opt.Sheet = truths
			}
			rep, err := regrade.Regrade(ctx, outputs, opt)
			if _, werr := rep.WriteTo(stdout); werr != nil && err == nil {
				err = werr
			}
			return err
		},
	}
}

// sheetTruths reads the answers of a sheet by question name, and the
// answers it also accepts; with duplicate names the first question's are
// taken.
func sheetTruths(path string) (*regrade.SheetTruths, error) {
	doc, err := sheet.ParseFile(path, nil)
	if err != nil {
		return nil, err
	}
	_, items := doc.Resolve()
	t := &regrade.SheetTruths{Path: path, Truths: map[string]*string{}, Accepted: map[string][]string{}}
	for _, it := range items {
		if _, ok := t.Truths[it.Name]; !ok {
			t.Truths[it.Name] = it.GroundTruth
			if it.Accepted != nil {
				t.Accepted[it.Name] = it.Accepted
			}
		}
	}
	return t, nil
}
