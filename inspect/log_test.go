package inspect

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/aimd"
	"github.com/evalmd/evalmd/internal/testkit/golden"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/result"
)

// fixedCreated stands in for the start time LIME's output files lack.
var fixedCreated = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

// limeOutputs lists the real LIME output files.
func limeOutputs(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(shared.Path(t, "corpora", "lime", "results", "output-*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 26 {
		t.Fatalf("found %d LIME output files, want 26", len(files))
	}
	return files
}

// isoPython matches what Python's datetime.fromisoformat takes, as Inspect
// parses its time members (UtcDatetimeStr); the schema says only "string".
var isoPython = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}:\d{2}|Z)?$`)

// checkInspectShape checks a JSON log against Inspect's schema.
func checkInspectShape(t *testing.T, name string, data []byte) {
	t.Helper()
	for _, p := range inspectProblems(t, data) {
		t.Errorf("%s: %s", name, p)
	}
}

// inspectProblems lists what Inspect would reject in a JSON log: what
// breaks its EvalLog schema, and times Python cannot parse.
func inspectProblems(t testing.TB, data []byte) []string {
	probs := validateJSON(loadSchemas(t).log, "log", data)
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return append(probs, err.Error())
	}
	for _, k := range []string{"results", "error"} {
		// The streaming header reader (log/_recorders/json.py) validates
		// every header member it meets: null fails it.
		if string(members[k]) == "null" {
			probs = append(probs, k+" is null: read_eval_log(header_only=True) fails on it")
		}
	}
	var root struct {
		Eval struct {
			Created string `json:"created"`
		} `json:"eval"`
		Stats struct {
			StartedAt   string `json:"started_at"`
			CompletedAt string `json:"completed_at"`
		} `json:"stats"`
	}
	if err := json.Unmarshal(data, &root); err != nil {
		return append(probs, err.Error())
	}
	for name, v := range map[string]string{"eval.created": root.Eval.Created, "stats.started_at": root.Stats.StartedAt, "stats.completed_at": root.Stats.CompletedAt} {
		if v == "" && name != "eval.created" {
			continue // Literal[""] is allowed for the stats times
		}
		if !isoPython.MatchString(v) {
			probs = append(probs, fmt.Sprintf("%s = %q is not an ISO 8601 time Python reads", name, v))
		}
	}
	return probs
}

// TestInspectProblemsCatches makes sure the shape check fails the logs
// Inspect would reject: each edit breaks one rule of the models.
func TestInspectProblemsCatches(t *testing.T) {
	lg, err := buildLog(syntheticOutput(), LogOptions{Created: fixedCreated})
	if err != nil {
		t.Fatal(err)
	}
	good, err := marshal(lg)
	if err != nil {
		t.Fatal(err)
	}
	if p := inspectProblems(t, good); len(p) != 0 {
		t.Fatalf("good log: %v", p)
	}
	edits := map[string]func(m map[string]any){
		"no eval":           func(m map[string]any) { delete(m, "eval") },
		"no created":        func(m map[string]any) { delete(obj(m, "eval"), "created") },
		"bad created":       func(m map[string]any) { obj(m, "eval")["created"] = "May 1st" },
		"no config":         func(m map[string]any) { delete(obj(m, "eval"), "config") },
		"null model":        func(m map[string]any) { obj(m, "eval")["model"] = nil },
		"bad status":        func(m map[string]any) { m["status"] = "done" },
		"sample without id": func(m map[string]any) { delete(sample(m, 0), "id") },
		"float epoch":       func(m map[string]any) { sample(m, 0)["epoch"] = json.Number("1.5") },
		"null target":       func(m map[string]any) { sample(m, 2)["target"] = nil },
		"null metadata":     func(m map[string]any) { sample(m, 2)["metadata"] = nil },
		"null score value":  func(m map[string]any) { obj(obj(sample(m, 0), "scores"), "exact")["value"] = nil },
		"message no role":   func(m map[string]any) { delete(sample(m, 0)["messages"].([]any)[1].(map[string]any), "role") },
		"sample error part": func(m map[string]any) { delete(obj(sample(m, 1), "error"), "traceback") },
		"metric no value": func(m map[string]any) {
			delete(m["results"].(map[string]any)["scores"].([]any)[0].(map[string]any)["metrics"].(map[string]any)["accuracy"].(map[string]any), "value")
		},
		"bad stop reason": func(m map[string]any) {
			obj(sample(m, 0), "output")["choices"].([]any)[0].(map[string]any)["stop_reason"] = "done"
		},
		"plan step no name":  func(m map[string]any) { delete(obj(m, "plan")["steps"].([]any)[0].(map[string]any), "solver") },
		"no plan":            func(m map[string]any) { delete(m, "plan") },
		"input role unknown": func(m map[string]any) { sample(m, 0)["input"].([]any)[0].(map[string]any)["role"] = "robot" },
		"null results":       func(m map[string]any) { m["results"] = nil },
		"no invalidated":     func(m map[string]any) { delete(m, "invalidated") },
		"no tags":            func(m map[string]any) { delete(m, "tags") },
		"no role usage":      func(m map[string]any) { delete(sample(m, 0), "role_usage") },
		"no score history":   func(m map[string]any) { delete(obj(obj(sample(m, 0), "scores"), "exact"), "history") },
		"no params passed":   func(m map[string]any) { delete(obj(m, "plan")["steps"].([]any)[0].(map[string]any), "params_passed") },
		"model event no tools": func(m map[string]any) {
			delete(sample(m, 0)["events"].([]any)[0].(map[string]any), "tools")
		},
		"stats no connection history": func(m map[string]any) { delete(obj(m, "stats"), "connection_limit_history") },
		"reduction no scorer":         func(m map[string]any) { delete(reduction(m, 0), "scorer") },
		"reduced score no history": func(m map[string]any) {
			delete(reduction(m, 0)["samples"].([]any)[0].(map[string]any), "history")
		},
		"reduced score null value": func(m map[string]any) {
			reduction(m, 0)["samples"].([]any)[0].(map[string]any)["value"] = nil
		},
	}
	for name, edit := range edits {
		dec := json.NewDecoder(bytes.NewReader(good))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		bad, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if p := inspectProblems(t, bad); len(p) == 0 {
			t.Errorf("%s: not caught", name)
		}
	}
}

func obj(m map[string]any, k string) map[string]any { return m[k].(map[string]any) }

func sample(m map[string]any, i int) map[string]any { return m["samples"].([]any)[i].(map[string]any) }

func reduction(m map[string]any, i int) map[string]any {
	return m["reductions"].([]any)[i].(map[string]any)
}

// TestLIMEOutputsToInspect writes the log of every real LIME output file
// in both formats, validates it against Inspect's schemas, reads it back
// and compares it with the output file it came from.
func TestLIMEOutputsToInspect(t *testing.T) {
	for _, format := range []string{FormatEval, FormatJSON} {
		dir := t.TempDir()
		names := map[string]bool{}
		for _, src := range limeOutputs(t) {
			t.Run(format+"/"+filepath.Base(src), func(t *testing.T) {
				f, err := result.Read(src)
				if err != nil {
					t.Fatal(err)
				}
				path, err := WriteLog(dir, f, LogOptions{Created: fixedCreated, Version: "test", Format: format})
				if err != nil {
					t.Fatal(err)
				}
				if names[path] {
					t.Errorf("log name %s used twice", path)
				}
				names[path] = true
				CheckSchema(t, path)
				checkFileName(t, path, "."+format)

				lg, err := ReadLog(path)
				if err != nil {
					t.Fatal(err)
				}
				compareWithOutput(t, f, lg)
			})
		}
	}
}

// inspectLogName is log_file_pattern of inspect_ai/log/_file.py, which
// decides what Inspect lists as a log.
var inspectLogName = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}[:-]\d{2}[:-]\d{2}.*$`)

