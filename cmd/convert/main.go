// Command convert turns benchmark data into sheets, sheets into an Inspect
// dataset, output files into benchmark submission files, and prints a
// workbook as a model sees it.
//
//	convert workbook FILE
//	convert dsbench -i DATA -o DIR
//	convert dabench -i DIR -o DIR
//	convert databench -i QA -o DIR [-answers F] [-lite F] [-semantics F] [-tables DIR]
//	convert inspect -i SHEET|DIR -o FILE.jsonl
//	convert dabench-responses -i OUTPUT|DIR -o FILE.jsonl
//	convert semeval-predictions -i OUTPUT.json -o predictions.txt
//	convert table -i QUESTIONS.csv|QUESTIONS.xlsx -o SHEET.md
//	convert xlsx -i SHEET.md -o QUESTIONS.xlsx
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/evalmd/evalmd/bench/dabench"
	"github.com/evalmd/evalmd/bench/databench"
	"github.com/evalmd/evalmd/bench/dsbench"
	"github.com/evalmd/evalmd/export"
	"github.com/evalmd/evalmd/harness"
	"github.com/evalmd/evalmd/inspect"
	"github.com/evalmd/evalmd/internal/cli"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/sheet"
	"github.com/evalmd/evalmd/spreadsheet"
	"github.com/evalmd/evalmd/workbook"
)

func main() { cli.Main(command()) }

// convert is the whole command, callable from tests.
func convert(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	return cli.Execute(ctx, stdout, stderr, command(), args)
}

// command is convert's entry in the command table: one subcommand, with
// its own flags, per conversion.
func command() *cli.Command {
	return &cli.Command{
		Name:  "convert",
		Usage: "COMMAND [flags]",
		Short: "Turn benchmark data into sheets, sheets into an Inspect dataset, output files into submission files; print a workbook as a model sees it.",
		Commands: []*cli.Command{
			workbookCommand(), dsbenchCommand(), dabenchCommand(), databenchCommand(),
			inspectCommand(), dabenchResponsesCommand(), semevalCommand(), tableCommand(), xlsxCommand(),
		},
	}
}

// ioFlags are the -i, -o and --force flags every conversion but workbook
// takes.
type ioFlags struct {
	fs      *flag.FlagSet
	in, out string
	force   bool
}

func newIOFlags(name, in, out string) *ioFlags {
	f := &ioFlags{fs: flag.NewFlagSet(name, flag.ContinueOnError)}
	f.fs.StringVar(&f.in, "i", "", in)
	f.fs.StringVar(&f.out, "o", "", out)
	f.fs.BoolVar(&f.force, "force", false, "write over files evalmd did not write, or changed since it wrote them")
	return f
}

// check refuses arguments and a missing -i or -o.
func (f *ioFlags) check(args []string) error {
	if len(args) > 0 {
		return cli.Usagef("unexpected argument %q", args[0])
	}
	if f.in == "" || f.out == "" {
		return cli.Usagef("-i and -o are required")
	}
	return nil
}

// write is how the conversion writes: never over its inputs.
func (f *ioFlags) write(inputs ...string) outfile.Options {
	return outfile.Options{Force: f.force, Inputs: append([]string{f.in}, inputs...)}
}

func workbookCommand() *cli.Command {
	return &cli.Command{
		Name:  "workbook",
		Usage: "FILE",
		Short: "Print a workbook (.xlsx, .xlsm, .xlsb) as DSBench's prompt shows it: pandas' text.",
		Flags: flag.NewFlagSet("convert workbook", flag.ContinueOnError),
		Run: func(ctx context.Context, stdout, stderr io.Writer, args []string) error {
			if len(args) != 1 {
				return cli.Usagef("name one workbook file")
			}
			w := bufio.NewWriter(stdout)
			if err := workbook.RenderTo(ctx, w, args[0], workbook.Options{}); err != nil {
				return err
			}
			return w.Flush()
		},
	}
}

