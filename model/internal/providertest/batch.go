package providertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
)

// BatchOf returns m's batch API, failing the test if it has none.
func BatchOf(t *testing.T, m model.Model) model.BatchAPI {
	t.Helper()
	b, ok := m.(model.Batcher)
	if !ok {
		t.Fatalf("%s has no batch API", m.Name())
	}
	api, err := b.Batch()
	if err != nil {
		t.Fatal(err)
	}
	return api
}

// BatchLineIsLive checks that a batch line carries exactly the body a live
// request sends: live is the body the live fake server recorded, field
// the line's key holding the body ("body" for OpenAI, "params" for
// Anthropic).
func BatchLineIsLive(t *testing.T, line []byte, customID string, live map[string]any, field string) {
	t.Helper()
	if bytes.ContainsRune(line, '\n') {
		t.Fatalf("batch line holds a newline: %s", line)
	}
	var l map[string]any
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&l); err != nil {
		t.Fatalf("batch line is not JSON: %v", err)
	}
	if l["custom_id"] != customID {
		t.Errorf("custom_id = %v, want %s", l["custom_id"], customID)
	}
	if !reflect.DeepEqual(l[field], live) {
		got, _ := json.Marshal(l[field])
		want, _ := json.Marshal(live)
		t.Errorf("batch body differs from the live request:\n got %s\nwant %s", got, want)
	}
}

// BatchLifecycle runs a provider's batch API against its fake batch server:
// three requests, of which the server fails "bad" with 400 and lets
// "late" expire; tagged says the provider finds batches by tag.
func BatchLifecycle(t *testing.T, api model.BatchAPI, srv *fakeserver.BatchServer, tagged bool) {
	t.Helper()
	ctx := context.Background()
	var lines [][]byte
	for _, id := range []string{"ok", "bad", "late"} {
		req := model.Request{System: "sys", Messages: []model.Message{{Role: "user", Content: "question " + id}}}
		line, err := api.BatchLine(id, req)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line)
	}
	data := append(bytes.Join(lines, []byte("\n")), '\n')
	start := time.Now().Add(-time.Minute)
	file, err := api.UploadBatch(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	if tagged && file == "" {
		t.Fatal("no file id from the upload")
	}
	b, err := api.CreateBatch(ctx, file, data, "run-tag-1")
	if err != nil {
		t.Fatal(err)
	}
	if b.ID == "" || b.State != model.BatchRunning {
		t.Fatalf("created batch = %+v, want an id and running", b)
	}
	found, err := api.FindBatches(ctx, "run-tag-1", start)
	switch {
	case tagged && err != nil:
		t.Fatal(err)
	case tagged && (len(found) != 1 || found[0].ID != b.ID || found[0].InputFile != file):
		t.Errorf("FindBatches = %+v, want batch %s of file %s", found, b.ID, file)
	case !tagged && !errors.Is(err, model.ErrBatchNoTags):
		t.Errorf("FindBatches error = %v, want ErrBatchNoTags", err)
	}
	if tagged {
		if other, _ := api.FindBatches(ctx, "another-tag", start); len(other) != 0 {
			t.Errorf("FindBatches of another tag = %+v, want none", other)
		}
	}
	var got model.BatchInfo
	for i := 0; i < 10; i++ {
		if got, err = api.GetBatch(ctx, b.ID); err != nil {
			t.Fatal(err)
		}
		if got.State != model.BatchRunning {
			break
		}
	}
	if got.State != model.BatchEnded || got.Succeeded != 1 || got.Failed != 2 {
		t.Fatalf("batch = %+v, want ended with 1 succeeded, 2 failed", got)
	}
	results := map[string]model.BatchResult{}
	err = api.BatchResults(ctx, got, func(r model.BatchResult) error {
		results[r.CustomID] = r
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 3 {
		t.Fatalf("results = %+v, want 3", results)
	}
	if r := results["ok"]; r.Err != nil || r.Response.Text != "answer to question ok" || r.Response.InputTokens != 7 || r.Response.OutputTokens != 3 {
		t.Errorf("ok = %+v, want its answer and usage", r)
	}
	var ae *model.APIError
	if r := results["bad"]; !errors.As(r.Err, &ae) || ae.Status != http.StatusBadRequest || ae.Retryable || !strings.Contains(ae.Message, "refused") {
		t.Errorf("bad = %+v, want a 400 that is not retryable, saying refused", r)
	}
	if r := results["late"]; !errors.As(r.Err, &ae) || !ae.Retryable || !strings.Contains(ae.Message, "expire") {
		t.Errorf("late = %+v, want a retryable expiry", r)
	}
}

// BatchReply is the fake batch server's script for BatchLifecycle.
func BatchReply(c fakeserver.Call) fakeserver.Reply {
	text := c.LastUserText()
	if strings.HasSuffix(text, " bad") {
		return fakeserver.Reply{Status: http.StatusBadRequest, Message: "request refused"}
	}
	return fakeserver.Reply{Text: "answer to " + text, InputTokens: 7, OutputTokens: 3}
}

// BatchExpire lets BatchLifecycle's "late" request expire.
func BatchExpire(_ int, id string) bool { return id == "late" }

// NoBatchAPI checks the one clear error of a server without a batch API.
func NoBatchAPI(t *testing.T, api model.BatchAPI, want string) {
	t.Helper()
	ctx := context.Background()
	line, err := api.BatchLine("a", model.Request{Messages: []model.Message{{Role: "user", Content: "q"}}})
	if err != nil {
		t.Fatal(err)
	}
	file, err := api.UploadBatch(ctx, line)
	if err == nil {
		_, err = api.CreateBatch(ctx, file, line, "t")
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error = %v, want one saying %q", err, want)
	}
}

// LineCapReply is the fake batch server's script for BatchLineCap: 2 MiB
// of answer to "big", a short one to the others.
func LineCapReply(c fakeserver.Call) fakeserver.Reply {
	if c.LastUserText() == "big" {
		return fakeserver.Reply{Text: strings.Repeat("x", 2<<20)}
	}
	return fakeserver.Reply{Text: "small answer"}
}

// BatchLineCap checks that a batch's results are read a line at a time,
// each line capped as a live reply is (--max-reply, plus 1 MiB for the
// envelope): a longer line is its question's error, named by its
// custom_id, and the other answers are read. api is a model's built with
// MaxReply 64 KiB, its server answering LineCapReply.
func BatchLineCap(t *testing.T, api model.BatchAPI) {
	t.Helper()
	ctx := context.Background()
	var lines []byte
	for _, id := range []string{"small-1", "big", "small-2"} {
		line, err := api.BatchLine(id, model.Request{Messages: []model.Message{{Role: "user", Content: id}}})
		if err != nil {
			t.Fatal(err)
		}
		lines = append(append(lines, line...), '\n')
	}
	file, err := api.UploadBatch(ctx, lines)
	if err != nil {
		t.Fatal(err)
	}
	b, err := api.CreateBatch(ctx, file, lines, "tag")
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
		t.Errorf("big: error %v, an answer of %d bytes; want its own error naming the cap", r.Err, len(r.Response.Text))
	}
	for _, id := range []string{"small-1", "small-2"} {
		if r := got[id]; r.Err != nil || r.Response.Text != "small answer" {
			t.Errorf("%s: %+v, want its answer", id, r)
		}
	}
}
