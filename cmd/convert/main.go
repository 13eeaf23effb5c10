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
	"errors"
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

func main() { cli.Main("convert", convert) }

const usage = "usage: convert workbook FILE | dsbench|dabench|databench -i IN -o DIR | inspect -i SHEETS -o FILE.jsonl | dabench-responses|semeval-predictions -i OUTPUTS -o FILE | table -i QUESTIONS.csv|.xlsx -o SHEET.md | xlsx -i SHEET.md -o FILE.xlsx"

// convert is the whole command, callable from tests.
func convert(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	what, args := args[0], args[1:]
	fs := flag.NewFlagSet("convert "+what, flag.ContinueOnError)
	fs.SetOutput(stderr)
	in := fs.String("i", "", "input")
	out := fs.String("o", "", "output")
	answers := fs.String("answers", "", "databench: answers file, one per line")
	lite := fs.String("lite", "", "databench: lite answers file, one per line")
	semantics := fs.String("semantics", "", "databench: semantic types file, one per line")
	tables := fs.String("tables", "", "databench: folder of <dataset>/all.parquet tables")
	force := fs.Bool("force", false, "write over files evalmd did not write, or changed since it wrote them")
	if what == "workbook" {
		if len(args) != 1 {
			return errors.New("usage: convert workbook FILE")
		}
		w := bufio.NewWriter(stdout)
		if err := workbook.RenderTo(ctx, w, args[0], workbook.Options{}); err != nil {
			return err
		}
		return w.Flush()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *in == "" || *out == "" {
		return fmt.Errorf("convert %s needs -i and -o", what)
	}
	wopt := outfile.Options{Force: *force, Inputs: []string{*in}}
	switch what {
	case "dsbench":
		written, errs := dsbench.Convert(*in, *out, wopt)
		return converted(stderr, "DSBench", *out, written, errs)
	case "dabench":
		written, errs := dabench.Convert(*in, *out, wopt)
		return converted(stderr, "DABench", *out, written, errs)
	case "databench":
		written, errs := databench.Convert(databench.Options{QA: *in, Answers: *answers, AnswersLite: *lite,
			Semantics: *semantics, Tables: *tables, Out: *out,
			Write: outfile.Options{Force: *force, Inputs: []string{*in, *answers, *lite, *semantics}}})
		return converted(stderr, "DataBench", *out, written, errs)
	case "inspect":
		sheets, err := sheetsOf(*in)
		if err != nil {
			return err
		}
		wopt.Inputs = append(wopt.Inputs, sheets...)
		return outfile.WriteFunc(*out, wopt, func(w io.Writer) error {
			return inspect.WriteDatasetOptions(w, sheets, inspect.DatasetOptions{RenderWorkbook: workbook.Render, BaseDir: filepath.Dir(*out)})
		})
	case "dabench-responses":
		files, paths, err := outputsOf(*in)
		if err != nil {
			return err
		}
		wopt.Inputs = append(wopt.Inputs, paths...)
		return outfile.WriteFunc(*out, wopt, func(w io.Writer) error { return export.DABenchResponses(w, files) })
	case "table":
		doc, err := spreadsheet.ReadTable(*in)
		if err != nil {
			return err
		}
		for _, w := range doc.Warnings {
			fmt.Fprintf(stderr, "convert: warning: %s\n", w)
		}
		md, err := sheet.Format(doc, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", *in, err)
		}
		return outfile.Write(*out, md, wopt)
	case "xlsx":
		doc, err := sheet.ParseFile(*in, nil)
		if err != nil {
			return err
		}
		return outfile.WriteFunc(*out, wopt, func(w io.Writer) error { return spreadsheet.WriteXLSX(w, doc) })
	case "semeval-predictions":
		f, err := result.Read(*in)
		if err != nil {
			return err
		}
		return outfile.WriteFunc(*out, wopt, func(w io.Writer) error { return export.SemEvalPredictions(w, f) })
	}
	return fmt.Errorf("unknown conversion %q; %s", what, usage)
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
