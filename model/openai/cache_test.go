package openai

import (
	"context"
	"math"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/internal/providertest"
)

// OpenAI's usage counts the cached tokens inside prompt_tokens (chat) and
// input_tokens (Responses): the Response keeps that count as its input
// and the cached part apart, and Cost prices the cached part at the
// model's cached-input price.
func TestCachedTokensReadAndPriced(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start func(testing.TB, fakeserver.Options) *fakeserver.Server
		model string
		reply fakeserver.Reply
		want  model.Usage
		cost  float64
	}{
		{
			name: "chat", start: fakeserver.NewOpenAI, model: "openai/gpt-4o",
			reply: fakeserver.Reply{Text: "ok", InputTokens: 2000, CacheReadTokens: 1536, OutputTokens: 100},
			want:  model.Usage{In: 2000, CacheRead: 1536, Out: 100},
			// gpt-4o: 464 plain at $2.50, 1536 cached at $1.25, 100 out at $10.
			cost: (464*2.50 + 1536*1.25 + 100*10) / 1e6,
		},
		{
			name: "responses", start: fakeserver.NewOpenAIResponses, model: "openai-responses/gpt-4.1",
			reply: fakeserver.Reply{Text: "ok", InputTokens: 3000, CacheReadTokens: 2048, OutputTokens: 200},
			want:  model.Usage{In: 3000, CacheRead: 2048, Out: 200},
			// gpt-4.1: 952 plain at $2, 2048 cached at $0.50, 200 out at $8.
			cost: (952*2 + 2048*0.50 + 200*8) / 1e6,
		},
		{
			name: "no cache", start: fakeserver.NewOpenAI, model: "openai/gpt-4o",
			reply: fakeserver.Reply{Text: "ok", InputTokens: 2000, OutputTokens: 100},
			want:  model.Usage{In: 2000, Out: 100},
			cost:  (2000*2.50 + 100*10) / 1e6,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := tc.start(t, fakeserver.Options{Reply: func(fakeserver.Call) fakeserver.Reply { return tc.reply }})
			m, err := newModel(tc.model, model.Options{APIKey: "sk-test", HTTPClient: redirect(t, srv.URL)})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := m.Complete(context.Background(), providertest.FullRequest())
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.Usage(); resp.Text != "ok" || got != tc.want {
				t.Errorf("text %q, usage = %+v, want %+v", resp.Text, got, tc.want)
			}
			cost, ok := model.Cost(m.Info(), resp.Usage(), nil)
			if !ok || math.Abs(cost-tc.cost) > 1e-12 {
				t.Errorf("cost = %v, %v; want %v", cost, ok, tc.cost)
			}
		})
	}
}

// A batch's result line is read as the live reply: its cached tokens too,
// priced at half the live rates.
func TestBatchResultCachedTokens(t *testing.T) {
	m, err := newModel("openai/gpt-4o", model.Options{APIKey: "sk-test"})
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(`{"id":"batch_req_1","custom_id":"q-1","response":{"status_code":200,"request_id":"r1","body":` +
		`{"id":"chatcmpl-1","object":"chat.completion","model":"gpt-4o-2024-08-06","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":2000,"completion_tokens":100,"total_tokens":2100,"prompt_tokens_details":{"cached_tokens":1024,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}},"error":null}`)
	r, err := providertest.BatchOf(t, m).(*batchAPI).resultOf(line)
	if err != nil || r.Err != nil {
		t.Fatalf("resultOf = %+v, %v", r, err)
	}
	if u := r.Response.Usage(); u != (model.Usage{In: 2000, Out: 100, CacheRead: 1024}) {
		t.Errorf("usage = %+v", u)
	}
	info := m.Info()
	bp := model.BatchPrice(*info.Price)
	info.Price = &bp
	// Half of 976 at $2.50, 1024 at $1.25 and 100 out at $10.
	want := (976*1.25 + 1024*0.625 + 100*5) / 1e6
	if cost, ok := model.Cost(info, r.Response.Usage(), nil); !ok || math.Abs(cost-want) > 1e-12 {
		t.Errorf("batch cost = %v, %v; want %v", cost, ok, want)
	}
}
