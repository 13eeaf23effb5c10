package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/aimd"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
)

// fakeClock is a clock that only the test moves.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestAdaptiveFindsServerLimit is the adaptive limit's test through the runner and a
// real provider: against a server that serves at most K requests at once
// and answers 429 beyond, -c auto ends within 20% of K, with 429s under 5%
// of the requests.
//
// Time is the run's clock, moved 100 ms per request the server serves, so
// the 15 s cooldown lasts 150 answers however fast the machine is, and a
// time to first byte counts the answers served meanwhile, which against
// this server does not grow with the limit. The server holds each request
// 100 ms of real time so that requests overlap; that is all real time
// does here.
func TestAdaptiveFindsServerLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: about 5 s of server latency")
	}
	const k, jobs = 8, 400
	clk := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{
		Slots:       k,
		Latency:     100 * time.Millisecond,
		MaxRequests: 4 * jobs,
		Reply: func(c fakeserver.Call) fakeserver.Reply {
			clk.advance(100 * time.Millisecond)
			return fakeserver.Reply{Text: "answer to " + questionOf(c)}
		},
	})
	var mu sync.Mutex
	var changes []aimd.Change
	var shared []string
	var progress strings.Builder
	_, st, err := collect(t, context.Background(), newProvider(t, "openai-api/fake/m", srv.URL), makeJobs(jobs), Options{
		Adaptive:    &aimd.Config{},
		Progress:    &progress,
		MaxAttempts: 50,
		Now:         clk.now,
		Sleep:       func(ctx context.Context, d time.Duration) error { return ctx.Err() },
		OnLimit: func(models []string, c aimd.Change) {
			mu.Lock()
			defer mu.Unlock()
			changes = append(changes, c)
			shared = models
		},
	})
	if err != nil || st.Answered != jobs {
		t.Fatalf("err %v, stats %+v", err, st)
	}
	mu.Lock()
	defer mu.Unlock()
	final := changes[len(changes)-1].Limit
	busy, sent := srv.Busy(), srv.Count()
	t.Logf("final limit %d after %d changes; %d of %d requests refused (%.1f%%)", final, len(changes), busy, sent, 100*float64(busy)/float64(sent))
	if changes[0].Reason != "start" || changes[0].Limit != 10 || len(shared) != 1 || shared[0] != "openai-api/fake/m" {
		t.Errorf("first change %+v for %v, want the start at 10 for the model", changes[0], shared)
	}
	if f := float64(final); f < 0.8*k || f > 1.2*k {
		t.Errorf("final limit %d, want within 20%% of %d: %+v", final, k, changes)
	}
	if float64(busy) >= 0.05*float64(sent) {
		t.Errorf("%d of %d requests refused, want under 5%%", busy, sent)
	}
	if want := fmt.Sprintf("limit %d", final); !strings.Contains(progress.String(), want) {
		t.Errorf("progress line does not say %q: %q", want, progress.String())
	}
	decreased := false
	for _, c := range changes {
		decreased = decreased || (c.Limit < c.From && c.Reason == "HTTP 429")
	}
	if !decreased {
		t.Errorf("no decrease for a 429: %+v", changes)
	}
}

// TestMaxWait: Retry-After: 99999 (27 hours) is capped by Options.MaxWait,
// and the wait is said. The sleeps are recorded, not slept.
func TestMaxWait(t *testing.T) {
	for _, maxWait := range []time.Duration{3 * time.Second, 0} {
		srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 20, Reply: func(c fakeserver.Call) fakeserver.Reply {
			if c.N == 1 {
				return fakeserver.Reply{Status: 429, Message: "slow down", RetryAfter: "99999"}
			}
			return fakeserver.Reply{Text: "answer"}
		}})
		var warned []string
		var wmu sync.Mutex
		s := &noSleep{}
		_, st, err := collect(t, context.Background(), newProvider(t, "openai-api/fake/m", srv.URL), makeJobs(1), Options{
			MaxWait: maxWait, Sleep: s.sleep,
			Warn: func(msg string) {
				wmu.Lock()
				warned = append(warned, msg)
				wmu.Unlock()
			},
		})
		if err != nil || st.Answered != 1 {
			t.Fatalf("max wait %v: err %v, stats %+v", maxWait, err, st)
		}
		want := maxWait
		if want == 0 {
			want = 5 * time.Minute // the default
		}
		// The backoff (the Retry-After, capped, plus up to BaseBackoff
		// of jitter) and the server's pause before the next attempt.
		if len(s.ds) != 2 || s.ds[0] < want || s.ds[0] > want+time.Second || s.ds[1] > want {
			t.Errorf("max wait %v: slept %v, want the capped wait %v twice at most", maxWait, s.ds, want)
		}
		if len(warned) != 1 || !strings.Contains(warned[0], "asked for a pause of 27h46m39s (Retry-After)") ||
			!strings.Contains(warned[0], fmt.Sprintf("wait %s (--max-wait)", want)) || !strings.Contains(warned[0], `"q0000"`) {
			t.Errorf("max wait %v: warnings %q, want the pause asked and the wait", maxWait, warned)
		}
	}
}

