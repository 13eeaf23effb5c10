package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/evalmd/evalmd/model"
)

func TestRunAnswersEveryJobOnce(t *testing.T) {
	for _, c := range []int{1, 4, 32} {
		t.Run(fmt.Sprint("c=", c), func(t *testing.T) {
			// The first c calls wait for each other, so the test sees
			// whether the runner really keeps c requests in flight.
			var once sync.Once
			full := make(chan struct{})
			var mu sync.Mutex
			started := 0
			m := newFuncModel(func(ctx context.Context, req model.Task) (model.Response, error) {
				mu.Lock()
				started++
				if started == c {
					once.Do(func() { close(full) })
				}
				mu.Unlock()
				select {
				case <-full:
				case <-time.After(5 * time.Second):
					return model.Response{}, errors.New("concurrency never reached")
				}
				return echo(ctx, req)
			})
			jobs := makeJobs(200)
			got, st, err := collect(t, context.Background(), m, jobs, Options{Concurrency: c})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(jobs) || st.Answered != len(jobs) || st.Calls != len(jobs) {
				t.Fatalf("got %d outcomes, stats %+v; want %d answered with one call each", len(got), st, len(jobs))
			}
			for _, j := range jobs {
				o := got[j.Key]
				if o.Err != nil || o.Response.Text != "answer to "+j.Task.Question.Name || o.Attempts != 1 {
					t.Errorf("%s: %+v", j.Key, o)
				}
			}
			if m.maxInFlight != c {
				t.Errorf("max in flight %d, want %d", m.maxInFlight, c)
			}
			if st.InputTokens != 10*len(jobs) || st.OutputTokens != 3*len(jobs) {
				t.Errorf("tokens %d/%d", st.InputTokens, st.OutputTokens)
			}
		})
	}
}

