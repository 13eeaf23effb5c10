package runcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/cmd/internal/cli"

	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/result"
)

// writeSheet writes a sheet into a fresh folder and returns its path.
func writeSheet(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "input-t.md")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const judgedSheet = `# Judged
#### meta
grader: judge
## Q1
#### question
What is 2+2?
#### answer
4
## Q2
#### question
What is 3+3?
#### answer
6
`

// The judge has its own server, key and max_tokens: it never receives the
// run's base URL or key.
func TestJudgeHasItsOwnServerAndKey(t *testing.T) {
	// Not the truth itself, which is right without asking the judge.
	models := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 20,
		Reply: func(fakeserver.Call) fakeserver.Reply { return fakeserver.Reply{Text: "It is 4."} }})
	judges := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 20,
		Reply: func(fakeserver.Call) fakeserver.Reply { return fakeserver.Reply{Text: "Fine.\nGRADE: C"} }})
	t.Setenv("LOCAL_API_KEY", "sk-model-key")
	t.Setenv("JUDGE_API_KEY", "sk-judge-key")
	t.Setenv("OPENAI_API_KEY", "sk-openai-key")
	sheetPath := writeSheet(t, judgedSheet)
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), &stdout, &stderr, []string{"-f", sheetPath, "-o", t.TempDir(),
		"-m", "openai-api/local/tiny", "--base-url", models.URL,
		"--judge", "openai-api/judge/big", "--judge-base-url", judges.URL, "--judge-max-tokens", "50"})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, c := range models.Calls() {
		if c.Model != "tiny" || c.Header.Get("Authorization") != "Bearer sk-model-key" {
			t.Errorf("model server got model %q auth %q", c.Model, c.Header.Get("Authorization"))
		}
	}
	jc := judges.Calls()
	if len(jc) != 2 || len(models.Calls()) != 2 {
		t.Fatalf("%d judge calls, %d model calls; want 2 and 2", len(jc), len(models.Calls()))
	}
	for _, c := range jc {
		if c.Model != "big" || c.Header.Get("Authorization") != "Bearer sk-judge-key" {
			t.Errorf("judge server got model %q auth %q", c.Model, c.Header.Get("Authorization"))
		}
		if c.Settings.MaxTokens == nil || *c.Settings.MaxTokens != 50 {
			t.Errorf("judge max_tokens = %v, want 50", c.Settings.MaxTokens)
		}
	}
	if !strings.Contains(stderr.String(), "2/2 correct") {
		t.Errorf("stderr: %s", stderr.String())
	}
	// Without --judge-base-url the judge does not borrow the run's.
	err = run(context.Background(), &stdout, &stderr, []string{"-f", sheetPath, "-o", t.TempDir(),
		"-m", "openai-api/local/tiny", "--base-url", models.URL, "--judge", "openai-api/judge/big"})
	if err == nil || !strings.Contains(err.Error(), "base URL") {
		t.Errorf("judge without its own server: %v, want an error asking for one", err)
	}
}

// Questions that cannot be graded stop the run before any model call, each
// named once (not once per model) at its line, the reason said as grading
// would say it: an unknown grader, a tolerance that is no number, a truth
// naming no option, an empty answer section. (An unknown --grader is a
// usage error: TestRunUnknownGrader.)
func TestGradersCheckedBeforeAnyCall(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 20})
	const q1 = "# S\n## Q1\n#### question\na\n#### answer\nB\n"
	for _, tc := range []struct {
		sheet, flag, want string
	}{
		{strings.Replace(judgedSheet, "grader: judge", "grader: lime", 1) + "## Q3\n#### meta\ngrader: nope\n#### question\nx\n#### answer\ny\n", "",
			`:14: question "Q3" cannot be graded: unknown grader "nope"`},
		{q1 + "## Q2\n#### meta\ngrader: numeric\ntolerance: abc\n#### question\nb\n#### answer\n1\n", "",
			`:7: question "Q2" cannot be graded: numeric: meta tolerance "abc" is not a non-negative number`},
		{q1 + "## Q2\n#### meta\ngrader: choice\n#### question\nb\n#### answer\nsix<EVAL-ENDCHAR>\n", "",
			`:7: question "Q2" cannot be graded: ground truth "six" names no option letter`},
		{q1 + "## Q2\n#### question\nb\n#### answer\n## Q3\n#### question\nc\n#### answer\n", "",
			`: 2 questions cannot be graded: `},
	} {
		args := []string{"-f", writeSheet(t, tc.sheet), "-o", t.TempDir(), "-m", "openai-api/local/tiny,openai-api/local/small", "--base-url", srv.URL}
		if tc.flag != "" {
			args = append(args, tc.flag)
		}
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), &stdout, &stderr, args)
		if err == nil || !strings.HasPrefix(err.Error(), "not run: ") || !strings.Contains(err.Error(), tc.want) || cli.ExitCode(err) != 1 {
			t.Errorf("%s: error %v (exit %d), want 1 and %q", tc.flag, err, cli.ExitCode(err), tc.want)
			continue
		}
		if n := strings.Count(err.Error(), "cannot be graded"); n != 1 {
			t.Errorf("%v: said %d times, want once (not once per model)", err, n)
		}
	}
	if n := srv.Count(); n != 0 {
		t.Errorf("%d model calls before the bad grader was found", n)
	}
}

