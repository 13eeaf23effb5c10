package batch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/anthropic"
	"github.com/evalmd/evalmd/model/openai"
	"github.com/evalmd/evalmd/runner"
)

// provider is one batch API with its fake server.
type provider struct {
	name   string
	model  string
	server func(testing.TB, fakeserver.BatchOptions) *fakeserver.BatchServer
}

var providers = []provider{
	{"openai", "openai/gpt-4o", fakeserver.NewOpenAIBatch},
	{"anthropic", "anthropic/claude-sonnet-4-5", fakeserver.NewAnthropicBatch},
}

// batchAPI makes the named model against a fake server's URL.
func batchAPI(t testing.TB, name, url string) model.BatchAPI {
	t.Helper()
	r := model.NewRegistry()
	openai.Register(r)
	anthropic.Register(r)
	m, err := r.New(name, model.Options{APIKey: "test-key", BaseURL: url})
	if err != nil {
		t.Fatal(err)
	}
	api, err := m.(model.Batcher).Batch()
	if err != nil {
		t.Fatal(err)
	}
	return api
}

// jobs makes n questions; names select the fake's script.
func jobs(names ...string) []Job {
	var out []Job
	for i, n := range names {
		out = append(out, Job{Key: fmt.Sprintf("%d:%s", i, n), Task: model.Task{Request: model.Request{
			System:   "Answer briefly.",
			Messages: []model.Message{{Role: "user", Content: "question " + n}},
		}}})
	}
	return out
}

func numbered(n int) []string {
	var names []string
	for i := range n {
		names = append(names, fmt.Sprintf("q%d", i))
	}
	return names
}

// script answers "answer to <question>", and refuses questions named bad.
func script(c fakeserver.Call) fakeserver.Reply {
	text := c.LastUserText()
	if strings.HasSuffix(text, " bad") {
		return fakeserver.Reply{Status: 400, Message: "request refused"}
	}
	return fakeserver.Reply{Text: "answer to " + text, InputTokens: 11, OutputTokens: 4}
}

func fast(opt Options) Options {
	opt.Poll = time.Millisecond
	return opt
}

// collect runs jobs and returns the outcomes by key.
func collect(t *testing.T, ctx context.Context, api model.BatchAPI, js []Job, opt Options) (map[string]Outcome, Stats, error) {
	t.Helper()
	got := map[string]Outcome{}
	st, err := Run(ctx, api, js, fast(opt), func(o Outcome) {
		if _, dup := got[o.Key]; dup {
			t.Errorf("job %s emitted twice", o.Key)
		}
		got[o.Key] = o
	})
	return got, st, err
}

func TestRunSplitsAndAnswers(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			srv := p.server(t, fakeserver.BatchOptions{Reply: script, Polls: 2})
			api := batchAPI(t, p.model, srv.URL)
			js := jobs(numbered(7)...)
			got, st, err := collect(t, context.Background(), api, js,
				Options{Journal: filepath.Join(t.TempDir(), "j"), Limits: model.BatchLimits{MaxRequests: 3}})
			if err != nil {
				t.Fatal(err)
			}
			if srv.Batches() != 3 || srv.Submitted() != 7 || st.Batches != 3 || st.Submitted != 7 {
				t.Errorf("batches %d, submitted %d (stats %+v); want 3 batches of 7 requests", srv.Batches(), srv.Submitted(), st)
			}
			for _, j := range js {
				o := got[j.Key]
				want := "answer to " + j.Task.Messages[0].Content
				if o.Err != nil || o.Response.Text != want || o.BatchID == "" || o.Response.InputTokens != 11 {
					t.Errorf("%s = %+v, want %q from a batch", j.Key, o, want)
				}
			}
			for _, c := range srv.Calls() {
				if c.System != "Answer briefly." {
					t.Errorf("system sent = %q", c.System)
				}
			}
		})
	}
}

