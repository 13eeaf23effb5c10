package model

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/fakeserver"
)

func ptr[T any](v T) *T { return &v }

// pngBytes is not a real PNG: the providers only base64 it, and the fake
// servers decode it back, so any bytes show the round trip.
var pngBytes = []byte("\x89PNG\r\n\x1a\nfake-image-bytes")

// fullRequest exercises every part of a Request a provider sends.
func fullRequest() Request {
	return Request{
		System: "You are terse.",
		Messages: []Message{
			{Role: "user", Content: "first question"},
			{Role: "assistant", Content: "first answer"},
			{Role: "user", Content: "What is in the picture?", Images: []Image{{MediaType: "image/png", Data: pngBytes}}},
		},
		Settings: Settings{
			Temperature: ptr(0.25),
			TopP:        ptr(0.9),
			MaxTokens:   123,
			Seed:        ptr(int64(42)),
			Stop:        []string{"END", "STOP"},
		},
		Question: QuestionRef{Sheet: "s", Name: "q1"},
	}
}

func TestOpenAIRequestAndUsage(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{
		Reply: func(c fakeserver.Call) fakeserver.Reply {
			return fakeserver.Reply{Text: "a cat", InputTokens: 321, OutputTokens: 12, Model: "gpt-4o-2024-08-06"}
		},
	})
	m, err := New("openai/gpt-4o", Options{BaseURL: srv.URL, APIKey: "sk-test-key"})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := m.Complete(context.Background(), fullRequest())
	if err != nil {
		t.Fatal(err)
	}
	want := Response{Text: "a cat", InputTokens: 321, OutputTokens: 12, Model: "gpt-4o-2024-08-06"}
	if resp != want {
		t.Errorf("response = %+v, want %+v", resp, want)
	}
	calls := srv.Calls()
	if len(calls) != 1 {
		t.Fatalf("server saw %d calls, want 1", len(calls))
	}
	c := calls[0]
	if got := c.Header.Get("Authorization"); got != "Bearer sk-test-key" {
		t.Errorf("Authorization = %q", got)
	}
	if c.Model != "gpt-4o" {
		t.Errorf("model = %q, want gpt-4o", c.Model)
	}
	roles := []string{}
	for _, msg := range c.Messages {
		roles = append(roles, msg.Role)
	}
	if strings.Join(roles, ",") != "system,user,assistant,user" {
		t.Errorf("roles = %v", roles)
	}
	if c.System != "You are terse." {
		t.Errorf("system = %q", c.System)
	}
	if c.Messages[1].Text != "first question" || c.Messages[2].Text != "first answer" || c.Messages[3].Text != "What is in the picture?" {
		t.Errorf("message texts = %+v", c.Messages)
	}
	imgs := c.Messages[3].Images
	if len(imgs) != 1 || imgs[0].MediaType != "image/png" || !bytes.Equal(imgs[0].Data, pngBytes) {
		t.Errorf("images = %+v", imgs)
	}
	s := c.Settings
	if s.Temperature == nil || *s.Temperature != 0.25 || s.TopP == nil || *s.TopP != 0.9 {
		t.Errorf("temperature/top_p = %v/%v", s.Temperature, s.TopP)
	}
	// OpenAI itself gets max_completion_tokens, never the deprecated max_tokens.
	if s.MaxCompletionTokens == nil || *s.MaxCompletionTokens != 123 || s.MaxTokens != nil {
		t.Errorf("max_completion_tokens = %v, max_tokens = %v", s.MaxCompletionTokens, s.MaxTokens)
	}
	if s.Seed == nil || *s.Seed != 42 {
		t.Errorf("seed = %v", s.Seed)
	}
	if strings.Join(s.Stop, "|") != "END|STOP" {
		t.Errorf("stop = %v", s.Stop)
	}
}

func TestOpenAICompatibleSendsMaxTokensAndNoForeignKey(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{})
	env := map[string]string{"OPENAI_API_KEY": "sk-real-openai-key"}
	for _, name := range []string{"vllm/qwen", "ollama/llama3", "llamacpp/x", "openai-api/together/meta/llama", "some-model"} {
		m, err := New(name, Options{BaseURL: srv.URL, Getenv: func(k string) string { return env[k] }})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		req := Request{Messages: []Message{{Role: "user", Content: "hi"}}, Settings: Settings{MaxTokens: 7}}
		if _, err := m.Complete(context.Background(), req); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	wantModels := []string{"qwen", "llama3", "x", "meta/llama", "some-model"}
	calls := srv.Calls()
	if len(calls) != len(wantModels) {
		t.Fatalf("got %d calls, want %d", len(calls), len(wantModels))
	}
	for i, c := range calls {
		if c.Model != wantModels[i] {
			t.Errorf("call %d: model %q, want %q", i, c.Model, wantModels[i])
		}
		if c.Settings.MaxTokens == nil || *c.Settings.MaxTokens != 7 || c.Settings.MaxCompletionTokens != nil {
			t.Errorf("call %d: max_tokens = %v, max_completion_tokens = %v", i, c.Settings.MaxTokens, c.Settings.MaxCompletionTokens)
		}
		if got := c.Header.Get("Authorization"); got != "" {
			t.Errorf("call %d: OPENAI_API_KEY leaked to a compatible server as %q", i, got)
		}
		if c.System != "" || len(c.Messages) != 1 {
			t.Errorf("call %d: want one user message and no system, got %+v", i, c.Messages)
		}
		if s := c.Settings; s.Temperature != nil || s.TopP != nil || s.Seed != nil || s.Stop != nil {
			t.Errorf("call %d: unset settings were sent: %+v", i, s)
		}
	}
}