// Without --judge a run of judged sheets goes on: an
// answer identical to the truth is right without a call, saying so, the
// others are graded null, and the run says it once, not once per sheet,
// and succeeds.
func TestNoJudgeGradesNullOncePerRun(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"input-a.md", "input-b.md"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(judgedSheet), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), &stdout, &stderr, []string{"-d", dir, "-o", out, "-m", "mock", "--mock-reply", " 4\n"}); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if n := strings.Count(stderr.String(), "no judge model was given"); n != 1 || !strings.Contains(stderr.String(), "2 questions need the judge grader") {
		t.Errorf("said %d times, want once for 2 questions:\n%s", n, stderr.String())
	}
	outs, _ := filepath.Glob(filepath.Join(out, "output-*.json"))
	if len(outs) != 2 {
		t.Fatalf("%d outputs", len(outs))
	}
	for _, p := range outs {
		f, err := result.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		q1, q2 := f.Questions[0], f.Questions[1]
		if q1.Grade == nil || !*q1.Grade || q1.GradeDetail != grade.Identical {
			t.Errorf("%s Q1: %v %q, want right without a call", p, q1.Grade, q1.GradeDetail)
		}
		if q2.Grade != nil || q2.GradeDetail != grade.NoJudge {
			t.Errorf("%s Q2: %v %q, want null for want of a judge", p, q2.Grade, q2.GradeDetail)
		}
	}
}

