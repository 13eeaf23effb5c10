package openai

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
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

// A batch's results file is read a line at a time, each line capped as a
// live reply is (--max-reply, plus 1 MiB for the envelope): a longer line
// is its question's error, named by its custom_id, and the other answers
// are read.
func TestBatchResultLineCap(t *testing.T) {
	srv := fakeserver.NewOpenAIBatch(t, fakeserver.BatchOptions{Reply: func(c fakeserver.Call) fakeserver.Reply {
		if c.LastUserText() == "big" {
			return fakeserver.Reply{Text: strings.Repeat("x", 2<<20)}
		}
		return fakeserver.Reply{Text: "small answer"}
	}})
	m, err := newModel("openai/gpt-4o", model.Options{APIKey: "sk-test-key", BaseURL: srv.URL, MaxReply: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	api := providertest.BatchOf(t, m)
	ctx := context.Background()
	var lines []byte
	for _, id := range []string{"small-1", "big", "small-2"} {
		text := "small"
		if id == "big" {
			text = "big"
		}
		line, err := api.BatchLine(id, model.Request{Messages: []model.Message{{Role: "user", Content: text}}})
		if err != nil {
			t.Fatal(err)
		}
		lines = append(append(lines, line...), '\n')
	}
	file, err := api.UploadBatch(ctx, lines)
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
	got := map[string]model.BatchResult{}
	if err := api.BatchResults(ctx, b, func(r model.BatchResult) error { got[r.CustomID] = r; return nil }); err != nil {
		t.Fatal(err)
	}
	var ae *model.APIError
	if r := got["big"]; !errors.As(r.Err, &ae) || ae.Retryable || !strings.Contains(ae.Message, "reply larger than 64 KiB, not read further (--max-reply raises the cap)") {
		t.Errorf("big: %+v, want its own error naming the cap", r)
	}
	for _, id := range []string{"small-1", "small-2"} {
		if r := got[id]; r.Err != nil || r.Response.Text != "small answer" {
			t.Errorf("%s: %+v, want its answer", id, r)
		}
	}
}

// readLine keeps at most its cap of a line and reads on to the next.
func TestReadLine(t *testing.T) {
	br := bufio.NewReaderSize(strings.NewReader("ab\n"+strings.Repeat("x", 100)+"\n\ncd"), 16)
	var got []string
	for {
		line, long, err := readLine(br, nil, 10)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s/%v", line, long))
	}
	if want := []string{"ab/false", "xxxxxxxxxx/true", "/false", "cd/false"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("lines %q, want %q", got, want)
	}
}
