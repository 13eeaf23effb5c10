package anthropic

import (
	"context"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/internal/providertest"
)

func TestBatchLineIsTheLiveRequest(t *testing.T) {
	live := newFakeAnthropic(t, fakeserver.Options{})
	m, err := newModel("anthropic/claude-sonnet-4-5", model.Options{APIKey: "test-key", BaseURL: live.URL})
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
	providertest.BatchLineIsLive(t, line, "q-1", live.Calls()[0].Body, "params")
}

func TestBatchLifecycle(t *testing.T) {
	srv := fakeserver.NewAnthropicBatch(t, fakeserver.BatchOptions{Reply: providertest.BatchReply, Expire: providertest.BatchExpire, Polls: 2})
	m, err := newModel("anthropic/claude-sonnet-4-5", model.Options{APIKey: "test-key", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	providertest.BatchLifecycle(t, providertest.BatchOf(t, m), srv, false)
}

func TestBatchNeedsTheAPI(t *testing.T) {
	srv := fakeserver.NewAnthropicBatch(t, fakeserver.BatchOptions{NoBatchAPI: true})
	m, err := newModel("anthropic/claude-sonnet-4-5", model.Options{APIKey: "test-key", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	providertest.NoBatchAPI(t, providertest.BatchOf(t, m), "does not serve Anthropic's Message Batches API")
}

func TestBatchResultLineCap(t *testing.T) {
	srv := fakeserver.NewAnthropicBatch(t, fakeserver.BatchOptions{Reply: providertest.LineCapReply})
	m, err := newModel("anthropic/claude-sonnet-4-5", model.Options{APIKey: "test-key", BaseURL: srv.URL, MaxReply: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	providertest.BatchLineCap(t, providertest.BatchOf(t, m))
}
