package judgeflag

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/runner"
)

// TestJudgeRetries: the judge Options builds retries on its own
// (runner.Retrying with the runner options given): a judge server that
// answers 503 twice and then a verdict has the question graded, after three
// requests and two backoff waits (injected, so nothing sleeps). A refused
// key (401, fatal) is asked once and its error reaches the caller as the
// provider's, so a run still stops on it. The completion differs from the
// truth: an identical one is graded without asking the judge.
func TestJudgeRetries(t *testing.T) {
	for _, tc := range []struct {
		name     string
		status   int // the status of the failing answers
		fail     int // answers that fail before the verdict
		requests int
		waits    int64
		wantErr  string
	}{
		{name: "503 twice, then a verdict", status: 503, fail: 2, requests: 3, waits: 2},
		{name: "a refused key", status: 401, fail: 99, requests: 1, wantErr: "401"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10, Reply: func(c fakeserver.Call) fakeserver.Reply {
				if c.N <= tc.fail {
					return fakeserver.Reply{Status: tc.status, Message: "judge unavailable"}
				}
				return fakeserver.Reply{Text: "Right.\nGRADE: C"}
			}})
			var waits atomic.Int64
			retry := runner.Options{MaxAttempts: 4, Sleep: func(ctx context.Context, d time.Duration) error {
				waits.Add(1)
				return ctx.Err()
			}}
			getenv := func(k string) string {
				if k == "JUDGE_API_KEY" {
					return "sk-judge"
				}
				return ""
			}
			f := &Flags{Model: "openai-api/judge/big", BaseURL: srv.URL}
			jo, err := f.Options(model.Options{Getenv: getenv, Timeout: 10 * time.Second}, retry, nil, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			g, err := grade.NewRegistry().New("judge", grade.Options{JudgeOptions: jo})
			if err != nil {
				t.Fatal(err)
			}
			v, err := g.Grade(context.Background(), grade.Input{Completion: "four", Truth: "4", Question: "What is 2+2?"})
			if n := srv.Count(); n != tc.requests || waits.Load() != tc.waits {
				t.Errorf("the judge server saw %d requests after %d waits, want %d after %d", n, waits.Load(), tc.requests, tc.waits)
			}
			if tc.wantErr == "" {
				if err != nil || v.Correct == nil || !*v.Correct {
					t.Errorf("verdict %+v, error %v: want graded correct", v, err)
				}
				return
			}
			var ae *model.APIError
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.As(err, &ae) || !ae.Fatal {
				t.Errorf("error %v: want the judge's fatal %s as it is", err, tc.wantErr)
			}
		})
	}
}