func dsbenchCommand() *cli.Command {
	f := newIOFlags("convert dsbench", "DSBench's data_analysis folder (data.json and data/)", "folder for the sheets")
	return &cli.Command{
		Name: "dsbench", Usage: "-i DATA -o DIR", Short: "DSBench data analysis: one sheet per competition.", Flags: f.fs,
		Run: func(ctx context.Context, stdout, stderr io.Writer, args []string) error {
			if err := f.check(args); err != nil {
				return err
			}
			written, errs := dsbench.Convert(f.in, f.out, f.write())
			return converted(stderr, "DSBench", f.out, written, errs)
		},
	}
}

func dabenchCommand() *cli.Command {
	f := newIOFlags("convert dabench", "InfiAgent-DABench's data folder", "folder for the sheets")
	return &cli.Command{
		Name: "dabench", Usage: "-i DIR -o DIR", Short: "InfiAgent-DABench closed-form questions: one sheet per table.", Flags: f.fs,
		Run: func(ctx context.Context, stdout, stderr io.Writer, args []string) error {
			if err := f.check(args); err != nil {
				return err
			}
			written, errs := dabench.Convert(f.in, f.out, f.write())
			return converted(stderr, "DABench", f.out, written, errs)
		},
	}
}

func databenchCommand() *cli.Command {
	f := newIOFlags("convert databench", "DataBench's QA file (qa.csv)", "folder for the sheets")
	answers := f.fs.String("answers", "", "answers file, one per line")
	lite := f.fs.String("lite", "", "lite answers file, one per line")
	semantics := f.fs.String("semantics", "", "semantic types file, one per line")
	tables := f.fs.String("tables", "", "folder of <dataset>/all.parquet tables")
	return &cli.Command{
		Name: "databench", Usage: "-i QA -o DIR [-answers F] [-lite F] [-semantics F] [-tables DIR]",
		Short: "DataBench / SemEval 2025 Task 8: one sheet per dataset.", Flags: f.fs,
		Run: func(ctx context.Context, stdout, stderr io.Writer, args []string) error {
			if err := f.check(args); err != nil {
				return err
			}
			written, errs := databench.Convert(databench.Options{QA: f.in, Answers: *answers, AnswersLite: *lite,
				Semantics: *semantics, Tables: *tables, Out: f.out, Write: f.write(*answers, *lite, *semantics)})
			return converted(stderr, "DataBench", f.out, written, errs)
		},
	}
}

func inspectCommand() *cli.Command {
	f := newIOFlags("convert inspect", "a sheet, or a folder of input*.md sheets", "the dataset file (.jsonl)")
	return &cli.Command{
		Name: "inspect", Usage: "-i SHEET|DIR -o FILE.jsonl", Short: "Sheets as an Inspect AI dataset.", Flags: f.fs,
		Run: func(ctx context.Context, stdout, stderr io.Writer, args []string) error {
			if err := f.check(args); err != nil {
				return err
			}
			sheets, err := sheetsOf(f.in)
			if err != nil {
				return err
			}
			return outfile.WriteFunc(f.out, f.write(sheets...), func(w io.Writer) error {
				return inspect.WriteDatasetOptions(w, sheets, inspect.DatasetOptions{RenderWorkbook: workbook.Render, BaseDir: filepath.Dir(f.out)})
			})
		},
	}
}

func dabenchResponsesCommand() *cli.Command {
	f := newIOFlags("convert dabench-responses", "an output file, or a folder of them", "the responses file (.jsonl) eval_closed_form.py scores")
	return &cli.Command{
		Name: "dabench-responses", Usage: "-i OUTPUT|DIR -o FILE.jsonl", Short: "Output files as DABench's responses file.", Flags: f.fs,
		Run: func(ctx context.Context, stdout, stderr io.Writer, args []string) error {
			if err := f.check(args); err != nil {
				return err
			}
			files, paths, err := outputsOf(f.in)
			if err != nil {
				return err
			}
			return outfile.WriteFunc(f.out, f.write(paths...), func(w io.Writer) error { return export.DABenchResponses(w, files) })
		},
	}
}