// A question whose grader fails at grading time (the judge's server
// refuses its request) is graded null with the reason; the others are
// graded, the file is written, and the run says how many, names each at
// its line, and exits 3.
func TestRunKeepsTheRestWhenAGraderFails(t *testing.T) {
	judges := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 5,
		Reply: func(fakeserver.Call) fakeserver.Reply { return fakeserver.Reply{Status: 400, Message: "no such judge"} }})
	sheetPath := writeSheet(t, "# S\n## Q1\n#### question\na\n#### answer\nB\n## Q2\n#### meta\ngrader: judge\n#### question\nb\n#### answer\n1\n")
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), &stdout, &stderr, []string{"-f", sheetPath, "-o", out, "-m", "mock", "--mock-reply", "B",
		"--judge", "openai-api/judge/big", "--judge-base-url", judges.URL})
	want := "run: 1 question could not be graded (grade null, the reason in grade_detail): " + sheetPath + `:7: question "Q2": grader error: `
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "no such judge") {
		t.Errorf("error %v, want %q...", err, want)
	}
	if code := cli.ExitCode(err); code != 3 {
		t.Errorf("exit status %d, want 3 (finished, a question ungraded)", code)
	}
	f := readOnly(t, out)
	if q := f.Questions[0]; q.Grade == nil || !*q.Grade {
		t.Errorf("Q1 grade %v, want true", q.Grade)
	}
	if q := f.Questions[1]; q.Grade != nil || q.Grader != "judge" || !strings.Contains(q.GradeDetail, "grader error") {
		t.Errorf("Q2 grade %v grader %q detail %q", q.Grade, q.Grader, q.GradeDetail)
	}
	if !strings.Contains(stderr.String(), "mock on input-t.md: 1/2 correct, 1 could not be graded,") {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// The Inspect log's model_generate_config is the run's settings, flags
// included; a question sent other settings has them in its metadata; the
// output file records the settings sent, per question and for the run.
func TestSettingsRecordedAndLogged(t *testing.T) {
	sheetPath := writeSheet(t, "# S\n#### meta\ntop_p: 0.5\n## Q1\n#### question\na\n#### answer\nB\n## Q2\n#### meta\nmax_tokens: 7\n#### question\nb\n#### answer\nB\n")
	out, logs := t.TempDir(), t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), &stdout, &stderr, []string{"-f", sheetPath, "-o", out, "-m", "mock", "--temperature", "0.7", "--log-dir", logs, "--log-format", "json"}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	paths, _ := filepath.Glob(filepath.Join(out, "output-*.json"))
	f, err := result.Read(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	if s := f.Sheet.Settings; s == nil || s.Temperature == nil || *s.Temperature != 0.7 || s.TopP == nil || *s.TopP != 0.5 {
		t.Errorf("sheet settings %+v, want temperature 0.7 top_p 0.5", s)
	}
	// Q1 has no meta section: the sheet's top_p still steers it,
	// and its recorded meta_data stays null as in LIME.
	if q := f.Questions[0]; q.MetaData != nil || q.Settings == nil || q.Settings.TopP == nil || *q.Settings.TopP != 0.5 || *q.Settings.Temperature != 0.7 {
		t.Errorf("Q1 meta %v settings %+v", q.MetaData, q.Settings)
	}
	if q := f.Questions[1]; q.Settings == nil || q.Settings.MaxTokens != 7 {
		t.Errorf("Q2 settings %+v, want max_tokens 7", q.Settings)
	}
	logPaths, _ := filepath.Glob(filepath.Join(logs, "*.json"))
	if len(logPaths) != 1 {
		t.Fatalf("logs %v", logPaths)
	}
	lg, err := readLog(logPaths[0])
	if err != nil {
		t.Fatal(err)
	}
	g := lg.Eval.ModelConfig
	if string(g["temperature"]) != "0.7" || string(g["top_p"]) != "0.5" || g["max_tokens"] != nil {
		t.Errorf("model_generate_config %+v, want temperature 0.7, top_p 0.5", g)
	}
	if _, ok := lg.Samples[0].Metadata["generate_config"]; ok {
		t.Errorf("Q1 sent the run's settings, yet its sample has its own: %v", lg.Samples[0].Metadata)
	}
	if _, ok := lg.Samples[1].Metadata["generate_config"]; !ok {
		t.Errorf("Q2 sent max_tokens 7, but its sample metadata does not say so: %v", lg.Samples[1].Metadata)
	}
}

// A dry run without -m (DSBench sheets truncate for the model) writes the
// prompts whole; with -m it cuts them for that model.
func TestDryRunWithoutModelWritesWholePrompts(t *testing.T) {
	long := strings.Repeat("word ", 9000)
	sheetPath := writeSheet(t, "# S\n#### meta\ntruncate: keep-last\nreserve_tokens: 6000\n## Q1\n#### question\n"+long+"\n#### answer\nB\n")
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), &stdout, &stderr, []string{"-y", "-f", sheetPath, "-o", out}); err != nil {
		t.Fatalf("dry run without -m: %v", err)
	}
	paths, _ := filepath.Glob(filepath.Join(out, "output-*.json"))
	f, err := result.Read(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Questions[0].Question; got != long+"\n" {
		t.Errorf("prompt of %d bytes, want the whole %d", len(got), len(long)+1)
	}
	if err := run(context.Background(), &stdout, &stderr, []string{"-y", "-f", sheetPath, "-o", t.TempDir(), "-m", "gpt-4"}); err != nil {
		t.Fatalf("dry run for gpt-4: %v", err)
	}
}

// A reserve at or above the context limit is refused before any call;
// --context-limit and --encoding stand in for the sheet's meta; a model
// that is not OpenAI's is told its counts are tiktoken's estimate.
func TestContextLimitFlags(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 20})
	long := strings.Repeat("word ", 3000)
	sheetPath := writeSheet(t, "# S\n#### meta\ntruncate: keep-last\nreserve_tokens: 6000\n## Q1\n#### question\n"+long+"\n#### answer\nB\n")
	var stdout, stderr bytes.Buffer
	base := []string{"-f", sheetPath, "-m", "openai-api/local/tiny", "--base-url", srv.URL}
	err := run(context.Background(), &stdout, &stderr, append([]string{"-o", t.TempDir(), "--context-limit", "4096", "--encoding", "cl100k_base"}, base...))
	if err == nil || !strings.Contains(err.Error(), "reserve_tokens 6000 >= context_limit 4096") {
		t.Errorf("error %v, want the reserve refused", err)
	}
	err = run(context.Background(), &stdout, &stderr, append([]string{"-o", t.TempDir()}, base...))
	if err == nil || !strings.Contains(err.Error(), "--context-limit") {
		t.Errorf("no limit known: error %v, want one pointing at --context-limit", err)
	}
	if n := srv.Count(); n != 0 {
		t.Fatalf("%d calls before the limit was checked", n)
	}
	stderr.Reset()
	out := t.TempDir()
	if err := run(context.Background(), &stdout, &stderr, append([]string{"-o", out, "--context-limit", "7000", "--encoding", "cl100k_base"}, base...)); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "an estimate") {
		t.Errorf("no word that tiktoken's counts are an estimate: %s", stderr.String())
	}
	c := srv.Calls()
	if len(c) != 1 || len(c[0].LastUserText()) >= len(long) || !strings.HasSuffix(c[0].LastUserText(), "word \n") {
		t.Errorf("prompt not cut to 1000 tokens: %d calls", len(c))
	}
}

