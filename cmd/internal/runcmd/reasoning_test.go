package runcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/agg"
	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/regrade"
	"github.com/evalmd/evalmd/result"
)

// thinkSheet is a LIME question whose truth a model's thinking names
// before it answers otherwise.
const thinkSheet = `# Think
## Q1
#### question
What is 2+2? A) 4 B) 5
#### answer
B) 5
`

// A reply that thinks in <think> tags before its answer (a local
// reasoning model, here through replay) is graded on its answer alone:
// the truth named in the thinking does not make it right, for LIME's
// grader nor the liberal one, and the thinking is kept as its reasoning.
// Before, the completion held the thinking and LIME's grader found B) 5
// in it: grade true.
func TestThinkTagsGradedOnTheAnswer(t *testing.T) {
	dir := t.TempDir()
	replay := filepath.Join(dir, "r.jsonl")
	line, _ := json.Marshal(map[string]string{"name": "Q1", "response": "<think>Could it be B) 5? Or A) 4... I think A) 4.</think>\nA) 4"})
	if err := os.WriteFile(replay, append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rule, completion, reasoning string
	}{
		{"", "A) 4", "Could it be B) 5? Or A) 4... I think A) 4."},
		{"strip", "A) 4", ""},
	} {
		out := t.TempDir()
		args := []string{"-f", writeSheet(t, thinkSheet), "-o", out, "-m", "replay:" + replay}
		if c.rule != "" {
			args = append(args, "--think-tags", c.rule)
		}
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), &stdout, &stderr, args); err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		f := readOnly(t, out)
		q := f.Questions[0]
		if q.Completion == nil || *q.Completion != c.completion || q.Reasoning != c.reasoning {
			t.Fatalf("think_tags %q: completion %v, reasoning %q; want %q, %q", c.rule, q.Completion, q.Reasoning, c.completion, c.reasoning)
		}
		if q.Grade == nil || *q.Grade {
			t.Errorf("think_tags %q: grade %v, want false (%s)", c.rule, q.Grade, q.GradeDetail)
		}
		// Regrading, strictly and liberally, reads the answer alone too.
		for _, liberal := range []bool{false, true} {
			f.Questions[0].Grading = ""
			if liberal {
				f.Questions[0].Grading = result.GradingLiberal
			}
			if _, err := regrade.GradeQuestion(context.Background(), f, &f.Questions[0], regrade.NewGraders(nil, grade.Options{}, ""), regrade.Verdicts{}); err != nil {
				t.Fatal(err)
			}
			if g := f.Questions[0].Grade; g == nil || *g {
				t.Errorf("think_tags %q, liberal %v: regraded %v, want false", c.rule, liberal, g)
			}
		}
	}
	// keep: the rule that leaves the text as sent, for those who want
	// LIME's own reading.
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), &stdout, &stderr, []string{"-f", writeSheet(t, thinkSheet), "-o", out, "-m", "replay:" + replay, "--think-tags", "keep"}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if q := readOnly(t, out).Questions[0]; !strings.HasPrefix(*q.Completion, "<think>") || q.Reasoning != "" {
		t.Errorf("keep: completion %q, reasoning %q", *q.Completion, q.Reasoning)
	}
}

