package solve

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/runner"
	"github.com/evalmd/evalmd/sandbox"
)

// flaky is a reformat model that fails its first fail calls with a
// retryable error (a 503), then answers the @name[value] rewrite.
type flaky struct {
	fail  int64
	calls atomic.Int64
}

func (f *flaky) Name() string     { return "fake/reformat" }
func (f *flaky) Info() model.Info { return model.Info{Provider: "fake", Model: "reformat"} }

func (f *flaky) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	if f.calls.Add(1) <= f.fail {
		return model.Response{}, &model.APIError{Provider: "fake", Status: 503, Retryable: true, Message: "overloaded"}
	}
	return model.Response{Text: "@total[49]"}, nil
}

// TestReformatRetriesItself: agent mode's reformat call retries on its own
// (runner.Retrying with Model.Retry), inside the question's one job: a
// reformat model that fails twice and then answers is asked three times,
// while the agent's turns (three model calls, two python runs) run once and
// its transcript is kept beside the rewrite. A reformat model that keeps
// failing fails the question after the retries, with an error naming the
// reformat step, and the runner does not ask the agent again.
func TestReformatRetriesItself(t *testing.T) {
	p := pool(t, sandbox.Config{})
	file := csvFile(t)
	for _, tc := range []struct {
		name     string
		fail     int64
		reformat int64 // calls wanted
		wantErr  string
	}{
		{"fails twice, then answers", 2, 3, ""},
		{"keeps failing", 99, 4, `openai/gpt-4o: question "total": reformat with fake/reformat: 4 attempts, the last: fake: HTTP 503: overloaded (after 1 attempt)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeserver.NewOpenAI(t, fakeserver.Options{Reply: analyst, MaxRequests: 20})
			inner := fakeGPT(t, srv.URL)
			var waits atomic.Int64
			opt := runner.Options{Concurrency: 1, MaxAttempts: 4, Sleep: func(ctx context.Context, d time.Duration) error {
				waits.Add(1)
				return ctx.Err()
			}}
			reformat := &flaky{fail: tc.fail}
			m := &Model{Inner: inner, Sandbox: p, Reformat: reformat, Retry: opt}
			defer m.Close()
			o := askTotal(t, m, opt, &model.Solve{Mode: model.ModeAgent, Files: []string{file},
				Reformat: &model.Reformat{Question: "What is the total amount?", Format: "@total[value]"}})
			if n := srv.Count(); n != 3 || o.Attempts != 1 {
				t.Errorf("the agent made %d model calls in %d attempts, want its 3 turns once", n, o.Attempts)
			}
			if n := reformat.calls.Load(); n != tc.reformat || waits.Load() != tc.reformat-1 {
				t.Errorf("reformat asked %d times after %d waits, want %d", n, waits.Load(), tc.reformat)
			}
			if tc.wantErr != "" {
				if o.Err == nil || o.Err.Error() != tc.wantErr {
					t.Errorf("error %v\nwant  %s (the question failed naming the reformat step, and the question once)", o.Err, tc.wantErr)
				}
				return
			}
			w := o.Response.Work
			if o.Err != nil || w == nil || w.Answer == nil || *w.Answer != "@total[49]" || o.Response.Text != "total=49" ||
				w.ReformatModel != "fake/reformat" || w.Turns != 3 || len(w.Transcript) != 5 {
				t.Errorf("outcome %+v, work %+v: want the agent's answer, its transcript and the rewrite", o, w)
			}
		})
	}
}