// errorCase is one server behaviour and how a provider must classify it.
type errorCase struct {
	name       string
	reply      fakeserver.Reply
	status     int
	retryable  bool
	retryAfter time.Duration
	contains   string // in the error message
}

func errorCases() []errorCase {
	return []errorCase{
		{name: "400", reply: fakeserver.Reply{Status: 400, Message: "bad request"}, status: 400, contains: "bad request"},
		{name: "401", reply: fakeserver.Reply{Status: 401, Message: "invalid key"}, status: 401, contains: "invalid key"},
		{name: "403", reply: fakeserver.Reply{Status: 403}, status: 403},
		{name: "404", reply: fakeserver.Reply{Status: 404, Message: "no such model"}, status: 404, contains: "no such model"},
		{name: "408", reply: fakeserver.Reply{Status: 408}, status: 408, retryable: true},
		{name: "409", reply: fakeserver.Reply{Status: 409}, status: 409, retryable: true},
		{name: "429 retry-after", reply: fakeserver.Reply{Status: 429, Message: "slow down", RetryAfter: "7"}, status: 429, retryable: true, retryAfter: 7 * time.Second, contains: "slow down"},
		{name: "500", reply: fakeserver.Reply{Status: 500}, status: 500, retryable: true},
		{name: "502 plain text", reply: fakeserver.Reply{Status: 502, RawBody: "<html>bad gateway</html>"}, status: 502, retryable: true, contains: "Bad Gateway"},
		{name: "503", reply: fakeserver.Reply{Status: 503}, status: 503, retryable: true},
		{name: "529 overloaded", reply: fakeserver.Reply{Status: 529, Message: "overloaded"}, status: 529, retryable: true},
		{name: "rate-limit fault", reply: fakeserver.Reply{Fault: fakeserver.RateLimit}, status: 429, retryable: true, retryAfter: 2 * time.Second},
		{name: "server-error fault", reply: fakeserver.Reply{Fault: fakeserver.ServerError}, status: 500, retryable: true},
		{name: "connection reset", reply: fakeserver.Reply{Fault: fakeserver.Reset}, retryable: true, contains: "transport"},
		{name: "malformed json", reply: fakeserver.Reply{Fault: fakeserver.MalformedJSON}, retryable: true, contains: "malformed"},
		{name: "timeout", reply: fakeserver.Reply{Fault: fakeserver.Timeout}, retryable: true, contains: "timed out"},
	}
}

// checkErrorCases runs every errorCase against a fresh fake server built by
// start and a model built by build.
func checkErrorCases(t *testing.T, start func(*testing.T, fakeserver.Options) *fakeserver.Server, build func(url string) (Model, error)) {
	for _, tc := range errorCases() {
		t.Run(tc.name, func(t *testing.T) {
			srv := start(t, fakeserver.Options{
				Reply:      func(fakeserver.Call) fakeserver.Reply { return tc.reply },
				RetryAfter: 2 * time.Second,
				Hang:       5 * time.Second,
			})
			m, err := build(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			req := Request{Messages: []Message{{Role: "user", Content: "hi"}}, Question: QuestionRef{Name: "q-err"}}
			begin := time.Now()
			_, err = m.Complete(context.Background(), req)
			t.Log(err)
			var apiErr *APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("error %v (%T) is not an *APIError", err, err)
			}
			if apiErr.Status != tc.status || apiErr.Retryable != tc.retryable || apiErr.RetryAfter != tc.retryAfter {
				t.Errorf("got status %d retryable %v retry-after %v, want %d %v %v (%v)",
					apiErr.Status, apiErr.Retryable, apiErr.RetryAfter, tc.status, tc.retryable, tc.retryAfter, err)
			}
			if !strings.Contains(err.Error(), tc.contains) {
				t.Errorf("error %q does not contain %q", err, tc.contains)
			}
			if !strings.Contains(err.Error(), `"q-err"`) {
				t.Errorf("error %q does not name the question", err)
			}
			if n := srv.Count(); n != 1 {
				t.Errorf("server saw %d requests, want 1: the SDK must not retry", n)
			}
			if d := time.Since(begin); d > 3*time.Second {
				t.Errorf("took %v: the client timeout did not apply", d)
			}
		})
	}
}

func TestOpenAIErrorClassification(t *testing.T) {
	checkErrorCases(t,
		func(t *testing.T, o fakeserver.Options) *fakeserver.Server { return fakeserver.NewOpenAI(t, o) },
		func(url string) (Model, error) {
			return New("openai/gpt-4o", Options{BaseURL: url, APIKey: "test-key-1", Timeout: 300 * time.Millisecond})
		})
}