// A LIME sheet of max_tokens 10 with temperature 0.5, on an OpenAI
// reasoning model (a fake refusing temperature and max_tokens as OpenAI
// does, and spending the 10 tokens on reasoning): no 400s, one warning
// for the temperature naming the sheet's line, the settings recorded
// without it, every empty answer flagged as cut by max_tokens (in the
// output and the run's summary), the reasoning tokens counted.
func TestReasoningModelOnALIMESheet(t *testing.T) {
	text, err := os.ReadFile(shared.Path(t, "corpora", "lime", "examples", "datasets", "simple", "input-common-sense-2.md"))
	if err != nil {
		shared.Missing(t, err.Error())
	}
	sheetText := strings.Replace(string(text), " - max_tokens: 10\n", " - max_tokens: 10\n - temperature: 0.5\n", 1)
	if sheetText == string(text) {
		t.Fatal("the LIME sheet has no max_tokens: 10 line")
	}
	sheetPath := filepath.Join(t.TempDir(), "input-common-sense-2.md")
	if err := os.WriteFile(sheetPath, []byte(sheetText), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 20, Reply: fakeserver.OpenAIReasoning(func(c fakeserver.Call) fakeserver.Reply {
		return fakeserver.Reply{NoContent: true, FinishReason: "length", OutputTokens: 10, ReasoningTokens: 10}
	})})
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	err = run(context.Background(), &stdout, &stderr, []string{"-f", sheetPath, "-o", out, "-m", "openai/o3",
		"--base-url", srv.URL})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "| 20 (20 reasoning) |") {
		t.Errorf("the run summary does not count the reasoning tokens:\n%s", stdout.String())
	}
	log := stderr.String()
	if n := strings.Count(log, "temperature"); n != 1 || !strings.Contains(log, "input-common-sense-2.md:7") {
		t.Errorf("want one warning for the temperature, naming the sheet's line 7; said %d times:\n%s", n, log)
	}
	if !strings.Contains(log, "2 of 2 answers are empty, cut by max_tokens 10 while the model was reasoning") || !strings.Contains(log, "raise max_tokens") {
		t.Errorf("the summary does not flag the cut answers:\n%s", log)
	}
	if !strings.Contains(log, "tokens 20 in / 20 out (20 reasoning)") {
		t.Errorf("the summary does not count the reasoning tokens:\n%s", log)
	}
	for _, c := range srv.Calls() {
		if c.Settings.Temperature != nil || c.Settings.MaxTokens != nil || c.Settings.MaxCompletionTokens == nil || *c.Settings.MaxCompletionTokens != 10 {
			t.Errorf("call %d sent temperature %v, max_tokens %v, max_completion_tokens %v", c.N, c.Settings.Temperature, c.Settings.MaxTokens, c.Settings.MaxCompletionTokens)
		}
	}
	f := readOnly(t, out)
	if s := f.Sheet.Settings; s == nil || s.Temperature != nil || s.MaxTokens != 10 {
		t.Errorf("sheet settings recorded %+v, want max_tokens 10 and no temperature", s)
	}
	if f.Sheet.Totals == nil || f.Sheet.Totals.ReasoningTokens != 20 {
		t.Errorf("totals %+v, want 20 reasoning tokens", f.Sheet.Totals)
	}
	for _, q := range f.Questions {
		if q.Error != nil || q.Limit != "max_tokens" || q.LimitValue != 10 || q.ReasoningTokens != 10 || q.Settings.Temperature != nil ||
			!strings.Contains(q.Note, "raise max_tokens") {
			t.Errorf("%s: error %v, limit %q %v, reasoning tokens %d, settings %+v, note %q", q.Name, q.Error, q.Limit, q.LimitValue, q.ReasoningTokens, q.Settings, q.Note)
		}
	}
}

// One model at reasoning_effort low and high: the effort reaches the
// server and the record, and agg makes two rows of the runs, never one,
// each with its reasoning tokens (before, both were the model's one row).
func TestReasoningEffortsAreTwoRows(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10, Reply: func(c fakeserver.Call) fakeserver.Reply {
		if c.Settings.ReasoningEffort == "high" {
			return fakeserver.Reply{Text: "B) 5", OutputTokens: 30, ReasoningTokens: 28}
		}
		return fakeserver.Reply{Text: "A) 4", OutputTokens: 6, ReasoningTokens: 4}
	}})
	sheetPath, out := writeSheet(t, thinkSheet), t.TempDir()
	for _, effort := range []string{"low", "high"} {
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), &stdout, &stderr, []string{"-f", sheetPath, "-o", out,
			"-m", "openai-api/box/r1", "--base-url", srv.URL, "--reasoning-effort", effort}); err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
	}
	for i, c := range srv.Calls() {
		if want := []string{"low", "high"}[i]; c.Settings.ReasoningEffort != want {
			t.Errorf("call %d: reasoning_effort %q, want %q", i+1, c.Settings.ReasoningEffort, want)
		}
	}
	d, err := agg.Load(context.Background(), out, io.Discard, agg.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, m := range d.Totals() {
		rows = append(rows, fmt.Sprintf("%s %d/%d", m.Model, m.Correct, m.Graded))
	}
	if got := strings.Join(rows, "; "); got != "openai-api/box/r1 · effort high 1/1; openai-api/box/r1 · effort low 0/1" {
		t.Errorf("agg's rows: %s", got)
	}
	var usage []string
	for _, u := range d.Usages() {
		usage = append(usage, fmt.Sprintf("%s %d/%d", u.Model, u.ReasoningTokens, u.OutputTokens))
	}
	if got := strings.Join(usage, "; "); got != "openai-api/box/r1 · effort high 28/30; openai-api/box/r1 · effort low 4/6" {
		t.Errorf("agg's usage: %s", got)
	}
}

