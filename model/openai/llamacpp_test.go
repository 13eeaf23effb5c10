package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/internal/providertest"
)

// llamaCppURLVar names the base URL (…/v1) of a running llama.cpp server
// (llama-server) that TestLlamaCppServer sends to. It is opt-in: CI has no
// llama.cpp, and the test is skipped without it. scripts/llamacpp-tiny
// starts one with a tiny random-weight model; any model without a thinking
// phase will do (one that thinks spends the few tokens asked for on its
// reasoning, leaving no text), as the test checks what the server does
// with a request, not what it answers.
const llamaCppURLVar = "EVALMD_LLAMACPP_URL"

// TestLlamaCppServer sends chat and raw completion requests through the
// provider (llamacpp/NAME, with and without --completion-api) to a real
// llama.cpp server and checks what comes back: the text, the server's
// usage, its finish reason and model; and that max_tokens, seed, stop and
// temperature reach it and take effect there. A request past the server's
// context and a reply past the cap fail with one clear, non-retryable line.
func TestLlamaCppServer(t *testing.T) {
	base := os.Getenv(llamaCppURLVar)
	if base == "" {
		t.Skipf("%s is not set: no llama.cpp server to test against (scripts/llamacpp-tiny starts one)", llamaCppURLVar)
	}
	for _, api := range []struct {
		name string
		opt  Options
		path string
	}{
		{"chat", Options{}, "/chat/completions"},
		{"completion-api", Options{CompletionAPI: true}, "/completions"},
	} {
		t.Run(api.name, func(t *testing.T) {
			rec := &recorder{}
			opt := model.Options{BaseURL: base, HTTPClient: rec.client(), Timeout: time.Minute, Provider: []any{api.opt},
				Getenv: func(k string) string {
					if k == "LLAMACPP_API_KEY" { // a server started with --api-key
						return os.Getenv(k)
					}
					return ""
				}}
			m, err := newModel("llamacpp/tiny", opt)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			ask := func(s model.Settings, prompt string) (model.Response, error) {
				return m.Complete(ctx, model.Request{Messages: []model.Message{{Role: "user", Content: prompt}}, Settings: s})
			}
			zero, seed := 0.0, int64(1)
			const count = "Count from 1 to 100, separated by commas:"

			// max_tokens 4: the reply is cut there, and says so.
			res, err := ask(model.Settings{MaxTokens: 4, Temperature: &zero, Seed: &seed}, count)
			if err != nil {
				t.Fatal(err)
			}
			if res.Text == "" || res.InputTokens <= 0 || res.OutputTokens <= 0 || res.OutputTokens > 4 || res.FinishReason != "length" || res.Model == "" {
				t.Errorf("max_tokens 4: text %q, tokens %d in / %d out, finish %q, model %q; want text, tokens > 0 in and 1-4 out, finish length, the server's model",
					res.Text, res.InputTokens, res.OutputTokens, res.FinishReason, res.Model)
			}
			sent := rec.last(t)
			if !strings.HasSuffix(sent.path, api.path) || sent.body["model"] != "tiny" || sent.body["max_tokens"] != 4.0 || sent.body["seed"] != 1.0 || sent.body["temperature"] != 0.0 {
				t.Errorf("sent %s %v, want %s with model tiny, max_tokens 4, seed 1, temperature 0", sent.path, sent.body, api.path)
			}

			// stop: the same greedy reply, cut before its first stop string.
			whole, err := ask(model.Settings{MaxTokens: 16, Temperature: &zero, Seed: &seed}, count)
			if err != nil {
				t.Fatal(err)
			}
			stop := stopIn(whole.Text)
			if stop == "" {
				t.Fatalf("greedy reply %q has no character past the first to stop at", whole.Text)
			}
			cut, err := ask(model.Settings{MaxTokens: 16, Temperature: &zero, Seed: &seed, Stop: []string{stop}}, count)
			if err != nil {
				t.Fatal(err)
			}
			if want := whole.Text[:strings.Index(whole.Text, stop)]; cut.Text != want || cut.FinishReason != "stop" || cut.OutputTokens >= whole.OutputTokens {
				t.Errorf("stop %q: text %q, finish %q, %d tokens out; want %q (of %q), finish stop, fewer than %d tokens",
					stop, cut.Text, cut.FinishReason, cut.OutputTokens, want, whole.Text, whole.OutputTokens)
			}
			if got := rec.last(t).body["stop"]; !jsonEqual(got, []any{stop}) {
				t.Errorf("sent stop %v, want [%q]", got, stop)
			}

			// seed: sampling at temperature 1, one seed gives one reply;
			// some seeds give others (the server's default seed is random).
			one := 1.0
			sample := func(seed int64) string {
				res, err := ask(model.Settings{MaxTokens: 12, Temperature: &one, Seed: &seed}, "Write some random letters:")
				if err != nil {
					t.Fatal(err)
				}
				return res.Text
			}
			if a, b := sample(7), sample(7); a != b {
				t.Errorf("seed 7 twice at temperature 1: %q then %q, want the same reply", a, b)
			}
			replies := map[string]bool{}
			for s := int64(1); s <= 5; s++ {
				replies[sample(s)] = true
			}
			if len(replies) < 2 {
				t.Errorf("seeds 1-5 at temperature 1 gave one reply %v: the seed did not reach the sampler", replies)
			}

			// A prompt past the server's context: refused with 400, in one line.
			_, err = ask(model.Settings{MaxTokens: 4}, strings.Repeat("lorem ipsum ", serverContext(t, ctx, base, rec.client())))
			var apiErr *model.APIError
			if !errors.As(err, &apiErr) || apiErr.Status != http.StatusBadRequest || apiErr.Retryable || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "context") {
				t.Errorf("prompt past the context: %v, want a non-retryable HTTP 400 naming the context, in one line", err)
			}

			// A reply past --max-reply: refused, not retried, in one line.
			opt.MaxReply = 64
			capped, err := newModel("llamacpp/tiny", opt)
			if err != nil {
				t.Fatal(err)
			}
			_, err = capped.Complete(ctx, model.Request{Messages: []model.Message{{Role: "user", Content: count}}, Settings: model.Settings{MaxTokens: 4}})
			if !errors.As(err, &apiErr) || apiErr.Retryable || !strings.Contains(err.Error(), "reply larger than 64 bytes") || strings.Contains(err.Error(), "\n") {
				t.Errorf("reply past a 64-byte cap: %v, want a non-retryable error naming the cap, in one line", err)
			}
		})
	}
}

