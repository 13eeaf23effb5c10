package dabench

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/benchmark"
	"github.com/evalmd/evalmd/benchmark/dabench/score"
	"github.com/evalmd/evalmd/harness"
	"github.com/evalmd/evalmd/inspect"
	"github.com/evalmd/evalmd/internal/setting"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/providers"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/runner"
	"github.com/evalmd/evalmd/sandbox"
)

// TestAgentAnthropicThinking runs one DABench question in agent mode on
// the Anthropic fake with extended thinking (reasoning_tokens 2048): the
// model thinks before each of three python calls and its answer, one
// thinking block redacted. The fake refuses, as the API does, a turn of
// tool results whose assistant turn lost its thinking, and any thinking
// block changed; so the question passes only if every turn's thinking
// went back unmodified. The temperature asked is not sent (said once),
// and the output and the Inspect log record what was sent.
func TestAgentAnthropicThinking(t *testing.T) {
	if _, err := sandbox.Check(context.Background(), sandbox.Config{}); err != nil {
		shared.Missing(t, err.Error())
	}
	src := shared.Path(t, "corpora", "dabench")
	all, errs := Load(src)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	q := all[0]
	data := subsetData(t, src, []Question{q})
	sheets := t.TempDir()
	if _, errs := Convert(Options{Data: data, Out: sheets}); len(errs) > 0 {
		t.Fatal(errs)
	}
	shape := csvShape(t, filepath.Join(src, tablesDir, q.FileName))
	read := "import pandas as pd\ndf = pd.read_csv(" + strconv.Quote(q.FileName) + ")\n"
	steps := []struct {
		code     string
		thoughts []fakeserver.Thought
	}{
		{read + "print(df.shape)", []fakeserver.Thought{{Text: "First I read the table."}}},
		{"print(len(df.columns))", []fakeserver.Thought{{Text: "Now its columns."}, {Text: "unsafe to show", Redacted: true}}},
		{"print(len(df))", []fakeserver.Thought{{Text: "kept from view", Redacted: true}}},
	}
	srv := fakeserver.NewAnthropic(t, fakeserver.Options{MaxRequests: 20, Reply: func(c fakeserver.Call) fakeserver.Reply {
		n := 0 // tool results so far: the step this turn is
		for _, m := range c.Messages {
			if m.Role == "tool" {
				n++
			}
		}
		if n < len(steps) {
			args, _ := json.Marshal(map[string]string{"code": steps[n].code})
			return fakeserver.Reply{Thoughts: steps[n].thoughts, OutputTokens: 500,
				ToolCalls: []fakeserver.ToolCall{{ID: "toolu_" + strconv.Itoa(n+1), Name: "python", Arguments: string(args)}}}
		}
		return fakeserver.Reply{Thoughts: []fakeserver.Thought{{Text: "I have what I need."}}, Text: "The answer:\n" + score.LabelsText(q.Labels)}
	}})

	set, err := benchmark.NewSet(score.Benchmark())
	if err != nil {
		t.Fatal(err)
	}
	found, err := harness.FindSheets(sheets)
	if err != nil {
		t.Fatal(err)
	}
	out, logs := t.TempDir(), t.TempDir()
	var stderr bytes.Buffer
	flags := setting.Layer{Source: setting.Flag, Values: map[string]string{"reasoning_tokens": "2048", "temperature": "0.5"}}
	_, err = harness.Run(context.Background(), harness.Config{NewModel: providers.New, Sheets: found,
		Models: []string{"anthropic/claude-sonnet-4-5"}, OutDir: out, Graders: set.Graders, DataRoots: []string{src},
		Model:    model.Options{BaseURL: srv.URL, APIKey: "sk-ant-test", Getenv: func(string) string { return "" }},
		Settings: []setting.Layer{flags}, LogDir: logs, LogFormat: inspect.FormatJSON,
		Runner: runner.Options{Concurrency: 1}, Sandbox: sandbox.Config{MaxInFlight: 1}, Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}

	outputs, _ := filepath.Glob(filepath.Join(out, "output-*.json"))
	if len(outputs) != 1 {
		t.Fatalf("outputs %v, want one", outputs)
	}
	f, err := result.Read(outputs[0])
	if err != nil {
		t.Fatal(err)
	}
	got := f.Questions[0]
	if got.Grade == nil || !*got.Grade || got.Limit != "" || got.Error != nil {
		t.Fatalf("grade %v, limit %q, error %v, completion %v", got.Grade, got.Limit, got.Error, got.Completion)
	}
	calls, thinking := 0, 0
	for _, m := range got.Transcript {
		calls += len(m.ToolCalls)
		thinking += len(m.ReasoningBlocks)
	}
	if calls != 3 || thinking != 5 {
		t.Errorf("transcript: %d tool calls, %d thinking blocks; want 3 and 5", calls, thinking)
	}
	if !strings.Contains(got.Transcript[1].Content, shape) {
		t.Errorf("the first call's result %q, want the table's shape %s", got.Transcript[1].Content, shape)
	}
	// Each turn after the first carried every earlier turn's thinking,
	// unmodified (the fake checks the signatures; Valid says it did).
	served := srv.Calls()
	if len(served) != 4 {
		t.Fatalf("%d model calls, want 4", len(served))
	}
	for i, c := range served {
		back := 0
		for _, m := range c.Messages {
			for _, th := range m.Thinking {
				if !th.Valid {
					t.Errorf("call %d: a thinking block came back altered", i+1)
				}
				back++
			}
		}
		if want := []int{0, 1, 3, 4}[i]; back != want {
			t.Errorf("call %d sent back %d thinking blocks, want %d", i+1, back, want)
		}
		if c.ThinkingBudget != 2048 || c.Settings.Temperature != nil {
			t.Errorf("call %d: budget %d, temperature %v", i+1, c.ThinkingBudget, c.Settings.Temperature)
		}
	}
	// What was sent is recorded, and the temperature not sent said once.
	if s := got.Settings; s == nil || s.ReasoningTokens != 2048 || s.Temperature != nil || s.MaxTokens != 2048+4096 {
		t.Errorf("recorded settings %+v, want those sent", s)
	}
	if n := strings.Count(stderr.String(), "temperature 0.5 (--temperature) is not sent: with thinking (reasoning_tokens) Anthropic takes none but 1"); n != 1 {
		t.Errorf("the temperature not sent was said %d times, want once:\n%s", n, stderr.String())
	}
	logFiles, _ := filepath.Glob(filepath.Join(logs, "*.json"))
	if len(logFiles) != 1 {
		t.Fatalf("inspect logs %v", logFiles)
	}
	logData, err := os.ReadFile(logFiles[0])
	if err != nil {
		t.Fatal(err)
	}
	var lg struct {
		Plan struct {
			Config map[string]any `json:"config"`
		} `json:"plan"`
	}
	if err := json.Unmarshal(logData, &lg); err != nil {
		t.Fatal(err)
	}
	if c := lg.Plan.Config; c["reasoning_tokens"] != 2048.0 || c["temperature"] != nil {
		t.Errorf("Inspect log's config = %v, want what was sent", c)
	}
}
