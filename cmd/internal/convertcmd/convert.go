// Package convertcmd is the convert command (evalmd convert, evalmd init
// and the cmd/convert main): it turns benchmark data into sheets, sheets into an Inspect
// dataset, output files into benchmark submission files, and prints a
// workbook as a model sees it.
//
//	convert workbook FILE
//	convert dsbench -i DATA -o DIR
//	convert dabench -i DIR -o DIR
//	convert databench -i QA -o DIR [-answers F] [-lite F] [-semantics F] [-tables DIR] [-mode code|chat]
//	convert inspect -i SHEET|DIR -o FILE.jsonl
//	convert dabench-responses -i OUTPUT|DIR -o FILE.jsonl
//	convert semeval-predictions -i OUTPUT|DIR -o DIR
//	convert table -i QUESTIONS.csv|QUESTIONS.xlsx -o SHEET.md
//	convert xlsx -i SHEET.md -o QUESTIONS.xlsx
//	convert init DIR
//
// The benchmark conversions come from the benchmark packages
// (benchmark/benchmarks lists them); each one's flags are the tagged fields
// of its options struct.
package convertcmd

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/evalmd/evalmd/benchmark"
	"github.com/evalmd/evalmd/benchmark/conversions"
	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/starter"
	"github.com/evalmd/evalmd/harness"
	"github.com/evalmd/evalmd/inspect/dataset"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/readfile"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/schema"
	"github.com/evalmd/evalmd/sheet"
	"github.com/evalmd/evalmd/workbook"
	"github.com/evalmd/evalmd/xlsxout"
)

// Command is convert's entry in the command table, over every benchmark
// benchmark/conversions lists.
func Command() *cli.Command {
	set, err := conversions.Set()
	if err != nil {
		return &cli.Command{Name: "convert", Run: func(context.Context, io.Writer, io.Writer, []string) error { return err }}
	}
	return commandWith(set)
}

// commandWith is convert's entry in the command table: one subcommand,
// with its own flags, per conversion; the benchmark conversions come from
// set.
func commandWith(set *benchmark.ConvertSet) *cli.Command {
	cmds := []*cli.Command{workbookCommand()}
	for i := range set.Converters {
		cmds = append(cmds, converterCommand(&set.Converters[i]))
	}
	cmds = append(cmds, inspectCommand())
	for i := range set.Exports {
		cmds = append(cmds, exportCommand(&set.Exports[i]))
	}
	cmds = append(cmds, tableCommand(), xlsxCommand(), InitCommand())
	return &cli.Command{
		Name:     "convert",
		Usage:    "COMMAND [flags]",
		Short:    "Turn benchmark data into sheets, sheets into an Inspect dataset, output files into submission files; print a workbook as a model sees it.",
		Commands: cmds,
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

// converterCommand is a benchmark's converter as a subcommand: its flags
// are the tagged fields of the converter's options struct, plus --force.
func converterCommand(c *benchmark.Converter) *cli.Command {
	fs := flag.NewFlagSet("convert "+c.Name, flag.ContinueOnError)
	force := fs.Bool("force", false, "write over files evalmd did not write, or changed since it wrote them")
	opt := c.Options()
	required, bindErr := bindOptions(fs, opt)
	var synopsis []string
	for _, name := range required {
		synopsis = append(synopsis, "-"+name+" "+flagMeta(opt, name))
	}
	usage := strings.Join(append(synopsis, "[flags]"), " ")
	return &cli.Command{
		Name: c.Name, Usage: usage, Short: c.Summary + ".", Flags: fs,
		Run: func(ctx context.Context, stdout, stderr io.Writer, args []string) error {
			if bindErr != nil {
				return fmt.Errorf("convert %s: %w", c.Name, bindErr)
			}
			if len(args) > 0 {
				return cli.Usagef("unexpected argument %q", args[0])
			}
			var missing []string
			for _, name := range required {
				if fs.Lookup(name).Value.String() == "" {
					missing = append(missing, "-"+name)
				}
			}
			if len(missing) > 0 {
				verb := "is"
				if len(missing) > 1 {
					verb = "are"
				}
				return cli.Usagef("%s %s required", strings.Join(missing, " and "), verb)
			}
			var out string
			if f := fs.Lookup("o"); f != nil {
				out = f.Value.String()
			}
			written, problems := c.Convert(ctx, opt, outfile.Options{Force: *force})
			return converted(stderr, c.Benchmark, out, written, problems)
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
				return dataset.Write(ctx, w, sheets, dataset.Options{RenderWorkbook: workbook.Render, BaseDir: filepath.Dir(f.out)})
			})
		},
	}
}

