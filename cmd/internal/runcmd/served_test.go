package runcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/result"
)

// servedSheet writes reuseSheet (three questions) into dir.
func servedSheet(t *testing.T, dir string) string {
	t.Helper()
	sheet := filepath.Join(dir, "input-edit.md")
	if err := os.WriteFile(sheet, []byte(reuseSheet), 0o644); err != nil {
		t.Fatal(err)
	}
	return sheet
}

// servedReply answers with the served model *served ("" echoes the model
// asked, as a local server does).
func servedReply(served *atomic.Value) func(fakeserver.Call) fakeserver.Reply {
	return func(c fakeserver.Call) fakeserver.Reply {
		return fakeserver.Reply{Text: "42", Model: served.Load().(string)}
	}
}

// checkServed reads the output at path and checks every question's
// served_model against want (by question name, or "*" for all; "" is
// none, and then the file has no such member), the .md's served-by
// lines (shown only when the served model is not the one asked) and,
// when logs is set, the Inspect log's output models.
func checkServed(t *testing.T, path, logs, asked string, want map[string]string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := result.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	wantOf := func(name string) string {
		if w, ok := want["*"]; ok {
			return w
		}
		return want[name]
	}
	md, err := os.ReadFile(result.MarkdownPath(path))
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, q := range f.Questions {
		w := wantOf(q.Name)
		if q.ServedModel != w {
			t.Errorf("%s: served_model %q, want %q", q.Name, q.ServedModel, w)
		}
		if w != "" && w != asked {
			lines++
			if !strings.Contains(string(md), "**Served by:**\n```\n"+w+"\n```\n") {
				t.Errorf("the .md does not say %s served:\n%s", w, md)
			}
		}
	}
	if got := strings.Count(string(md), "**Served by:**"); got != lines {
		t.Errorf("%d served-by lines in the .md, want %d:\n%s", got, lines, md)
	}
	if w, ok := want["*"]; ok && w == "" && bytes.Contains(data, []byte(`"served_model"`)) {
		t.Errorf("a served_model member in the output of a model that names none:\n%s", data)
	}
	if logs == "" {
		return
	}
	logPaths, _ := filepath.Glob(filepath.Join(logs, "*.json"))
	if len(logPaths) != 1 {
		t.Fatalf("logs %v, want 1", logPaths)
	}
	lg, err := readLog(logPaths[0])
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range lg.Samples {
		w := wantOf(f.Questions[i].Name)
		if w == "" {
			w = f.Questions[i].ModelName
		}
		if s.Output.Model != w {
			t.Errorf("sample %s: Inspect output.model %q, want %q", s.ID, s.Output.Model, w)
		}
	}
}

// An answer records the model the server said served it, however it came:
// asked live of OpenAI's and Anthropic's APIs, through a batch, or not at
// all (an offline model names no server, and its output is as before).
// The .md names it when it is not the model asked, and the Inspect log
// takes it as its output's model.
func TestServedModel(t *testing.T) {
	for _, tc := range []struct {
		name   string
		model  string
		server func(t *testing.T, reply func(fakeserver.Call) fakeserver.Reply) string // base URL
		served string                                                                  // what the server says; "" echoes
		want   string
		extra  []string
	}{
		{name: "openai snapshot", model: "openai/gpt-4o", served: "gpt-4o-2024-08-06", want: "gpt-4o-2024-08-06",
			server: func(t *testing.T, reply func(fakeserver.Call) fakeserver.Reply) string {
				return fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10, Reply: reply}).URL
			}},
		{name: "local echo", model: "openai-api/local/tiny", want: "tiny",
			server: func(t *testing.T, reply func(fakeserver.Call) fakeserver.Reply) string {
				return fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10, Reply: reply}).URL
			}},
		{name: "anthropic snapshot", model: "anthropic/claude-sonnet-4-5", served: "claude-sonnet-4-5-20250929", want: "claude-sonnet-4-5-20250929",
			server: func(t *testing.T, reply func(fakeserver.Call) fakeserver.Reply) string {
				return fakeserver.NewAnthropic(t, fakeserver.Options{MaxRequests: 10, Reply: reply}).URL
			}},
		{name: "openai batch", model: "openai/gpt-4o", served: "gpt-4o-2024-08-06", want: "gpt-4o-2024-08-06",
			extra: []string{"--batch", "--batch-poll", "1ms"},
			server: func(t *testing.T, reply func(fakeserver.Call) fakeserver.Reply) string {
				return fakeserver.NewOpenAIBatch(t, fakeserver.BatchOptions{Polls: 1, Reply: reply}).URL
			}},
		{name: "offline", model: "mock"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out, logs := filepath.Join(dir, "out"), filepath.Join(dir, "logs")
			args := []string{"-f", servedSheet(t, dir), "-m", tc.model, "-o", out, "--log-dir", logs, "--log-format", "json"}
			if tc.server != nil {
				var served atomic.Value
				served.Store(tc.served)
				args = append(args, "--base-url", tc.server(t, servedReply(&served)))
			}
			var log bytes.Buffer
			if err := run(context.Background(), &log, &log, append(args, tc.extra...)); err != nil {
				t.Fatalf("%v\n%s", err, log.String())
			}
			asked := tc.model[strings.LastIndex(tc.model, "/")+1:]
			checkServed(t, onlyOutput(t, out), logs, asked, map[string]string{"*": tc.want})
		})
	}
}

