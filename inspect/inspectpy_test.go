package inspect

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/evalmd/evalmd/result"
)

// inspectPythonVar names a python that imports inspect_ai
// (scripts/inspect-sid makes one in a Debian sid chroot).
const inspectPythonVar = "EVALMD_INSPECT_PYTHON"

// inspectReader is run by Inspect's python: it reads the log given on
// standard input (its format the first argument) with read_eval_log,
// whole and header only, then runs recompute_metrics, and prints what
// the test compares. The python may see no file of the test's, hence
// standard input.
const inspectReader = `
import json, os, sys, tempfile
from inspect_ai.log import read_eval_log
from inspect_ai.log._metric import recompute_metrics

def table(log):
    return [[s.name, {k: m.value for k, m in s.metrics.items()}] for s in log.results.scores]

def reductions(log):
    return [[r.scorer, [[s.sample_id, s.value] for s in r.samples]] for r in log.reductions or []]

with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "log" + sys.argv[1])
    with open(path, "wb") as f:
        f.write(sys.stdin.buffer.read())
    log = read_eval_log(path)
    header = read_eval_log(path, header_only=True)
    out = {"table": table(log), "header": table(header), "reductions": reductions(log), "samples": []}
    for s in log.samples:
        for name, sc in (s.scores or {}).items():
            last = s.events[-1] if s.events else None
            edit = None
            if last is not None and last.event == "score_edit":
                p = last.edit.provenance
                edit = {"score_name": last.score_name, "value": last.edit.value, "author": p.author,
                        "reason": p.reason, "timestamp": p.timestamp.isoformat()}
            out["samples"].append({"id": s.id, "scorer": name, "value": sc.value, "explanation": sc.explanation,
                "history": [[h.value, h.provenance.author if h.provenance else None] for h in sc.history],
                "edit": edit})
    recompute_metrics(log)
    out["recomputed"] = table(log)
    out["recomputed_reductions"] = reductions(log)
    print(json.dumps(out))
`

// inspectSaid is what inspectReader prints.
type inspectSaid struct {
	Table, Header, Recomputed []any
	Reductions                []any
	RecomputedReductions      []any `json:"recomputed_reductions"`
	Samples                   []struct {
		ID, Scorer, Value, Explanation string
		History                        [][]any
		Edit                           *struct {
			ScoreName                string `json:"score_name"`
			Value, Author, Timestamp string
			Reason                   *string
		}
	}
}

// Inspect's own reader (inspect_ai 0.3.260) reads a log with a reviewed
// score as the edit it is: the person's value, the history, the
// score_edit event with its provenance, and results of the edited values;
// its recompute_metrics (what any edit in Inspect runs) gives the same
// table and reductions back. Both formats; two graders, so the scorers'
// order is checked too.
func TestInspectPythonReadsReview(t *testing.T) {
	python := os.Getenv(inspectPythonVar)
	if python == "" {
		t.Skipf("%s is not set: no python with inspect_ai to read the logs (scripts/inspect-sid makes one)", inspectPythonVar)
	}
	no := false
	f := reviewedOutput(&result.Review{By: "alice", At: "2026-11-30T12:00:00Z", Reason: "same city", GraderGrade: &no}, true)
	s := func(v string) *string { return &v }
	yes := true
	f.Questions = append(f.Questions, result.Question{Name: "q3", Question: "1/2?", GroundTruth: s("0.5"), Completion: s("0.50"),
		Grader: "numeric", Grade: &yes})
	for _, format := range []string{FormatJSON, FormatEval} {
		t.Run(format, func(t *testing.T) {
			path, lg := writeRead(t, f, LogOptions{Format: format})
			said := runInspect(t, python, path)
			want := []any{[]any{"exact", map[string]any{"accuracy": 0.5, "stderr": 0.5}}, []any{"numeric", map[string]any{"accuracy": 1.0, "stderr": 0.0}}}
			if !reflect.DeepEqual(said.Table, want) || !reflect.DeepEqual(said.Header, want) {
				t.Errorf("Inspect read results %v (header only: %v), want %v", said.Table, said.Header, want)
			}
			if !reflect.DeepEqual(said.Recomputed, said.Table) || !reflect.DeepEqual(said.RecomputedReductions, said.Reductions) {
				t.Errorf("recompute_metrics changed the table %v -> %v, reductions %v -> %v", said.Table, said.Recomputed, said.Reductions, said.RecomputedReductions)
			}
			if len(said.Samples) != len(lg.Samples) {
				t.Fatalf("Inspect read %d scores, want %d", len(said.Samples), len(lg.Samples))
			}
			q1 := said.Samples[0]
			if q1.ID != "q1" || q1.Value != "C" || q1.Explanation != "same city" ||
				!reflect.DeepEqual(q1.History, [][]any{{"I", nil}, {"C", "alice"}}) {
				t.Errorf("reviewed score as Inspect reads it: %+v", q1)
			}
			e := q1.Edit
			if e == nil || e.ScoreName != "exact" || e.Value != "C" || e.Author != "alice" || e.Reason == nil || *e.Reason != "same city" ||
				e.Timestamp != "2026-11-30T12:00:00+00:00" {
				t.Errorf("score_edit event as Inspect reads it: %+v", e)
			}
			for _, other := range said.Samples[1:] {
				if other.Edit != nil || len(other.History) != 0 {
					t.Errorf("%s: unreviewed, yet edit %+v history %v", other.ID, other.Edit, other.History)
				}
			}
		})
	}
}

// runInspect runs inspectReader on the log at path.
func runInspect(t *testing.T, python, path string) inspectSaid {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-c", inspectReader, filepath.Ext(path))
	cmd.Stdin = bytes.NewReader(data)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s (Inspect's reader) on %s: %v\n%s", python, filepath.Base(path), err, stderr.Bytes())
	}
	var said inspectSaid
	if err := json.Unmarshal(out, &said); err != nil {
		t.Fatalf("Inspect's reader printed %q: %v", out, err)
	}
	return said
}