func TestRunRejectsBadJobs(t *testing.T) {
	m := newFuncModel(echo)
	for _, tc := range []struct {
		name string
		jobs []Job
		want string
	}{
		{"empty key", []Job{{Key: ""}}, "has no key"},
		{"duplicate", []Job{{Key: "a"}, {Key: "a"}}, `"a" given twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(context.Background(), m, tc.jobs, Options{}, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if m.calls.Load() != 0 {
				t.Fatal("model called")
			}
		})
	}
}

func TestRetries(t *testing.T) {
	rateLimited := &model.APIError{Provider: "p", Status: 429, RetryAfter: 3 * time.Second, Retryable: true, Message: "slow down"}
	serverErr := &model.APIError{Provider: "p", Status: 500, Retryable: true, Message: "oops"}
	badReq := &model.APIError{Provider: "p", Status: 400, Message: "bad request"}
	for _, tc := range []struct {
		name         string
		errs         []error // one per attempt; after them the model answers
		hang         bool    // the first attempt blocks until its context ends
		wantAttempts int
		wantErr      error // nil: answered
		wantMinSleep time.Duration
	}{
		{name: "answer at once", wantAttempts: 1},
		{name: "429 then answer", errs: []error{rateLimited}, wantAttempts: 2, wantMinSleep: 3 * time.Second},
		{name: "500 twice then answer", errs: []error{serverErr, serverErr}, wantAttempts: 3},
		{name: "wrapped 500 then answer", errs: []error{fmt.Errorf("calling: %w", serverErr)}, wantAttempts: 2},
		{name: "not retryable", errs: []error{badReq}, wantAttempts: 1, wantErr: badReq},
		{name: "budget spent", errs: []error{serverErr, serverErr, serverErr, serverErr}, wantAttempts: 4, wantErr: serverErr},
		{name: "no answer is final", errs: []error{model.ErrNoAnswer}, wantAttempts: 1, wantErr: model.ErrNoAnswer},
		{name: "unclassified reset is retried", errs: []error{fmt.Errorf("post: %w", syscall.ECONNRESET)}, wantAttempts: 2},
		{name: "unclassified error is final", errs: []error{errors.New("boom")}, wantAttempts: 1, wantErr: errors.New("boom")},
		{name: "per-request timeout is retried", hang: true, wantAttempts: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			n := 0
			m := newFuncModel(func(ctx context.Context, req model.Task) (model.Response, error) {
				mu.Lock()
				i := n
				n++
				mu.Unlock()
				if tc.hang && i == 0 {
					<-ctx.Done()
					return model.Response{}, fmt.Errorf("post: %w", ctx.Err())
				}
				if i < len(tc.errs) {
					return model.Response{}, tc.errs[i]
				}
				return echo(ctx, req)
			})
			s := &noSleep{}
			var retried []int
			got, _, err := collect(t, context.Background(), m, makeJobs(1),
				Options{MaxAttempts: 4, Timeout: 20 * time.Millisecond, Sleep: s.sleep,
					OnRetry: func(key string, attempt int, err error, wait time.Duration) { retried = append(retried, attempt) }})
			if err != nil {
				t.Fatal(err)
			}
			o := got[makeJobs(1)[0].Key]
			if o.Attempts != tc.wantAttempts || int(m.calls.Load()) != tc.wantAttempts {
				t.Errorf("attempts %d, calls %d, want %d", o.Attempts, m.calls.Load(), tc.wantAttempts)
			}
			switch {
			case tc.wantErr == nil && o.Err != nil:
				t.Errorf("err %v, want an answer", o.Err)
			case tc.wantErr == model.ErrNoAnswer && o.Err != model.ErrNoAnswer:
				t.Errorf("err %v, want ErrNoAnswer itself", o.Err)
			case tc.wantErr != nil:
				if o.Err == nil || !strings.Contains(o.Err.Error(), tc.wantErr.Error()) {
					t.Errorf("err %v, want it to contain %q", o.Err, tc.wantErr)
				}
				if tc.wantErr != model.ErrNoAnswer {
					// The final error names the model, the question and
					// the attempts, for the output file's error field.
					for _, part := range []string{"fake/model", `"q0000"`, fmt.Sprintf("after %d attempt", tc.wantAttempts)} {
						if !strings.Contains(o.Err.Error(), part) {
							t.Errorf("err %q lacks %q", o.Err, part)
						}
					}
				}
			}
			var ae *model.APIError
			if tc.wantErr == serverErr && !errors.As(o.Err, &ae) {
				t.Errorf("errors.As(%v, *APIError) failed", o.Err)
			}
			// Every attempt but the last was retried.
			if len(retried) != tc.wantAttempts-1 {
				t.Errorf("OnRetry told of attempts %v, want %d", retried, tc.wantAttempts-1)
			}
			if len(s.ds) < tc.wantAttempts-1 {
				t.Errorf("%d backoff sleeps for %d attempts", len(s.ds), tc.wantAttempts)
			}
			// The backoff right after a 429 honours its Retry-After.
			if tc.wantMinSleep > 0 && (len(s.ds) == 0 || s.ds[0] < tc.wantMinSleep) {
				t.Errorf("slept %v, want at least %v first (Retry-After)", s.ds, tc.wantMinSleep)
			}
		})
	}
}

func TestJobErrorText(t *testing.T) {
	for _, tc := range []struct {
		err  JobError
		want string
	}{
		{JobError{Model: "openai/gpt-4o", Key: "k", Question: "Q1", Attempts: 1, Err: &model.APIError{Provider: "openai", Status: 400, Message: "bad"}},
			`openai/gpt-4o: question "Q1": openai: HTTP 400: bad (after 1 attempt)`},
		{JobError{Model: "m", Key: "sheet#3", Attempts: 6, Err: errors.New("boom")},
			`m: question "sheet#3": boom (after 6 attempts)`},
		{JobError{Model: "m", Question: "Q1", Attempts: 2, Err: errors.New(`model m, question "Q1": timed out`)},
			`model m, question "Q1": timed out (after 2 attempts)`},
		// A provider names its model only: the question goes beside it.
		{JobError{Model: "openai/gpt-4o", Question: "Q1", Attempts: 1, Err: errors.New(`model openai/gpt-4o: openai: HTTP 400: bad`)},
			`model openai/gpt-4o, question "Q1": openai: HTTP 400: bad (after 1 attempt)`},
		// A solving step names the question but not the job's model.
		{JobError{Model: "openai/gpt-4o", Question: "Q1", Attempts: 1, Err: errors.New(`question "Q1": sandbox: no bwrap`)},
			`openai/gpt-4o: question "Q1": sandbox: no bwrap (after 1 attempt)`},
		// A question named only in passing is still named first.
		{JobError{Model: "openai/gpt-4o", Question: "Q1", Attempts: 1, Err: errors.New(`the answer "Q1" is not a number`)},
			`openai/gpt-4o: question "Q1": the answer "Q1" is not a number (after 1 attempt)`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}

func TestBackoff(t *testing.T) {
	base, limit := 100*time.Millisecond, 1*time.Second
	for _, tc := range []struct {
		attempt    int
		retryAfter time.Duration
		rnd        float64
		want       time.Duration
	}{
		{1, 0, 0, 0},
		{1, 0, 0.5, 50 * time.Millisecond},
		{2, 0, 0.5, 100 * time.Millisecond},
		{3, 0, 0.5, 200 * time.Millisecond},
		{10, 0, 0.5, 500 * time.Millisecond}, // capped at limit
		{60, 0, 1, limit},                    // no overflow for huge attempts
		{1, 5 * time.Second, 0, 5 * time.Second},
		{1, 5 * time.Second, 0.5, 5*time.Second + 50*time.Millisecond},
		{4, 50 * time.Millisecond, 0.9, 720 * time.Millisecond}, // jitter beats a short Retry-After
	} {
		got := backoff(tc.attempt, base, limit, tc.retryAfter, func() float64 { return tc.rnd })
		if got != tc.want {
			t.Errorf("backoff(%d, retryAfter %v, rnd %v) = %v, want %v", tc.attempt, tc.retryAfter, tc.rnd, got, tc.want)
		}
	}
}

func TestRetryAfterPausesAllWorkers(t *testing.T) {
	// One 429 with Retry-After: the other workers' next attempts wait too.
	var mu sync.Mutex
	first := true
	m := newFuncModel(func(ctx context.Context, req model.Task) (model.Response, error) {
		mu.Lock()
		defer mu.Unlock()
		if first {
			first = false
			return model.Response{}, &model.APIError{Status: 429, RetryAfter: time.Hour, Retryable: true}
		}
		return echo(ctx, req)
	})
	s := &noSleep{}
	_, st, err := collect(t, context.Background(), m, makeJobs(50), Options{Concurrency: 1, Sleep: s.sleep, MaxWait: 2 * time.Hour})
	if err != nil || st.Answered != 50 {
		t.Fatalf("err %v, stats %+v", err, st)
	}
	long := 0
	for _, d := range s.ds {
		if d > 50*time.Minute {
			long++
		}
	}
	// The failed job's backoff, and the gate before each attempt after it.
	if long < 2 {
		t.Errorf("%d waits near the Retry-After, want the backoff and the gate: %v", long, s.ds[:min(5, len(s.ds))])
	}
}

func TestCancelStopsPromptlyWithoutFailures(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	answered := 0
	m := newFuncModel(func(cctx context.Context, req model.Task) (model.Response, error) {
		mu.Lock()
		answered++
		n := answered
		mu.Unlock()
		if n == 20 {
			cancel()
		}
		if n >= 20 {
			<-cctx.Done() // in flight when the run is cancelled
			return model.Response{}, cctx.Err()
		}
		return echo(cctx, req)
	})
	journal := filepath.Join(t.TempDir(), "j.jsonl")
	jobs := makeJobs(500)
	// No time bound: a run that did not stop would hang on the calls
	// waiting for cancellation, and the counts below say it stopped early.
	got, st, err := collect(t, ctx, m, jobs, Options{Concurrency: 8, Journal: journal})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	for k, o := range got {
		if o.Err != nil {
			t.Errorf("%s recorded as failed: %v", k, o.Err)
		}
	}
	if st.Failed != 0 || st.Unfinished != len(jobs)-len(got) || st.Unfinished == 0 {
		t.Errorf("stats %+v with %d emitted", st, len(got))
	}

	// Resume: the answered are not asked again, the rest are.
	m2 := newFuncModel(echo)
	got2, st2, err := collect(t, context.Background(), m2, jobs, Options{Concurrency: 8, Journal: journal})
	if err != nil || len(got2) != len(jobs) {
		t.Fatalf("resume: err %v, %d outcomes", err, len(got2))
	}
	for _, j := range jobs {
		o, q := got2[j.Key], j.Task.Question.Name
		if _, ok := got[j.Key]; ok {
			if !o.FromJournal || m2.count(q) != 0 {
				t.Errorf("%s answered in run 1 but asked again (FromJournal=%v)", q, o.FromJournal)
			}
		} else if o.FromJournal || m2.count(q) != 1 {
			t.Errorf("%s unanswered in run 1: FromJournal=%v, asked %d times", q, o.FromJournal, m2.count(q))
		}
		if o.Response.Text != "answer to "+q {
			t.Errorf("%s: text %q", q, o.Response.Text)
		}
	}
	if st2.FromJournal != len(got) {
		t.Errorf("FromJournal %d, want %d", st2.FromJournal, len(got))
	}
}

func TestJournalResume(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "run.journal")
	jobs := makeJobs(30)
	// Run 1: q0003 fails for good, q0004 has no answer.
	m1 := newFuncModel(func(ctx context.Context, req model.Task) (model.Response, error) {
		switch req.Question.Name {
		case "q0003":
			return model.Response{}, &model.APIError{Status: 400, Message: "refused"}
		case "q0004":
			return model.Response{}, model.ErrNoAnswer
		}
		return echo(ctx, req)
	})
	_, st, err := collect(t, context.Background(), m1, jobs, Options{Journal: journal})
	if err != nil || st.Answered != 28 || st.Failed != 1 || st.NoAnswer != 1 {
		t.Fatalf("run 1: err %v stats %+v", err, st)
	}
	// Run 2 with a changed prompt for q0005: asked again with a warning.
	jobs[5].Task.Messages[0].Content += " (edited)"
	var warnings []string
	m2 := newFuncModel(echo)
	got, st, err := collect(t, context.Background(), m2, jobs, Options{Journal: journal, Warn: func(s string) { warnings = append(warnings, s) }})
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		q := j.Task.Question.Name
		want := 0
		if q == "q0003" || q == "q0005" {
			want = 1
		}
		if m2.count(q) != want {
			t.Errorf("%s asked %d times in run 2, want %d", q, m2.count(q), want)
		}
		if o := got[j.Key]; o.FromJournal != (want == 0) {
			t.Errorf("%s FromJournal=%v", q, o.FromJournal)
		}
	}
	if o := got[jobs[4].Key]; o.Err != model.ErrNoAnswer {
		t.Errorf("no-answer outcome came back as %v", o.Err)
	}
	if o := got[jobs[3].Key]; o.Err != nil || o.Response.Text != "answer to q0003" {
		t.Errorf("failed question retried: %+v", o)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], jobs[5].Key) {
		t.Errorf("warnings %q", warnings)
	}
	if st.FromJournal != 28 {
		t.Errorf("stats %+v", st)
	}
	// Run 3: everything journaled; no call at all.
	m3 := newFuncModel(echo)
	if _, st, err := collect(t, context.Background(), m3, jobs, Options{Journal: journal}); err != nil || st.FromJournal != 30 || m3.calls.Load() != 0 {
		t.Errorf("run 3: err %v stats %+v calls %d", err, st, m3.calls.Load())
	}
}

func TestJournalLockedByAnotherRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j")
	j, _, err := openJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.close()
	_, err = Run(context.Background(), newFuncModel(echo), makeJobs(1), Options{Journal: path}, nil)
	if err == nil || !strings.Contains(err.Error(), "another run") {
		t.Fatalf("err = %v, want a lock error", err)
	}
}

func TestProgress(t *testing.T) {
	var buf bytes.Buffer
	cost := func(string, model.Response) (float64, bool) { return 0.5, true }
	_, _, err := collect(t, context.Background(), newFuncModel(echo), makeJobs(10), Options{Progress: &buf, Cost: cost})
	if err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"\r", "10/10 100%", "tokens 100 in 30 out", "$5.0000", "\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("progress %q lacks %q", out, want)
		}
	}
	// A file that is not a terminal gets a plain line every few seconds:
	// none for a run this short.
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, _, err := collect(t, context.Background(), newFuncModel(echo), makeJobs(10), Options{Progress: f}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := f.Stat(); fi.Size() != 0 {
		t.Errorf("progress written to a non-terminal file (%d bytes)", fi.Size())
	}
}

func TestProgressLine(t *testing.T) {
	t0 := time.Unix(1000, 0)
	a := &modelProgress{name: "a", total: 100, done: 40, live: 20, inTok: 12345, outTok: 999, failed: 2, priced: "yes", cost: 1.5}
	b := &modelProgress{name: "b", total: 10, done: 10, live: 10, priced: "unknown"}
	c := &modelProgress{name: "c", total: 10}
	for _, tc := range []struct {
		models []*modelProgress
		want   string
	}{
		{[]*modelProgress{a}, "40/100  40%  2.0 q/s  ETA 30s  tokens 12.3k in 999 out  $1.5000  2 failed"},
		// Several models: each named; a model without a price says so
		// (never $0.0000); a model with no cost function shows none.
		{[]*modelProgress{a, b, c}, "a 40/100  40%  2.0 q/s  ETA 30s  tokens 12.3k in 999 out  $1.5000  2 failed" +
			" | b 10/10 100%  1.0 q/s  tokens 0 in 0 out  cost unknown | c 0/10   0%  tokens 0 in 0 out"},
	} {
		p := &progress{start: t0, models: tc.models}
		if got := p.line(t0.Add(10 * time.Second)); got != tc.want {
			t.Errorf("line = %q\nwant   %q", got, tc.want)
		}
	}
}

func TestRPMLimit(t *testing.T) {
	// 6000 RPM = 100 requests/s with a burst of 2 (the concurrency): 22
	// requests cannot finish in under 200 ms.
	start := time.Now()
	_, st, err := collect(t, context.Background(), newFuncModel(echo), makeJobs(22), Options{Concurrency: 2, RPM: 6000})
	if err != nil || st.Answered != 22 {
		t.Fatalf("err %v stats %+v", err, st)
	}
	if d := time.Since(start); d < 190*time.Millisecond {
		t.Errorf("22 requests at 100/s took %v", d)
	}
}

func TestLimiters(t *testing.T) {
	for _, tc := range []struct {
		opt                Options
		rpmRate, tpmRate   float64
		rpmBurst, tpmBurst int
	}{
		{Options{Concurrency: 32, RPM: 600, TPM: 60000}, 10, 1000, 32, 10000},
		{Options{Concurrency: 32, RPM: 60, TPM: 3}, 1, 0.05, 10, 1},
		{Options{Concurrency: 4, RPM: 1}, 1.0 / 60, 0, 1, 0},
	} {
		m := newFuncModel(echo)
		r := newRun(jobSlice{{Key: "k", Model: m}}, tc.opt.withDefaults()).lanes[m.Name()]
		if r.rpm.Limit() != rate.Limit(tc.rpmRate) || r.rpm.Burst() != tc.rpmBurst {
			t.Errorf("%+v: rpm limiter %v/s burst %d", tc.opt, r.rpm.Limit(), r.rpm.Burst())
		}
		if tc.tpmRate == 0 {
			if r.tpm != nil {
				t.Errorf("%+v: tpm limiter without TPM", tc.opt)
			}
			continue
		}
		if r.tpm.Limit() != rate.Limit(tc.tpmRate) || r.tpm.Burst() != tc.tpmBurst {
			t.Errorf("%+v: tpm limiter %v/s burst %d", tc.opt, r.tpm.Limit(), r.tpm.Burst())
		}
	}
}

func TestEstimateTokens(t *testing.T) {
	for _, tc := range []struct {
		req  model.Request
		want int
	}{
		{model.Request{}, 1},
		{model.Request{System: strings.Repeat("s", 40), Messages: []model.Message{{Content: strings.Repeat("m", 400)}}}, 110},
		{model.Request{Messages: []model.Message{{Content: "abcd"}}, Settings: model.Settings{MaxTokens: 100}}, 101},
	} {
		if got := estimateTokens(tc.req); got != tc.want {
			t.Errorf("estimateTokens = %d, want %d", got, tc.want)
		}
	}
}

// A request that outlives --timeout fails as a timeout, saying so, not as
// "context deadline exceeded".
func TestTimeoutReportedAsTimeout(t *testing.T) {
	m := newFuncModel(func(ctx context.Context, req model.Task) (model.Response, error) {
		<-ctx.Done()
		return model.Response{}, fmt.Errorf("model x, question %q: %w", req.Question.Name, ctx.Err())
	})
	s := &noSleep{}
	got, _, err := collect(t, context.Background(), m, makeJobs(1), Options{MaxAttempts: 2, Timeout: 10 * time.Millisecond, Sleep: s.sleep})
	if err != nil {
		t.Fatal(err)
	}
	o := got[makeJobs(1)[0].Key]
	if o.Err == nil || !strings.Contains(o.Err.Error(), "timed out after 10ms") || strings.Contains(o.Err.Error(), "context deadline exceeded") {
		t.Errorf("error %v, want a timeout named as such", o.Err)
	}
	if o.Attempts != 2 {
		t.Errorf("%d attempts, want 2 (a timeout is retried)", o.Attempts)
	}
}