// checkFileName parses the name as Inspect's _try_parse_filename does and
// checks it gives back the log's task and task id.
func checkFileName(t *testing.T, path, ext string) {
	t.Helper()
	lg, err := ReadLog(path)
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Base(path)
	if !inspectLogName.MatchString(base) || !strings.HasSuffix(base, ext) {
		t.Fatalf("%s: Inspect would not list it as a %s log", base, ext)
	}
	parts := strings.Split(strings.TrimSuffix(base, ext), "_")
	if len(parts) != 3 {
		t.Fatalf("%s: %d parts, want timestamp_task_id", base, len(parts))
	}
	// Inspect's clean_filename_component turns the offset's "+" into "-".
	if want := "2024-05-01T12-00-00-00-00"; parts[0] != want {
		t.Errorf("%s: timestamp part %q, want %q", base, parts[0], want)
	}
	if want := cleanPart(lg.Eval.Task); parts[1] != want {
		t.Errorf("%s: task part %q, want %q", base, parts[1], want)
	}
	id := strings.Split(parts[2], "-")
	if id[0] != lg.Eval.TaskID || len(id) != 1 {
		t.Errorf("%s: Inspect reads task id %q (suffix %v), log has %q", base, id[0], id[1:], lg.Eval.TaskID)
	}
}

// compareWithOutput checks a log read back against its output file.
func compareWithOutput(t *testing.T, f *result.File, lg *Log) {
	t.Helper()
	if lg.Version != 2 || lg.Status != "success" {
		t.Errorf("version %d status %q", lg.Version, lg.Status)
	}
	if lg.Eval.Model != f.Sheet.ModelName || lg.Eval.RunID != f.Sheet.RunID || lg.Eval.Dataset.Name != f.Sheet.Name {
		t.Errorf("eval: model %q run %q dataset %q; output file: %q %q %q",
			lg.Eval.Model, lg.Eval.RunID, lg.Eval.Dataset.Name, f.Sheet.ModelName, f.Sheet.RunID, f.Sheet.Name)
	}
	if lg.Eval.Created != "2024-05-01T12:00:00+00:00" {
		t.Errorf("created %q", lg.Eval.Created)
	}
	if len(lg.Samples) != len(f.Questions) || lg.Eval.Dataset.Samples != len(f.Questions) || len(lg.Eval.Dataset.SampleIDs) != len(f.Questions) {
		t.Fatalf("%d samples, %d in dataset, %d ids; output file has %d questions",
			len(lg.Samples), lg.Eval.Dataset.Samples, len(lg.Eval.Dataset.SampleIDs), len(f.Questions))
	}
	var grades []float64
	seen := map[string]bool{}
	for i, q := range f.Questions {
		s := lg.Samples[i]
		if seen[s.ID.Text] {
			t.Errorf("sample id %q repeated", s.ID.Text)
		}
		seen[s.ID.Text] = true
		if !strings.HasPrefix(s.ID.Text, q.Name) || s.Epoch != 1 {
			t.Errorf("sample %d: id %q epoch %d for question %q", i, s.ID.Text, s.Epoch, q.Name)
		}
		if s.Input.Text != q.Question || s.Input.Messages != nil {
			t.Errorf("sample %d: input differs from the question sent", i)
		}
		if q.GroundTruth == nil && s.Target != "" || q.GroundTruth != nil && s.Target != *q.GroundTruth {
			t.Errorf("sample %d: target %q", i, s.Target)
		}
		if q.Completion != nil {
			if len(s.Output.Choices) != 1 || s.Output.Choices[0].Message.Content.String() != *q.Completion || s.Output.Completion != *q.Completion {
				t.Errorf("sample %d: output differs from the completion", i)
			}
			last := s.Messages[len(s.Messages)-1]
			if last.Role != "assistant" || last.Content.String() != *q.Completion {
				t.Errorf("sample %d: last message %s %q", i, last.Role, last.Content.String())
			}
		}
		for k, v := range q.MetaData {
			if s.Metadata[k] != v {
				t.Errorf("sample %d: metadata %s = %v, want %q", i, k, s.Metadata[k], v)
			}
		}
		if q.EvalTime != nil && (s.Output.Time == nil || *s.Output.Time != *q.EvalTime) {
			t.Errorf("sample %d: time %v, want %v", i, s.Output.Time, *q.EvalTime)
		}
		sc, ok := s.Scores["lime"]
		switch {
		case q.Grade == nil && ok:
			t.Errorf("sample %d: ungraded question has score %v", i, sc.Value)
		case q.Grade != nil && !ok:
			t.Errorf("sample %d: graded question has no lime score (%v)", i, s.Scores)
		case q.Grade != nil:
			want := map[bool]string{true: "C", false: "I"}[*q.Grade]
			if sc.Value != want {
				t.Errorf("sample %d: score %v, want %s", i, sc.Value, want)
			}
			grades = append(grades, map[bool]float64{true: 1, false: 0}[*q.Grade])
		}
	}
	if lg.Results == nil || len(lg.Results.Scores) != 1 {
		t.Fatalf("results: %+v", lg.Results)
	}
	if lg.Results.TotalSamples != len(f.Questions) || lg.Results.CompletedSamples != len(f.Questions) {
		t.Errorf("results: %d total %d completed, want %d", lg.Results.TotalSamples, lg.Results.CompletedSamples, len(f.Questions))
	}
	sc := lg.Results.Scores[0]
	right := 0.0
	for _, g := range grades {
		right += g
	}
	n := float64(len(grades))
	p := right / n
	// stderr of a 0/1 mean: sqrt(p(1-p) * n/(n-1)) / sqrt(n), written out
	// apart from stderrMetric's own loop.
	wantStderr := 0.0
	if n > 1 {
		wantStderr = math.Sqrt(p*(1-p)*n/(n-1)) / math.Sqrt(n)
	}
	if sc.Name != "lime" || sc.Scorer != "lime" || float64(sc.Metrics["accuracy"].Value) != p || math.Abs(float64(sc.Metrics["stderr"].Value)-wantStderr) > 1e-12 {
		t.Errorf("score %s/%s accuracy %v stderr %v; want accuracy %v stderr %v",
			sc.Name, sc.Scorer, sc.Metrics["accuracy"].Value, sc.Metrics["stderr"].Value, p, wantStderr)
	}
	if sc.ScoredSamples == nil || *sc.ScoredSamples != len(grades) {
		t.Errorf("scored_samples %v, want %d", sc.ScoredSamples, len(grades))
	}
}

// TestGoldenLog pins the whole log of one LIME output file in both
// formats: the JSON log as written, the .eval zip as a listing of its
// members (name, compression, JSON re-indented), since the deflated bytes
// depend on the Go release.
func TestGoldenLog(t *testing.T) {
	src := shared.Path(t, "corpora", "lime", "results", "output-rules-qa-1-gpt-4-09fa.json")
	f, err := result.Read(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ format, golden string }{
		{FormatJSON, "rules-qa-1-gpt-4.log.json"},
		{FormatEval, "rules-qa-1-gpt-4.eval.txt"},
	} {
		path, err := WriteLog(t.TempDir(), f, LogOptions{Created: fixedCreated, Version: "test", Format: tc.format})
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if tc.format == FormatEval {
			got = evalListing(t, got)
		}
		golden.Check(t, "testdata/"+tc.golden, got)
	}
}

// zipMember is a member of an .eval zip, read whole.
type zipMember struct {
	*zip.File
	data []byte
}

// evalMembers reads every member of an .eval zip, in order.
func evalMembers(t *testing.T, data []byte) []zipMember {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var out []zipMember
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		member, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, zipMember{f, member})
	}
	return out
}