func semevalCommand() *cli.Command {
	f := newIOFlags("convert semeval-predictions", "an output file of a DataBench sheet", "the predictions file")
	return &cli.Command{
		Name: "semeval-predictions", Usage: "-i OUTPUT.json -o predictions.txt", Short: "An output file as SemEval 2025 Task 8 predictions.", Flags: f.fs,
		Run: func(ctx context.Context, stdout, stderr io.Writer, args []string) error {
			if err := f.check(args); err != nil {
				return err
			}
			file, err := result.Read(f.in)
			if err != nil {
				return err
			}
			return outfile.WriteFunc(f.out, f.write(), func(w io.Writer) error { return export.SemEvalPredictions(w, file) })
		},
	}
}

func tableCommand() *cli.Command {
	f := newIOFlags("convert table", "a question table (.csv or .xlsx)", "the sheet (.md)")
	return &cli.Command{
		Name: "table", Usage: "-i QUESTIONS.csv|QUESTIONS.xlsx -o SHEET.md", Short: "A question table as a sheet.", Flags: f.fs,
		Run: func(ctx context.Context, stdout, stderr io.Writer, args []string) error {
			if err := f.check(args); err != nil {
				return err
			}
			doc, err := spreadsheet.ReadTable(f.in)
			if err != nil {
				return err
			}
			for _, w := range doc.Warnings {
				fmt.Fprintf(stderr, "convert: warning: %s\n", w)
			}
			md, err := sheet.Format(doc, nil)
			if err != nil {
				return fmt.Errorf("%s: %w", f.in, err)
			}
			return outfile.Write(f.out, md, f.write())
		},
	}
}

func xlsxCommand() *cli.Command {
	f := newIOFlags("convert xlsx", "a sheet (.md)", "the workbook (.xlsx): Questions and Sheet sheets")
	return &cli.Command{
		Name: "xlsx", Usage: "-i SHEET.md -o QUESTIONS.xlsx", Short: "A sheet as an Excel workbook of its questions.", Flags: f.fs,
		Run: func(ctx context.Context, stdout, stderr io.Writer, args []string) error {
			if err := f.check(args); err != nil {
				return err
			}
			doc, err := sheet.ParseFile(f.in, nil)
			if err != nil {
				return err
			}
			return outfile.WriteFunc(f.out, f.write(), func(w io.Writer) error { return spreadsheet.WriteXLSX(w, doc) })
		},
	}
}

// converted reports a benchmark conversion the same way for every
// converter: each entry skipped on its own line (named by file and line),
// then what was written, and an error counting what was skipped.
func converted(stderr io.Writer, bench, out string, written []string, errs []error) error {
	for _, e := range errs {
		fmt.Fprintf(stderr, "convert: %v\n", e)
	}
	fmt.Fprintf(stderr, "wrote %s to %s\n", count(len(written), bench+" sheet"), out)
	if len(errs) > 0 {
		return fmt.Errorf("%s (named above); %s written", count(len(errs), "problem"), count(len(written), "sheet"))
	}
	return nil
}

// sheetsOf is a sheet file, or the input*.md sheets below a folder.
func sheetsOf(path string) ([]string, error) {
	if fi, err := os.Stat(path); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return []string{path}, nil
	}
	return harness.FindSheets(path)
}

// outputsOf reads an output file, or the output-*.json files below a
// folder; it returns them and their paths.
func outputsOf(path string) ([]*result.File, []string, error) {
	var names []string
	if fi, err := os.Stat(path); err != nil {
		return nil, nil, err
	} else if !fi.IsDir() {
		names = []string{path}
	} else if names, err = result.Find(path, nil); err != nil {
		return nil, nil, err
	}
	var files []*result.File
	for _, n := range names {
		f, err := result.Read(n)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f)
	}
	return files, names, nil
}

// count is "1 noun" or "N nouns".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
