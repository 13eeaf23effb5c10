package benchmark_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/agg"
	"github.com/evalmd/evalmd/agg/render"
	"github.com/evalmd/evalmd/benchmark"
	"github.com/evalmd/evalmd/benchmark/benchmarks"
	"github.com/evalmd/evalmd/benchmark/conversions"
	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/harness"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/model/providers"
	"github.com/evalmd/evalmd/schema"
	"github.com/evalmd/evalmd/sheet"
)

// The toy benchmark: its data is lines "LEVEL|QUESTION|ANSWER", its grader
// "toy" counts a completion right when it contains the answer (case
// aside), and its metric reports correct answers per level and model.

type toyOptions struct {
	In  string `flag:"i,required" usage:"toy data file"`
	Out string `flag:"o,required" usage:"output folder"`
}

func toyConvert(_ context.Context, opt *toyOptions, w outfile.Options) ([]string, []error) {
	f, err := os.Open(opt.In)
	if err != nil {
		return nil, []error{err}
	}
	defer f.Close()
	head := sheet.Block{Kind: sheet.SheetKind, Name: "Toy", Sections: []sheet.Section{
		{Kind: "meta", Text: sheet.MetaText([2]string{"benchmark", "toy"}, [2]string{"grader", "toy"})},
	}}
	doc := &sheet.Doc{Blocks: []sheet.Block{head}}
	var problems []error
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		parts := strings.Split(sc.Text(), "|")
		if len(parts) != 3 {
			problems = append(problems, fmt.Errorf("%s:%d: want LEVEL|QUESTION|ANSWER", opt.In, n))
			continue
		}
		doc.Blocks = append(doc.Blocks, sheet.Block{Kind: sheet.QuestionKind, Name: fmt.Sprintf("toy-%d", n),
			Sections: []sheet.Section{
				{Kind: "meta", Text: sheet.MetaText([2]string{"level", parts[0]})},
				{Kind: "question", Text: parts[1]},
				{Kind: "answer", Text: parts[2]},
			}})
	}
	data, err := sheet.Format(doc, schema.Default())
	if err != nil {
		return nil, append(problems, err)
	}
	path := filepath.Join(opt.Out, "input-toy.md")
	if err := outfile.Write(path, data, w); err != nil {
		return nil, append(problems, err)
	}
	return []string{path}, problems
}

type toyGrader struct{}

func (toyGrader) Name() string { return "toy" }

func (toyGrader) Grade(_ context.Context, in grade.Input) (grade.Verdict, error) {
	ok := strings.Contains(strings.ToLower(in.Completion), strings.ToLower(in.Truth))
	return grade.Verdict{Correct: grade.Bool(ok), Detail: "toy: contains the answer"}, nil
}

type toyMetric struct{}

func (toyMetric) Benchmark() string  { return "toy" }
func (toyMetric) MetaKeys() []string { return []string{"level"} }

func (toyMetric) Tables(qs []agg.Question) []render.Table {
	right := map[string]int{}
	total := map[string]int{}
	for _, q := range qs {
		k := q.Model + " " + q.Meta["level"]
		total[k]++
		if q.Grade != nil && *q.Grade {
			right[k]++
		}
	}
	t := render.Table{Title: "Toy: right per model and level", Columns: render.Cols("model and level", "right")}
	var keys []string
	for k := range total {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Rows = append(t.Rows, []string{k, fmt.Sprintf("%d/%d", right[k], total[k])})
	}
	return []render.Table{t}
}

// toy is what reads the toy's answers (benchmark/NAME/score's Benchmark).
func toy() benchmark.Benchmark {
	return benchmark.Benchmark{
		Name:    "toy",
		Graders: map[string]grade.Factory{"toy": func(grade.Options) (grade.Grader, error) { return toyGrader{}, nil }},
		Metric:  toyMetric{},
	}
}

// toyConversions are its convert subcommands (benchmark/NAME's
// Conversions).
func toyConversions() benchmark.Conversions {
	return benchmark.Conversions{Benchmark: "Toy",
		Converters: []benchmark.Converter{benchmark.NewConverter("toy", "toy data -> one sheet", toyConvert)}}
}

// TestToyBenchmark adds a benchmark (converter, grader, metric) from this
// test alone, beside the real ones, and takes it through convert, run and
// agg: no other package knows it.
func TestToyBenchmark(t *testing.T) {
	set, err := benchmark.NewSet(append(benchmarks.All(), toy())...)
	if err != nil {
		t.Fatal(err)
	}
	convs, err := benchmark.NewConvertSet(append(conversions.All(), toyConversions())...)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "toy.txt")
	os.WriteFile(data, []byte("easy|What is 2+2?|4\nhard|Name the capital of France.|Paris\nnot a toy line\n"), 0o644)

	var conv *benchmark.Converter
	for i := range convs.Converters {
		if convs.Converters[i].Name == "toy" {
			conv = &convs.Converters[i]
		}
	}
	if conv == nil {
		t.Fatal("the toy converter is not in the set")
	}
	opt := conv.Options().(*toyOptions)
	opt.In, opt.Out = data, dir
	written, problems := conv.Convert(context.Background(), opt, outfile.Options{Inputs: []string{data}})
	if len(written) != 1 || len(problems) != 1 || !strings.Contains(problems[0].Error(), "toy.txt:3") {
		t.Fatalf("convert: wrote %v, problems %v; want one sheet and the bad line 3", written, problems)
	}

	// The oracle answers the ground truth; the replayed model says "It is
	// 4." to both questions, right by the toy rule only for the first.
	replay := filepath.Join(dir, "replay.jsonl")
	os.WriteFile(replay, []byte(`{"name": "toy-1", "response": "It is 4."}`+"\n"+`{"name": "toy-2", "response": "It is 4."}`+"\n"), 0o644)
	out := filepath.Join(dir, "out")
	cfg := harness.Config{NewModel: providers.New, Sheets: written, Models: []string{"oracle", "replay:" + replay}, OutDir: out, Graders: set.Graders}
	if _, err := harness.Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	var md strings.Builder
	aggOpt := agg.Options{Dir: out, Out: "-", Stdout: &md, Metrics: set.Metrics}
	d, err := agg.Read(context.Background(), aggOpt, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Write(aggOpt); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### Toy: right per model and level", "| oracle easy", "| 1/1",
		"| replay:" + replay + " easy | 1/1", "| replay:" + replay + " hard | 0/1"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, md.String())
		}
	}
	if strings.Contains(md.String(), "DSBench") {
		t.Error("the toy files were reported as DSBench")
	}

	// The commands' own set knows nothing of the toy: no global registry.
	plain, err := benchmarks.Set()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plain.Graders.New("toy", grade.Options{}); err == nil {
		t.Error("the toy grader leaked into another set")
	}
	if _, err := benchmark.NewSet(toy(), toy()); err == nil {
		t.Error("a benchmark added twice: no error")
	}
	if _, err := benchmark.NewConvertSet(toyConversions(), toyConversions()); err == nil {
		t.Error("a conversion added twice: no error")
	}
}