// exportCommand is a benchmark's export as a subcommand: output files
// (-i, a file or a folder) into the file the benchmark's own scorer reads,
// or into the folder of files it reads (Export.Files).
func exportCommand(e *benchmark.Export) *cli.Command {
	out, usage := "the file to write", "-i OUTPUT|DIR -o FILE"
	if e.Files != nil {
		out, usage = "the folder to write the files into", "-i OUTPUT|DIR -o DIR"
	}
	f := newIOFlags("convert "+e.Name, "an output file, or a folder of them", out)
	return &cli.Command{
		Name: e.Name, Usage: usage, Short: e.Summary + ".", Flags: f.fs,
		Run: func(ctx context.Context, stdout, stderr io.Writer, args []string) error {
			if err := f.check(args); err != nil {
				return err
			}
			files, paths, err := outputsOf(f.in)
			if err != nil {
				return err
			}
			if e.Files == nil {
				return outfile.WriteFunc(f.out, f.write(paths...), func(w io.Writer) error { return e.Write(w, files) })
			}
			parts, err := e.Files(files)
			if err != nil {
				return err
			}
			if err := outfile.MkdirAll(f.out, 0o755); err != nil {
				return err
			}
			for _, p := range parts {
				path := filepath.Join(f.out, p.Name)
				if err := outfile.WriteFunc(path, f.write(paths...), p.Write); err != nil {
					return err
				}
				fmt.Fprintf(stderr, "wrote %s\n", path)
			}
			return nil
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
			t, err := xlsxout.ReadTable(f.in)
			if err != nil {
				return err
			}
			for _, w := range t.Doc.Warnings {
				fmt.Fprintf(stderr, "convert: warning: %s\n", w)
			}
			// The sheet the workbook was exported from, unchanged since,
			// may be replaced without --force: the workbook holds it.
			opt := f.write()
			opt.Source = t.SourceSum
			return outfile.Write(f.out, t.Markdown, opt)
		},
	}
}

// InitCommand writes the example folder (convert init, evalmd init).
func InitCommand() *cli.Command {
	fs := flag.NewFlagSet("convert init", flag.ContinueOnError)
	force := fs.Bool("force", false, "write over files evalmd did not write, or changed since it wrote them")
	return &cli.Command{
		Name: "init", Usage: "DIR", Short: "An example sheet folder to start from (a sheet, evalmd.yaml, a README); evalmd run -d DIR -m mock runs it offline.", Flags: fs,
		Run: func(ctx context.Context, stdout, stderr io.Writer, args []string) error {
			if len(args) != 1 {
				return cli.Usagef("give the folder to write")
			}
			paths, err := starter.Write(args[0], *force)
			if err != nil {
				return err
			}
			for _, p := range paths {
				fmt.Fprintln(stdout, p)
			}
			fmt.Fprintf(stdout, "next: evalmd run -d %s -m mock -o %s (offline), then see %s\n", args[0], filepath.Join(args[0], "results"), filepath.Join(args[0], "README.md"))
			return nil
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
			data, err := readfile.Read(f.in, readfile.Sheet)
			if err != nil {
				return err
			}
			doc, err := sheet.Parse(f.in, data, nil)
			if err != nil {
				return err
			}
			return outfile.WriteFunc(f.out, f.write(), func(w io.Writer) error { return xlsxout.WriteXLSX(w, doc, data) })
		},
	}
}

