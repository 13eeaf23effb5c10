package runner

import (
	"context"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/providers"
)

// testAPIKey is a fake credential; the tests check it never reaches a file.
const testAPIKey = "sk-test-NOT-A-REAL-KEY-5b1e"

// questionOf reads the question name back from a prompt built by makeJobs.
func questionOf(c fakeserver.Call) string {
	return strings.TrimPrefix(c.LastUserText(), "Q: ")
}

// clients are the ways the tests reach a fake server: this package's
// minimal client (transport errors unclassified) and the real providers.
var clients = []struct {
	name   string
	server func(t testing.TB, opt fakeserver.Options) *fakeserver.Server
	new    func(t testing.TB, baseURL string) model.Model
}{
	{"testclient", fakeserver.NewOpenAI, func(t testing.TB, baseURL string) model.Model {
		return newHTTPModel("openai-api/fake/m", baseURL, testAPIKey)
	}},
	{"model.New/openai", fakeserver.NewOpenAI, func(t testing.TB, baseURL string) model.Model {
		return newProvider(t, "openai-api/fake/m", baseURL)
	}},
	{"model.New/anthropic", fakeserver.NewAnthropic, func(t testing.TB, baseURL string) model.Model {
		return newProvider(t, "anthropic/claude-fake", baseURL)
	}},
}