// evalListing lists an .eval zip's members in order: name, method and
// modification time, then the member's JSON indented.
func evalListing(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, m := range evalMembers(t, data) {
		fmt.Fprintf(&b, "== %s (method %d, %s)\n", m.Name, m.Method, m.Modified.UTC().Format(time.RFC3339))
		if err := json.Indent(&b, m.data, "", "  "); err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// TestLogMemberOrder checks the top-level member order Inspect's
// streaming header reader needs (log/_recorders/json.py): version, status,
// eval, plan, results, stats, error, then samples.
func TestLogMemberOrder(t *testing.T) {
	f := syntheticOutput()
	lg, err := buildLog(f, LogOptions{Created: fixedCreated, Status: "error", Error: "rate limited"})
	if err != nil {
		t.Fatal(err)
	}
	data, err := marshal(lg)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	want := "version status eval plan results stats error invalidated tags metadata samples reductions"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("members %q, want %q", got, want)
	}
	checkInspectShape(t, "error log", data)
}

// syntheticOutput is an output file with what LIME's files never have:
// a system message, an error, an ungraded and an unanswered question,
// duplicate names, several graders, tokens and cost.
func syntheticOutput() *result.File {
	s := func(v string) *string { return &v }
	b := func(v bool) *bool { return &v }
	f := func(v float64) *float64 { return &v }
	return &result.File{
		Sheet: result.Sheet{
			Name: "Unit prices", RunID: "ab12", ModelName: "openai/gpt-4o",
			MetaData:  map[string]string{"temperature": "0.2", "max_tokens": "300", "stop": "END|STOP"},
			SheetFile: "sheets/input-unit-prices.md", Created: "2025-02-03T04:05:06Z",
			Totals: &result.Totals{WallSeconds: 12.5},
		},
		Questions: []result.Question{
			{Name: "q1", MetaData: map[string]string{"id": "7", "grader": "exact"}, GroundTruth: s("42"),
				Question: "What is 6*7?\nA) 41\nB) 42", Completion: s("42"), ModelName: "openai/gpt-4o",
				EvalTime: f(1.5), Grade: b(true), System: s("Answer with a number."),
				InputTokens: 20, OutputTokens: 2, Cost: f(0.001), Grader: "exact", GradeDetail: "exact match", FinishReason: "length"},
			{Name: "q1", GroundTruth: s("x"), Question: "dup", Error: s("timeout after 3 tries"), ModelName: "openai/gpt-4o"},
			{Name: "q3", GroundTruth: nil, Question: "no truth", Completion: s("something"), ModelName: "openai/gpt-4o", EvalTime: f(0.5)},
			{Name: "q4", GroundTruth: s("B"), Question: "unanswered", ModelName: "openai/gpt-4o", Unanswered: true},
			{Name: "q5", GroundTruth: s("@a[1]"), Question: "dabench", Completion: s("@a[2]"), ModelName: "openai/gpt-4o",
				Grade: b(false), Grader: "dabench", InputTokens: 5, OutputTokens: 1, FinishReason: "end_turn",
				SubAnswers: []result.SubAnswer{{Name: "a", Want: "1", Got: "2", Found: true}}},
			{Name: "q6", GroundTruth: s("42"), Question: "again", Completion: s("41"), ModelName: "openai/gpt-4o",
				Grade: b(false), Grader: "exact", Grading: result.GradingLiberal, GradingFrom: result.GradingFromFlag},
		},
	}
}

// TestSyntheticLog checks the cases LIME's files do not exercise.
func TestSyntheticLog(t *testing.T) {
	dir := t.TempDir()
	path, err := WriteLog(dir, syntheticOutput(), LogOptions{Version: "v1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	CheckSchema(t, path)
	if want := "2025-02-03T04-05-06-00-00_unit-prices_"; !strings.HasPrefix(filepath.Base(path), want) {
		t.Errorf("file %s, want prefix %s", filepath.Base(path), want)
	}
	lg, err := ReadLog(path)
	if err != nil {
		t.Fatal(err)
	}
	if lg.Eval.Task != "unit-prices" || lg.Eval.TaskFile != "sheets/input-unit-prices.md" || lg.Eval.Packages["evalmd"] != "v1.2.3" {
		t.Errorf("task %q file %q packages %v", lg.Eval.Task, lg.Eval.TaskFile, lg.Eval.Packages)
	}
	if g := lg.Plan.Config; string(g["temperature"]) != "0.2" || string(g["max_tokens"]) != "300" ||
		string(g["stop_seqs"]) != `["END","STOP"]` || len(lg.Plan.Steps) != 1 || lg.Plan.Steps[0].Solver != "generate" {
		t.Errorf("plan %+v", lg.Plan)
	}
	if lg.Stats.CompletedAt != "2025-02-03T04:05:18+00:00" {
		t.Errorf("completed_at %q, want start + 12.5 s", lg.Stats.CompletedAt)
	}
	u := lg.Stats.ModelUsage["openai/gpt-4o"]
	if u.InputTokens != 25 || u.OutputTokens != 3 || u.TotalTokens != 28 || u.TotalCost == nil || *u.TotalCost != 0.001 {
		t.Errorf("model usage %+v", u)
	}
	ids := []string{}
	for _, s := range lg.Samples {
		ids = append(ids, s.ID.Text)
	}
	if got := strings.Join(ids, "|"); got != "q1|q1 (2)|q3|q4|q5|q6" {
		t.Errorf("ids %s", got)
	}
	s0 := lg.Samples[0]
	if len(s0.Input.Messages) != 2 || s0.Input.Messages[0].Role != "system" || s0.Input.Messages[0].Content.Text != "Answer with a number." ||
		s0.Input.Messages[1].Content.Text != "What is 6*7?\nA) 41\nB) 42" {
		t.Errorf("input with system message: %+v", s0.Input)
	}
	if roles := msgRoles(s0.Messages); roles != "system user assistant" {
		t.Errorf("messages %s", roles)
	}
	if strings.Join(s0.Choices, "|") != "41|42" {
		t.Errorf("choices %q", s0.Choices)
	}
	if sc := s0.Scores["exact"]; sc.Value != "C" || sc.Explanation == nil || *sc.Explanation != "exact match" {
		t.Errorf("score %+v", sc)
	}
	if s0.Output.Usage == nil || s0.Output.Usage.TotalTokens != 22 {
		t.Errorf("output usage %+v", s0.Output.Usage)
	}
	// The finish reason recorded per question is the stop reason: OpenAI's
	// "length" is max_tokens, Anthropic's "end_turn" is stop, none recorded
	// is unknown.
	for i, want := range map[int]string{0: "max_tokens", 2: "unknown", 4: "stop"} {
		if got := lg.Samples[i].Output.Choices[0].StopReason; got != want {
			t.Errorf("sample %d: stop_reason %q, want %q", i, got, want)
		}
	}
	// A model event per answered or failed question: the messages sent,
	// the settings, the output; none for the question never answered.
	for i, want := range []string{"model", "model", "model", "", "model", "model"} {
		var kinds []string
		for _, e := range lg.Samples[i].Events {
			kinds = append(kinds, e.Kind())
		}
		if strings.Join(kinds, ",") != want {
			t.Errorf("sample %d: events %v, want %q", i, kinds, want)
		}
	}
	ev := lg.Samples[0].Events[0].Model
	if msgRoles(ev.Input) != "system user" || ev.Output.Completion != "42" || ev.ToolChoice != "none" ||
		string(ev.Config["max_tokens"]) != "300" || ev.Output.Choices[0].StopReason != "max_tokens" {
		t.Errorf("model event %+v", ev)
	}
	if ev := lg.Samples[1].Events[0].Model; ev.Error != "timeout after 3 tries" || len(ev.Output.Choices) != 0 {
		t.Errorf("failed call's event %+v", ev)
	}
	s1 := lg.Samples[1]
	if s1.Error == nil || s1.Error.Message != "timeout after 3 tries" || len(s1.Output.Choices) != 0 || s1.Scores != nil {
		t.Errorf("errored sample %+v", s1)
	}
	if lg.Samples[2].Scores != nil || lg.Samples[3].Scores != nil {
		t.Errorf("ungraded samples have scores")
	}
	if _, ok := lg.Samples[4].Scores["dabench"].Metadata["sub_answers"]; !ok {
		t.Errorf("dabench score lacks its sub-answers")
	}
	// The grading mode a source set is in the score's metadata; the
	// default mode adds nothing.
	if m := lg.Samples[5].Scores["exact"].Metadata; m["grading"] != "liberal" || m["grading_from"] != "flag" {
		t.Errorf("liberal score's metadata %v", m)
	}
	if _, ok := lg.Samples[0].Scores["exact"].Metadata["grading"]; ok {
		t.Errorf("a default-mode score's metadata names a grading: %v", lg.Samples[0].Scores["exact"].Metadata)
	}
	if lg.Results.TotalSamples != 6 || lg.Results.CompletedSamples != 5 {
		t.Errorf("results %d total %d completed", lg.Results.TotalSamples, lg.Results.CompletedSamples)
	}
	got := map[string]string{}
	for _, sc := range lg.Results.Scores {
		got[sc.Name] = fmt.Sprintf("acc=%.4f stderr=%.4f scored=%d unscored=%d",
			sc.Metrics["accuracy"].Value, sc.Metrics["stderr"].Value, *sc.ScoredSamples, *sc.UnscoredSamples)
	}
	want := map[string]string{
		// exact: values 1, 0: mean 0.5, sd sqrt(0.5), stderr sqrt(0.5)/sqrt(2) = 0.5.
		// unscored_samples counts NaN scores only, as Inspect's does: the
		// errored and ungraded samples have no score, the other scorer's
		// samples are not its own, and no score is NaN. Before, every
		// sample without this score was counted, and Inspect's viewer
		// headed the log "ACCURACY (2/6)", saying 4 returned NaN.
		"exact":   "acc=0.5000 stderr=0.5000 scored=2 unscored=0",
		"dabench": "acc=0.0000 stderr=0.0000 scored=1 unscored=0",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || lg.Results.Scores[0].Name != "exact" {
		t.Errorf("scores %v, want %v (exact first)", got, want)
	}

	// Writing again gives the same file: the ids derive from the run.
	again, err := WriteLog(dir, syntheticOutput(), LogOptions{Version: "v1.2.3"})
	if err != nil || again != path {
		t.Errorf("second write: %s, %v; want %s", again, err, path)
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "*.eval"))
	if len(entries) != 1 {
		t.Errorf("%d files in the log dir, want 1", len(entries))
	}
}

func msgRoles(ms []ChatMessage) string {
	var r []string
	for _, m := range ms {
		r = append(r, m.Role)
	}
	return strings.Join(r, " ")
}

func TestLogOptions(t *testing.T) {
	temp := 0.7
	seed := int64(3)
	tests := []struct {
		name    string
		opt     LogOptions
		status  string
		results bool
		errMsg  string
		bad     bool
	}{
		{"default", LogOptions{}, "success", true, "", false},
		{"started", LogOptions{Status: "started"}, "started", false, "", false},
		{"error", LogOptions{Status: "error", Error: "quota"}, "error", true, "quota", false},
		{"error without message", LogOptions{Status: "error"}, "error", true, "the run stopped with an error", false},
		{"settings", LogOptions{Settings: &model.Settings{Temperature: &temp, Seed: &seed}}, "success", true, "", false},
		{"bad status", LogOptions{Status: "done"}, "", false, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lg, err := buildLog(syntheticOutput(), tc.opt)
			if tc.bad {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if lg.Status != tc.status || (lg.Results != nil) != tc.results {
				t.Errorf("status %q results %v", lg.Status, lg.Results != nil)
			}
			if tc.errMsg != "" && (lg.Error == nil || lg.Error.Message != tc.errMsg) || tc.errMsg == "" && lg.Error != nil {
				t.Errorf("error %+v, want %q", lg.Error, tc.errMsg)
			}
			if tc.opt.Settings != nil {
				g := lg.Plan.Config
				if string(g["temperature"]) != "0.7" || string(g["seed"]) != "3" || g["max_tokens"] != nil {
					t.Errorf("settings not used: %+v", g)
				}
			}
		})
	}
	// A dry run asked no model: its log is "cancelled", with no events,
	// says why in metadata, and its results are those of samples with no
	// score, none completed, as Inspect's recompute_metrics makes them:
	// no scores, and no reductions.
	dry := syntheticOutput()
	dry.Sheet.DryRun = true
	for i := range dry.Questions {
		q := &dry.Questions[i]
		q.Completion, q.Error, q.Grade = nil, nil, nil
	}
	lg, err := buildLog(dry, LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if lg.Status != "cancelled" || lg.Metadata["dry_run"] != true || lg.Stats.CompletedAt != "" {
		t.Errorf("dry run: status %q metadata %v completed_at %q", lg.Status, lg.Metadata, lg.Stats.CompletedAt)
	}
	if r := lg.Results; r == nil || r.TotalSamples != len(dry.Questions) || r.CompletedSamples != 0 || r.Scores == nil || len(r.Scores) != 0 || lg.Reductions != nil {
		t.Errorf("dry run: results %+v, reductions %v; want %d samples, 0 completed, scores [], no reductions", r, lg.Reductions, len(dry.Questions))
	}
	// Each sample is one Inspect's viewer lists as cancelled (an error
	// "CancelledError()", as Inspect's recovered samples that never
	// finished), the reason in its traceback; before, each showed a
	// success mark with an empty answer.
	for _, s := range lg.Samples {
		if len(s.Events) != 0 {
			t.Errorf("dry run sample %s has events", s.ID)
		}
		if s.Error == nil || s.Error.Message != "CancelledError()" || !strings.Contains(s.Error.Traceback, "dry run") {
			t.Errorf("dry run sample %s: error %+v, want CancelledError() saying it is a dry run", s.ID, s.Error)
		}
	}
	data, err := marshal(lg)
	if err != nil {
		t.Fatal(err)
	}
	checkInspectShape(t, "dry run", data)
	if _, err := WriteLog(t.TempDir(), syntheticOutput(), LogOptions{Format: "yaml"}); err == nil || !strings.Contains(err.Error(), "yaml") {
		t.Errorf("format yaml: %v", err)
	}
	if _, err := buildLog(&result.File{Sheet: result.Sheet{Name: "x", Created: "yesterday"}}, LogOptions{}); err == nil {
		t.Error("a bad created time gave no error")
	}
	if _, err := buildLog(nil, LogOptions{}); err == nil {
		t.Error("nil file gave no error")
	}
}

func TestStderr(t *testing.T) {
	tests := []struct {
		vals []float64
		want float64
	}{
		{nil, 0},
		{[]float64{1}, 0},
		{[]float64{1, 1, 1}, 0},
		{[]float64{1, 0}, 0.5},
		// numpy: np.std([1,0,0,0], ddof=1)/np.sqrt(4) = 0.25
		{[]float64{1, 0, 0, 0}, 0.25},
		{[]float64{1, 1, 0, 1, 0}, math.Sqrt(0.3) / math.Sqrt(5)},
	}
	for _, tc := range tests {
		if got := stderrMetric(tc.vals); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("Stderr(%v) = %v, want %v", tc.vals, got, tc.want)
		}
	}
}

func TestSampleID(t *testing.T) {
	tests := []struct {
		in   string
		json string
	}{
		{"42", `42`},
		{"0", `0`},
		{"-3", `-3`},
		{"042", `"042"`},
		{"+4", `"+4"`},
		{"4.0", `"4.0"`},
		{"Num-Guesses-1", `"Num-Guesses-1"`},
		{"99999999999999999999", `"99999999999999999999"`},
	}
	for _, tc := range tests {
		data, err := json.Marshal(MakeID(tc.in))
		if err != nil || string(data) != tc.json {
			t.Errorf("MakeID(%q) = %s, %v; want %s", tc.in, data, err, tc.json)
			continue
		}
		var back SampleID
		if err := json.Unmarshal(data, &back); err != nil || back != MakeID(tc.in) {
			t.Errorf("%s read back as %+v, %v", data, back, err)
		}
	}
	var id SampleID
	if err := json.Unmarshal([]byte(`1.5`), &id); err == nil {
		t.Error("1.5 read as a sample id")
	}
}

func TestChoices(t *testing.T) {
	tests := []struct {
		q    string
		want []string
	}{
		{"Q: max guesses?\nA) 5\nB) 6\nC) 7\nD) No limit\n<EVAL-ENDCHAR1>\n", []string{"5", "6", "7", "No limit"}},
		{"Pick:\nA. red\nB. blue", []string{"red", "blue"}},
		{"(A) yes\n(B) no\n", []string{"yes", "no"}},
		{"A: x\n\nB: y\nC: z", []string{"x", "y", "z"}},
		{"A) only one", nil},
		{"B) starts late\nC) x", nil},
		{"A) a\nC) skips B", nil},
		{"Old: A) 1\nB) 2\nNew:\nA) x\nB) y\nC) z", []string{"x", "y", "z"}},
		{"no options here", nil},
		{"a) lower\nb) case", nil},
	}
	for _, tc := range tests {
		if got := Choices(tc.q); strings.Join(got, "|") != strings.Join(tc.want, "|") || (got == nil) != (tc.want == nil) {
			t.Errorf("Choices(%q) = %q, want %q", tc.q, got, tc.want)
		}
	}
}

func TestReadLogErrors(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		"garbage.json": "not json",
		"newer.json":   `{"version": 3, "eval": {"task": "t", "created": "2024-01-01T00:00:00+00:00"}}`,
		"other.json":   `{"sheet": {"name": "x"}, "questions": []}`,
	}
	var names []string
	for n := range cases {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, []byte(cases[n]), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadLog(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v, want one naming the file", n, err)
		}
	}
	if _, err := ReadLog(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("missing file read")
	}
}

// TestLogOfLIMEOutput checks that a LIME output file, which records no
// start time, takes its modification time.
func TestLogOfLIMEOutput(t *testing.T) {
	src := shared.Path(t, "corpora", "lime", "results", "output-wsu-1-gpt-4-1063.json")
	st, err := os.Stat(src)
	if err != nil {
		t.Fatal(err)
	}
	f, err := result.Read(src)
	if err != nil {
		t.Fatal(err)
	}
	path, err := writeLogOf(t.TempDir(), src, f, LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lg, err := ReadLog(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := isoTime(st.ModTime()); lg.Eval.Created != want {
		t.Errorf("created %q, want the file's mtime %q", lg.Eval.Created, want)
	}
	if len(lg.Samples) != 1 || lg.Eval.Task != "What Shows Up" {
		t.Errorf("%d samples, task %q", len(lg.Samples), lg.Eval.Task)
	}
}

// TestNonFiniteNumbers checks that NaN and infinite times and costs, which
// JSON cannot carry, are left out instead of failing the write.
func TestNonFiniteNumbers(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	c := "x"
	f := &result.File{Sheet: result.Sheet{Name: "n", ModelName: "m"}, Questions: []result.Question{
		{Name: "a", Question: "q", Completion: &c, EvalTime: &nan, Cost: &inf, InputTokens: 1},
	}}
	path, err := WriteLog(t.TempDir(), f, LogOptions{Created: fixedCreated})
	if err != nil {
		t.Fatal(err)
	}
	lg, err := ReadLog(path)
	if err != nil {
		t.Fatal(err)
	}
	s := lg.Samples[0]
	if s.Output.Time != nil || s.TotalTime != nil || s.Output.Usage == nil || s.Output.Usage.TotalCost != nil {
		t.Errorf("non-finite numbers kept: time %v usage %+v", s.Output.Time, s.Output.Usage)
	}
	if lg.Stats.CompletedAt != lg.Stats.StartedAt {
		t.Errorf("completed_at %q, started_at %q", lg.Stats.CompletedAt, lg.Stats.StartedAt)
	}
}

func FuzzChoices(f *testing.F) {
	for _, s := range []string{"A) 1\nB) 2", "(A) x\n(B) y\n(C) z", "A. a\nC. c", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		got := Choices(q)
		if got != nil && len(got) < 2 {
			t.Errorf("Choices(%q) = %q: a run has at least two options", q, got)
		}
	})
}

// An agent-mode question's transcript becomes Inspect messages: assistant
// turns with tool_calls, tool turns with their call id and a limit as an
// error; and events: a model event per turn (sent everything before it,
// offered the python tool), a tool event per call. A code-mode question's
// code and answer go to sample metadata, a python call on the answer with
// its result (messages and a tool event, which the viewer shows) and a
// sandbox event, and its score's answer is the code's answer. A ReAct
// agent (text, no API tool) offers no tool; each of its steps gets the
// python call it made in text and its observation answers it. A limit
// that ended a question is the sample's limit.
func TestAgentAndCodeModeLog(t *testing.T) {
	s := func(v string) *string { return &v }
	b := func(v bool) *bool { return &v }
	out := &result.File{
		Sheet: result.Sheet{Name: "Sales", RunID: "cd34", ModelName: "openai/gpt-4o", Created: "2025-02-03T04:05:06Z"},
		Questions: []result.Question{
			{Name: "agent", GroundTruth: s("49"), Question: "Total?", Completion: s("49"), ModelName: "openai/gpt-4o",
				Grade: b(true), Grader: "exact", Mode: "agent", Turns: 2, Transcript: []model.Message{
					{Role: "assistant", Content: "Loading.", ToolCalls: []model.ToolCall{{ID: "c1", Name: "python", Arguments: `{"code":"print(49)"}`}}},
					{Role: "tool", ToolCallID: "c1", Content: "49\n", ToolLimit: "timeout"},
					{Role: "assistant", Content: "49"},
				}},
			{Name: "code", GroundTruth: s("3"), Question: "Regions?", Completion: s("df.region.nunique()"), ModelName: "openai/gpt-4o",
				Grade: b(true), Grader: "exact", Mode: "code", CodeExtract: "lenient", Code: s("def answer(df):\n    return df.region.nunique()"), Answer: s("3")},
			{Name: "code-error", GroundTruth: s("3"), Question: "Regions?", Completion: s("df.nope"), ModelName: "openai/gpt-4o",
				Grade: b(false), Grader: "exact", Mode: "code", CodeExtract: "lenient", Code: s("def answer(df):\n    return df.nope"), CodeError: "__CODE_ERROR__: 'DataFrame' object has no attribute 'nope'"},
			{Name: "react", GroundTruth: s("49"), Question: "Total?", Completion: s("Final Answer: 49"), ModelName: "openai/gpt-4o",
				MetaData: map[string]string{"agent_style": "react"}, Mode: "agent", Turns: 2, Transcript: []model.Message{
					{Role: "assistant", Content: "Action: python_code_sandbox\nAction Input:\n```python\nprint(49)\n```"},
					{Role: "tool", Content: "49\n"},
					{Role: "assistant", Content: "Final Answer: 49"},
				}},
			{Name: "max-turns", GroundTruth: s("49"), Question: "Total?", Completion: s(""), ModelName: "openai/gpt-4o",
				Mode: "agent", Turns: 3, Limit: "max_turns", LimitValue: 3, Transcript: []model.Message{
					{Role: "assistant", Content: "Loading.", ToolCalls: []model.ToolCall{{ID: "c1", Name: "python", Arguments: `{"code":"1"}`}}},
					{Role: "tool", ToolCallID: "c1", Content: "1\n"},
				}},
			{Name: "old-token-budget", GroundTruth: s("49"), Question: "Total?", Completion: s(""), ModelName: "openai/gpt-4o",
				Mode: "agent", Turns: 1, Limit: "token_budget", Transcript: []model.Message{{Role: "assistant", Content: "x"}}},
			{Name: "react-max-turns", GroundTruth: s("49"), Question: "Total?", Completion: s(""), ModelName: "openai/gpt-4o",
				MetaData: map[string]string{"agent_style": "react"}, Mode: "agent", Turns: 1, Limit: "max_turns", LimitValue: 1, Transcript: []model.Message{
					{Role: "assistant", Content: "Thought: sum it.\nAction: python_code_sandbox\nAction Input:\n```python\nprint(49)\n```"},
					{Role: "tool", Content: "49\n"},
				}},
		},
	}
	dir := t.TempDir()
	evalPath, err := WriteLog(dir, out, LogOptions{Version: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	CheckSchema(t, evalPath)
	path, err := WriteLog(dir, out, LogOptions{Version: "v1", Format: FormatJSON})
	if err != nil {
		t.Fatal(err)
	}
	CheckSchema(t, path)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lg map[string]any
	if err := json.Unmarshal(data, &lg); err != nil {
		t.Fatal(err)
	}
	msgs := sample(lg, 0)["messages"].([]any)
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.(map[string]any)["role"].(string))
	}
	if strings.Join(roles, ",") != "user,assistant,tool,assistant" {
		t.Fatalf("roles %v", roles)
	}
	call := msgs[1].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)
	if call["id"] != "c1" || call["function"] != "python" || call["arguments"].(map[string]any)["code"] != "print(49)" || call["type"] != "function" {
		t.Errorf("tool call %v", call)
	}
	tool := msgs[2].(map[string]any)
	if tool["tool_call_id"] != "c1" || tool["error"].(map[string]any)["type"] != "timeout" {
		t.Errorf("tool message %v", tool)
	}
	back, err := ReadLog(evalPath)
	if err != nil {
		t.Fatal(err)
	}
	kinds := func(s evalSample) string {
		var k []string
		for _, e := range s.Events {
			k = append(k, e.Kind())
		}
		return strings.Join(k, ",")
	}
	for i, want := range []string{"model,tool,model", "model,tool,sandbox", "model,tool,sandbox", "model,tool,model"} {
		if got := kinds(back.Samples[i]); got != want {
			t.Errorf("sample %d: events %s, want %s", i, got, want)
		}
	}
	ag := back.Samples[0].Events
	if m := ag[0].Model; msgRoles(m.Input) != "user" || len(m.Tools) != 1 || m.Tools[0].Name != "python" || m.ToolChoice != "auto" ||
		m.Output.Choices[0].StopReason != "tool_calls" || len(m.Output.Choices[0].Message.ToolCalls) != 1 {
		t.Errorf("first agent call %+v", m)
	}
	if tl := ag[1].Tool; tl.ID != "c1" || tl.Arguments["code"] != "print(49)" || tl.Result != "49\n" || tl.Error == nil || tl.Error.Type != "timeout" {
		t.Errorf("tool event %+v", tl)
	}
	if m := ag[2].Model; msgRoles(m.Input) != "user assistant tool" || m.Output.Completion != "49" || m.Output.Choices[0].StopReason != "unknown" {
		t.Errorf("last agent call %+v", m)
	}
	if sb := findEvent(t, back.Samples[1], "sandbox").Sandbox; sb.Action != "exec" || !strings.Contains(sb.Input, "nunique") || sb.Output != "3" || sb.Result == nil || *sb.Result != 0 {
		t.Errorf("sandbox event %+v", sb)
	}
	if sb := findEvent(t, back.Samples[2], "sandbox").Sandbox; !strings.HasPrefix(sb.Output, "__CODE_ERROR__") || sb.Result == nil || *sb.Result != 1 {
		t.Errorf("failed code's sandbox event %+v", sb)
	}
	if m := back.Samples[3].Events[0].Model; len(m.Tools) != 0 || m.ToolChoice != "none" {
		t.Errorf("ReAct call offers tools %+v", m.Tools)
	}
	// Every tool message answers a call of the assistant message before
	// it, with that call's arguments in the tool event: Inspect's viewer
	// drops a tool message that answers no call.
	for i, smp := range back.Samples[:4] {
		calls := map[string]toolCall{}
		for _, m := range smp.Messages {
			for _, c := range m.ToolCalls {
				calls[c.ID] = c
			}
			if m.Role != "tool" {
				continue
			}
			c, ok := calls[m.ToolCallID]
			if !ok || c.Function != "python" || c.Arguments["code"] == nil {
				t.Errorf("sample %d: tool message %q answers no python call (id %q)", i, m.Content.String(), m.ToolCallID)
			}
		}
		for _, e := range smp.Events {
			if tl := e.Tool; tl != nil && (calls[tl.ID].ID == "" || tl.Arguments["code"] != calls[tl.ID].Arguments["code"]) {
				t.Errorf("sample %d: tool event %+v matches no call", i, tl)
			}
		}
	}
	if got := msgRoles(back.Samples[3].Messages); got != "user assistant tool assistant" {
		t.Errorf("ReAct messages %s", got)
	}
	if c := back.Samples[3].Messages[1].ToolCalls; len(c) != 1 || c[0].Arguments["code"] != "print(49)" {
		t.Errorf("ReAct step's call %+v", c)
	}
	if tl := findEvent(t, back.Samples[3], "tool").Tool; tl.Result != "49\n" {
		t.Errorf("ReAct tool event %+v", tl)
	}
	if got := msgRoles(back.Samples[1].Messages); got != "user assistant tool" || back.Samples[1].Messages[2].Content.String() != "3" {
		t.Errorf("code mode messages %s %+v", got, back.Samples[1].Messages)
	}
	if tl := findEvent(t, back.Samples[2], "tool").Tool; tl.Error == nil || !strings.HasPrefix(tl.Result, "__CODE_ERROR__") || !strings.Contains(tl.Arguments["code"].(string), "df.nope") {
		t.Errorf("failed code's tool event %+v", tl)
	}
	// An agent stopped by max_turns before it answered ends where it
	// stopped (no empty assistant message after its last tool result),
	// its output its last call's, and its transcript with Inspect's
	// sample_limit event; one of unknown value has a limit event of null.
	if got := msgRoles(back.Samples[4].Messages); got != "user assistant tool" {
		t.Errorf("max-turns messages %s, want user assistant tool", got)
	}
	if c := back.Samples[4].Output.Choices; len(c) != 1 || c[0].StopReason != "tool_calls" || len(c[0].Message.ToolCalls) != 1 {
		t.Errorf("max-turns output %+v, want its last call's", c)
	}
	// Its empty completion is written as Inspect's reader fills it: the
	// text of its output's message, its last call's (a ReAct step's too).
	for i, want := range map[int]string{4: "Loading.", 5: "x", 6: "Thought: sum it.\nAction: python_code_sandbox\nAction Input:\n```python\nprint(49)\n```"} {
		o := back.Samples[i].Output
		if len(o.Choices) != 1 || o.Choices[0].Message.Content.String() != want || o.Completion != want {
			t.Errorf("sample %d: output completion %q of %+v, want %q, its message's text", i, o.Completion, o.Choices, want)
		}
	}
	for i, want := range map[int]string{4: "model,tool,sample_limit", 5: "model,sample_limit"} {
		if got := kinds(back.Samples[i]); got != want {
			t.Errorf("sample %d: events %s, want %s", i, got, want)
		}
	}
	if l := findEvent(t, back.Samples[4], "sample_limit").Limit; l.Type != "turn" || l.Limit == nil || *l.Limit != 3 || l.Message != "stopped by the max_turns limit (3)" {
		t.Errorf("max-turns limit event %+v", l)
	}
	if l := findEvent(t, back.Samples[5], "sample_limit").Limit; l.Type != "token" || l.Limit != nil {
		t.Errorf("token limit event %+v, want its limit null", l)
	}
	for i, want := range []*sampleLimit{4: {Type: "turn", Limit: 3}, 5: {Type: "token", Limit: -1}} {
		if got := back.Samples[i].Limit; !reflect.DeepEqual(got, want) {
			t.Errorf("sample %d: limit %+v, want %+v", i, got, want)
		}
		wantType := "" // no limit
		if want != nil {
			wantType = want.Type
		}
		if got := summarize(&back.Samples[i]).Limit; got != wantType {
			t.Errorf("sample %d: the summary's limit %q, want %q (the viewer's list shows it)", i, got, wantType)
		}
	}
	code := sample(lg, 1)
	md := code["metadata"].(map[string]any)
	if md["answer"] != "3" || !strings.Contains(md["code"].(string), "nunique") {
		t.Errorf("code metadata %v", md)
	}
	for _, sc := range code["scores"].(map[string]any) {
		if sc.(map[string]any)["answer"] != "3" {
			t.Errorf("score answer %v, want the code's answer", sc)
		}
	}
}

// findEvent is a sample's first event of a kind.
func findEvent(t *testing.T, s evalSample, kind string) event {
	t.Helper()
	for _, e := range s.Events {
		if e.Kind() == kind {
			return e
		}
	}
	t.Fatalf("sample %s: no %s event", s.ID, kind)
	return event{}
}

// Inspect's viewer lists samples from summaries.json, thinned as Inspect
// thins them: inputs and targets cut at 5120 characters with a marker,
// score texts and metadata strings shortened to 1024 (whitespace
// collapsed), other metadata over 1 KiB replaced by a note.
func TestSummaryThinning(t *testing.T) {
	long := strings.Repeat("é", 6000)
	words := strings.Repeat("word \n ", 400) // 2000 characters of words
	f := syntheticOutput()
	q := &f.Questions[0]
	q.Question, q.GroundTruth, q.GradeDetail = long, &long, words
	q.MetaData = map[string]string{"short": "a  b\nc", "notes": words}
	q.SubAnswers = make([]result.SubAnswer, 50)
	lg, err := buildLog(f, LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sum := summarize(&lg.Samples[0])
	wantCut := strings.Repeat("é", 5120) + "...\n(content truncated)"
	if got := sum.Input.Messages[1].Content.Text; got != wantCut {
		t.Errorf("input: %d characters, want 5120 and the marker", len([]rune(got)))
	}
	if sum.Target != wantCut || lg.Samples[0].Target != long {
		t.Error("target not thinned in the summary, or thinned in the sample")
	}
	if sum.Metadata["short"] != "a b c" {
		t.Errorf("short metadata %q, want whitespace collapsed", sum.Metadata["short"])
	}
	notes := sum.Metadata["notes"].(string)
	if n := len([]rune(notes)); n > 1024 || !strings.HasSuffix(notes, "word...") {
		t.Errorf("long metadata: %d characters, ends %q", n, notes[len(notes)-10:])
	}
	sc := sum.Scores["exact"]
	if sc.Explanation == nil || len(*sc.Explanation) > 1024 || sc.Metadata["sub_answers"] != removedKey || sc.Metadata["grader"] != "exact" {
		t.Errorf("score summary %+v", sc)
	}
	if !sum.Completed || sum.MessageCount != 3 {
		t.Errorf("completed %v, %d messages", sum.Completed, sum.MessageCount)
	}
	if got := thinText(strings.Repeat("x", 2000)); len(got) != 1024 || !strings.HasSuffix(got, "...") {
		t.Errorf("one long word: %d characters", len(got))
	}
}

// An .eval zip still being written has no header.json: its start record
// is read, and the log is "started". One with neither is refused, naming
// the file.
func TestReadEvalWithoutHeader(t *testing.T) {
	path, err := WriteLog(t.TempDir(), syntheticOutput(), LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	strip := func(drop ...string) string {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for _, f := range zr.File {
			if slices.Contains(drop, f.Name) {
				continue
			}
			if err := zw.Copy(f); err != nil {
				t.Fatal(err)
			}
		}
		zw.Close()
		p := filepath.Join(t.TempDir(), "x.eval")
		os.WriteFile(p, buf.Bytes(), 0o644)
		return p
	}
	lg, err := ReadLog(strip(evalHeader, evalSummaries))
	if err != nil {
		t.Fatal(err)
	}
	if lg.Status != "started" || lg.Eval.Task != "unit-prices" || len(lg.Samples) != 6 || lg.Results != nil {
		t.Errorf("status %q task %q %d samples", lg.Status, lg.Eval.Task, len(lg.Samples))
	}
	p := strip(evalHeader, evalStart)
	if _, err := ReadLog(p); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("zip without header or start: %v", err)
	}
}

// An output of run -c auto carries its limit's history; the log has it as
// Inspect's connection_limit_history (increases steady_state_up, decreases
// rate_limit, the start left out), and Inspect's schema accepts it.
func TestConnectionLimitHistory(t *testing.T) {
	f := syntheticOutput()
	t0 := time.Date(2025, 2, 3, 4, 5, 6, 0, time.UTC)
	f.Sheet.ConnectionLimits = []aimd.Change{
		{Time: t0, Limit: 10, Reason: "start"},
		{Time: t0.Add(time.Second), Limit: 11, From: 10, Reason: "10 answers in a row"},
		{Time: t0.Add(1500 * time.Millisecond), Limit: 8, From: 11, Reason: "HTTP 429"},
	}
	_, lg := writeRead(t, f, LogOptions{})
	want := []connectionLimitChange{
		{Timestamp: float64(t0.Unix()) + 1, Model: f.Sheet.ModelName, OldLimit: 10, NewLimit: 11, Reason: "steady_state_up"},
		{Timestamp: float64(t0.Unix()) + 1.5, Model: f.Sheet.ModelName, OldLimit: 11, NewLimit: 8, Reason: "rate_limit"},
	}
	if !slices.Equal(lg.Stats.ConnectionLimitHistory, want) {
		t.Errorf("connection_limit_history %+v, want %+v", lg.Stats.ConnectionLimitHistory, want)
	}
}

// A run whose every question failed is an eval that failed, as Inspect
// writes one: status error, the error (message, traceback and
// traceback_ansi), no results; Inspect's schema accepts it. One answered
// question makes it a success again.
func TestEveryQuestionFailed(t *testing.T) {
	s := func(v string) *string { return &v }
	f := &result.File{
		Sheet: result.Sheet{Name: "S", RunID: "ef56", ModelName: "openai/gpt-4o", Created: "2025-02-03T04:05:06Z"},
		Questions: []result.Question{
			{Name: "a", Question: "1?", Error: s("HTTP 500: server error"), ModelName: "openai/gpt-4o"},
			{Name: "b", Question: "2?", Error: s("HTTP 500: server error"), ModelName: "openai/gpt-4o"},
		},
	}
	_, lg := writeRead(t, f, LogOptions{Format: FormatJSON})
	if lg.Status != "error" || lg.Error == nil || !strings.Contains(lg.Error.Message, "HTTP 500: server error") || lg.Results != nil {
		t.Errorf("status %q, error %+v, results %+v; want error, the first failure, no results", lg.Status, lg.Error, lg.Results)
	}
	// The viewer shows the message above the traceback: the traceback
	// names each failed sample, not the message again.
	const tb = "sample a (epoch 1): HTTP 500: server error\nsample b (epoch 1): HTTP 500: server error\n"
	if lg.Error.Traceback != tb || lg.Error.TracebackANSI != tb {
		t.Errorf("traceback %q, want %q", lg.Error.Traceback, tb)
	}
	lg, err := buildLog(f, LogOptions{Status: "error", Error: "interrupted"})
	if err != nil {
		t.Fatal(err)
	}
	if lg.Error.Message != "interrupted" || lg.Error.Traceback != tb {
		t.Errorf("the run's own error %+v", lg.Error)
	}
	f.Questions[1].Error, f.Questions[1].Completion = nil, s("2")
	lg, err = buildLog(f, LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if lg.Status != "success" || lg.Error != nil || lg.Results == nil || lg.Results.CompletedSamples != 1 {
		t.Errorf("one answered: status %q, error %+v, results %+v", lg.Status, lg.Error, lg.Results)
	}
}

// The agent style a question ran with is the one its output records
// (--agent-style over the meta), not its meta: a ReAct run offers no tool,
// a tools run the python tool, whatever the meta says.
func TestAgentStyleRecorded(t *testing.T) {
	s := func(v string) *string { return &v }
	q := func(name, metaStyle, ran string) result.Question {
		return result.Question{Name: name, GroundTruth: s("49"), Question: "Total?", Completion: s("49"), ModelName: "m",
			MetaData: map[string]string{"agent_style": metaStyle}, Mode: "agent", Turns: 1,
			SolveSettings: map[string]string{"mode": "agent", "agent_style": ran},
			Transcript:    []model.Message{{Role: "assistant", Content: "49"}}}
	}
	out := &result.File{Sheet: result.Sheet{Name: "S", ModelName: "m", Created: "2025-02-03T04:05:06Z"},
		Questions: []result.Question{q("flag-react", "tools", "react"), q("flag-tools", "react", "tools")}}
	path, err := WriteLog(t.TempDir(), out, LogOptions{Version: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	back, err := ReadLog(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{0, 1} {
		if m := back.Samples[i].Events[0].Model; m == nil || len(m.Tools) != want {
			t.Errorf("sample %d: model event %+v, want %d tools", i, m, want)
		}
	}
}

// A reasoning model's answer: its reasoning is a ContentReasoning part
// before the text (Inspect's viewer folds it), on each agent turn too, its
// reasoning tokens are in the usage, and the effort sent is in the
// generate config, each as Inspect's schema has it (an empty answer still
// has its text member).
func TestReasoningLog(t *testing.T) {
	f := syntheticOutput()
	q := &f.Questions[0]
	q.Reasoning, q.ReasoningTokens, q.OutputTokens = "six sevens", 40, 42
	empty := ""
	cut := &f.Questions[2]
	cut.Completion, cut.Reasoning, cut.FinishReason, cut.Limit, cut.LimitValue = &empty, "still thinking", "length", "max_tokens", 10
	agentQ := &f.Questions[5]
	agentQ.Mode, agentQ.Transcript = model.ModeAgent, []model.Message{
		{Role: "assistant", Reasoning: "look first", ToolCalls: []model.ToolCall{{ID: "c1", Name: "python", Arguments: `{"code":"1"}`}}},
		{Role: "tool", ToolCallID: "c1", Content: "1"},
		{Role: "assistant", Content: "41"},
	}
	effort := model.Settings{ReasoningEffort: model.ReasoningHigh, MaxTokens: 300}
	_, lg := writeRead(t, f, LogOptions{Settings: &effort})
	if g := lg.Plan.Config; string(g["reasoning_effort"]) != `"high"` {
		t.Errorf("generate config %v, want reasoning_effort high", g)
	}
	if u := lg.Stats.ModelUsage["openai/gpt-4o"]; u.ReasoningTokens != 40 {
		t.Errorf("model usage %+v, want 40 reasoning tokens", u)
	}
	s0 := lg.Samples[0]
	if s0.Output.Usage == nil || s0.Output.Usage.ReasoningTokens != 40 {
		t.Errorf("output usage %+v", s0.Output.Usage)
	}
	for _, c := range []struct {
		msg             ChatMessage
		reasoning, text string
	}{
		{s0.Messages[len(s0.Messages)-1], "six sevens", "42"},
		{s0.Output.Choices[0].Message, "six sevens", "42"},
		{lg.Samples[2].Output.Choices[0].Message, "still thinking", ""},
		{lg.Samples[5].Messages[1], "look first", ""},
	} {
		p := c.msg.Content.Parts
		if len(p) != 2 || p[0].Type != "reasoning" || p[0].Reasoning != c.reasoning || p[1].Type != "text" || p[1].Text != c.text {
			t.Errorf("%s message content %+v, want reasoning %q then text %q", c.msg.Role, p, c.reasoning, c.text)
		}
	}
	if lg.Samples[2].Limit != nil {
		t.Errorf("a chat answer cut by max_tokens is a sample limit %+v; its stop reason says it", lg.Samples[2].Limit)
	}
}

// An agent turn that kept its reasoning as its API returned it has one
// ContentReasoning part per block, as Inspect's Anthropic provider records
// them: a thinking block with its signature, a redacted_thinking block as
// its data marked redacted.
func TestReasoningBlocksLog(t *testing.T) {
	f := syntheticOutput()
	agentQ := &f.Questions[5]
	agentQ.Mode, agentQ.Transcript = model.ModeAgent, []model.Message{
		{Role: "assistant", Reasoning: "look first", ToolCalls: []model.ToolCall{{ID: "c1", Name: "python", Arguments: `{"code":"1"}`}},
			ReasoningBlocks: []model.ReasoningBlock{{Type: model.ThinkingBlock, Text: "look first", Signature: "sig=="},
				{Type: model.RedactedThinkingBlock, Data: "enc=="}}},
		{Role: "tool", ToolCallID: "c1", Content: "1"},
		{Role: "assistant", Content: "41"},
	}
	_, lg := writeRead(t, f, LogOptions{})
	p := lg.Samples[5].Messages[1].Content.Parts
	want := []contentPart{{Type: "reasoning", Reasoning: "look first", Signature: "sig=="},
		{Type: "reasoning", Reasoning: "enc==", Redacted: true}, {Type: "text"}}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("parts %+v, want %+v", p, want)
	}
}

// A question's served model (the reply's "model") is its output's model
// and its answer's, as in Inspect's own logs; the model event and the
// usage keep the model asked. A question without one names the model
// asked throughout, as before.
func TestServedModelLog(t *testing.T) {
	f := syntheticOutput()
	f.Questions[0].ServedModel = "gpt-4o-2024-08-06"
	_, lg := writeRead(t, f, LogOptions{Version: "v1", Format: FormatJSON})
	for _, tc := range []struct {
		sample int
		served string
	}{
		{0, "gpt-4o-2024-08-06"},
		{2, "openai/gpt-4o"},
	} {
		s := lg.Samples[tc.sample]
		ev := findEvent(t, s, "model").Model
		got := []string{s.Output.Model, s.Output.Choices[0].Message.Model, ev.Output.Model, ev.Model}
		want := []string{tc.served, tc.served, tc.served, "openai/gpt-4o"}
		if !slices.Equal(got, want) {
			t.Errorf("sample %s: output, answer, event output and event models %q, want %q", s.ID, got, want)
		}
	}
	if _, ok := lg.Samples[0].ModelUsage["openai/gpt-4o"]; !ok {
		t.Errorf("usage not under the model asked: %v", lg.Samples[0].ModelUsage)
	}
}

// A run of some of a sheet's questions (run --limit, --questions) says so
// in the log's config, as Inspect's --limit and --sample-id do; a whole
// run's config has neither.
func TestSubsetInConfig(t *testing.T) {
	for _, tc := range []struct {
		subset *result.Subset
		want   string
	}{
		{nil, `{"epochs":1,"epochs_reducer":["mean"],"fail_on_error":false,"log_samples":true}`},
		{&result.Subset{Limit: 2, Of: 10}, `{"limit":2,"epochs":1,"epochs_reducer":["mean"],"fail_on_error":false,"log_samples":true}`},
		{&result.Subset{Questions: []string{"Reason-*", "Q1"}, Of: 10}, `{"sample_id":["Reason-*","Q1"],"epochs":1,"epochs_reducer":["mean"],"fail_on_error":false,"log_samples":true}`},
	} {
		f := syntheticOutput()
		f.Sheet.Subset = tc.subset
		path, _ := writeRead(t, f, LogOptions{Version: "v1", Format: FormatJSON})
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var log struct {
			Eval struct {
				Config json.RawMessage `json:"config"`
			} `json:"eval"`
		}
		if err := json.Unmarshal(data, &log); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		json.Compact(&got, log.Eval.Config)
		if got.String() != tc.want {
			t.Errorf("subset %+v: config %s, want %s", tc.subset, got.String(), tc.want)
		}
	}
}

// writeRead writes f's log into a fresh folder, checks it against
// Inspect's schema and reads it back: where most of these tests start.
func writeRead(t *testing.T, f *result.File, opt LogOptions) (path string, lg *Log) {
	t.Helper()
	path, err := WriteLog(t.TempDir(), f, opt)
	if err != nil {
		t.Fatal(err)
	}
	CheckSchema(t, path)
	if lg, err = ReadLog(path); err != nil {
		t.Fatal(err)
	}
	return path, lg
}

// Costs and times each a number JSON carries whose sum is not (1e308 +
// 1e308 is +Inf), as agg --log-dir reads them: the log is written, its
// total cost left out and its completion time its start, and one line
// names the log and says so; no log goes missing.
func TestSummedOverflow(t *testing.T) {
	big := 1e308
	c := "x"
	f := &result.File{Sheet: result.Sheet{Name: "n", ModelName: "m", RunID: "r"}, Questions: []result.Question{
		{Name: "a", Question: "q", Completion: &c, EvalTime: &big, Cost: &big, InputTokens: 1},
		{Name: "b", Question: "q", Completion: &c, EvalTime: &big, Cost: &big, InputTokens: 1},
	}}
	dir := t.TempDir()
	var warn bytes.Buffer
	logs := &RunLogs{Dir: dir, Warn: &warn, Options: LogOptions{Created: fixedCreated, Format: FormatJSON}}
	logs.Add(filepath.Join(dir, "output-n-m-r.json"), f)
	if n := logs.Close(); n != 1 {
		t.Fatalf("%d logs written, want 1; said:\n%s", n, warn.String())
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(paths) != 1 {
		t.Fatalf("logs %v", paths)
	}
	lines := strings.Split(strings.TrimSuffix(warn.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], paths[0]) || !strings.Contains(lines[0], "cost") || !strings.Contains(lines[1], "time") {
		t.Errorf("said %q, want a line naming %s for the cost, one for the time", warn.String(), paths[0])
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	checkInspectShape(t, paths[0], data)
	lg, err := ReadLog(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	if u := lg.Stats.ModelUsage["m"]; u.TotalCost != nil || u.InputTokens != 2 {
		t.Errorf("model usage %+v, want the tokens and no total cost", u)
	}
	if lg.Stats.CompletedAt != lg.Stats.StartedAt {
		t.Errorf("completed_at %q, started_at %q", lg.Stats.CompletedAt, lg.Stats.StartedAt)
	}
	for _, s := range lg.Samples {
		if s.Output.Usage == nil || s.Output.Usage.TotalCost == nil || float64(*s.Output.Usage.TotalCost) != big {
			t.Errorf("sample %v lost its own cost", s.ID)
		}
	}
}
