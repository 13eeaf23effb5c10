package runcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/sandbox"
)

// needSandbox skips (fails under CI) when bubblewrap or pandas is missing.
func needSandbox(t *testing.T) {
	t.Helper()
	if _, err := sandbox.Check(context.Background(), sandbox.Config{}); err != nil {
		shared.Missing(t, err.Error())
	}
}

// modeSheet writes a sheet of two questions on one CSV table, with the
// given mode meta.
func modeSheet(t *testing.T, meta string) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sales.csv"), []byte("region,amount\nnorth,10\nsouth,32\neast,7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sheet := "# Sales\n\n#### meta\n" + meta + "grader: exact\n\n#### files\nsales.csv\n\n" +
		"## Total\n\n#### question\nWhat is the total amount?\n\n#### answer\n49\n\n" +
		"## Regions\n\n#### question\nHow many regions are there?\n\n#### answer\n3\n"
	p := filepath.Join(dir, "input-sales.md")
	if err := os.WriteFile(p, []byte(sheet), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readOnly(t *testing.T, dir string) *result.File {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "output-*.json"))
	if len(paths) != 1 {
		t.Fatalf("outputs %v", paths)
	}
	f, err := result.Read(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Code mode: the model's code runs on the table in the sandbox, the answer
// string is graded, and the output keeps code, answer and environment.
func TestRunCodeMode(t *testing.T) {
	needSandbox(t)
	sheet := modeSheet(t, "mode: code\ncode_extract: lenient\n")
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10, Reply: func(c fakeserver.Call) fakeserver.Reply {
		if strings.Contains(c.LastUserText(), "total") {
			return fakeserver.Reply{Text: "```python\ndf['amount'].sum()\n```"}
		}
		return fakeserver.Reply{Text: "return df['region'].nunique() + 1"} // wrong on purpose
	}})
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), &stdout, &stderr, []string{"-f", sheet, "-m", "openai-api/local/tiny", "--base-url", srv.URL, "-o", out}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	f := readOnly(t, out)
	total, regions := f.Questions[0], f.Questions[1]
	if total.Mode != "code" || total.CodeExtract != "lenient" || total.Answer == nil || *total.Answer != "49" || total.Grade == nil || !*total.Grade {
		t.Errorf("total: mode %q rule %q answer %v grade %v", total.Mode, total.CodeExtract, total.Answer, total.Grade)
	}
	if total.Code == nil || !strings.Contains(*total.Code, "df['amount'].sum()") || total.Sandbox["pandas"] == "" {
		t.Errorf("total: code %v sandbox %v", total.Code, total.Sandbox)
	}
	if *total.Completion != "```python\ndf['amount'].sum()\n```" {
		t.Errorf("completion must stay the model's text: %q", *total.Completion)
	}
	if regions.Answer == nil || *regions.Answer != "4" || regions.Grade == nil || *regions.Grade {
		t.Errorf("regions: answer %v grade %v", regions.Answer, regions.Grade)
	}
}

// Agent mode: the model reads the table with the python tool over several
// calls, and the transcript is kept in the output.
func TestRunAgentMode(t *testing.T) {
	needSandbox(t)
	sheet := modeSheet(t, "mode: agent\nmax_turns: 5\n")
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 20, Reply: func(c fakeserver.Call) fakeserver.Reply {
		var results []string
		for _, m := range c.Messages {
			if m.Role == "tool" {
				results = append(results, m.Text)
			}
		}
		if len(results) == 0 {
			code := "import pandas as pd\ndf = pd.read_csv('sales.csv')\nprint(df['amount'].sum() if 'total' in " + jsonQuote(c.LastUserText()) + " else df['region'].nunique())"
			return fakeserver.Reply{ToolCalls: []fakeserver.ToolCall{{ID: "c1", Name: "python", Arguments: `{"code":` + jsonQuote(code) + `}`}}}
		}
		return fakeserver.Reply{Text: strings.TrimSpace(results[0])}
	}})
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), &stdout, &stderr, []string{"-f", sheet, "-m", "openai-api/local/tiny", "--base-url", srv.URL, "-o", out}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	f := readOnly(t, out)
	for _, q := range f.Questions {
		if q.Mode != "agent" || q.Turns != 2 || len(q.Transcript) != 3 || q.Grade == nil || !*q.Grade {
			t.Errorf("%s: mode %q turns %d transcript %d grade %v completion %v", q.Name, q.Mode, q.Turns, len(q.Transcript), q.Grade, q.Completion)
		}
	}
	if !strings.Contains(stderr.String(), "2/2 correct") {
		t.Errorf("totals: %s", stderr.String())
	}
}

// The oracle still scores 100% in code mode: it answers the ground truth
// without running code.
func TestRunOracleCodeMode(t *testing.T) {
	needSandbox(t)
	sheet := modeSheet(t, "mode: code\n")
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), &stdout, &stderr, []string{"-f", sheet, "-m", "oracle", "-o", out}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	f := readOnly(t, out)
	for _, q := range f.Questions {
		if q.Grade == nil || !*q.Grade || q.Code != nil {
			t.Errorf("%s: grade %v code %v", q.Name, q.Grade, q.Code)
		}
	}
}