func TestPlanSplitsAtLimits(t *testing.T) {
	api := batchAPI(t, "openai/gpt-4o", "http://127.0.0.1:9/v1") // never called
	js := jobs(numbered(10)...)
	files, err := Plan(api, js, model.BatchLimits{MaxRequests: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 || len(files[0].IDs) != 4 || len(files[2].IDs) != 2 {
		t.Fatalf("files of %v requests, want 4, 4, 2", len(files))
	}
	one := len(files[0].Lines) / 4
	files, err = Plan(api, js, model.BatchLimits{MaxBytes: int64(2*one + 10)})
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		if len(f.IDs) > 2 || int64(len(f.Lines)) > int64(2*one+10) {
			t.Errorf("file %d: %d requests, %d bytes: over the limit", i, len(f.IDs), len(f.Lines))
		}
	}
	if _, err := Plan(api, js, model.BatchLimits{MaxBytes: 10}); err == nil || !strings.Contains(err.Error(), `"0:q0"`) {
		t.Errorf("a request over the byte limit: error %v, want one naming it", err)
	}
}

func TestPartialFailuresAndExpiry(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			// late expires in the first batch only; bad is refused.
			js := jobs("ok", "bad", "late")
			late := js[2]
			lateID := customID(late.Key)
			srv := p.server(t, fakeserver.BatchOptions{Reply: script,
				Expire: func(n int, id string) bool { return n == 1 && id == lateID }})
			api := batchAPI(t, p.model, srv.URL)
			got, st, err := collect(t, context.Background(), api, js, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if o := got[late.Key]; o.Err != nil || o.Response.Text != "answer to question late" {
				t.Errorf("late = %+v, want answered by the retry batch", o)
			}
			var ae *model.APIError
			if o := got[js[1].Key]; !errors.As(o.Err, &ae) || ae.Status != 400 || ae.Retryable {
				t.Errorf("bad = %+v, want its 400, not retried", o)
			}
			ids := srv.SubmittedIDs()
			if ids[lateID] != 2 || ids[customID(js[1].Key)] != 1 || ids[customID(js[0].Key)] != 1 {
				t.Errorf("requests per custom_id = %v, want late twice, the others once", ids)
			}
			if st.Retried != 1 || st.Failed != 1 || st.Answered != 2 || st.Batches != 2 {
				t.Errorf("stats = %+v", st)
			}
		})
	}
}