// Every leading <think> block is reasoning, under every think_tags rule
// the recorded completion is the answer graded, and a reply cut inside
// its reasoning has no answer (its note and grade say so alike). Before,
// a second block was graded as the answer (its truth made it right);
// strip recorded one text and graded a second split of it; keep graded
// an unterminated block, true, under a note saying "no answer".
func TestThinkBlocksUnderEveryRule(t *testing.T) {
	const sheet = "# Think\n## two\n#### question\ntwo: 2+2? A) 4 B) 5\n#### answer\nB) 5\n" +
		"## stray\n#### question\nstray: 2+2? A) 4 B) 5\n#### answer\nB) 5\n" +
		"## cut\n#### question\ncut: 2+2? A) 4 B) 5\n#### answer\nB) 5\n" +
		"## stopped\n#### question\nstopped: 2+2? A) 4 B) 5\n#### answer\nB) 5\n" +
		"## untagged\n#### question\nuntagged: 2+2? A) 4 B) 5\n#### answer\nB) 5\n"
	replies := map[string]fakeserver.Reply{
		// Cut by max_tokens with no tag at all: a template that opened the
		// block in the prompt, or an answer cut short; the note says so.
		"untagged": {Text: "Let me think: 2+2 is B) 5 or", FinishReason: "length"},
		"two":      {Text: "<think>A) 4?</think>\n<think>No: B) 5.</think>\nA) 4"},
		"stray":    {Text: "<think>A) 4?</think> A) 4 </think> B) 5"},
		"cut":      {Text: "<think>B) 5, or A) 4", FinishReason: "length"},
		// Stopped inside its reasoning, not by max_tokens.
		"stopped": {Text: "<think>B) 5"},
	}
	for _, c := range []struct {
		rule  string
		grade map[string]bool // the run's grades; cut is false under every rule
		two   string          // the recorded completion of "two"
	}{
		{"auto", map[string]bool{"two": false, "stray": true}, "A) 4"},
		{"strip", map[string]bool{"two": false, "stray": true}, "A) 4"},
		{"keep", map[string]bool{"two": false, "stray": false}, "<think>A) 4?</think>\n<think>No: B) 5.</think>\nA) 4"},
	} {
		srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 5, Reply: func(call fakeserver.Call) fakeserver.Reply {
			name, _, _ := strings.Cut(call.LastUserText(), ":")
			return replies[name]
		}})
		out := t.TempDir()
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), &stdout, &stderr, []string{"-f", writeSheet(t, sheet), "-o", out, "-m", "openai/m",
			"--base-url", srv.URL, "--think-tags", c.rule})
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.rule, err, stderr.String())
		}
		f := readOnly(t, out)
		for i := range f.Questions {
			q := &f.Questions[i]
			if q.Grade == nil || *q.Grade != c.grade[q.Name] {
				t.Errorf("%s, %s: grade %v (%s), want %v", c.rule, q.Name, q.Grade, q.GradeDetail, c.grade[q.Name])
			}
			if q.Name == "two" && deref(q.Completion) != c.two {
				t.Errorf("%s: completion %q, want %q", c.rule, deref(q.Completion), c.two)
			}
			if q.Name == "cut" && (deref(q.Completion) != "" || q.Limit != "max_tokens" || !strings.Contains(q.Note, "no answer") ||
				!strings.Contains(q.GradeDetail, "no answer")) {
				t.Errorf("%s, cut: completion %q, limit %q, note %q, grade detail %q; want no answer in each",
					c.rule, deref(q.Completion), q.Limit, q.Note, q.GradeDetail)
			}
			if q.Name == "untagged" && !strings.HasPrefix(q.Note, "cut by max_tokens (finish_reason length): the answer may be cut short") {
				t.Errorf("%s, untagged: note %q; want it cut by max_tokens", c.rule, q.Note)
			}
			if q.Name == "stopped" && (deref(q.Completion) != "" || q.Note != "the reply had reasoning and no answer (finish_reason stop): graded as an empty answer") {
				t.Errorf("%s, stopped: completion %q, note %q", c.rule, deref(q.Completion), q.Note)
			}
			// The recorded completion graded as it stands (keep splits
			// nothing off it) keeps its grade.
			was := *q
			q.SolveSettings = map[string]string{"think_tags": "keep"}
			if _, err := regrade.GradeQuestion(context.Background(), f, &f.Questions[i], regrade.NewGraders(nil, grade.Options{}, ""), regrade.Verdicts{}); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(deref2(q.Grade)) != fmt.Sprint(deref2(was.Grade)) {
				t.Errorf("%s, %s: the recorded completion %q grades %v, the run graded %v", c.rule, q.Name, deref(q.Completion), deref2(q.Grade), deref2(was.Grade))
			}
		}
	}
}

func deref2(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}

// knobSheet sets the newest knobs in its meta: Claude's adaptive thinking
// at its most effort, and OpenAI's verbosity.
const knobSheet = `# Knobs
#### meta
thinking: adaptive
reasoning_effort: max
verbosity: low
## Q1
#### question
What is 2+2?
#### answer
4
`

