package runcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/agg"
	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/result"
)

// run against an OpenAI-compatible server on 127.0.0.1: the requests
// carry the sheet's system message, the templated user message and the
// settings; the output records usage, time and grades.
func TestRunAgainstServer(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{
		Reply:        func(c fakeserver.Call) fakeserver.Reply { return fakeserver.Reply{Text: "7.50"} },
		InputTokens:  120,
		OutputTokens: 3,
		MaxRequests:  50,
	})
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), &stdout, &stderr, []string{
		"-f", "../../../sheets/input-unit-prices-template.md", "-m", "openai-api/local/tiny", "--base-url", srv.URL,
		"-o", out, "-c", "2", "--price", "1,2",
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	calls := srv.Calls()
	if len(calls) != 3 {
		t.Fatalf("%d calls, want 3", len(calls))
	}
	for _, c := range calls {
		if c.Model != "tiny" || c.System != "You are a careful analyst. Reply with the number only." {
			t.Errorf("call model %q system %q", c.Model, c.System)
		}
		if !strings.Contains(c.LastUserText(), "apple,2.50") || !strings.HasPrefix(c.LastUserText(), "A shop sells fruit.") {
			t.Errorf("user message %q", c.LastUserText())
		}
		if c.Settings.Temperature == nil || *c.Settings.Temperature != 0 {
			t.Errorf("temperature %v, want the sheet's 0", c.Settings.Temperature)
		}
	}
	paths, _ := filepath.Glob(filepath.Join(out, "output-unit-prices-template-openai-api_local_tiny-*.json"))
	if len(paths) != 1 {
		t.Fatalf("outputs %v", paths)
	}
	f, err := result.Read(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	right := 0
	for _, q := range f.Questions {
		if q.InputTokens != 120 || q.OutputTokens != 3 || q.Cost == nil || q.EvalTime == nil {
			t.Errorf("%s: tokens %d/%d cost %v time %v", q.Name, q.InputTokens, q.OutputTokens, q.Cost, q.EvalTime)
		}
		if q.Grade != nil && *q.Grade {
			right++
		}
	}
	// "7.50" is right for Apples-Cost only (numeric grader).
	if right != 1 {
		t.Errorf("%d graded right, want 1", right)
	}
	if !strings.Contains(stderr.String(), "1/3 correct") {
		t.Errorf("totals line missing: %s", stderr.String())
	}
}

// An API key from the environment reaches the server it is named for
// (OPENAI_API_KEY for openai/, NAME_API_KEY for openai-api/NAME/, the
// variable --api-key-env names) and appears in no file, log or error, even
// when the server echoes it back in its error.
func TestNoKeyAnywhere(t *testing.T) {
	const key = "sk-test-SECRET-0123456789abcdef"
	for _, tc := range []struct {
		name string
		env  []string // variable, value pairs; "URL" stands for the server's
		args []string
	}{
		{"openai", []string{"OPENAI_API_KEY", key, "OPENAI_BASE_URL", "URL"}, []string{"-m", "openai/gpt-4o"}},
		{"openai-api NAME_API_KEY", []string{"LOCAL_API_KEY", key, "OPENAI_API_KEY", "sk-wrong"}, []string{"-m", "openai-api/local/tiny", "--base-url", "URL"}},
		{"llamacpp --api-key-env", []string{"MY_KEY", key, "OPENAI_API_KEY", "sk-wrong"}, []string{"-m", "llamacpp/tiny", "--base-url", "URL", "--api-key-env", "MY_KEY"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeserver.NewOpenAI(t, fakeserver.Options{
				Reply: func(c fakeserver.Call) fakeserver.Reply {
					return fakeserver.Reply{Status: 400, RawBody: "bad request from " + c.Header.Get("Authorization")}
				},
				MaxRequests: 50,
			})
			url := func(s string) string { return strings.ReplaceAll(s, "URL", srv.URL) }
			for i := 0; i < len(tc.env); i += 2 {
				t.Setenv(tc.env[i], url(tc.env[i+1]))
			}
			out := t.TempDir()
			args := []string{"-d", "../../../sheets", "-o", out, "-v", "--log-dir", filepath.Join(out, "logs")}
			for _, a := range tc.args {
				args = append(args, url(a))
			}
			var stdout, stderr bytes.Buffer
			// Every question fails (a 400, not a 401, which would stop
			// the run at once): the outputs are written, and the run says
			// how many failed and exits non-zero.
			err := run(context.Background(), &stdout, &stderr, args)
			if err == nil || !strings.Contains(err.Error(), "questions failed") || !strings.Contains(err.Error(), "400") {
				t.Fatalf("error %v, want one counting the failed questions and saying why\n%s", err, stderr.String())
			}
			if code := cli.ExitCode(err); code != 3 {
				t.Errorf("exit status %d, want 3 (finished, some questions failed)", code)
			}
			checkKeyNowhere(t, srv, key, out, stdout.String()+stderr.String()+err.Error())
		})
	}
}

func checkKeyNowhere(t *testing.T, srv *fakeserver.Server, key, out, console string) {
	t.Helper()
	for _, c := range srv.Calls() {
		if got := c.Header.Get("Authorization"); got != "Bearer "+key {
			t.Fatalf("Authorization %q: the key was not sent as asked, so the test proves nothing", got)
		}
	}
	if strings.Contains(console, key) {
		t.Error("the key appears on stdout or stderr")
	}
	files := 0
	filepath.Walk(out, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		files++
		b, _ := os.ReadFile(p)
		if bytes.Contains(b, []byte(key)) || bytes.Contains(b, []byte("SECRET-0123")) {
			t.Errorf("%s holds the key", p)
		}
		return nil
	})
	if files < 6 {
		t.Errorf("only %d files written", files)
	}
	// The errors are recorded, not lost.
	paths, _ := filepath.Glob(filepath.Join(out, "output-*.json"))
	for _, p := range paths {
		f, _ := result.Read(p)
		for _, q := range f.Questions {
			if q.Error == nil || !strings.Contains(*q.Error, "400") {
				t.Errorf("%s %s: error %v", p, q.Name, q.Error)
			}
		}
	}
}

