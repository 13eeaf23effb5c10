package dabench

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"reflect"
	"testing"

	"github.com/evalmd/evalmd/agg"
	"github.com/evalmd/evalmd/benchmark"
	"github.com/evalmd/evalmd/harness"
	"github.com/evalmd/evalmd/internal/providers"
	"github.com/evalmd/evalmd/internal/shared"
)

// DABench end to end: the reference responses, replayed on the converted
// DABench sheets and aggregated, give the figures eval_closed_form.py
// printed (ABQ, PSAQ, UASQ, per concept, per concept count), including
// its rule that a question without a response leaves the denominators and
// that string ids match nothing.
// capture is DABench's metric, keeping the questions agg hands it.
type capture struct {
	metric
	qs []agg.Question
}

func (c *capture) Tables(qs []agg.Question) []agg.Table {
	c.qs = qs
	return c.metric.Tables(qs)
}

func TestDABenchReplayEqualsScript(t *testing.T) {
	sheets := t.TempDir()
	if _, errs := Convert(Options{Data: shared.Path(t, "corpora", "dabench"), Out: sheets, Mode: ModeChat}); len(errs) > 0 {
		t.Fatal(errs)
	}
	set, err := benchmark.NewSet(Benchmark())
	if err != nil {
		t.Fatal(err)
	}
	found, err := harness.FindSheets(sheets)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"half", "none_scored", "perfect"} {
		t.Run(c, func(t *testing.T) {
			out := t.TempDir()
			replay := "replay:" + shared.Path(t, "reference", "dabench", c+".responses.jsonl")
			if _, err := harness.Run(context.Background(), harness.Config{NewModel: providers.New, Sheets: found, Models: []string{replay}, OutDir: out, Graders: set.Graders,
				DataRoots: []string{shared.Path(t, "corpora", "dabench")}}); err != nil {
				t.Fatal(err)
			}
			cp := &capture{}
			d, err := agg.Load(context.Background(), out, io.Discard, agg.LoadOptions{Metrics: []agg.Metric{cp}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := d.Markdown(agg.ReportOptions{}); err != nil {
				t.Fatal(err)
			}
			runs := runs(cp.qs)
			if len(runs) != 1 {
				t.Fatalf("%d DABench runs", len(runs))
			}
			got, err := json.Marshal(runs[0].report)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(shared.Path(t, "reference", "dabench", c+".expected.json"))
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			json.Unmarshal(got, &g)
			json.Unmarshal(want, &w)
			if !reflect.DeepEqual(g, w) {
				t.Errorf("figures differ from eval_closed_form.py:\n got %s\nwant %s", got, want)
			}
		})
	}
}
