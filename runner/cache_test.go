package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/blocked"
	"github.com/evalmd/evalmd/model"
)

func TestRequestKey(t *testing.T) {
	temp := 0.5
	temp2 := 0.7
	seed := int64(1)
	base := model.Task{
		Request: model.Request{
			System:   "sys",
			Messages: []model.Message{{Role: "user", Content: "hi", Images: []model.Image{{MediaType: "image/png", Data: []byte{1, 2, 3}}}}},
			Settings: model.Settings{Temperature: &temp, MaxTokens: 100},
		},
		Question: model.QuestionRef{Name: "q1"},
	}
	k0 := RequestKey("openai/gpt-4o", model.Info{BaseURL: "http://a"}, base)
	for _, tc := range []struct {
		name   string
		model  string
		url    string
		api    string
		change func(r *model.Task)
		same   bool
	}{
		{name: "identical", same: true},
		{name: "equal copy of the temperature", change: func(r *model.Task) { v := 0.5; r.Settings.Temperature = &v }, same: true},
		{name: "question ref not covered", change: func(r *model.Task) { r.Question.Name = "q2" }, same: true},
		{name: "model", model: "openai/gpt-4o-mini"},
		{name: "base URL", url: "http://b"},
		{name: "the text completions endpoint", api: "completions"},
		{name: "system", change: func(r *model.Task) { r.System = "sys2" }},
		{name: "message text", change: func(r *model.Task) {
			r.Messages = []model.Message{{Role: "user", Content: "hi!", Images: r.Messages[0].Images}}
		}},
		{name: "role", change: func(r *model.Task) {
			r.Messages = []model.Message{{Role: "assistant", Content: "hi", Images: r.Messages[0].Images}}
		}},
		{name: "image bytes", change: func(r *model.Task) {
			r.Messages = []model.Message{{Role: "user", Content: "hi", Images: []model.Image{{MediaType: "image/png", Data: []byte{1, 2, 4}}}}}
		}},
		{name: "temperature", change: func(r *model.Task) { r.Settings.Temperature = &temp2 }},
		{name: "no temperature", change: func(r *model.Task) { r.Settings.Temperature = nil }},
		{name: "max tokens", change: func(r *model.Task) { r.Settings.MaxTokens = 101 }},
		{name: "seed", change: func(r *model.Task) { r.Settings.Seed = &seed }},
		{name: "stop", change: func(r *model.Task) { r.Settings.Stop = []string{"\n"} }},
		{name: "top_p", change: func(r *model.Task) { v := 0.9; r.Settings.TopP = &v }},
		{name: "top_p 0 is not unset", change: func(r *model.Task) { v := 0.0; r.Settings.TopP = &v }},
		{name: "empty stop list is unset", change: func(r *model.Task) { r.Settings.Stop = []string{} }, same: true},
		{name: "image media type", change: func(r *model.Task) {
			r.Messages = []model.Message{{Role: "user", Content: "hi", Images: []model.Image{{MediaType: "image/jpeg", Data: []byte{1, 2, 3}}}}}
		}},
		{name: "tool limit", change: func(r *model.Task) { r.Messages[0].ToolLimit = "tool_timeout" }},
		{name: "tool description", change: func(r *model.Task) { r.Tools = []model.Tool{{Name: "python", Description: "runs code"}} }},
		{name: "tool parameters", change: func(r *model.Task) { r.Tools = []model.Tool{{Name: "python", Parameters: []byte(`{}`)}} }},
		{name: "question ID not covered", change: func(r *model.Task) { r.Question.ID = "7" }, same: true},
		{name: "ground truth not covered", change: func(r *model.Task) { g := "1"; r.Question.GroundTruth = &g }, same: true},
		{name: "agent style", change: func(r *model.Task) { r.Solve = &model.Solve{Mode: model.ModeAgent, Style: "react"} }},
		{name: "max turns", change: func(r *model.Task) { r.Solve = &model.Solve{MaxTurns: 5} }},
		{name: "question timeout", change: func(r *model.Task) { r.Solve = &model.Solve{QuestionTimeout: time.Minute} }},
		{name: "token budget", change: func(r *model.Task) { r.Solve = &model.Solve{TokenBudget: 1000} }},
		{name: "tool timeout", change: func(r *model.Task) { r.Solve = &model.Solve{ToolTimeout: time.Minute} }},
		{name: "tool memory", change: func(r *model.Task) { r.Solve = &model.Solve{ToolMemory: 1 << 30} }},
		{name: "reformat", change: func(r *model.Task) {
			r.Solve = &model.Solve{Reformat: &model.Reformat{Question: "q", Format: "@x[v]"}}
		}},
		{name: "reformat format", change: func(r *model.Task) { r.Solve = &model.Solve{Reformat: &model.Reformat{Format: "@x[v]"}} }},
		{name: "files", change: func(r *model.Task) { r.Solve = &model.Solve{Files: []string{"/data/t.csv"}} }},
		{name: "code mode", change: func(r *model.Task) { r.Solve = &model.Solve{Mode: model.ModeCode, Extract: "baseline"} }},
		{name: "tools offered", change: func(r *model.Task) { r.Tools = []model.Tool{{Name: "python"}} }},
		{name: "tool calls in the history", change: func(r *model.Task) {
			r.Messages = append(r.Messages, model.Message{Role: "assistant", ToolCalls: []model.ToolCall{{ID: "1", Name: "python", Arguments: "{}"}}})
		}},
		{name: "tool result", change: func(r *model.Task) {
			r.Messages = append(r.Messages, model.Message{Role: "tool", ToolCallID: "1", Content: "42"})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := base
			r.Messages = append([]model.Message(nil), base.Messages...)
			if tc.change != nil {
				tc.change(&r)
			}
			m, u := "openai/gpt-4o", "http://a"
			if tc.model != "" {
				m = tc.model
			}
			if tc.url != "" {
				u = tc.url
			}
			k := RequestKey(m, model.Info{BaseURL: u, Endpoint: tc.api}, r)
			if (k == k0) != tc.same {
				t.Errorf("key equal = %v, want %v", k == k0, tc.same)
			}
			if len(k) != 64 {
				t.Errorf("key %q is not a hex sha256", k)
			}
		})
	}
	// A question's files count by base name, as the code sees them: the
	// folder a sheet is run from does not change its key.
	inA, inB := base, base
	inA.Solve = &model.Solve{Mode: model.ModeCode, Files: []string{"/a/t.csv"}}
	inB.Solve = &model.Solve{Mode: model.ModeCode, Files: []string{"/b/t.csv"}}
	if RequestKey("m", model.Info{}, inA) != RequestKey("m", model.Info{}, inB) {
		t.Error("the folder of a question's files changes its key")
	}
	// NaN cannot be marshalled as JSON; the key must exist anyway.
	nan := func() float64 { z := 0.0; return z / z }()
	r := base
	r.Settings.Temperature = &nan
	if k := RequestKey("m", model.Info{}, r); len(k) != 64 || k == k0 {
		t.Errorf("NaN temperature key %q", k)
	}
}