// converted reports a benchmark conversion the same way for every
// converter: each entry skipped on its own line (named by file and line),
// then what was written and where the files the sheets send are, and an
// error counting what was skipped.
func converted(stderr io.Writer, bench, out string, written []string, errs []error) error {
	problems := 0
	for _, e := range errs {
		if n := (*benchmark.Note)(nil); errors.As(e, &n) {
			fmt.Fprintf(stderr, "convert: note: %v\n", e)
			continue
		}
		problems++
		fmt.Fprintf(stderr, "convert: %v\n", e)
	}
	fmt.Fprintf(stderr, "wrote %s to %s", count(len(written), bench+" sheet"), out)
	f := dataFolders(written)
	if f.inside != "" {
		// Converters put the files beside the sheets (hard links where
		// the file system allows, else copies), so the sheets run as
		// written: a sheet sends files from below its own folder only.
		fmt.Fprintf(stderr, "; the files they send are in %s", f.inside)
	}
	if f.outside != "" {
		// A sheet's own data_root vouches for nothing (a stranger's could
		// name "/"): the user does, with run --data-root.
		fmt.Fprintf(stderr, "; their files are in %s, outside it: run them with --data-root %s", f.outside, f.outside)
	}
	if n := len(f.missing); n > 0 {
		// Nothing to vouch for: a file that is not there is sent by no
		// run (a chat prompt may still name it).
		verb := "are"
		if n == 1 {
			verb = "is"
		}
		fmt.Fprintf(stderr, "; of the files they name, %d %s not there, which no run sends (the first: %s)", n, verb, f.firstMissing)
	}
	fmt.Fprintln(stderr)
	if problems > 0 {
		return fmt.Errorf("%s (named above); %s written", count(problems, "problem"), count(len(written), "sheet"))
	}
	return nil
}

// sheetFiles is where the files written sheets name are.
type sheetFiles struct {
	inside  string // the deepest folder holding every file sent from below the sheets' own folders
	outside string // the deepest holding every one that is elsewhere
	// missing are the files named that are not there, firstMissing the
	// first of them.
	missing      map[string]bool
	firstMissing string
}

// dataFolders says where the files the written sheets name are; "" for
// none.
func dataFolders(written []string) sheetFiles {
	f := sheetFiles{missing: map[string]bool{}}
	for _, p := range written {
		if !strings.HasSuffix(p, ".md") {
			continue
		}
		doc, err := sheet.ParseFile(p, schema.Default())
		if err != nil {
			continue
		}
		dir, err := filepath.Abs(filepath.Dir(p))
		if err != nil {
			continue
		}
		_, items := doc.Resolve()
		for _, it := range items {
			for _, file := range it.Files {
				path := filepath.FromSlash(strings.TrimSpace(file.Text))
				if !filepath.IsAbs(path) {
					path = filepath.Join(dir, path)
				}
				switch rel, err := filepath.Rel(dir, path); {
				case !exists(path):
					if len(f.missing) == 0 {
						f.firstMissing = path
					}
					f.missing[path] = true
				case err == nil && filepath.IsLocal(rel):
					f.inside = commonDir(f.inside, filepath.Dir(path))
				default:
					f.outside = commonDir(f.outside, filepath.Dir(path))
				}
			}
		}
	}
	return f
}

// exists says whether path names something (a link is followed).
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// commonDir is the deepest folder holding both common and dir (dir when
// common is "").
func commonDir(common, dir string) string {
	if common == "" {
		return dir
	}
	for common != dir && !strings.HasPrefix(dir, strings.TrimSuffix(common, string(filepath.Separator))+string(filepath.Separator)) {
		common = filepath.Dir(common)
	}
	return common
}

// bindOptions defines a flag on fs for each field of the struct opt points
// to that has a `flag:"NAME"` tag (`flag:"NAME,required"` for one that must
// be given; the `usage` tag is its help), and returns the required names.
func bindOptions(fs *flag.FlagSet, opt any) ([]string, error) {
	v := reflect.ValueOf(opt)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("options %T are not a pointer to a struct", opt)
	}
	v = v.Elem()
	var required []string
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		tag, ok := f.Tag.Lookup("flag")
		if !ok {
			continue
		}
		name, rest, _ := strings.Cut(tag, ",")
		switch p := v.Field(i).Addr().Interface().(type) {
		case *string:
			fs.StringVar(p, name, *p, f.Tag.Get("usage"))
		case *bool:
			fs.BoolVar(p, name, *p, f.Tag.Get("usage"))
		default:
			return nil, fmt.Errorf("option %s: a flag of type %s (want string or bool)", f.Name, f.Type)
		}
		if rest == "required" {
			required = append(required, name)
		}
	}
	return required, nil
}

// flagMeta is the placeholder for the value of opt's flag name in a
// synopsis: the field's `meta` tag, else VALUE.
func flagMeta(opt any, name string) string {
	t := reflect.TypeOf(opt).Elem()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if n, _, _ := strings.Cut(f.Tag.Get("flag"), ","); n == name {
			return cmp.Or(f.Tag.Get("meta"), "VALUE")
		}
	}
	return "VALUE"
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