// The newest knobs, set in a sheet's meta, reach each provider's request
// body as it takes them, and the output records what was sent: Anthropic
// gets thinking {type: adaptive} and output_config {effort: max}, and no
// verbosity (said once, naming the sheet's line); OpenAI gets verbosity
// low and reasoning_effort xhigh (its most, said), and no thinking type
// (said); the Inspect log's generate config holds what OpenAI was sent.
func TestNewestKnobsSent(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	sheetPath := writeSheet(t, knobSheet)
	for _, c := range []struct {
		model    string
		server   func(testing.TB, fakeserver.Options) *fakeserver.Server
		body     string // the members sent, as JSON
		recorded string // the output's settings
		said     []string
	}{
		{"anthropic/claude-opus-4-7", fakeserver.NewAnthropic,
			`{"output_config":{"effort":"max"},"thinking":{"type":"adaptive"}}`,
			`{"max_tokens":64000,"reasoning_effort":"max","thinking":"adaptive"}`,
			[]string{"verbosity low (" + sheetPath + ":5) is not sent: Anthropic takes none"}},
		{"openai/gpt-5.2", fakeserver.NewOpenAI,
			`{"reasoning_effort":"xhigh","verbosity":"low"}`,
			`{"reasoning_effort":"xhigh","verbosity":"low"}`,
			[]string{"reasoning_effort max (" + sheetPath + ":4) is sent as xhigh: OpenAI's most effort", "thinking adaptive (" + sheetPath + ":3) is not sent: only Anthropic"}},
	} {
		srv := c.server(t, fakeserver.Options{MaxRequests: 2, Reply: func(fakeserver.Call) fakeserver.Reply { return fakeserver.Reply{Text: "4"} }})
		out, logs := t.TempDir(), t.TempDir()
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), &stdout, &stderr, []string{"-f", sheetPath, "-o", out, "-m", c.model, "--base-url", srv.URL,
			"--log-dir", logs, "--log-format", "json"}); err != nil {
			t.Fatalf("%s: %v\n%s", c.model, err, stderr.String())
		}
		body := srv.Calls()[0].Body
		got := map[string]any{}
		for _, k := range []string{"thinking", "output_config", "reasoning_effort", "verbosity", "reasoning"} {
			if v, ok := body[k]; ok {
				got[k] = v
			}
		}
		if b, _ := json.Marshal(got); string(b) != c.body {
			t.Errorf("%s: sent %s, want %s", c.model, b, c.body)
		}
		f := readOnly(t, out)
		if b, _ := json.Marshal(f.Questions[0].Settings); string(b) != c.recorded {
			t.Errorf("%s: recorded %s, want %s", c.model, b, c.recorded)
		}
		for _, s := range c.said {
			if n := strings.Count(stderr.String(), s); n != 1 {
				t.Errorf("%s: said %d times %q:\n%s", c.model, n, s, stderr.String())
			}
		}
		paths, _ := filepath.Glob(filepath.Join(logs, "*.json"))
		if len(paths) != 1 {
			t.Fatalf("%s: logs %v", c.model, paths)
		}
		lg, err := readLog(paths[0])
		if err != nil {
			t.Fatal(err)
		}
		if g := lg.Plan.Config; c.model == "openai/gpt-5.2" && (string(g["verbosity"]) != `"low"` || string(g["reasoning_effort"]) != `"xhigh"`) {
			t.Errorf("%s: the log's generate config %v", c.model, g)
		}
	}
}

// A think_tags rule changed on a rerun regrades the reused chat answer as
// the new rule gives it, asking nothing: the completion recorded is the
// text graded (keep: the reply as sent; auto: the answer, its reasoning
// apart; strip: the answer alone), and back again.
func TestThinkTagsChangedOnRerun(t *testing.T) {
	const sheet = "# Think\n## q\n#### meta\n- grader: exact\n#### question\nq: 2+2? A) 4 B) 5\n#### answer\nB) 5\n"
	const reply = "<think>A) 4?</think>\nB) 5"
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 1, Reply: func(fakeserver.Call) fakeserver.Reply {
		return fakeserver.Reply{Text: reply}
	}})
	path, out := writeSheet(t, sheet), t.TempDir()
	for _, c := range []struct {
		rule, completion, reasoning string
		right                       bool
	}{
		{"auto", "B) 5", "A) 4?", true},
		{"keep", reply, "", false},
		{"strip", "B) 5", "", true},
		{"auto", "B) 5", "A) 4?", true},
	} {
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), &stdout, &stderr, []string{"-f", path, "-o", out, "-m", "openai/m",
			"--base-url", srv.URL, "--think-tags", c.rule}); err != nil {
			t.Fatalf("%s: %v\n%s", c.rule, err, stderr.String())
		}
		q := readOnly(t, out).Questions[0]
		if deref(q.Completion) != c.completion || q.Reasoning != c.reasoning || q.Grade == nil || *q.Grade != c.right {
			t.Errorf("--think-tags %s: completion %q, reasoning %q, grade %v; want %q, %q, %v\n%s",
				c.rule, deref(q.Completion), q.Reasoning, deref2(q.Grade), c.completion, c.reasoning, c.right, stderr.String())
		}
	}
}