// secret is a key that must never appear in an error message.
const secret = "sk-test-SECRET123"

// echoAuth answers 401 quoting the credentials the client sent, in the JSON
// error message and in a raw body, as a careless proxy might.
func echoAuth(raw bool) func(fakeserver.Call) fakeserver.Reply {
	return func(c fakeserver.Call) fakeserver.Reply {
		echo := "auth=" + c.Header.Get("Authorization") + " x-api-key=" + c.Header.Get("X-Api-Key")
		if raw {
			return fakeserver.Reply{Status: 401, RawBody: echo}
		}
		return fakeserver.Reply{Status: 401, Message: "bad credentials: " + echo}
	}
}

func checkKeyNeverInError(t *testing.T, start func(*testing.T, fakeserver.Options) *fakeserver.Server, name string) {
	for _, raw := range []bool{false, true} {
		srv := start(t, fakeserver.Options{Reply: echoAuth(raw)})
		m, err := New(name, Options{BaseURL: srv.URL, APIKey: secret})
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.Complete(context.Background(), Request{Messages: []Message{{Role: "user", Content: "hi"}}})
		if err == nil {
			t.Fatal("want an error")
		}
		if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "SECRET123") {
			t.Errorf("raw=%v: the key leaked into the error: %v", raw, err)
		}
		// The server did echo the key: the JSON message is kept, scrubbed.
		if !raw && !strings.Contains(err.Error(), "[redacted]") {
			t.Errorf("raw=%v: want the echoed key scrubbed to [redacted]: %v", raw, err)
		}
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.Status != 401 || apiErr.Retryable {
			t.Errorf("raw=%v: want a non-retryable 401 APIError, got %v", raw, err)
		}
	}
}

func TestOpenAIKeyNeverInError(t *testing.T) {
	checkKeyNeverInError(t, func(t *testing.T, o fakeserver.Options) *fakeserver.Server { return fakeserver.NewOpenAI(t, o) }, "openai/gpt-4o")
}

func TestOpenAICallerCancelIsNotAPIError(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{Latency: 5 * time.Second})
	m, err := New("openai/gpt-4o", Options{BaseURL: srv.URL, APIKey: "test-key-1"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = m.Complete(ctx, Request{Messages: []Message{{Role: "user", Content: "hi"}}})
	var apiErr *APIError
	if !errors.Is(err, context.DeadlineExceeded) || errors.As(err, &apiErr) {
		t.Errorf("want the caller's context error, not an APIError; got %v", err)
	}
}

func TestOpenAIBadRequestsFailBeforeSending(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{})
	m, err := New("openai/gpt-4o", Options{BaseURL: srv.URL, APIKey: "test-key-1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, req := range []Request{
		{},
		{Messages: []Message{{Role: "tool", Content: "x"}}},
		{Messages: []Message{{Role: "user", Content: "x", Images: []Image{{MediaType: "image/png"}}}}},
	} {
		if _, err := m.Complete(context.Background(), req); err == nil {
			t.Errorf("request %+v: want an error", req)
		}
	}
	if n := srv.Count(); n != 0 {
		t.Errorf("server saw %d requests, want 0", n)
	}
}

func TestRetryAfterHeader(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		header map[string]string
		want   time.Duration
	}{
		{nil, 0},
		{map[string]string{"Retry-After": "3"}, 3 * time.Second},
		{map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond},
		{map[string]string{"Retry-After": "-1"}, 0},
		{map[string]string{"Retry-After": "soon"}, 0},
		{map[string]string{"Retry-After": now.Add(10 * time.Second).Format(http.TimeFormat)}, 10 * time.Second},
		{map[string]string{"Retry-After": now.Add(-10 * time.Second).Format(http.TimeFormat)}, 0},
		{map[string]string{"Retry-After-Ms": "250", "Retry-After": "3"}, 250 * time.Millisecond},
	} {
		h := http.Header{}
		for k, v := range tc.header {
			h.Set(k, v)
		}
		if got := retryAfter(h, now); got != tc.want {
			t.Errorf("retryAfter(%v) = %v, want %v", tc.header, got, tc.want)
		}
	}
}

func TestOpenAIConcurrentUse(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{
		Latency: 50 * time.Millisecond,
		Reply: func(c fakeserver.Call) fakeserver.Reply {
			return fakeserver.Reply{Text: "re: " + c.LastUserText()}
		},
	})
	m, err := New("vllm/x", Options{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	const n = 16
	errs := make(chan error, n)
	for i := range n {
		go func() {
			q := fmt.Sprintf("question %d", i)
			resp, err := m.Complete(context.Background(), Request{Messages: []Message{{Role: "user", Content: q}}})
			if err == nil && resp.Text != "re: "+q {
				err = fmt.Errorf("%s: got %q", q, resp.Text)
			}
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if got := srv.MaxInFlight(); got < 2 {
		t.Errorf("MaxInFlight = %d: requests were serialised", got)
	}
}
