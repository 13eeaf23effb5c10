package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"reflect"
	"testing"

	"github.com/evalmd/evalmd/agg"
	"github.com/evalmd/evalmd/bench/dabench"
	"github.com/evalmd/evalmd/harness"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/providers"
	"github.com/evalmd/evalmd/internal/shared"
)

// DABench end to end: the reference responses, replayed on the converted
// DABench sheets and aggregated, give the figures eval_closed_form.py
// printed (ABQ, PSAQ, UASQ, per concept, per concept count), including
// its rule that a question without a response leaves the denominators and
// that string ids match nothing.
func TestDABenchReplayEqualsScript(t *testing.T) {
	sheets := t.TempDir()
	if _, errs := dabench.Convert(shared.Path(t, "corpora", "dabench"), sheets, outfile.Options{}); len(errs) > 0 {
		t.Fatal(errs)
	}
	found, err := harness.FindSheets(sheets)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"half", "none_scored", "perfect"} {
		t.Run(c, func(t *testing.T) {
			out := t.TempDir()
			replay := "replay:" + shared.Path(t, "reference", "dabench", c+".responses.jsonl")
			if _, err := harness.Run(context.Background(), harness.Config{NewModel: providers.New, Sheets: found, Models: []string{replay}, OutDir: out}); err != nil {
				t.Fatal(err)
			}
			d, err := agg.Load(context.Background(), out, io.Discard, agg.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			runs := d.DABench()
			if len(runs) != 1 {
				t.Fatalf("%d DABench runs", len(runs))
			}
			got, err := json.Marshal(runs[0].Report)
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