// newProvider builds a real provider for a fake server, with a connection
// pool as large as the tests' concurrency.
func newProvider(t testing.TB, name, baseURL string) model.Model {
	m, err := providers.New(name, model.Options{BaseURL: baseURL, APIKey: testAPIKey,
		HTTPClient: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestFaults runs 1000 jobs against a server that fails 20% of calls with
// every kind of fault. The faults are drawn per call from a seeded source
// and recorded per question, so the test knows exactly how each job must
// end: answered on its first fault-free call, or failed after the budget
// of 3 attempts, with the server called exactly Attempts times.
func TestFaults(t *testing.T) {
	faults := []fakeserver.Fault{fakeserver.RateLimit, fakeserver.ServerError, fakeserver.Reset,
		fakeserver.Timeout, fakeserver.MalformedJSON}
	for _, cl := range clients {
		t.Run(cl.name, func(t *testing.T) {
			if testing.Short() && cl.name != "testclient" {
				t.Skip("-short: the providers' own tests cover them")
			}
			var mu sync.Mutex
			rng := rand.New(rand.NewPCG(1, 2))
			seq := map[string][]fakeserver.Fault{} // per question, the fault of each call
			srv := cl.server(t, fakeserver.Options{
				MaxRequests: 5000,
				Hang:        5 * time.Second,
				Reply: func(c fakeserver.Call) fakeserver.Reply {
					q := questionOf(c)
					mu.Lock()
					defer mu.Unlock()
					f := fakeserver.NoFault
					if rng.Float64() < 0.2 {
						f = faults[rng.IntN(len(faults))]
					}
					seq[q] = append(seq[q], f)
					return fakeserver.Reply{Text: "answer to " + q, Fault: f}
				},
			})
			dir := t.TempDir()
			cache, err := OpenCache(filepath.Join(dir, "cache"))
			if err != nil {
				t.Fatal(err)
			}
			journal := filepath.Join(dir, "run.journal")
			var sleeps noSleep
			jobs := makeJobs(1000)
			results := &resultLog{m: cl.new(t, srv.URL), seen: map[string][]error{}}
			t0 := time.Now()
			defer func() { t.Logf("run took %v", time.Since(t0)) }()
			got, st, err := collect(t, context.Background(), results, jobs, Options{
				// The attempt's limit sits well under the 5 s a timeout
				// fault hangs, and far above a fault-free reply's
				// latency even under the race detector on a loaded
				// 2-core machine (500 ms let 70-120 of 1000 replies come
				// late there, and a late reply shifts the call script).
				Concurrency: 32, MaxAttempts: 3, Timeout: 2 * time.Second,
				Journal: journal, Cache: cache,
				// Record the waits but keep the test fast: the fake's
				// Retry-After is a whole second.
				Sleep: func(ctx context.Context, d time.Duration) error {
					sleeps.sleep(ctx, d)
					return sleepCtx(ctx, min(d, time.Millisecond))
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(jobs) || st.Answered+st.Failed != len(jobs) {
				t.Fatalf("%d outcomes, stats %+v", len(got), st)
			}
			// The script is read once no handler can write it: a request
			// the client gave up on may still be in one (the race
			// detector saw that under load), and the lock orders the
			// handlers' writes before the reads.
			srv.Close()
			mu.Lock()
			defer mu.Unlock()
			var kinds = map[fakeserver.Fault]int{}
			lateTotal := 0
			rateLimited := 0
			for _, j := range jobs {
				q := j.Task.Question.Name
				o := got[j.Key]
				calls := seq[q]
				for _, f := range calls {
					kinds[f]++
				}
				seen := results.of(q) // what the client saw, attempt by attempt
				if len(seen) != o.Attempts {
					t.Errorf("%s: %d attempts, the model saw %d calls", q, o.Attempts, len(seen))
					continue
				}
				// On a loaded machine a fault-free reply can come after the
				// per-request timeout; the client then sees a timeout the
				// server never injected, which also is retried. Anything
				// else must match the script call for call.
				late := 0
				for i, err := range seen {
					if i >= len(calls) {
						break
					}
					switch {
					case calls[i] == fakeserver.NoFault && err != nil:
						late++
						if !strings.Contains(err.Error(), "deadline exceeded") && !strings.Contains(err.Error(), "timed out") {
							t.Errorf("%s call %d: fault-free reply failed with %v", q, i+1, err)
						}
					case calls[i] != fakeserver.NoFault && err == nil:
						t.Errorf("%s call %d: fault %v came back as an answer", q, i+1, calls[i])
					}
				}
				// Each attempt reached the server once (a request that timed
				// out before arriving is the only excuse for fewer).
				if len(calls) > o.Attempts || len(calls) < o.Attempts-late {
					t.Errorf("%s: server saw %d calls for %d attempts", q, len(calls), o.Attempts)
				}
				lateTotal += late
				if o.Err == nil {
					if o.Response.Text != "answer to "+q || seen[len(seen)-1] != nil {
						t.Errorf("%s: outcome %+v after %v", q, o, seen)
					}
				} else {
					if o.Attempts != 3 || !strings.Contains(o.Err.Error(), `"`+q+`"`) {
						t.Errorf("%s: calls %v, want a final error after 3: %+v (err %v)", q, calls, o, o.Err)
					}
					for i, err := range seen {
						if err == nil {
							t.Errorf("%s: failed although attempt %d answered", q, i+1)
						}
					}
				}
				for _, f := range calls[:min(len(calls), o.Attempts)] {
					if f == fakeserver.RateLimit {
						rateLimited++
					}
				}
			}
			for _, f := range faults {
				if kinds[f] == 0 {
					t.Errorf("fault %v never injected", f)
				}
			}
			if st.Failed == 0 {
				t.Errorf("no job spent its budget: the failure path went untested")
			}
			// Every 429 said Retry-After: 1; each was followed by a wait
			// of at least that long (the backoff), gate waits aside.
			long := 0
			for _, d := range sleeps.ds {
				if d >= time.Second {
					long++
				}
			}
			if long < rateLimited-st.Failed {
				t.Errorf("%d waits of 1s or more for %d rate-limited calls", long, rateLimited)
			}
			t.Logf("%d calls, %d answered, %d failed, faults %v, %d fault-free replies too late", st.Calls, st.Answered, st.Failed, kinds, lateTotal)
			if lateTotal > 50 {
				t.Errorf("%d fault-free replies timed out: the timeout fault no longer tests what it should", lateTotal)
			}
			// The credential reaches neither the journal nor the cache.
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					if b, _ := os.ReadFile(p); strings.Contains(string(b), testAPIKey) {
						t.Errorf("%s contains the API key", p)
					}
				}
				return nil
			})
		})
	}
}

// resultLog is a model that records, per question, the error of each call
// (nil for an answer) as the client saw it.
type resultLog struct {
	m    model.Model
	mu   sync.Mutex
	seen map[string][]error
}

func (r *resultLog) Name() string     { return r.m.Name() }
func (r *resultLog) Info() model.Info { return r.m.Info() }

func (r *resultLog) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	return r.Answer(ctx, model.Task{Request: req})
}

func (r *resultLog) Answer(ctx context.Context, req model.Task) (model.Response, error) {
	resp, err := model.Ask(ctx, r.m, req)
	r.mu.Lock()
	r.seen[req.Question.Name] = append(r.seen[req.Question.Name], err)
	r.mu.Unlock()
	return resp, err
}

func (r *resultLog) of(q string) []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen[q]
}
