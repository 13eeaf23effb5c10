package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/evalmd/evalmd/internal/outfile"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/evalmd/evalmd/inspect"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/builtin"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/runner"
)

func sheets(t *testing.T) []string {
	t.Helper()
	s, err := FindSheets("../sheets")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The oracle answers every ground truth, so every graded question is right:
// the pipeline from sheet to grade loses nothing.
func TestOracleReadsFullMarks(t *testing.T) {
	out := t.TempDir()
	var stderr bytes.Buffer
	sum, err := Run(context.Background(), Config{NewModel: builtins(), Sheets: sheets(t), Models: []string{"oracle"}, OutDir: out, Stderr: &stderr})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if len(sum.Outputs) != 2 {
		t.Fatalf("outputs %v", sum.Outputs)
	}
	n := 0
	for _, p := range sum.Outputs {
		f, err := result.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range f.Questions {
			n++
			if q.Grade == nil || !*q.Grade || q.Grader == "" || q.Completion == nil || q.EvalTime == nil {
				t.Errorf("%s %s: grade %v grader %q", p, q.Name, q.Grade, q.Grader)
			}
		}
		if f.Sheet.Totals == nil || f.Sheet.Totals.Answered != len(f.Questions) {
			t.Errorf("%s: totals %+v", p, f.Sheet.Totals)
		}
		if _, err := os.Stat(strings.TrimSuffix(p, ".json") + ".md"); err != nil {
			t.Error(err)
		}
	}
	if n != 7 {
		t.Errorf("%d questions", n)
	}
}

// A replay file answers some questions; the others are unanswered, not
// wrong, and not errors.
func TestReplayUnanswered(t *testing.T) {
	dir := t.TempDir()
	replay := filepath.Join(dir, "r.jsonl")
	os.WriteFile(replay, []byte(`{"name": "Planet-Count", "response": "B"}`+"\n"+`{"id": "up-2", "response": "1.20 euros"}`+"\n"), 0o644)
	sum, err := Run(context.Background(), Config{NewModel: builtins(), Sheets: sheets(t), Models: []string{"replay:" + replay}, OutDir: dir, RunIDLen: 4})
	if err != nil {
		t.Fatal(err)
	}
	answered, unanswered, correct := 0, 0, 0
	for _, p := range sum.Outputs {
		if !strings.Contains(p, "replay_") {
			t.Errorf("output name %s does not make the model name file-safe", p)
		}
		f, _ := result.Read(p)
		for _, q := range f.Questions {
			switch {
			case q.Unanswered:
				unanswered++
				if q.Grade != nil || q.Error != nil || q.Completion != nil {
					t.Errorf("%s: unanswered but grade %v error %v", q.Name, q.Grade, q.Error)
				}
			case q.Completion != nil:
				answered++
				if q.Grade != nil && *q.Grade {
					correct++
				}
			}
		}
	}
	if answered != 2 || unanswered != 5 || correct != 2 {
		t.Errorf("answered %d unanswered %d correct %d", answered, unanswered, correct)
	}
}

// Replay lines that match no question of the run are not dropped without a
// word: one warning names the first few and counts them.
func TestReplayUnmatchedWarned(t *testing.T) {
	dir := t.TempDir()
	replay := filepath.Join(dir, "r.jsonl")
	var lines []string
	lines = append(lines, `{"name": "Planet-Count", "response": "B"}`)
	for i := 0; i < 8; i++ {
		lines = append(lines, fmt.Sprintf(`{"name": "gone-%d", "response": "x"}`, i))
	}
	os.WriteFile(replay, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	var stderr bytes.Buffer
	sum, err := Run(context.Background(), Config{NewModel: builtins(), Sheets: sheets(t), Models: []string{"replay:" + replay}, OutDir: dir, Stderr: &stderr,
		DataKeys: []string{"level"}}) // the example sheet's data, DABench's key
	if err != nil {
		t.Fatal(err)
	}
	want := "warning: replay:" + replay + ": 8 answers match no question of this run (by name or id), so none is used: " +
		replay + `:2 (name "gone-0"), ` + replay + `:3 (name "gone-1"), ` + replay + `:4 (name "gone-2"), ` +
		replay + `:5 (name "gone-3"), ` + replay + `:6 (name "gone-4"), and 3 more` + "\n"
	if !strings.Contains(stderr.String(), want) || strings.Count(stderr.String(), "match no question") != 1 || sum.Warnings != 1 {
		t.Errorf("%d warnings; stderr:\n%s\nwant:\n%s", sum.Warnings, stderr.String(), want)
	}
}

// countingModel answers with the question's name, counts calls per
// question, and cancels the run after `stopAfter` calls.
type countingModel struct {
	mu        sync.Mutex
	calls     map[string]int
	stopAfter int
	cancel    context.CancelFunc
	total     int
}

func (m *countingModel) Name() string { return "counting" }
func (m *countingModel) Info() model.Info {
	return model.Info{Provider: "counting", FromQuestion: true}
}

func (m *countingModel) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	return m.Answer(ctx, model.Task{Request: req})
}

// Answer answers from the question's name, which only a Task carries.
func (m *countingModel) Answer(ctx context.Context, req model.Task) (model.Response, error) {
	m.mu.Lock()
	m.calls[req.Question.Name]++
	m.total++
	stop := m.stopAfter > 0 && m.total > m.stopAfter
	m.mu.Unlock()
	if stop {
		m.cancel()
		<-ctx.Done()
		return model.Response{}, ctx.Err()
	}
	return model.Response{Text: "answer to " + req.Question.Name, InputTokens: 10, OutputTokens: 2}, nil
}

// An interrupted run resumes: the rerun asks only what is missing, keeps
// the run id (so the same file name), and removes its journal at the end.
func TestResumeAfterInterrupt(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("# Many\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "## Q%d\n#### answer\nanswer to Q%d\n#### question\nask %d\n", i, i, i)
	}
	path := filepath.Join(dir, "input-many.md")
	os.WriteFile(path, []byte(b.String()), 0o644)

	ctx, cancel := context.WithCancel(context.Background())
	m := &countingModel{calls: map[string]int{}, stopAfter: 15, cancel: cancel}
	cfg := Config{Sheets: []string{path}, Models: []string{"counting"}, RunIDLen: 6, Key: testKey(t),
		Runner:   runner.Options{Concurrency: 1},
		NewModel: func(string, model.Options) (model.Model, error) { return m, nil }}
	_, err := Run(ctx, cfg)
	if err == nil || !strings.Contains(err.Error(), "rerun the same command") {
		t.Fatalf("interrupted run: err = %v", err)
	}
	journal, statePath := ResumeFiles(cfg)
	if _, err := os.Stat(journal); err != nil {
		t.Fatalf("no journal after the interrupt: %v", err)
	}
	asked := m.total
	state, err := os.ReadFile(statePath)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal(state, &st); err != nil || len(st.RunID) != 6 {
		t.Fatalf("run state %q: %v", state, err)
	}

	m.stopAfter = 0
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for name, n := range m.calls {
		// The call cut by the interrupt was not answered, so it is the
		// only one asked twice.
		if n > 2 || (n == 2 && name != "Q15") {
			t.Errorf("%s asked %d times", name, n)
		}
	}
	if m.total != 40+1 {
		t.Errorf("%d calls over both runs (first run %d), want 41", m.total, asked)
	}
	f, err := result.Read(sum.Outputs[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range f.Questions {
		if q.Grade == nil || !*q.Grade {
			t.Errorf("%s not answered right after resume", q.Name)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".evalmd-run-*")); len(left) != 0 {
		t.Errorf("journal left behind: %v", left)
	}
	if f.Sheet.RunID != st.RunID || !strings.HasSuffix(sum.Outputs[0], "-"+st.RunID+".json") {
		t.Errorf("output %s, run id %q", sum.Outputs[0], f.Sheet.RunID)
	}
}

// --log-dir writes one Inspect log per output file, in Inspect's default
// format (.eval) unless told, which reads back with the run's samples and
// scores.
func TestInspectLogs(t *testing.T) {
	out, logs := t.TempDir(), t.TempDir()
	sum, err := Run(context.Background(), Config{NewModel: builtins(), Sheets: sheets(t), Models: []string{"oracle"}, OutDir: out, LogDir: logs})
	if err != nil {
		t.Fatal(err)
	}
	if paths, _ := filepath.Glob(filepath.Join(logs, "*.eval")); len(paths) != len(sum.Outputs) {
		t.Fatalf("%d .eval logs for %d outputs", len(paths), len(sum.Outputs))
	}
	logs = t.TempDir()
	if _, err := Run(context.Background(), Config{NewModel: builtins(), Sheets: sheets(t), Models: []string{"oracle"}, OutDir: t.TempDir(), LogDir: logs, LogFormat: inspect.FormatJSON}); err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join(logs, "*.json"))
	if len(paths) != len(sum.Outputs) {
		t.Fatalf("%d logs for %d outputs", len(paths), len(sum.Outputs))
	}
	samples, scores := 0, 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var l inspect.Log
		if err := json.Unmarshal(data, &l); err != nil {
			t.Fatal(err)
		}
		samples += len(l.Samples)
		for _, s := range l.Samples {
			for _, sc := range s.Scores {
				scores++
				if fmt.Sprint(sc.Value) != "C" {
					t.Errorf("%s: oracle sample %v scored %v", p, s.ID, sc.Value)
				}
			}
		}
	}
	if samples != 7 || scores != 7 {
		t.Errorf("%d samples, %d scores", samples, scores)
	}
}

// builtins builds models with the offline providers only.
func builtins() func(string, model.Options) (model.Model, error) {
	r := model.NewRegistry()
	builtin.Register(r)
	return r.New
}

// A sheet without questions is not run: one error naming its line, the
// parser's warning not said besides, nothing written (a sheet saved
// half-written never becomes the newest version of the outputs).
func TestZeroQuestionSheet(t *testing.T) {
	dir := t.TempDir()
	sheet := filepath.Join(dir, "input-empty.md")
	os.WriteFile(sheet, []byte("# Empty\n\n#### question\nhello\n"), 0o644)
	var stderr bytes.Buffer
	sum, err := Run(context.Background(), Config{NewModel: builtins(), Sheets: []string{sheet}, Models: []string{"mock"}, OutDir: dir, Stderr: &stderr})
	if want := "not run: " + sheet + ":1: the sheet has no question"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
	if outs, _ := filepath.Glob(filepath.Join(dir, "output-*")); len(sum.Outputs) != 0 || len(outs) != 0 {
		t.Errorf("outputs %v, files %v", sum.Outputs, outs)
	}
	if stderr.Len() > 0 {
		t.Errorf("said besides the error:\n%s", stderr.String())
	}
}

// Two outputs that would share a file are refused before anything runs,
// naming the two that collide: the models when one sheet is asked of two
// models whose names the file name cannot tell apart.
func TestCollidingOutputsNamed(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "x", "input-s.md"), filepath.Join(dir, "y", "input-s.md")
	for _, p := range []string{a, b} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("# S\n## Q\n#### question\nq\n#### answer\na\n"), 0o644)
	}
	for _, tc := range []struct {
		sheets, models []string
		want           string
	}{
		{[]string{a}, []string{"mock:x", "mock_x"}, "models mock:x and mock_x would both write"},
		{[]string{a, b}, []string{"mock"}, a + " and " + b + " would both write"},
	} {
		_, err := Run(context.Background(), Config{NewModel: builtins(), Sheets: tc.sheets, Models: tc.models, OutDir: dir, DryRun: true})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v on %v: %v, want %q", tc.models, tc.sheets, err, tc.want)
		}
	}
}