// A resumed run's answers from the journal keep the model that served
// them, and a rerun's reused answers the one their first run recorded,
// while the questions asked again record what serves now.
func TestServedModelResumedAndReused(t *testing.T) {
	t.Run("resumed", func(t *testing.T) {
		var served atomic.Value
		served.Store("snap-1")
		var failQ2 atomic.Bool
		failQ2.Store(true)
		srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10, Reply: func(c fakeserver.Call) fakeserver.Reply {
			if failQ2.Load() && strings.Contains(c.LastUserText(), "Planets?") {
				return fakeserver.Reply{Fault: fakeserver.ServerError}
			}
			return servedReply(&served)(c)
		}})
		dir := t.TempDir()
		out := filepath.Join(dir, "out")
		args := []string{"-f", servedSheet(t, dir), "-m", "openai/gpt-4o", "--base-url", srv.URL, "-o", out, "--retries", "0"}
		var log bytes.Buffer
		if err := run(context.Background(), &log, &log, args); err == nil {
			t.Fatalf("the first run, with a failing question, succeeded\n%s", log.String())
		}
		served.Store("snap-2")
		failQ2.Store(false)
		log.Reset()
		if err := run(context.Background(), &log, &log, args); err != nil {
			t.Fatalf("resume: %v\n%s", err, log.String())
		}
		if !strings.Contains(log.String(), "resuming run") {
			t.Fatalf("the second run did not resume:\n%s", log.String())
		}
		checkServed(t, onlyOutput(t, out), "", "gpt-4o", map[string]string{"Q1": "snap-1", "Q2": "snap-2", "Q3": "snap-1"})
	})
	t.Run("reused", func(t *testing.T) {
		var served atomic.Value
		served.Store("snap-1")
		srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10, Reply: servedReply(&served)})
		dir := t.TempDir()
		out := filepath.Join(dir, "out")
		sheet := servedSheet(t, dir)
		args := []string{"-f", sheet, "-m", "openai/gpt-4o", "--base-url", srv.URL, "-o", out}
		var log bytes.Buffer
		if err := run(context.Background(), &log, &log, args); err != nil {
			t.Fatalf("first run: %v\n%s", err, log.String())
		}
		first := onlyOutput(t, out)
		if err := os.WriteFile(sheet, []byte(strings.Replace(reuseSheet, "Planets?", "How many planets?", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		served.Store("snap-2")
		log.Reset()
		if err := run(context.Background(), &log, &log, args); err != nil {
			t.Fatalf("rerun: %v\n%s", err, log.String())
		}
		if !strings.Contains(log.String(), "1 asked, 2 reused") {
			t.Fatalf("the rerun did not reuse 2 answers:\n%s", log.String())
		}
		// The first run's output is put aside, superseded by the rerun's.
		paths, _ := filepath.Glob(filepath.Join(out, "output-*.json"))
		if len(paths) != 1 || paths[0] == first {
			t.Fatalf("outputs %v, want the rerun's alone", paths)
		}
		checkServed(t, paths[0], "", "gpt-4o", map[string]string{"Q1": "snap-1", "Q2": "snap-2", "Q3": "snap-1"})
		if _, err := os.Stat(filepath.Join(out, result.Superseded, filepath.Base(first))); err != nil {
			t.Errorf("the first run's output was not put aside: %v", err)
		}
	})
}

// onlyOutput is the path of the one output file in dir.
func onlyOutput(t *testing.T, dir string) string {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "output-*.json"))
	if len(paths) != 1 {
		t.Fatalf("outputs %v, want 1", paths)
	}
	return paths[0]
}
