package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evalmd/evalmd/model"
)

// funcModel is an in-process model whose answers a test scripts.
type funcModel struct {
	name string
	info model.Info
	f    func(ctx context.Context, req model.Task) (model.Response, error)

	calls       atomic.Int64
	mu          sync.Mutex
	perQuestion map[string]int
	inFlight    int
	maxInFlight int
}

func newFuncModel(f func(ctx context.Context, req model.Task) (model.Response, error)) *funcModel {
	return &funcModel{name: "fake/model", f: f, perQuestion: map[string]int{}}
}

func (m *funcModel) Name() string { return m.name }

func (m *funcModel) Info() model.Info { return m.info }

func (m *funcModel) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	return m.Answer(ctx, model.Task{Request: req})
}

// Answer is an Answerer's, so a test sees the question of each call.
func (m *funcModel) Answer(ctx context.Context, req model.Task) (model.Response, error) {
	m.calls.Add(1)
	m.mu.Lock()
	m.perQuestion[req.Question.Name]++
	m.inFlight++
	m.maxInFlight = max(m.maxInFlight, m.inFlight)
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.inFlight--
		m.mu.Unlock()
	}()
	return m.f(ctx, req)
}

func (m *funcModel) count(q string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.perQuestion[q]
}

// echo answers every question with "answer to " + its name.
func echo(ctx context.Context, req model.Task) (model.Response, error) {
	return model.Response{Text: "answer to " + req.Question.Name, InputTokens: 10, OutputTokens: 3}, nil
}

// makeJobs builds n jobs whose prompts carry their question names, so an
// HTTP fake can tell them apart.
func makeJobs(n int) []Job {
	jobs := make([]Job, n)
	for i := range jobs {
		name := fmt.Sprintf("q%04d", i)
		jobs[i] = Job{
			Key: "sheet.md#" + strconv.Itoa(i) + ":" + name,
			Task: model.Task{
				Request: model.Request{
					System:   "Answer briefly.",
					Messages: []model.Message{{Role: "user", Content: "Q: " + name}},
				},
				Question: model.QuestionRef{Sheet: "sheet.md", Name: name},
			},
		}
	}
	return jobs
}

// collect runs the jobs and returns the outcomes by key, failing the test
// if a key is emitted twice or emit is called concurrently.
func collect(t *testing.T, ctx context.Context, m model.Model, jobs []Job, opt Options) (map[string]Outcome, Stats, error) {
	t.Helper()
	got := make(map[string]Outcome)
	var busy atomic.Bool
	st, err := Run(ctx, m, jobs, opt, func(o Outcome) {
		if !busy.CompareAndSwap(false, true) {
			t.Errorf("emit called concurrently")
		}
		defer busy.Store(false)
		if _, dup := got[o.Key]; dup {
			t.Errorf("%s emitted twice", o.Key)
		}
		got[o.Key] = o
	})
	return got, st, err
}

// noSleep replaces backoff waits in tests, recording what was asked.
type noSleep struct {
	mu sync.Mutex
	ds []time.Duration
}

func (s *noSleep) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.ds = append(s.ds, d)
	s.mu.Unlock()
	return ctx.Err()
}

// httpModel is a minimal OpenAI chat-completions client used by this
// package's tests against internal/testkit/fakeserver, so the runner's tests do
// not depend on the providers' package. It classifies failures the way
// providers must (*model.APIError), except that it returns transport and
// timeout errors unclassified, which exercises the runner's own fallback.
type httpModel struct {
	name, base, apiKey string
	client             *http.Client
}

func newHTTPModel(name, base, apiKey string) *httpModel {
	return &httpModel{name: name, base: base, apiKey: apiKey, client: &http.Client{Transport: &http.Transport{
		MaxIdleConns:        256,
		MaxIdleConnsPerHost: 256, // as many as requests in flight, or connections churn
		IdleConnTimeout:     30 * time.Second,
	}}}
}

func (m *httpModel) Name() string     { return m.name }
func (m *httpModel) Info() model.Info { return model.Info{Provider: "openai-api", BaseURL: m.base} }

func (m *httpModel) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	type msg struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	var msgs []msg
	if req.System != "" {
		msgs = append(msgs, msg{"system", req.System})
	}
	for _, mm := range req.Messages {
		msgs = append(msgs, msg{mm.Role, mm.Content})
	}
	body, err := json.Marshal(map[string]any{"model": strings.TrimPrefix(m.name, "openai/"), "messages": msgs})
	if err != nil {
		return model.Response{}, err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, m.base+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return model.Response{}, err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Authorization", "Bearer "+m.apiKey)
	resp, err := m.client.Do(hr)
	if err != nil {
		return model.Response{}, err // unclassified on purpose (see type doc)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return model.Response{}, err
	}
	if resp.StatusCode != http.StatusOK {
		ae := &model.APIError{Provider: "openai", Status: resp.StatusCode, Message: strings.TrimSpace(string(data)),
			Retryable: resp.StatusCode == 429 || resp.StatusCode >= 500}
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
			ae.RetryAfter = time.Duration(s) * time.Second
		}
		return model.Response{}, ae
	}
	var out struct {
		Model   string `json:"model"`
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
		Usage struct {
			Prompt     int `json:"prompt_tokens"`
			Completion int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(data, &out); err != nil || len(out.Choices) == 0 {
		return model.Response{}, &model.APIError{Provider: "openai", Status: resp.StatusCode, Retryable: true,
			Message: fmt.Sprintf("malformed reply: %v", err)}
	}
	return model.Response{Text: out.Choices[0].Message.Content, InputTokens: out.Usage.Prompt,
		OutputTokens: out.Usage.Completion, Model: out.Model}, nil
}
