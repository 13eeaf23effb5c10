package runner

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/model"
)

// TestRetrying: a model called inside a job (agent mode's reformat model)
// retries on its own, so the job's own model is asked once: a passing
// failure costs one more inner call, the inner calls stop at MaxAttempts
// with a final error the runner does not retry the job for, an error the
// runner would not retry is not retried inside either, and a fatal one
// still stops the run.
func TestRetrying(t *testing.T) {
	unavailable := &model.APIError{Provider: "fake", Status: 503, Retryable: true, Message: "overloaded"}
	for _, tc := range []struct {
		name      string
		fail      int // inner calls that fail before one answers
		err       error
		inner     int // inner calls wanted per job
		sleeps    int // backoff waits wanted
		wantErr   string
		stopsRun  bool
		unretried bool // the job ends with the inner error as it is
	}{
		{name: "passing", fail: 2, err: unavailable, inner: 3, sleeps: 2},
		{name: "spent", fail: 99, err: unavailable, inner: 4, sleeps: 3, wantErr: "4 attempts, the last: fake: HTTP 503: overloaded"},
		{name: "not retryable", fail: 99, err: &model.APIError{Provider: "fake", Status: 404, Message: "no such model"}, inner: 1, wantErr: "HTTP 404: no such model", unretried: true},
		{name: "fatal", fail: 99, err: &model.APIError{Provider: "fake", Status: 401, Fatal: true, Message: "invalid key"}, inner: 1, wantErr: "HTTP 401: invalid key", stopsRun: true, unretried: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &noSleep{}
			opt := Options{Concurrency: 1, MaxAttempts: 4, Sleep: s.sleep}
			var inner *funcModel
			inner = newFuncModel(func(ctx context.Context, req model.Task) (model.Response, error) {
				if inner.count(req.Question.Name) <= tc.fail {
					return model.Response{}, tc.err
				}
				return model.Response{Text: "@x[1]"}, nil
			})
			retried := Retrying(inner, opt)
			outer := newFuncModel(func(ctx context.Context, req model.Task) (model.Response, error) {
				r, err := model.Ask(ctx, retried, model.Task{Request: model.Request{Messages: []model.Message{{Role: "user", Content: "reformat"}}}, Question: req.Question})
				if err != nil {
					return model.Response{}, err
				}
				return model.Response{Text: "answer", Work: &model.ToolRun{Answer: &r.Text}}, nil
			})
			got, st, err := collect(t, context.Background(), outer, makeJobs(2), opt)
			o := got[makeJobs(1)[0].Key]
			jobs := 2 // asked, of the two
			if tc.stopsRun {
				jobs = 1
			}
			if c := inner.count("q0000"); c != int(tc.inner) || len(s.ds) != jobs*tc.sleeps || inner.calls.Load() != int64(jobs*tc.inner) {
				t.Errorf("%d inner calls (%d in all), %d waits; want %d per job, %d waits per job, %d jobs asked",
					c, inner.calls.Load(), len(s.ds), tc.inner, tc.sleeps, jobs)
			}
			if o.Attempts != 1 || outer.count("q0000") != 1 {
				t.Errorf("the job was asked %d times (%d attempts), want once", outer.count("q0000"), o.Attempts)
			}
			if tc.wantErr == "" {
				if o.Err != nil || *o.Response.Work.Answer != "@x[1]" {
					t.Errorf("outcome %+v, want the inner answer", o)
				}
				return
			}
			if o.Err == nil || !strings.Contains(o.Err.Error(), tc.wantErr) {
				t.Errorf("error %v, want %q", o.Err, tc.wantErr)
			}
			var ae *model.APIError
			if unwrapped := errors.As(o.Err, &ae); unwrapped != tc.unretried {
				t.Errorf("error %v: its APIError reachable %v, want %v", o.Err, unwrapped, tc.unretried)
			}
			if stopped := err != nil && strings.Contains(err.Error(), "runner: stopped"); stopped != tc.stopsRun || (st.Unfinished == 1) != tc.stopsRun {
				t.Errorf("run error %v, stats %+v: want the run stopped %v", err, st, tc.stopsRun)
			}
		})
	}
}