// A reply with no text (OpenAI's content null, Anthropic's empty content)
// and a refusal are graded as answers, and the output says so in each
// question's note (with the finish reason) and the run's summary line.
func TestEmptyAndRefusedReplies(t *testing.T) {
	reply := func(c fakeserver.Call) fakeserver.Reply {
		switch text := c.LastUserText(); {
		case strings.Contains(text, "empty"):
			return fakeserver.Reply{NoContent: true, FinishReason: "content_filter"}
		case strings.Contains(text, "refused"):
			return fakeserver.Reply{Refusal: "I can't help with that.", FinishReason: "refusal"}
		}
		return fakeserver.Reply{Text: "B"}
	}
	sheet := writeSheet(t, "# S\n## Q1\n#### question\nempty\n#### answer\nB\n## Q2\n#### question\nrefused\n#### answer\nB\n## Q3\n#### question\nplain\n#### answer\nB\n")
	for _, tc := range []struct {
		model   string
		start   func(testing.TB, fakeserver.Options) *fakeserver.Server
		refusal string // Q2's completion and note
		note    string
		said    string // the summary line: a completion of text is an answer
	}{
		{"openai-api/x/m", fakeserver.NewOpenAI, "I can't help with that.", "the model refused: the completion is its refusal",
			"1/3 correct, 2 answered, 2 refused or without text (see their note)"},
		{"anthropic/claude-x", fakeserver.NewAnthropic, "", "the model refused, with no text: graded as an empty answer",
			"1/3 correct, 1 answered, 2 refused or without text (see their note)"},
	} {
		srv := tc.start(t, fakeserver.Options{MaxRequests: 10, Reply: reply})
		out := t.TempDir()
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), &stdout, &stderr, []string{"-f", sheet, "-o", out, "-m", tc.model, "--base-url", srv.URL}); err != nil {
			t.Fatalf("%s: %v\n%s", tc.model, err, stderr.String())
		}
		if !strings.Contains(stderr.String(), tc.said) {
			t.Errorf("%s: the summary does not say so:\n%s", tc.model, stderr.String())
		}
		paths, _ := filepath.Glob(filepath.Join(out, "output-*.json"))
		if len(paths) != 1 {
			t.Fatalf("%s: outputs %v", tc.model, paths)
		}
		f, err := result.Read(paths[0])
		if err != nil {
			t.Fatal(err)
		}
		want := []struct{ completion, finish, note string }{
			{"", "content_filter", "the reply had no text (finish_reason content_filter): graded as an empty answer"},
			{tc.refusal, "refusal", tc.note},
			{"B", "", ""},
		}
		for i, q := range f.Questions {
			w := want[i]
			if q.Completion == nil || *q.Completion != w.completion || q.Note != w.note || (w.finish != "" && q.FinishReason != w.finish) ||
				q.Grade == nil || *q.Grade != (i == 2) || q.Error != nil {
				t.Errorf("%s %s: completion %q, finish_reason %q, note %q, grade %v, error %v; want %+v",
					tc.model, q.Name, deref(q.Completion), q.FinishReason, q.Note, q.Grade, q.Error, w)
			}
		}
	}
}

// A run whose replies are all empty answered nothing, by the rule agg
// reads: the run's line, its summary table and the file's totals say 0
// answered, and agg says the file has no answers. Before, run counted
// each empty reply as answered.
func TestEmptyRepliesAnswerNothing(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 4, Reply: func(fakeserver.Call) fakeserver.Reply {
		return fakeserver.Reply{NoContent: true}
	}})
	sheet := writeSheet(t, "# S\n## Q1\n#### question\na\n#### answer\nB\n## Q2\n#### question\nb\n#### answer\nB\n")
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), &stdout, &stderr, []string{"-f", sheet, "-o", out, "-m", "openai/m", "--base-url", srv.URL}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "0/2 correct, 0 answered,") {
		t.Errorf("the run's line counts empty replies as answered:\n%s", stderr.String())
	}
	if !regexp.MustCompile(`\| openai/m +\| +2 +\| +0 \(0%\) +\| +0 +\|`).MatchString(stdout.String()) {
		t.Errorf("the summary table counts empty replies as answered:\n%s", stdout.String())
	}
	if f := readOnly(t, out); f.Sheet.Totals == nil || f.Sheet.Totals.Answered != 0 {
		t.Errorf("totals %+v, want 0 answered", f.Sheet.Totals)
	}
	var warn bytes.Buffer
	d, err := agg.Load(context.Background(), out, &warn, agg.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.NoAnswers) != 1 {
		t.Errorf("agg: runs without answers %v, want the one", d.NoAnswers)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