func TestRunBadModeStopsBeforeCalls(t *testing.T) {
	sheet := modeSheet(t, "mode: kode\n")
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 5})
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), &stdout, &stderr, []string{"-f", sheet, "-m", "openai-api/local/tiny", "--base-url", srv.URL, "-o", t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), `input-sales.md:4: meta mode: "kode" is not chat, code or agent`) || srv.Count() != 0 {
		t.Errorf("err %v after %d calls", err, srv.Count())
	}
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// DataBench's baseline path: --completion-api sends the raw prompt to
// /v1/completions, and the baseline rule reads prompt + completion as
// llama-cli's echo would give it.
func TestRunBaselineOverCompletionAPI(t *testing.T) {
	needSandbox(t)
	sheet := modeSheet(t, "mode: code\ncode_extract: baseline\n")
	srv := fakeserver.NewOpenAICompletions(t, fakeserver.Options{MaxRequests: 5, Reply: func(c fakeserver.Call) fakeserver.Reply {
		// The prompt ends in a function head; the model completes it.
		return fakeserver.Reply{Text: "\n" + "    return df['amount'].sum()\n[end of text]"}
	}})
	// The baseline rule takes the text after the second "return": the
	// sheet's prompt must hold one "return" before the completion's.
	data, _ := os.ReadFile(sheet)
	data = []byte(strings.Replace(string(data), "#### files", "#### question\nComplete: def answer(df): return\n\n#### files", 1))
	os.WriteFile(sheet, data, 0o644)
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), &stdout, &stderr, []string{"-f", sheet, "-m", "llamacpp/stable-code-3b", "--base-url", srv.URL,
		"--completion-api", "-o", out})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	f := readOnly(t, out)
	q := f.Questions[0]
	if q.CodeExtract != "baseline" || q.Answer == nil || *q.Answer != "49" {
		t.Errorf("baseline: rule %q answer %v code %v error %q", q.CodeExtract, q.Answer, q.Code, q.CodeError)
	}
}

// Agent mode on a text-completions endpoint (--completion-api), which
// takes no tools, is refused before any call, in one line naming the
// question and the way out; before, each question failed at its call.
func TestRunAgentRefusedWithoutTools(t *testing.T) {
	sheet := modeSheet(t, "mode: agent\n")
	srv := fakeserver.NewOpenAICompletions(t, fakeserver.Options{MaxRequests: 5})
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), &stdout, &stderr, []string{"-f", sheet, "-m", "llamacpp/tiny", "--base-url", srv.URL,
		"--completion-api", "-o", t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "is in agent mode, which offers the model a python tool, and llamacpp/tiny takes no tools") ||
		strings.Contains(err.Error(), "\n") {
		t.Errorf("error %v, want one line refusing agent mode on --completion-api", err)
	}
	if srv.Count() != 0 {
		t.Errorf("%d requests sent before the refusal", srv.Count())
	}
}

// Code mode on a parquet table (DataBench's format): Debian's pandas has
// no pyarrow, so the table is handed over, and the code sees the DataFrame
// pyarrow would give: a nullable int column with a null is float64.
func TestRunCodeModeParquet(t *testing.T) {
	needSandbox(t)
	sheet := modeSheet(t, "mode: code\ncode_extract: lenient\n")
	dir := filepath.Dir(sheet)
	type row struct {
		Region string `parquet:"region"`
		Amount *int64 `parquet:"amount,optional"`
	}
	i := func(v int64) *int64 { return &v }
	f, err := os.Create(filepath.Join(dir, "all.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if err := parquet.Write(f, []row{{"north", i(10)}, {"south", i(32)}, {"east", i(7)}, {"west", nil}}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	data, _ := os.ReadFile(sheet)
	os.WriteFile(sheet, []byte(strings.Replace(string(data), "sales.csv", "all.parquet", 1)), 0o644)
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10, Reply: func(c fakeserver.Call) fakeserver.Reply {
		if strings.Contains(c.LastUserText(), "total") {
			return fakeserver.Reply{Text: "df['amount'].sum()"}
		}
		return fakeserver.Reply{Text: "str(df['amount'].dtype) + ' ' + str(df['region'].nunique())"}
	}})
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), &stdout, &stderr, []string{"-f", sheet, "-m", "openai-api/local/tiny", "--base-url", srv.URL, "-o", out}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	res := readOnly(t, out)
	total, regions := res.Questions[0], res.Questions[1]
	if total.Answer == nil || *total.Answer != "49.0" {
		t.Errorf("total: answer %v error %q (want 49.0: a float64 column, as pyarrow gives)", total.Answer, total.CodeError)
	}
	if regions.Answer == nil || *regions.Answer != "float64 4" {
		t.Errorf("regions: answer %v error %q", regions.Answer, regions.CodeError)
	}
}

