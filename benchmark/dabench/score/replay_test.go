package score_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/evalmd/evalmd/agg"
	"github.com/evalmd/evalmd/agg/render"
	"github.com/evalmd/evalmd/benchmark"
	"github.com/evalmd/evalmd/benchmark/dabench"
	"github.com/evalmd/evalmd/benchmark/dabench/score"
	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/harness"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/model/providers"
	"github.com/evalmd/evalmd/schema"
	"github.com/evalmd/evalmd/sheet"
)

// capture is DABench's metric, keeping the questions agg hands it.
type capture struct {
	agg.Metric
	qs []agg.Question
}

func (c *capture) Tables(qs []agg.Question) []render.Table {
	c.qs = qs
	return c.Metric.Tables(qs)
}

// DABench end to end: the reference responses, replayed on the converted
// DABench sheets and aggregated, give the figures eval_closed_form.py
// printed (ABQ, PSAQ, UASQ, per concept, per concept count), including
// its rule that a question without a response leaves the denominators and
// that string ids match nothing.
func TestDABenchReplayEqualsScript(t *testing.T) {
	sheets := t.TempDir()
	if _, errs := dabench.Convert(dabench.Options{Data: shared.Path(t, "corpora", "dabench"), Out: sheets, Mode: dabench.ModeChat}); len(errs) > 0 {
		t.Fatal(errs)
	}
	set, err := benchmark.NewSet(score.Benchmark())
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
			cp := &capture{Metric: score.Benchmark().Metric}
			d, err := agg.Load(context.Background(), out, io.Discard, agg.LoadOptions{Metrics: []agg.Metric{cp}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := d.Markdown(agg.ReportOptions{}); err != nil {
				t.Fatal(err)
			}
			runs := score.RunReports(cp.qs)
			if len(runs) != 1 {
				t.Fatalf("%d DABench runs", len(runs))
			}
			got, err := json.Marshal(runs[0])
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

// TestSheetsReproduceScript grades the reference responses against the
// converted sheets (answers matched by the id meta, as replay does) and
// checks the metrics against eval_closed_form.py's output for each case.
func TestSheetsReproduceScript(t *testing.T) {
	got := convertCorpus(t)
	qs, errs := dabench.Load(shared.Path(t, "corpora", "dabench"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	g, err := score.Benchmark().Graders["dabench"](grade.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ref := shared.Path(t, "reference", "dabench")
	for _, name := range []string{"half", "none_scored", "perfect"} {
		t.Run(name, func(t *testing.T) {
			responses := firstResponses(t, filepath.Join(ref, name+".responses.jsonl"))
			var scored []score.ScoredQuestion
			for _, q := range qs { // labels-file order, as the script
				c := got[q.ID]
				s := score.ScoredQuestion{ID: c.Meta["id"], Concepts: score.ConceptsMeta(c.Meta), Level: c.Meta["level"]}
				if resp, ok := responses[q.ID]; ok {
					v, err := g.Grade(context.Background(), grade.Input{Completion: resp, Truth: *c.GroundTruth, Meta: c.Meta})
					if err != nil {
						t.Fatal(err)
					}
					s.Answered, s.Parts = true, v.Parts
				}
				scored = append(scored, s)
			}
			gotJSON, err := json.Marshal(score.ScriptMetrics(scored))
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(ref, name+".expected.json"))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(jsonValue(t, gotJSON), jsonValue(t, want)) {
				t.Errorf("metrics\n got %s\nwant %s", gotJSON, want)
			}
		})
	}
}

// convertCorpus converts the real DABench folder to agent sheets (the
// default) and reads every question back, by its id meta.
func convertCorpus(t *testing.T) map[int]sheet.Item {
	t.Helper()
	paths, errs := dabench.Convert(dabench.Options{Data: shared.Path(t, "corpora", "dabench"), Out: t.TempDir()})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	got := map[int]sheet.Item{}
	for _, p := range paths {
		doc, err := sheet.ParseFile(p, schema.Default())
		if err != nil {
			t.Fatal(err)
		}
		_, items := doc.Resolve()
		for _, it := range items {
			id, err := strconv.Atoi(it.Meta["id"])
			if err != nil || it.GroundTruth == nil {
				t.Fatalf("%s: question %s: id meta %q, answer %v", p, it.Name, it.Meta["id"], it.GroundTruth)
			}
			got[id] = it
		}
	}
	return got
}

func jsonValue(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// firstResponses keeps, per id, the script's choice: the first line whose id
// is a JSON number (the string "6" is not 6 to Python) and whose response
// is a non-empty string.
func firstResponses(t *testing.T, path string) map[int]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[int]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var row struct {
			ID       json.RawMessage `json:"id"`
			Response *string         `json:"response"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		raw := bytes.TrimSpace(row.ID)
		if len(raw) == 0 || raw[0] == '"' || row.Response == nil || *row.Response == "" {
			continue
		}
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil || f != float64(int(f)) {
			continue
		}
		if _, ok := out[int(f)]; !ok {
			out[int(f)] = *row.Response
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