func TestCacheGetPut(t *testing.T) {
	c, err := OpenCache(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	key := RequestKey("m", model.Info{}, model.Task{Request: model.Request{System: "s"}})
	if _, ok, err := c.Get(key); ok || err != nil {
		t.Fatalf("empty cache: ok %v err %v", ok, err)
	}
	want := model.Response{Text: "hello", InputTokens: 3, OutputTokens: 4, Model: "m-2024"}
	if err := c.Put(key, "m", want, time.Now()); err != nil {
		t.Fatal(err)
	}
	got, ok, err := c.Get(key)
	if !ok || err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v ok %v err %v", got, ok, err)
	}
	if _, _, err := c.Get("../../etc/passwd"); err == nil {
		t.Error("path-like key accepted")
	}
	// A corrupt entry is an error and a miss.
	p := filepath.Join(c.Dir(), key[:2], key+".json")
	if err := os.WriteFile(p, []byte("{trunc"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := c.Get(key); ok || err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("corrupt entry: ok %v err %v", ok, err)
	}
}

func TestRunWithCache(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	c, err := OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	jobs := makeJobs(20)
	// Jobs 10..19 repeat the prompts of 0..9 under other keys: within one
	// run each prompt is paid for once, also while it is being asked.
	for i := 10; i < 20; i++ {
		jobs[i].Task = jobs[i-10].Task
	}
	// Every job is in flight at once, and the calls are answered once the
	// ten jobs repeating a prompt wait for the one asking it.
	overlap := make(chan struct{})
	go func() {
		defer close(overlap)
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		if err := blocked.Wait(ctx, "runner.(*run).do", 10); err != nil {
			t.Errorf("the jobs repeating a prompt do not wait for the one asking it: %v", err)
		}
	}()
	m1 := newFuncModel(func(ctx context.Context, req model.Task) (model.Response, error) {
		<-overlap
		return echo(ctx, req)
	})
	got, st, err := collect(t, context.Background(), m1, jobs, Options{Concurrency: 20, Cache: c})
	if err != nil {
		t.Fatal(err)
	}
	if m1.calls.Load() != 10 || st.Cached != 10 || st.Calls != 10 {
		t.Errorf("run 1: %d calls, stats %+v; want 10 calls and 10 cache hits", m1.calls.Load(), st)
	}
	for i := 10; i < 20; i++ {
		if got[jobs[i].Key].Response.Text != got[jobs[i-10].Key].Response.Text {
			t.Errorf("duplicate %d answered differently", i)
		}
	}
	// Run 2: all hits, no calls.
	m2 := newFuncModel(echo)
	got, st, err = collect(t, context.Background(), m2, jobs, Options{Cache: c})
	if err != nil || m2.calls.Load() != 0 || st.Cached != 20 {
		t.Fatalf("run 2: err %v calls %d stats %+v", err, m2.calls.Load(), st)
	}
	for _, j := range jobs {
		if o := got[j.Key]; !o.Cached || o.Attempts != 0 || o.Response.Text == "" {
			t.Errorf("%s: %+v", j.Key, o)
		}
	}
	// Another model misses.
	m3 := newFuncModel(echo)
	m3.name = "fake/other"
	if _, st, _ := collect(t, context.Background(), m3, jobs[:5], Options{Cache: c}); st.Cached != 0 || m3.calls.Load() != 5 {
		t.Errorf("other model: stats %+v calls %d", st, m3.calls.Load())
	}
	// The same model name at another server misses: the key covers the
	// server the model's Info names; at the same server it hits.
	m5 := newFuncModel(echo)
	m5.info.BaseURL = "http://other-server:8080/v1"
	if _, st, _ := collect(t, context.Background(), m5, jobs[:5], Options{Cache: c}); st.Cached != 0 || m5.calls.Load() != 5 {
		t.Errorf("other server: stats %+v calls %d; want 5 calls, no hits", st, m5.calls.Load())
	}
	m6 := newFuncModel(echo)
	m6.info.BaseURL = "http://other-server:8080/v1"
	if _, st, _ := collect(t, context.Background(), m6, jobs[:5], Options{Cache: c}); st.Cached != 5 || m6.calls.Load() != 0 {
		t.Errorf("same server again: stats %+v calls %d; want 5 hits", st, m6.calls.Load())
	}
	// An offline model (answering from the question) is never cached.
	m7 := newFuncModel(echo)
	m7.info.Offline = true
	if _, st, _ := collect(t, context.Background(), m7, jobs[:5], Options{Cache: c}); st.Cached != 0 || m7.calls.Load() != 5 {
		t.Errorf("offline model: stats %+v calls %d; want no cache", st, m7.calls.Load())
	}
	// Errors are not cached.
	m4 := newFuncModel(func(ctx context.Context, req model.Task) (model.Response, error) {
		return model.Response{}, &model.APIError{Status: 400, Message: "no"}
	})
	m4.name = "fake/failing"
	collect(t, context.Background(), m4, jobs[:1], Options{Cache: c})
	m4.f = echo
	if _, st, _ := collect(t, context.Background(), m4, jobs[:1], Options{Cache: c}); st.Cached != 0 || st.Answered != 1 {
		t.Errorf("error was cached: %+v", st)
	}
}

func TestCacheConcurrentPut(t *testing.T) {
	c, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	key := RequestKey("m", model.Info{}, model.Task{})
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			for range 20 {
				if err := c.Put(key, "m", model.Response{Text: strings.Repeat("x", 1000+i)}, time.Now()); err != nil {
					t.Error(err)
				}
				if r, ok, err := c.Get(key); !ok || err != nil || !strings.HasPrefix(r.Text, "xxx") {
					t.Errorf("torn read: ok %v err %v", ok, err)
				}
			}
		})
	}
	wg.Wait()
}