// Code stopped by a sandbox limit gave no answer: the question is wrong
// (not left out of the accuracy), the limit is recorded, and the run is
// complete: exit status 0, every question graded. A
// MemoryError the program caught is the "__CODE_ERROR__" answer DataBench
// saves, wrong too, and the memory limit is recorded with it. The limit's
// value is recorded too, and the Inspect log's sample limit is what
// Inspect writes: a time limit's seconds (EvalSampleLimit{type: "time",
// limit: 2}), not -1, which is a limit without a value.
func TestRunCodeModeLimitIsWrong(t *testing.T) {
	needSandbox(t)
	for _, tc := range []struct {
		name, code, limit, detail string
		value                     float64
		inspectType               string
	}{
		{"timeout", "next(x for x in iter(int, 1) if x)", "tool_timeout", "no answer: stopped by the tool_timeout limit", 2, "time"},
		{"memory", "len(bytearray(8 << 30))", "memory", `exact: "__CODE_ERROR__:" vs "3"`, 256 << 20, "custom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sheet := modeSheet(t, "mode: code\ncode_extract: lenient\ntool_memory: 256M\ntool_timeout: 2\n")
			srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10, Reply: func(c fakeserver.Call) fakeserver.Reply {
				if strings.Contains(c.LastUserText(), "total") {
					return fakeserver.Reply{Text: "```python\ndf['amount'].sum()\n```"}
				}
				return fakeserver.Reply{Text: "```python\n" + tc.code + "\n```"}
			}})
			out, logs := t.TempDir(), t.TempDir()
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), &stdout, &stderr, []string{"-f", sheet, "-m", "openai-api/local/tiny", "--base-url", srv.URL, "-o", out,
				"--log-dir", logs, "--log-format", "json"})
			if err != nil || cli.ExitCode(err) != 0 {
				t.Fatalf("%v (exit status %d)\n%s", err, cli.ExitCode(err), stderr.String())
			}
			f := readOnly(t, out)
			if q := f.Questions[0]; q.Grade == nil || !*q.Grade {
				t.Errorf("total: grade %v", q.Grade)
			}
			if q := f.Questions[1]; q.Grade == nil || *q.Grade || q.Limit != tc.limit || q.LimitValue != tc.value || !strings.Contains(q.GradeDetail, tc.detail) {
				t.Errorf("regions: grade %v limit %q %v detail %q; want false, %q %v, %q", q.Grade, q.Limit, q.LimitValue, q.GradeDetail, tc.limit, tc.value, tc.detail)
			}
			paths, _ := filepath.Glob(filepath.Join(logs, "*.json"))
			if len(paths) != 1 {
				t.Fatalf("logs %v, want one", paths)
			}
			lg, err := readLog(paths[0])
			if err != nil {
				t.Fatal(err)
			}
			if l := lg.Samples[1].Limit; l == nil || l.Type != tc.inspectType || float64(l.Limit) != tc.value {
				t.Errorf("the Inspect sample's limit %+v, want %s %v", l, tc.inspectType, tc.value)
			}
			if !strings.Contains(stderr.String(), "1/2 correct") {
				t.Errorf("totals: %s", stderr.String())
			}
		})
	}
}

// Agent mode, the same rule: an agent stopped by a limit (here max_turns,
// each python call stopped by the memory limit) is wrong, with the limit.
func TestRunAgentModeLimitIsWrong(t *testing.T) {
	needSandbox(t)
	sheet := modeSheet(t, "mode: agent\nmax_turns: 2\ntool_memory: 256M\n")
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10, Reply: func(c fakeserver.Call) fakeserver.Reply {
		return fakeserver.Reply{ToolCalls: []fakeserver.ToolCall{{ID: "c1", Name: "python", Arguments: `{"code": "x = bytearray(8 << 30)"}`}}}
	}})
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), &stdout, &stderr, []string{"-f", sheet, "-m", "openai-api/local/tiny", "--base-url", srv.URL, "-o", out})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	f := readOnly(t, out)
	for _, q := range f.Questions {
		if q.Grade == nil || *q.Grade || q.Limit != "max_turns" || !strings.Contains(q.GradeDetail, "stopped by the max_turns limit") {
			t.Errorf("%s: grade %v limit %q detail %q", q.Name, q.Grade, q.Limit, q.GradeDetail)
		}
		if len(q.Transcript) < 2 || q.Transcript[1].ToolLimit != "memory" {
			t.Errorf("%s: the python call's limit is not in the transcript: %+v", q.Name, q.Transcript)
		}
	}
}

// Each output records the answer mode's settings the question ran with,
// resolved from the flags, the meta and the defaults (outputs did not say
// which agent style a run used): here --agent-style over the sheet's meta.
func TestRunRecordsSolveSettings(t *testing.T) {
	sheet := modeSheet(t, "mode: agent\nagent_style: tools\ntool_timeout: 30\n")
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), &stdout, &stderr, []string{"-f", sheet, "-y", "-o", out, "--agent-style", "react", "--max-turns", "3"}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, q := range readOnly(t, out).Questions {
		if got := fmt.Sprint(q.SolveSettings); got != "map[agent_style:react max_turns:3 mode:agent tool_timeout:30s]" {
			t.Errorf("%s: solve_settings %s", q.Name, got)
		}
	}
}