// TestMaxWaitSaidOnce: a server that asks for a pause past MaxWait at
// every retry has its capped wait said once, not at each retry. The clock
// moves with the sleeps, so each pause is a new one.
func TestMaxWaitSaidOnce(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 20, Reply: func(c fakeserver.Call) fakeserver.Reply {
		if c.N <= 4 {
			return fakeserver.Reply{Status: 429, Message: "slow down", RetryAfter: "99999"}
		}
		return fakeserver.Reply{Text: "answer"}
	}})
	var mu sync.Mutex
	var warned []string
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	sleep := func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		now = now.Add(d)
		mu.Unlock()
		return ctx.Err()
	}
	_, st, err := collect(t, context.Background(), newProvider(t, "openai-api/fake/m", srv.URL), makeJobs(1), Options{
		MaxWait: 2 * time.Second, Now: clock, Sleep: sleep,
		Warn: func(msg string) { mu.Lock(); warned = append(warned, msg); mu.Unlock() },
	})
	if err != nil || st.Answered != 1 || srv.Count() != 5 {
		t.Fatalf("err %v, stats %+v, %d calls", err, st, srv.Count())
	}
	n := 0
	for _, w := range warned {
		if strings.Contains(w, "asked for a pause of") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the capped pause was said %d times, want once: %q", n, warned)
	}
}

// TestFatalStopsTheRun: an answer that refuses the account or its key
// (out of credit at OpenAI or Anthropic, a key refused or without
// permission) is neither retried nor waited out: the run stops at the first
// one with one error saying why, and asks no other question.
func TestFatalStopsTheRun(t *testing.T) {
	const (
		quota  = `{"error": {"message": "You exceeded your current quota, please check your plan and billing details.", "type": "insufficient_quota", "param": null, "code": "insufficient_quota"}}`
		credit = `{"type": "error", "error": {"type": "invalid_request_error", "message": "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}, "request_id": "req_fake"}`
	)
	openai := func(t testing.TB, opt fakeserver.Options) (*fakeserver.Server, model.Model) {
		srv := fakeserver.NewOpenAI(t, opt)
		return srv, newProvider(t, "openai-api/fake/m", srv.URL)
	}
	anthropic := func(t testing.TB, opt fakeserver.Options) (*fakeserver.Server, model.Model) {
		srv := fakeserver.NewAnthropic(t, opt)
		return srv, newProvider(t, "anthropic/claude-fake", srv.URL)
	}
	for _, tc := range []struct {
		name  string
		start func(testing.TB, fakeserver.Options) (*fakeserver.Server, model.Model)
		reply fakeserver.Reply
		says  string
	}{
		{"openai 429 insufficient_quota", openai, fakeserver.Reply{Status: 429, RawBody: quota}, "insufficient_quota"},
		{"openai 401", openai, fakeserver.Reply{Status: 401, Message: "Incorrect API key provided"}, "HTTP 401: fake_error: Incorrect API key"},
		{"anthropic 400 credit balance", anthropic, fakeserver.Reply{Status: 400, RawBody: credit}, "HTTP 400: invalid_request_error: Your credit balance is too low"},
		{"anthropic 401", anthropic, fakeserver.Reply{Status: 401, Message: "invalid x-api-key"}, "HTTP 401: authentication_error: invalid x-api-key"},
		{"anthropic 403 permission_error", anthropic, fakeserver.Reply{Status: 403, Message: "Your API key does not have permission to use the specified resource."}, "HTTP 403: permission_error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, m := tc.start(t, fakeserver.Options{MaxRequests: 50, Reply: func(fakeserver.Call) fakeserver.Reply { return tc.reply }})
			s := &noSleep{}
			got, st, err := collect(t, context.Background(), m, makeJobs(20), Options{Concurrency: 1, Sleep: s.sleep})
			if err == nil || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), m.Name()) ||
				!strings.HasPrefix(err.Error(), "runner: stopped with 19 jobs unfinished") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err %v, want one line: the run stopped, the model and %q", err, tc.says)
			}
			if n := srv.Count(); n != 1 || st.Failed != 1 || st.Unfinished != 19 || st.Calls != 1 || len(s.ds) != 0 {
				t.Errorf("%d requests, stats %+v, sleeps %v: want the first answer to stop the run, nothing retried", n, st, s.ds)
			}
			for k, o := range got {
				var ae *model.APIError
				if !errors.As(o.Err, &ae) || !ae.Fatal || o.Attempts != 1 {
					t.Errorf("%s: %+v, want one fatal attempt", k, o)
				}
			}
		})
	}
}

// TestCongestion: which failures lower an adaptive limit.
func TestCongestion(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&model.APIError{Status: 429, Retryable: true}, "HTTP 429"},
		{&JobError{Err: &model.APIError{Status: 529, Retryable: true}}, "HTTP 529"},
		{&model.APIError{Status: 503, Retryable: true}, "HTTP 503"},
		{&model.APIError{Retryable: true, Timeout: true}, "timeout"},
		{fmt.Errorf("call: %w", context.DeadlineExceeded), "timeout"},
		{&model.APIError{Status: 429, Fatal: true}, ""},
		{&model.APIError{Status: 500, Retryable: true}, ""},
		{&model.APIError{Status: 400}, ""},
		{&model.APIError{Retryable: true, Message: "transport error: reset"}, ""},
		{errors.New("other"), ""},
	} {
		got, ok := congestion(tc.err)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("congestion(%v) = %q, %v; want %q", tc.err, got, ok, tc.want)
		}
	}
}