// A cache directory or journal made under an older key version (before
// the server URL joined the key, or before keys were the canonical
// encoding of the request) is not used for answers, and says so once.
func TestOldCacheAndJournalDropped(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "ab", "ab12.json")
	os.MkdirAll(filepath.Dir(old), 0o755)
	os.WriteFile(old, []byte(`{"key":"ab12"}`), 0o644)
	c, err := OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Note(), "older evalmd") {
		t.Errorf("Note() = %q, want a word on the old entries", c.Note())
	}
	if c, _ := OpenCache(dir); c.Note() != "" {
		t.Errorf("reopened: Note() = %q, want none", c.Note())
	}
	if c, _ := OpenCache(filepath.Join(t.TempDir(), "fresh")); c.Note() != "" {
		t.Errorf("fresh cache: Note() = %q", c.Note())
	}

	// A cache of v2 keys (before keys were the request's canonical
	// encoding).
	v2 := t.TempDir()
	os.WriteFile(filepath.Join(v2, cacheMarker), []byte("evalmd-request-v2\n"), 0o644)
	os.MkdirAll(filepath.Join(v2, "ab"), 0o755)
	os.WriteFile(filepath.Join(v2, "ab", "ab12.json"), []byte(`{"key":"ab12"}`), 0o644)
	if c, _ := OpenCache(v2); !strings.Contains(c.Note(), "older evalmd") {
		t.Errorf("v2 cache: Note() = %q, want a word on the old entries", c.Note())
	}

	// Journals whose records carry no version (evalmd before v2) or v2
	// (fingerprints before v3 keys).
	for _, version := range []string{"", `"v":2,`} {
		jobs := makeJobs(4)
		journal := filepath.Join(t.TempDir(), "j")
		var lines []string
		for _, j := range jobs {
			lines = append(lines, fmt.Sprintf(`{%s"key":%q,"req":%q,"text":"old answer","elapsed":1}`, version, j.Key, RequestKey("fake/model", model.Info{}, j.Task)))
		}
		os.WriteFile(journal, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
		oldJournalAskedAgain(t, jobs, journal)
	}
}

