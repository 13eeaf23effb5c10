package openai

import (
	"context"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/internal/providertest"
)

func TestBatchLineIsTheLiveRequest(t *testing.T) {
	for _, base := range []string{"", "other"} {
		live := fakeserver.NewOpenAI(t, fakeserver.Options{})
		opt := model.Options{APIKey: "sk-test-key"}
		if base == "" {
			opt.HTTPClient = redirect(t, live.URL) // api.openai.com: max_completion_tokens
		} else {
			opt.BaseURL = live.URL // another server: max_tokens
		}
		m, err := newModel("openai/gpt-4o", opt)
		if err != nil {
			t.Fatal(err)
		}
		req := providertest.FullRequest()
		req.Settings.ReasoningEffort = model.ReasoningHigh // a batch carries the reasoning settings too
		if _, err := m.Complete(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		line, err := providertest.BatchOf(t, m).BatchLine("q-1", req)
		if err != nil {
			t.Fatal(err)
		}
		providertest.BatchLineIsLive(t, line, "q-1", live.Calls()[0].Body, "body")
		if !strings.Contains(string(line), `"reasoning_effort":"high"`) {
			t.Errorf("batch line without the effort: %s", line)
		}
	}
}

func TestBatchLifecycle(t *testing.T) {
	srv := fakeserver.NewOpenAIBatch(t, fakeserver.BatchOptions{Reply: providertest.BatchReply, Expire: providertest.BatchExpire, Polls: 2})
	m, err := newModel("openai/gpt-4o", model.Options{APIKey: "sk-test-key", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	providertest.BatchLifecycle(t, providertest.BatchOf(t, m), srv, true)
}

func TestBatchNeedsTheAPI(t *testing.T) {
	srv := fakeserver.NewOpenAIBatch(t, fakeserver.BatchOptions{NoBatchAPI: true})
	m, err := newModel("vllm/llama", model.Options{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	providertest.NoBatchAPI(t, providertest.BatchOf(t, m), "does not serve OpenAI's Files and Batches APIs")
	text, err := newModel("vllm/llama", model.Options{BaseURL: srv.URL, Provider: []any{Options{CompletionAPI: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := text.(model.Batcher).Batch(); err == nil {
		t.Error("a --completion-api model offered a batch API")
	}
}

// A batch's results file is read a line at a time, each line capped
// (providertest.BatchLineCap).
func TestBatchResultLineCap(t *testing.T) {
	srv := fakeserver.NewOpenAIBatch(t, fakeserver.BatchOptions{Reply: providertest.LineCapReply})
	m, err := newModel("openai/gpt-4o", model.Options{APIKey: "sk-test-key", BaseURL: srv.URL, MaxReply: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	providertest.BatchLineCap(t, providertest.BatchOf(t, m))
}