func TestRetriesEndInAnError(t *testing.T) {
	srv := fakeserver.NewOpenAIBatch(t, fakeserver.BatchOptions{Reply: script, Expire: func(int, string) bool { return true }})
	api := batchAPI(t, "openai/gpt-4o", srv.URL)
	js := jobs("a")
	got, st, err := collect(t, context.Background(), api, js, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if o := got[js[0].Key]; o.Err == nil || !strings.Contains(o.Err.Error(), "expired") {
		t.Errorf("outcome = %+v, want the expiry", o)
	}
	if srv.Submitted() != 3 || st.Retried != 2 {
		t.Errorf("submitted %d, retried %d: want the first batch and 2 retries", srv.Submitted(), st.Retried)
	}
}

func TestLiveFallback(t *testing.T) {
	srv := fakeserver.NewAnthropicBatch(t, fakeserver.BatchOptions{Reply: script, Expire: func(_ int, id string) bool { return id == customID("1:b") }})
	api := batchAPI(t, "anthropic/claude-sonnet-4-5", srv.URL)
	var asked []string
	live := func(_ context.Context, js []Job, emit func(Outcome)) error {
		for _, j := range js {
			asked = append(asked, j.Key)
			emit(Outcome{Key: j.Key, Response: model.Response{Text: "live answer"}})
		}
		return nil
	}
	journal := filepath.Join(t.TempDir(), "j")
	got, st, err := collect(t, context.Background(), api, jobs("a", "b"), Options{Live: live, Journal: journal})
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || asked[0] != "1:b" || !got["1:b"].Live || got["1:b"].BatchID != "" || got["0:a"].Live {
		t.Errorf("asked live %v, outcomes %+v: want only b live", asked, got)
	}
	if st.Live != 1 || srv.Submitted() != 2 {
		t.Errorf("stats %+v, submitted %d", st, srv.Submitted())
	}
	// A rerun takes both answers from the journal, the live one too.
	again, st, err := collect(t, context.Background(), api, jobs("a", "b"), Options{Live: live, Journal: journal})
	if err != nil || st.FromJournal != 2 || !again["1:b"].Live || again["1:b"].Response.Text != "live answer" {
		t.Errorf("rerun: %v, %+v, %+v", err, st, again)
	}
}

func TestFailedBatchIsRetried(t *testing.T) {
	srv := fakeserver.NewOpenAIBatch(t, fakeserver.BatchOptions{Reply: script,
		FailBatch: func(n int) string {
			if n == 1 {
				return "enqueued token limit reached"
			}
			return ""
		}})
	api := batchAPI(t, "openai/gpt-4o", srv.URL)
	var warned []string
	got, _, err := collect(t, context.Background(), api, jobs("a", "b"), Options{Warn: func(s string) { warned = append(warned, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if got["0:a"].Err != nil || got["1:b"].Err != nil || srv.Batches() != 2 || srv.Submitted() != 2 {
		t.Errorf("outcomes %+v, %d batches, %d submitted: want both answered by the second batch", got, srv.Batches(), srv.Submitted())
	}
}

func TestCancelLeavesBatchesAndRerunCollects(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			srv := p.server(t, fakeserver.BatchOptions{Reply: script, Polls: 3, OnCreate: func(string) { cancel() }})
			api := batchAPI(t, p.model, srv.URL)
			journal := filepath.Join(t.TempDir(), "j")
			js := jobs(numbered(5)...)
			got, _, err := collect(t, ctx, api, js, Options{Journal: journal})
			if !errors.Is(err, context.Canceled) || len(got) != 0 {
				t.Fatalf("cancelled run: %v, %d outcomes; want cancelled with none", err, len(got))
			}
			got, st, err := collect(t, context.Background(), api, js, Options{Journal: journal})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 5 || st.Batches != 0 || srv.Submitted() != 5 {
				t.Errorf("rerun: %d outcomes, created %d batches, %d submitted in all; want 5 collected, none bought again", len(got), st.Batches, srv.Submitted())
			}
			// A third run answers from the journal alone.
			got, st, err = collect(t, context.Background(), api, js, Options{Journal: journal})
			if err != nil || st.FromJournal != 5 || len(got) != 5 || srv.Submitted() != 5 {
				t.Errorf("third run: %v, %+v, %d outcomes, submitted %d", err, st, len(got), srv.Submitted())
			}
		})
	}
}

func TestEditedQuestionIsAskedAgain(t *testing.T) {
	srv := fakeserver.NewOpenAIBatch(t, fakeserver.BatchOptions{Reply: script})
	api := batchAPI(t, "openai/gpt-4o", srv.URL)
	journal := filepath.Join(t.TempDir(), "j")
	if _, _, err := collect(t, context.Background(), api, jobs("a", "b"), Options{Journal: journal}); err != nil {
		t.Fatal(err)
	}
	js := jobs("a", "b")
	js[1].Task.Messages[0].Content = "question b, edited"
	var warned []string
	got, st, err := collect(t, context.Background(), api, js, Options{Journal: journal, Warn: func(s string) { warned = append(warned, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if st.FromJournal != 1 || got["1:b"].Response.Text != "answer to question b, edited" || len(warned) != 1 {
		t.Errorf("stats %+v, b = %+v, warnings %q", st, got["1:b"], warned)
	}
}

func TestBadJournal(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "j")
	if err := os.WriteFile(journal, []byte("{\"t\":\"tag\",\"tag\":\"x\"}\nnot json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	api := batchAPI(t, "openai/gpt-4o", "http://127.0.0.1:9/v1")
	_, _, err := collect(t, context.Background(), api, jobs("a"), Options{Journal: journal})
	if err == nil || !strings.Contains(err.Error(), journal+":2") {
		t.Errorf("error = %v, want one naming %s:2", err, journal)
	}
}

// A journal names each request by its runner.RequestKey, the key the cache
// uses: a change to the model or its server asks the answers again.
func TestJournalKeysRequestsAsTheCache(t *testing.T) {
	srv := fakeserver.NewOpenAIBatch(t, fakeserver.BatchOptions{Reply: script})
	api := batchAPI(t, "openai/gpt-4o", srv.URL)
	journal := filepath.Join(t.TempDir(), "j")
	opt := Options{Journal: journal, Model: "openai/gpt-4o", BaseURL: srv.URL}
	js := jobs("a", "b")
	if _, _, err := collect(t, context.Background(), api, js, opt); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range js {
		if key := runner.RequestKey(opt.Model, model.Info{BaseURL: opt.BaseURL}, j.Task); !strings.Contains(string(data), `"fp":"`+key+`"`) {
			t.Errorf("journal holds no answer keyed %s (%s):\n%s", key, j.Key, data)
		}
	}
	opt.BaseURL += "/other"
	if _, st, err := collect(t, context.Background(), api, js, opt); err != nil || st.FromJournal != 0 {
		t.Errorf("another server: %v, %+v; want both asked again", err, st)
	}
}

// A journal written before request keys (its requests named by the hash
// of their batch line) still resumes: its answers are not bought again.
func TestJournalOfLineHashesResumes(t *testing.T) {
	srv := fakeserver.NewOpenAIBatch(t, fakeserver.BatchOptions{Reply: script})
	api := batchAPI(t, "openai/gpt-4o", srv.URL)
	journal := filepath.Join(t.TempDir(), "j")
	opt := Options{Journal: journal, Model: "openai/gpt-4o", BaseURL: srv.URL}
	js := jobs("a", "b")
	if _, _, err := collect(t, context.Background(), api, js, opt); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	old := string(data)
	for _, j := range js {
		line, err := api.BatchLine(customID(j.Key), j.Task.Request)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(line)
		old = strings.ReplaceAll(old, runner.RequestKey(opt.Model, model.Info{BaseURL: opt.BaseURL}, j.Task), hex.EncodeToString(sum[:16]))
	}
	if old == string(data) {
		t.Fatal("no fingerprint rewritten")
	}
	if err := os.WriteFile(journal, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	got, st, err := collect(t, context.Background(), api, js, opt)
	if err != nil || st.FromJournal != 2 || srv.Submitted() != 2 || got["1:b"].Response.Text != "answer to question b" {
		t.Errorf("%v, %+v, %d submitted in all; want both from the journal", err, st, srv.Submitted())
	}
}