// stopIn picks a stop string from a reply: its first character past the
// first that is not a space, so the reply cut there keeps some text.
func stopIn(text string) string {
	for i, r := range text {
		if i > 0 && !unicode.IsSpace(r) && r != unicode.ReplacementChar {
			return string(r)
		}
	}
	return ""
}

// serverContext asks the server's model list for its context in tokens
// (llama.cpp's meta.n_ctx) and returns a word count sure to pass it.
func serverContext(t *testing.T, ctx context.Context, base string, client *http.Client) int {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+"/models", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var models struct {
		Data []struct {
			Meta struct {
				NCtx int `json:"n_ctx"`
			} `json:"meta"`
		} `json:"data"`
	}
	if err := json.NewDecoder(res.Body).Decode(&models); err != nil || len(models.Data) == 0 || models.Data[0].Meta.NCtx <= 0 {
		t.Fatalf("GET /models: no data[0].meta.n_ctx (err %v): is this llama.cpp's server?", err)
	}
	return models.Data[0].Meta.NCtx + 16
}

// recorder keeps the requests its client sends: the path and the JSON
// body.
type recorder struct {
	mu   sync.Mutex
	sent []sentRequest
}

type sentRequest struct {
	path string
	body map[string]any
}

func (r *recorder) client() *http.Client {
	return &http.Client{Transport: roundTripFunc(func(req *http.Request) (*http.Response, error) {
		s := sentRequest{path: req.URL.Path}
		if req.Body != nil {
			data, err := io.ReadAll(req.Body)
			if err != nil {
				return nil, err
			}
			req.Body.Close()
			json.Unmarshal(data, &s.body)
			req = req.Clone(req.Context())
			req.Body = io.NopCloser(bytes.NewReader(data))
		}
		r.mu.Lock()
		r.sent = append(r.sent, s)
		r.mu.Unlock()
		return http.DefaultTransport.RoundTrip(req)
	})}
}

// last is the last request sent.
func (r *recorder) last(t *testing.T) sentRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.sent) == 0 {
		t.Fatal("no request sent")
	}
	return r.sent[len(r.sent)-1]
}

// jsonEqual says whether two decoded JSON values are the same.
func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// TestServerErrorsRetried: llama.cpp (and ollama) answer an image sent to a
// model loaded without its projector with HTTP 500, which a retry only
// repeats (six attempts, 20 s a question against llama-server), so that
// one is final; other 500s stay worth a retry, llama.cpp's "Context size
// has been exceeded" among them (its slots' shared KV cache full under
// concurrent requests, which a retry got through).
func TestServerErrorsRetried(t *testing.T) {
	for _, tc := range []struct {
		body  string
		retry bool
	}{
		{`{"error":{"code":500,"message":"image input is not supported - hint: if this is unexpected, you may need to provide the mmproj","type":"server_error"}}`, false},
		{`{"error":{"code":500,"message":"audio input is not supported - hint: if this is unexpected, you may need to provide the mmproj","type":"server_error"}}`, false},
		{`{"error":{"code":500,"message":"Context size has been exceeded.","type":"server_error"}}`, true},
		{`{"error":{"message":"internal error","type":"server_error"}}`, true},
	} {
		srv := fakeserver.NewOpenAI(t, fakeserver.Options{Reply: func(fakeserver.Call) fakeserver.Reply {
			return fakeserver.Reply{Status: http.StatusInternalServerError, RawBody: tc.body}
		}})
		m, err := newModel("llamacpp/tiny", model.Options{BaseURL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.Complete(context.Background(), providertest.FullRequest())
		var apiErr *model.APIError
		if !errors.As(err, &apiErr) || apiErr.Status != http.StatusInternalServerError || apiErr.Retryable != tc.retry {
			t.Errorf("%s: %v (%+v), want an HTTP 500 error, retryable %v", tc.body, err, apiErr, tc.retry)
		}
	}
}
