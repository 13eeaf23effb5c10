package solve

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/openai"
	"github.com/evalmd/evalmd/runner"
	"github.com/evalmd/evalmd/sandbox"
)

// toolResults counts the python results a call carries: which of the
// analyst's turns it asks for (0: the first).
func toolResults(c fakeserver.Call) int {
	n := 0
	for _, m := range c.Messages {
		if m.Role == "tool" {
			n++
		}
	}
	return n
}

// TestAgentTurnRetriesItself: an agent question's model turn that fails in
// a way the runner retries is retried alone, inside the question's one job
// (Model.Retry): the agent's second turn fails twice with a 503 and then
// answers, and the first turn is asked once, each code runs once, the
// question takes one attempt and keeps its whole transcript. A turn that
// keeps failing fails the question after the retries, naming the turn,
// without the runner asking the agent again. The agent's own limits still
// hold: a retry waiting past the question's timeout ends the question with
// that limit.
// fakeGPT is openai/gpt-4o on the fake server at url.
func fakeGPT(t *testing.T, url string) model.Model {
	t.Helper()
	r := model.NewRegistry()
	openai.Register(r)
	m, err := r.New("openai/gpt-4o", model.Options{BaseURL: url, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// askTotal asks m the question "total" of sheet s.md, solved as solve
// says, through the runner, and returns its one outcome.
func askTotal(t *testing.T, m *Model, opt runner.Options, solve *model.Solve) runner.Outcome {
	t.Helper()
	job := runner.Job{Key: "s.md#1:total", Task: model.Task{
		Request:  model.Request{Messages: []model.Message{{Role: "user", Content: "What is the total amount?"}}},
		Question: model.QuestionRef{Sheet: "s.md", Name: "total"},
		Solve:    solve,
	}}
	var got []runner.Outcome
	if _, err := runner.Run(context.Background(), m, []runner.Job{job}, opt, func(o runner.Outcome) { got = append(got, o) }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("%d outcomes", len(got))
	}
	return got[0]
}

func TestAgentTurnRetriesItself(t *testing.T) {
	p := pool(t, sandbox.Config{})
	file := csvFile(t)
	for _, tc := range []struct {
		name      string
		fail      int  // answers to the second turn that fail
		block     bool // a wait lasts until the question's context ends
		timeout   time.Duration
		requests  int // wanted: the server's calls
		waits     int64
		wantErr   string
		wantLimit string
	}{
		{name: "fails twice, then answers", fail: 2, requests: 5, waits: 2},
		{name: "keeps failing", fail: 99, requests: 5, waits: 3, wantErr: `agent turn 2: 4 attempts, the last: `},
		{name: "waits past the question's timeout", fail: 99, block: true, timeout: 10 * time.Second, requests: 2, waits: 1, wantLimit: "question_timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var failed atomic.Int64
			srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 20, Reply: func(c fakeserver.Call) fakeserver.Reply {
				if toolResults(c) == 1 && failed.Add(1) <= int64(tc.fail) {
					return fakeserver.Reply{Status: 503, Message: "overloaded"}
				}
				return analyst(c)
			}})
			inner := fakeGPT(t, srv.URL)
			var waits atomic.Int64
			opt := runner.Options{Concurrency: 1, MaxAttempts: 4, Sleep: func(ctx context.Context, d time.Duration) error {
				waits.Add(1)
				if _, bounded := ctx.Deadline(); tc.block && bounded {
					<-ctx.Done() // only a wait bounded by the question's timeout
				}
				return ctx.Err()
			}}
			m := &Model{Inner: inner, Sandbox: p, Retry: opt}
			defer m.Close()
			o := askTotal(t, m, opt, &model.Solve{Mode: model.ModeAgent, Files: []string{file}, QuestionTimeout: tc.timeout})
			turns := map[int]int{} // calls by the turn they ask for
			for _, c := range srv.Calls() {
				turns[toolResults(c)]++
			}
			if srv.Count() != tc.requests || turns[0] != 1 || o.Attempts != 1 || waits.Load() != tc.waits {
				t.Errorf("%d model calls (by turn %v) in %d attempts after %d waits; want %d calls, the first turn asked once, 1 attempt, %d waits",
					srv.Count(), turns, o.Attempts, waits.Load(), tc.requests, tc.waits)
			}
			switch {
			case tc.wantErr != "":
				if o.Err == nil || !strings.Contains(o.Err.Error(), tc.wantErr) || !strings.Contains(o.Err.Error(), `question "total"`) || !strings.Contains(o.Err.Error(), "HTTP 503") {
					t.Errorf("error %v, want %q", o.Err, tc.wantErr)
				}
			case tc.wantLimit != "":
				if o.Err != nil || o.Response.Work == nil || o.Response.Work.Limit != tc.wantLimit {
					t.Errorf("outcome %+v: want the question ended by its %s", o, tc.wantLimit)
				}
			default:
				w := o.Response.Work
				last := srv.Calls()[srv.Count()-1]
				if o.Err != nil || w == nil || o.Response.Text != "total=49" || w.Turns != 3 || len(w.Transcript) != 5 || toolResults(last) != 2 {
					t.Errorf("outcome %+v, work %+v, last call with %d results: want the agent's answer after its two code runs, once each",
						o, w, toolResults(last))
				}
			}
		})
	}
}
