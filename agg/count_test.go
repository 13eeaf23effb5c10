package agg

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/agg/load"
	"github.com/evalmd/evalmd/internal/testkit/outputs"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/result"
)

// A file read a question at a time (result.ScanFile; agg reads a file past
// streamAbove so) counts as the same file decoded whole: LIME's results,
// reruns that reused some or every answer, a copy of a run with an id
// and one without, a dry run, a file agg cannot read, one whose
// questions come before its sheet (decoded whole after all), a run in
// shards' parts and in epochs, runs in shards' parts read together a
// question at a time (some questions without positions, a part missing,
// a part out of sheet order, a run without an id), and a run a baseline
// does not hold; with
// and without --latest-version. The reports, the notes and every list
// agg keeps are alike.
func TestStreamedCountsAsWhole(t *testing.T) {
	dir := t.TempDir()
	lime, _ := filepath.Glob(shared.Path(t, "corpora", "lime", "results", "output-*.json"))
	for _, p := range lime {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(p)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	first := "output-s-m-a1.json"
	writeKeyed(t, dir, "a1", []keyedQ{{"Q1", "", false}, {"Q2", "", true}, {"Q3", "", true}})
	writeKeyed(t, dir, "b2", []keyedQ{{"Q1", "", true}, {"Q2", first, true}, {"Q3", first, true}})
	writeKeyed(t, dir, "c3", []keyedQ{{"Q1", first, false}, {"Q2", first, true}, {"Q3", first, true}})
	copyFile(t, filepath.Join(dir, "output-s-m-b2.json"), filepath.Join(dir, "sub", "output-s-m-b2.json"))
	outputs.WriteRun(t, dir, "e", "m", "", [][]bool{{true, false}})
	copyFile(t, filepath.Join(dir, result.FileName("input-e.md", "m", "")), filepath.Join(dir, "copy", result.FileName("input-e.md", "m", "")))
	outputs.WriteRun(t, dir, "ep", "m2", "r9", [][]bool{{true, false, true}, {false, false, true}})
	dry := &result.File{Sheet: result.Sheet{Name: "d", RunID: "d1", ModelName: "m", DryRun: true}, Questions: []result.Question{{Name: "Q1"}}}
	outputs.Write(t, filepath.Join(dir, result.FileName("input-d.md", "m", "d1")), dry)
	os.WriteFile(filepath.Join(dir, "output-broken-m-x.json"), []byte(`{"sheet": {"name": "b"}, "questions": [{"name": "q", "grade": tru`), 0o644)
	os.WriteFile(filepath.Join(dir, "output-late-m-l1.json"), []byte(`{"questions": [{"name": "Q1", "grade": true, "completion": "a"}], "sheet": {"name": "late", "run_id": "l1", "model_name": "m"}}`), 0o644)
	outputs.WriteShardedRun(t, filepath.Join(dir, "one"), filepath.Join(dir, "parts"), 3)
	yes, no := true, false
	judged := append(reviewedRun("v", 1, 2, true, &no), reviewedRun("v", 3, 2, false, nil)...)
	judged[0].detail = "judge j/one (inspect): GRADE: C"
	writeReviewed(t, dir, "rv", "m", "v1", "judge", judged)
	writeReviewed(t, dir, "rv", "m", "v2", "judge", []reviewed{{name: "v01", from: result.FileName("input-rv.md", "m", "v1"), grader: true, person: &yes}, {name: "v09", grader: true, person: &yes}})
	for _, run := range []struct {
		sheet, id string
		at        [][]int
	}{
		{"pz", "r5", [][]int{{1, 4, 0, 0}, {2, 3, 5}, {}, {0}}},
		{"pu", "", [][]int{{3, 1}, {2, 0, 4}}},
		{"pp", "r6", [][]int{{1, 3}, nil, {2, 0}}},
	} {
		for _, p := range shardParts(run.sheet, run.id, run.at) {
			if p != nil {
				outputs.Write(t, filepath.Join(dir, "runs", result.ShardName(result.FileName("input-"+run.sheet+".md", "m", run.id), p.Sheet.Shard, p.Sheet.Shards)), p)
			}
		}
	}
	base, err := Load(context.Background(), filepath.Join(dir, "one"), &bytes.Buffer{}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, latest := range []bool{false, true} {
		load := func(above int64) (*Data, string, string) {
			var warn bytes.Buffer
			d, err := Load(context.Background(), dir, &warn, LoadOptions{LatestVersion: latest, Baseline: base, streamAbove: above, whole: above == 0})
			if err != nil {
				t.Fatal(err)
			}
			md, err := d.Markdown(ReportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return d, md, warn.String()
		}
		whole, wmd, wwarn := load(0)
		streamed, smd, swarn := load(-1)
		if smd != wmd || swarn != wwarn {
			t.Errorf("latest %v: read a question at a time, the report or the notes differ:\n%s\n%s", latest, swarn, wwarn)
		}
		for name, pair := range map[string][2]any{
			"files": {whole.Files, streamed.Files}, "skipped": {whole.Skipped, streamed.Skipped}, "duplicates": {whole.Duplicates, streamed.Duplicates},
			"dry runs": {whole.DryRuns, streamed.DryRuns}, "no answers": {whole.NoAnswers, streamed.NoAnswers}, "parts": {whole.PartsOf, streamed.PartsOf},
			"subsets": {whole.Subsets, streamed.Subsets}, "versions": {whole.Versions, streamed.Versions}, "older": {whole.OlderVersions, streamed.OlderVersions},
			"counted": {whole.Counted, streamed.Counted}, "rows": {rowsOf(whole), rowsOf(streamed)}, "usage": {usageOf(whole), usageOf(streamed)},
			"reviews": {reviewsOf(whole), reviewsOf(streamed)},
		} {
			if !reflect.DeepEqual(pair[0], pair[1]) {
				t.Errorf("latest %v: %s: read whole %v, a question at a time %v", latest, name, pair[0], pair[1])
			}
		}
		if !latest && (whole.Files < 30 || len(whole.Duplicates) < 3 || len(whole.Reviews()) != 3) || len(whole.Skipped) != 1 || !strings.Contains(wwarn, "counted from") {
			t.Errorf("latest %v: the folder did not hold what the test needs: %d files, duplicates %v, skipped %v", latest, whole.Files, whole.Duplicates, whole.Skipped)
		}
	}
}

// shardParts are the parts of a run (id id) of sheet on model m in
// len(at) shards, part k's questions at the positions at[k] (0: none),
// each named after its position or, without one, its part and place; a
// nil at[k] is a part not written (nil).
func shardParts(sheet, id string, at [][]int) []*result.File {
	parts := make([]*result.File, len(at))
	for k, pos := range at {
		if pos == nil {
			continue
		}
		p := &result.File{Sheet: result.Sheet{Name: sheet, RunID: id, ModelName: "m", Shard: k + 1, Shards: len(at)}, Questions: []result.Question{}}
		for i, n := range pos {
			name := fmt.Sprintf("Q%d", n)
			if n == 0 {
				name = fmt.Sprintf("U%d.%d", k+1, i)
			}
			c, g := fmt.Sprintf("answer %d.%d", k+1, i), (n+k+i)%3 != 0
			p.Questions = append(p.Questions, result.Question{Name: name, Question: "ask " + name, Completion: &c, ModelName: "m",
				Grade: &g, Position: n, InputTokens: 10 + n, RequestKey: name})
		}
		parts[k] = p
	}
	return parts
}

// rowsOf are d's rows, their strings spelt out (a file read a question
// at a time and decoded whole after all interned some before).
func rowsOf(d *Data) []string {
	rows := d.Rows()
	out := make([]string, len(rows))
	for i, r := range rows {
		s := d.Str
		var meta []string
		for _, v := range d.Meta(&r) {
			meta = append(meta, s(v))
		}
		out[i] = strings.Join([]string{s(r.Sheet), s(r.Model), s(r.Run), s(r.Name), s(r.Truth)}, "|") +
			fmt.Sprint(meta, r.SubTotal, r.SubCorrect, r.Epoch, r.Occ, r.Grade, r.Fresh, r.Errored, r.Unanswered, r.NoResponse, r.Limited, r.Liberal, r.Metric)
	}
	return out
}

// reviewsOf are d's reviews, their strings spelt out.
func reviewsOf(d *Data) []string {
	var out []string
	for _, rv := range d.Reviews() {
		out = append(out, fmt.Sprint(rv.Row, d.Str(rv.Grader), rv.GraderGrade))
	}
	return out
}

// usageOf is d's usage by model name.
func usageOf(d *Data) []load.Usage { return d.Usages() }

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