// finish_reason is recorded (a reply cut at max_tokens is not complete);
// a server's model named gpt-4 is not priced as OpenAI's, and its cost is
// "unknown", not $0.0000.
func TestFinishReasonAndUnknownCost(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 20,
		Reply: func(fakeserver.Call) fakeserver.Reply { return fakeserver.Reply{Text: "B", FinishReason: "length"} }})
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	sheetPath := writeSheet(t, "# S\n## Q1\n#### question\na\n#### answer\nB\n")
	if err := run(context.Background(), &stdout, &stderr, []string{"-f", sheetPath, "-o", out, "-m", "gpt-4", "--base-url", srv.URL}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	paths, _ := filepath.Glob(filepath.Join(out, "output-*.json"))
	f, err := result.Read(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	q := f.Questions[0]
	if q.FinishReason != "length" || q.Cost != nil {
		t.Errorf("finish_reason %q cost %v, want length and no cost", q.FinishReason, q.Cost)
	}
	if !strings.Contains(stderr.String(), "cost unknown") || strings.Contains(stderr.String(), "$0.0000") {
		t.Errorf("totals line does not say the cost is unknown: %s", stderr.String())
	}
	if i := f.Sheet.ModelInfo; i == nil || i.Provider != "openai-api" || i.Price != nil || i.BaseURL != srv.URL {
		t.Errorf("model_info %+v, want an unpriced openai-api server", i)
	}
}

// A question that failed makes the run exit non-zero, saying how many and
// why, after writing the output.
func TestFailedQuestionsFailTheRun(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 20,
		Reply: func(c fakeserver.Call) fakeserver.Reply {
			if strings.Contains(c.LastUserText(), "bad") {
				return fakeserver.Reply{Status: 400, Message: "no such thing"}
			}
			return fakeserver.Reply{Text: "B"}
		}})
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	sheetPath := writeSheet(t, "# S\n## Q1\n#### question\ngood\n#### answer\nB\n## Q2\n#### question\nbad\n#### answer\nB\n")
	err := run(context.Background(), &stdout, &stderr, []string{"-f", sheetPath, "-o", out, "-m", "openai-api/x/m", "--base-url", srv.URL})
	if err == nil || !strings.Contains(err.Error(), "1 of 2 questions failed") || !strings.Contains(err.Error(), "no such thing") {
		t.Errorf("error %v, want 1 of 2 failed with the reason", err)
	}
	if paths, _ := filepath.Glob(filepath.Join(out, "output-*.json")); len(paths) != 1 {
		t.Errorf("outputs %v, want the output written", paths)
	}
}

// A bad sheet in the middle of run -d stops the run before any model call:
// every sheet is read and built first.
func TestBadSheetFoundBeforeAnyCall(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 20})
	dir := t.TempDir()
	good := "# S\n## Q1\n#### question\na\n#### answer\nB\n"
	os.WriteFile(filepath.Join(dir, "input-a.md"), []byte(good), 0o644)
	os.WriteFile(filepath.Join(dir, "input-b.md"), []byte("# S\n#### templates\n{{.Nope\n## Q1\n#### question\na\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "input-c.md"), []byte(good), 0o644)
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), &stdout, &stderr, []string{"-d", dir, "-o", t.TempDir(), "-m", "openai-api/x/m", "--base-url", srv.URL})
	if err == nil || !strings.Contains(err.Error(), "input-b.md") {
		t.Errorf("error %v, want one naming input-b.md", err)
	}
	if n := srv.Count(); n != 0 {
		t.Errorf("%d model calls before the bad sheet was found", n)
	}
}
