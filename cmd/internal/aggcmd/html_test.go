package aggcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/benchmark"
	"github.com/evalmd/evalmd/benchmark/dsbench"
	"github.com/evalmd/evalmd/harness"
	"github.com/evalmd/evalmd/internal/setting"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/model"
)

// -html writes the page and, without -o, no markdown.
func TestHTML(t *testing.T) {
	in := t.TempDir()
	for _, name := range []string{"output-comp-a-m1-0001.json", "output-comp-a-m2-0002.json"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "..", "agg", "testdata", "bench", name))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(in, name), data, 0o644)
	}
	page := filepath.Join(t.TempDir(), "report.html")
	var stdout, stderr bytes.Buffer
	if err := aggregate(context.Background(), &stdout, &stderr, []string{"-i", in, "-html", page}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	got, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(got, []byte("<!DOCTYPE html>")) || !bytes.Contains(got, []byte("Leaderboard")) {
		t.Errorf("%s is not the report:\n%.300s", page, got)
	}
	if md, _ := filepath.Glob(filepath.Join(in, "agg-*.md")); len(md) != 0 {
		t.Errorf("-html without -o also wrote %v", md)
	}
	book := filepath.Join(t.TempDir(), "agg.xlsx")
	if err := aggregate(context.Background(), &stdout, &stderr, []string{"-i", in, "-xlsx", book}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if got, err := os.ReadFile(book); err != nil || !bytes.HasPrefix(got, []byte("PK")) {
		t.Errorf("-xlsx wrote no workbook: %v", err)
	}
	if err := aggregate(context.Background(), &stdout, &stderr, []string{"-i", in, "-xlsx", filepath.Join(in, "output-comp-a-m1-0001.json")}); err == nil {
		t.Error("-xlsx wrote over an input")
	}
}

// answerer is a stand-in model with a context limit: it answers the
// ground truth for every other question and a long wrong answer for the
// rest.
type answerer struct {
	name  string
	limit int
}

func (a answerer) Name() string { return a.name }
func (a answerer) Info() model.Info {
	return model.Info{Provider: "test", Model: a.name, Offline: true, FromQuestion: true, ContextLimit: a.limit}
}
func (a answerer) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	return a.Answer(ctx, model.Task{Request: req})
}
func (a answerer) Answer(_ context.Context, req model.Task) (model.Response, error) {
	if req.Question.GroundTruth != nil && len(req.Question.Name)%2 == 0 {
		return model.Response{Text: *req.Question.GroundTruth}, nil
	}
	return model.Response{Text: strings.Repeat("Let me think about the workbook step by step. ", 40) + "The answer is 42."}, nil
}

// DSBench at full size (466 questions, two models), each case with a
// 100 KB workbook-like text in its prompt: the page stays well under
// 30 MB because each case's shared text is stored once.
func TestHTMLDSBenchSize(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 932 questions")
	}
	sheets := t.TempDir()
	written, errs := dsbench.Convert(t.Context(), dsbench.Options{Data: shared.Path(t, "corpora", "dsbench"), Out: sheets})
	// One note says the corpus has no workbooks.
	if n := (*benchmark.Note)(nil); len(errs) != 1 || !errors.As(errs[0], &n) || len(written) != 38 {
		t.Fatalf("converted %d sheets: %v", len(written), errs)
	}
	// The corpus has no workbooks: stand one in for each case, as text in
	// the case's context, so prompts have DSBench's real shape.
	for i, path := range written {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var wb strings.Builder
		for r := range 1500 {
			fmt.Fprintf(&wb, "%6d  case%02d  %12.4f  %12.4f  region-%d\n", r, i, float64(r*i)*1.37, float64(r)/7, r%13)
		}
		s := string(data)
		if strings.Contains(s, "#### context\n") {
			s = strings.Replace(s, "#### context\n", "#### context\n"+wb.String(), 1)
		} else { // a case without an introduction
			s = strings.Replace(s, "#### templates\n", "#### context\n"+wb.String()+"<EVAL-ENDCHAR>\n\n#### templates\n", 1)
		}
		if s == string(data) {
			t.Fatalf("%s: no place for a workbook", path)
		}
		os.WriteFile(path, []byte(s), 0o644)
	}
	out := t.TempDir()
	_, err := harness.Run(context.Background(), harness.Config{
		Sheets: written, Models: []string{"openai/gpt-4o", "openai/gpt-3.5-turbo"}, OutDir: out, Settings: []setting.Layer{{Source: setting.Flag, Values: map[string]string{"grader": "exact"}}}, RunIDLen: 4,
		NewModel: func(name string, _ model.Options) (model.Model, error) {
			limit := 128000 // gpt-4o's context, in tokens
			if strings.Contains(name, "3.5") {
				limit = 16385
			}
			return answerer{name, limit}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(t.TempDir(), "dsbench.html")
	var stdout, stderr bytes.Buffer
	if err := aggregate(context.Background(), &stdout, &stderr, []string{"-i", out, "-html", page}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var outputs int64
	files, _ := filepath.Glob(filepath.Join(out, "*.json"))
	for _, f := range files {
		st, _ := os.Stat(f)
		outputs += st.Size()
	}
	st, err := os.Stat(page)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("DSBench, 466 questions x 2 models: output files %.1f MB, page %.1f MB", float64(outputs)/1e6, float64(st.Size())/1e6)
	if st.Size() > 30e6 {
		t.Errorf("the page is %d bytes, over 30 MB", st.Size())
	}
	if st.Size() > outputs/4 {
		t.Errorf("the page (%d bytes) is not much smaller than the outputs (%d bytes): shared text is repeated", st.Size(), outputs)
	}
	data, _ := os.ReadFile(page)
	if n := bytes.Count(data, []byte(`"k":"`)); n != 466 {
		t.Errorf("the page holds %d questions, want 466", n)
	}
}