func oldJournalAskedAgain(t *testing.T, jobs []Job, journal string) {
	t.Helper()
	var warnings []string
	m := newFuncModel(echo)
	got, st, err := collect(t, context.Background(), m, jobs, Options{Journal: journal, Warn: func(s string) { warnings = append(warnings, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if st.FromJournal != 0 || m.calls.Load() != 4 || got[jobs[0].Key].Response.Text == "old answer" {
		t.Errorf("old journal used: stats %+v calls %d", st, m.calls.Load())
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "4 answers were journaled by an older evalmd") {
		t.Errorf("warnings = %q, want one about the 4 old answers", warnings)
	}
}

// A model that answers from the question (Info.FromQuestion: the oracle
// answers the ground truth) has the question in its key, so an edited
// answer is asked again; a model that sees only the request (mock, any
// server) keeps its key, so the edit costs no call.
func TestRequestKeyFromQuestion(t *testing.T) {
	truth, edited := "4", "5"
	task := model.Task{Request: model.Request{Messages: []model.Message{{Role: "user", Content: "2+2?"}}},
		Question: model.QuestionRef{Sheet: "/a/sheet.md", Name: "q1", GroundTruth: &truth}}
	other := task
	other.Question.GroundTruth = &edited
	moved := task
	moved.Question.Sheet = "/b/sheet.md"
	for _, tc := range []struct {
		info model.Info
		want bool // the edited answer changes the key
	}{
		{model.Info{Provider: "oracle", Offline: true, FromQuestion: true}, true},
		{model.Info{Provider: "random", Offline: true, FromQuestion: true, TruthBlind: true}, false},
		{model.Info{Provider: "mock", Offline: true}, false},
		{model.Info{Provider: "openai", BaseURL: "https://api.openai.com/v1"}, false},
	} {
		k := RequestKey("m", tc.info, task)
		if changed := k != RequestKey("m", tc.info, other); changed != tc.want {
			t.Errorf("%s: an edited ground truth changes the key: %v, want %v", tc.info.Provider, changed, tc.want)
		}
		if k != RequestKey("m", tc.info, moved) {
			t.Errorf("%s: the sheet's folder changes the key", tc.info.Provider)
		}
	}
}
