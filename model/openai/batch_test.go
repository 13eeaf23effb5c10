package openai

import (
	"context"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/fakeserver"
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
		if _, err := m.Complete(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		line, err := providertest.BatchOf(t, m).BatchLine("q-1", req)
		if err != nil {
			t.Fatal(err)
		}
		providertest.BatchLineIsLive(t, line, "q-1", live.Calls()[0].Body, "body")
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
	text, err := newModel("vllm/llama", model.Options{BaseURL: srv.URL, CompletionAPI: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := text.(model.Batcher).Batch(); err == nil {
		t.Error("a --completion-api model offered a batch API")
	}
}

// A batch's results file is read a line at a time, each line capped as a
// live reply is (--max-reply, plus room for the envelope): a longer line
// is one error naming the file and line and the cap.
func TestBatchResultLineCap(t *testing.T) {
	srv := fakeserver.NewOpenAIBatch(t, fakeserver.BatchOptions{Reply: func(c fakeserver.Call) fakeserver.Reply {
		return fakeserver.Reply{Text: strings.Repeat("x", 2<<20)}
	}})
	m, err := newModel("openai/gpt-4o", model.Options{APIKey: "sk-test-key", BaseURL: srv.URL, MaxReply: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	api := providertest.BatchOf(t, m)
	ctx := context.Background()
	line, err := api.BatchLine("big", model.Request{Messages: []model.Message{{Role: "user", Content: "q"}}})
	if err != nil {
		t.Fatal(err)
	}
	file, err := api.UploadBatch(ctx, append(line, '\n'))
	if err != nil {
		t.Fatal(err)
	}
	b, err := api.CreateBatch(ctx, file, nil, "tag")
	if err != nil {
		t.Fatal(err)
	}
	for b.State == model.BatchRunning {
		if b, err = api.GetBatch(ctx, b.ID); err != nil {
			t.Fatal(err)
		}
	}
	err = api.BatchResults(ctx, b, func(model.BatchResult) error { return nil })
	if err == nil || !strings.Contains(err.Error(), ":1: a line longer than 1.0625 MiB, not read further (--max-reply raises the cap)") {
		t.Errorf("results: %v, want the line and the cap named", err)
	}
}