// A meta key no setting, package or benchmark reads draws a warning at its
// line naming the nearest known name (a misspelt setting does nothing);
// keys a benchmark declares as its data, and LIME's, draw none.
func TestUnknownMetaKeyWarns(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "input-k.md")
	text := "# K\n\n#### meta\ntemprature: 0.5\nlevel: hard\n\n## Q\n\n#### meta\nanswer_suggested_length: 3\nmax_tokns: 9\ncolour: red\n\n#### question\nx\n\n#### answer\ny\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	sum, err := Run(context.Background(), Config{Sheets: []string{path}, DryRun: true, OutDir: filepath.Join(dir, "out"), Stderr: &stderr, DataKeys: []string{"level"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		path + ":4: meta temprature is not a setting or key evalmd reads (did you mean temperature?); it is kept as data",
		path + ":11: meta max_tokns is not a setting or key evalmd reads (did you mean max_tokens?); it is kept as data",
		path + ":12: meta colour is not a setting or key evalmd reads; it is kept as data",
	}
	var got []string
	for _, line := range strings.Split(stderr.String(), "\n") {
		if w, ok := strings.CutPrefix(line, "warning: "); ok && strings.Contains(w, "kept as data") {
			got = append(got, w)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || sum.Warnings != 3 {
		t.Errorf("warnings (%d):\n%s\nwant:\n%s", sum.Warnings, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// testKey is the key of the machine a test's runs run on, as a command
// loads it (outfile.LoadKey): runs sealed with it reuse each other's
// answers and resume each other's journals.
func testKey(t testing.TB) *outfile.Key {
	t.Helper()
	k, err := outfile.NewKey([]byte("the key of the machine of a test"))
	if err != nil {
		t.Fatal(err)
	}
	return k
}
