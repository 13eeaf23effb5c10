// Package benchmark is what a benchmark package offers the commands, and
// the registries the commands build from a list of them.
//
// A benchmark is two packages. benchmark/NAME/score holds what reads
// answers: its graders and its metrics in agg's report, returned by its
// Benchmark function as a Benchmark value. benchmark/NAME holds its
// `convert` subcommands, returned by its Conversions function as a
// Conversions value: the converter (the published data -> sheets, with the
// benchmark's prompts as the sheets' defaults) and the exports (output
// files -> the file its own scorer reads). They are apart so that agg,
// which only reads answers, links none of what converting needs
// (workbooks, tokenizers, parquet, code mode). benchmark/benchmarks lists
// the Benchmark values and benchmark/conversions the Conversions values; the
// commands build a Set (NewSet) or a ConvertSet (NewConvertSet) from those
// lists once, at start. There is no global table: a test builds a set with
// a toy benchmark of its own beside the real ones, and nothing else sees
// it.
package benchmark

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/evalmd/evalmd/agg"
	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/result"
)

// Benchmark is the part of one benchmark that reads answers. Every field
// but Name may be empty.
type Benchmark struct {
	// Name is the "benchmark" meta its converter writes into every sheet,
	// by which agg finds the files its Metric reads.
	Name string
	// Title is its name as people write it ("DSBench"); empty means Name.
	Title string
	// Graders are its graders by name (the "grader" meta of its sheets).
	Graders map[string]grade.Factory
	// Metric computes its figures in agg's report; nil for none. Its
	// Benchmark() is Name.
	Metric agg.Metric
	// JudgeTemplate is the judge grader's prompt for its sheets' questions
	// that name none (judge_template meta, --judge-template): "dsbench"
	// for DSBench; "" leaves the judge's default.
	JudgeTemplate string
	// MetaKeys are the meta keys its sheets carry as its own data
	// (DABench's level, concepts...), which run does not warn about as
	// unknown keys.
	MetaKeys []string
}

// Conversions are one benchmark's `convert` subcommands.
type Conversions struct {
	// Benchmark is the title of the benchmark they belong to ("DSBench").
	Benchmark string
	// Converters turn its published data into sheets.
	Converters []Converter
	// Exports turn output files into the files its own scorer reads.
	Exports []Export
}

// Note is what a conversion says of sheets it wrote whole that their
// user must know (a file the prompts refer to was not in the data, so the
// model will not see it). A converter returns it among its problems; the
// command says it and does not count it as one.
type Note struct{ Text string }

func (n *Note) Error() string { return n.Text }

// Converter turns a benchmark's published data into sheets: `convert NAME`.
type Converter struct {
	// Name is the convert subcommand; Summary says in one line what it
	// reads. Benchmark is the title of the benchmark it belongs to, set by
	// NewConvertSet.
	Name, Summary, Benchmark string
	// Options returns a pointer to a new options struct. Its fields of
	// type string or bool that carry a `flag:"NAME"` tag are the options a
	// caller sets (cmd/convert maps its flags onto them, the `usage` tag
	// being the flag's help, the `meta` tag the value's placeholder in the
	// synopsis); a tag `flag:"NAME,required"` marks an option that must be
	// given.
	Options func() any
	// Convert runs the conversion with an Options value filled in; w says
	// which existing files may be replaced (the converter adds the files
	// it reads to w.Inputs). It returns the sheets written and every
	// problem met: a converter skips what it cannot convert and says so,
	// and converts the rest; a *Note among them is no problem.
	Convert func(ctx context.Context, opt any, w outfile.Options) (written []string, problems []error)
}

// NewConverter builds a Converter whose options are an O.
func NewConverter[O any](name, summary string, convert func(context.Context, *O, outfile.Options) ([]string, []error)) Converter {
	return Converter{
		Name: name, Summary: summary,
		Options: func() any { return new(O) },
		Convert: func(ctx context.Context, opt any, w outfile.Options) ([]string, []error) {
			o, ok := opt.(*O)
			if !ok {
				return nil, []error{fmt.Errorf("convert %s: options are %T, want %T", name, opt, new(O))}
			}
			return convert(ctx, o, w)
		},
	}
}

// Export writes the file a benchmark's own scorer reads from output files:
// `convert NAME -i OUTPUTS -o FILE`, or with Files the folder of files it
// reads: `convert NAME -i OUTPUTS -o DIR`. One of Write and Files is set.
type Export struct {
	Name, Summary string
	// Write writes the one file -o names.
	Write func(w io.Writer, files []*result.File) error
	// Files returns the files to write into the folder -o names, each by
	// its base name; an error writes none of them.
	Files func(files []*result.File) ([]ExportFile, error)
}

// ExportFile is one file of an export that writes a folder.
type ExportFile struct {
	Name  string // base name in the folder
	Write func(w io.Writer) error
}

// Set is the registries built from a list of benchmarks: graders (the
// generic ones and every benchmark's) and metrics.
type Set struct {
	Graders  *grade.Registry
	Metrics  []agg.Metric
	MetaKeys []string // every benchmark's
}

// NewSet builds the registries of the benchmarks, in their order. Two
// benchmarks of one name or two graders of one name are errors.
func NewSet(bs ...Benchmark) (*Set, error) {
	s := &Set{Graders: grade.NewRegistry()}
	seen := map[string]bool{}
	for _, b := range bs {
		name := strings.ToLower(strings.TrimSpace(b.Name))
		if name == "" || seen[name] {
			return nil, fmt.Errorf("benchmark %q: no name or named twice", b.Name)
		}
		seen[name] = true
		s.MetaKeys = append(s.MetaKeys, b.MetaKeys...)
		if b.JudgeTemplate != "" {
			s.Graders.SetJudgeTemplate(name, b.JudgeTemplate)
		}
		for g, f := range b.Graders {
			if err := s.Graders.Add(g, f); err != nil {
				return nil, fmt.Errorf("benchmark %s: %w", b.Name, err)
			}
		}
		if b.Metric != nil {
			if !strings.EqualFold(b.Metric.Benchmark(), name) {
				return nil, fmt.Errorf("benchmark %s: its metric reads benchmark %q", b.Name, b.Metric.Benchmark())
			}
			s.Metrics = append(s.Metrics, b.Metric)
		}
	}
	return s, nil
}

// ConvertSet is the `convert` subcommands of a list of benchmarks.
type ConvertSet struct {
	Converters []Converter
	Exports    []Export
}

// NewConvertSet gathers the conversions, in their order. Two subcommands
// of one name are an error.
func NewConvertSet(cs ...Conversions) (*ConvertSet, error) {
	s := &ConvertSet{}
	commands := map[string]bool{}
	for _, c := range cs {
		for _, conv := range c.Converters {
			if commands[conv.Name] {
				return nil, fmt.Errorf("benchmark %s: conversion %q named twice", c.Benchmark, conv.Name)
			}
			commands[conv.Name] = true
			conv.Benchmark = c.Benchmark
			s.Converters = append(s.Converters, conv)
		}
		for _, e := range c.Exports {
			if commands[e.Name] {
				return nil, fmt.Errorf("benchmark %s: conversion %q named twice", c.Benchmark, e.Name)
			}
			commands[e.Name] = true
			s.Exports = append(s.Exports, e)
		}
	}
	return s, nil
}
