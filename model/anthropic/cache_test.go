package anthropic

import (
	"context"
	"math"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/internal/providertest"
)

// Anthropic's input_tokens leaves out the tokens read from and written to
// the prompt cache: the Response counts them in its input and apart, and
// Cost prices reads at a tenth of the input price and writes at 1.25x.
func TestCachedTokensReadAndPriced(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply fakeserver.Reply
		want  model.Usage
		cost  float64
	}{
		{
			// The fake reports input_tokens 200, cache_read_input_tokens
			// 2000, cache_creation_input_tokens 300.
			name:  "read and write",
			reply: fakeserver.Reply{Text: "ok", InputTokens: 2500, CacheReadTokens: 2000, CacheWriteTokens: 300, OutputTokens: 50},
			want:  model.Usage{In: 2500, CacheRead: 2000, CacheWrite: 300, Out: 50},
			// claude-sonnet-4-5: 200 at $3, 2000 read at $0.30, 300
			// written at $3.75, 50 out at $15.
			cost: (200*3 + 2000*0.30 + 300*3.75 + 50*15) / 1e6,
		},
		{
			name:  "no cache",
			reply: fakeserver.Reply{Text: "ok", InputTokens: 2500, OutputTokens: 50},
			want:  model.Usage{In: 2500, Out: 50},
			cost:  (2500*3 + 50*15) / 1e6,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeAnthropic(t, fakeserver.Options{Reply: func(fakeserver.Call) fakeserver.Reply { return tc.reply }})
			m, err := newModel("anthropic/claude-sonnet-4-5", model.Options{BaseURL: srv.URL, APIKey: "sk-ant-test"})
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
			// A server at another URL is unpriced: the test takes the
			// table's price for the model.
			info := m.Info()
			p, _ := model.LookupPrice("claude-sonnet-4-5")
			info.Price = &p
			cost, ok := model.Cost(info, resp.Usage(), nil)
			if !ok || math.Abs(cost-tc.cost) > 1e-12 {
				t.Errorf("cost = %v, %v; want %v", cost, ok, tc.cost)
			}
		})
	}
}

// A Message Batches result line is read as the live reply, the cache
// counts too, priced at half the live rates.
func TestBatchResultCachedTokens(t *testing.T) {
	m, err := newModel("anthropic/claude-haiku-4-5", model.Options{APIKey: "sk-ant-test"})
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(`{"custom_id":"q-1","result":{"type":"succeeded","message":{"id":"msg_1","type":"message","role":"assistant",` +
		`"model":"claude-haiku-4-5-20251001","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","stop_sequence":null,` +
		`"usage":{"input_tokens":100,"cache_creation_input_tokens":400,"cache_read_input_tokens":1500,"output_tokens":20}}}}`)
	r, err := m.(*messagesModel).result(line)
	if err != nil || r.Err != nil {
		t.Fatalf("result = %+v, %v", r, err)
	}
	if u := r.Response.Usage(); u != (model.Usage{In: 2000, Out: 20, CacheRead: 1500, CacheWrite: 400}) {
		t.Errorf("usage = %+v", u)
	}
	info := m.Info()
	bp := model.BatchPrice(*info.Price)
	info.Price = &bp
	// claude-haiku-4-5 at half price: 100 at $0.50, 1500 read at $0.05,
	// 400 written at $0.625, 20 out at $2.50.
	want := (100*0.50 + 1500*0.05 + 400*0.625 + 20*2.50) / 1e6
	if cost, ok := model.Cost(info, r.Response.Usage(), nil); !ok || math.Abs(cost-want) > 1e-12 {
		t.Errorf("batch cost = %v, %v; want %v", cost, ok, want)
	}
}
