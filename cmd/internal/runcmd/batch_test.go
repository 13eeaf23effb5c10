package runcmd

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
)

// batchArgs runs the shipped unit-prices sheet (system message, template,
// a table, temperature 0) on a model behind a fake batch server.
func batchArgs(modelName, url, out string, more ...string) []string {
	return append([]string{"-f", "../../../sheets/input-unit-prices-template.md", "-m", modelName, "--base-url", url,
		"-o", out, "-u", "0", "--price", "2,8", "--batch", "--batch-poll", "1ms"}, more...)
}

// run --batch on both providers: the batch requests are the live ones
// (system message, template, settings), answers are matched back to their
// questions, graded, costed at half price and marked with their batch; the
// journals go once the run is complete.
func TestRunBatch(t *testing.T) {
	for _, p := range []struct {
		model  string
		server func(testing.TB, fakeserver.BatchOptions) *fakeserver.BatchServer
	}{
		{"openai/gpt-4o", fakeserver.NewOpenAIBatch},
		{"anthropic/claude-sonnet-4-5", fakeserver.NewAnthropicBatch},
	} {
		t.Run(p.model, func(t *testing.T) {
			srv := p.server(t, fakeserver.BatchOptions{Polls: 2, InputTokens: 1000, OutputTokens: 100,
				Reply: func(c fakeserver.Call) fakeserver.Reply { return fakeserver.Reply{Text: "7.50"} }})
			out := t.TempDir()
			var stdout, stderr bytes.Buffer
			if err := run(context.Background(), &stdout, &stderr, batchArgs(p.model, srv.URL, out)); err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			calls := srv.Calls()
			if len(calls) != 3 || srv.Batches() != 1 {
				t.Fatalf("%d requests in %d batches, want 3 in 1", len(calls), srv.Batches())
			}
			for _, c := range calls {
				if c.System != "You are a careful analyst. Reply with the number only." || !strings.HasPrefix(c.LastUserText(), "A shop sells fruit.") ||
					c.Settings.Temperature == nil || *c.Settings.Temperature != 0 {
					t.Errorf("batch request: system %q, user %q, temperature %v", c.System, c.LastUserText(), c.Settings.Temperature)
				}
			}
			f := readOnly(t, out)
			right := 0
			for _, q := range f.Questions {
				want := (1000*2.0 + 100*8.0) / 1e6 / 2
				if q.Completion == nil || *q.Completion != "7.50" || q.BatchID == "" || q.Cost == nil || math.Abs(*q.Cost-want) > 1e-12 {
					t.Errorf("%s: completion %v, batch %q, cost %v (want %v, half the price)", q.Name, q.Completion, q.BatchID, q.Cost, want)
				}
				if q.Grade != nil && *q.Grade {
					right++
				}
			}
			if right != 1 {
				t.Errorf("%d graded right, want 1", right)
			}
			if !strings.Contains(stderr.String(), "1 done; 3/3 requests settled") {
				t.Errorf("no batch progress on stderr:\n%s", stderr.String())
			}
			if left, _ := filepath.Glob(filepath.Join(out, ".evalmd-run-*")); len(left) != 0 {
				t.Errorf("journals left after a complete run: %v", left)
			}
		})
	}
}

// Ctrl-C leaves the batch running; the same command collects it and buys
// nothing again.
func TestRunBatchStopAndCollect(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := fakeserver.NewOpenAIBatch(t, fakeserver.BatchOptions{Polls: 3, OnCreate: func(string) { cancel() },
		Reply: func(c fakeserver.Call) fakeserver.Reply { return fakeserver.Reply{Text: "7.50"} }})
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run(ctx, &stdout, &stderr, batchArgs("openai/gpt-4o", srv.URL, out))
	if err == nil || !strings.Contains(err.Error(), "the batches keep running") || !strings.Contains(err.Error(), "rerun the same command") {
		t.Fatalf("stopped run: %v", err)
	}
	if err := run(context.Background(), &stdout, &stderr, batchArgs("openai/gpt-4o", srv.URL, out)); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	f := readOnly(t, out)
	for _, q := range f.Questions {
		if q.Completion == nil || q.BatchID != "batch_fake_1" {
			t.Errorf("%s: completion %v batch %q", q.Name, q.Completion, q.BatchID)
		}
	}
	if srv.Submitted() != 3 || srv.Batches() != 1 {
		t.Errorf("%d requests in %d batches, want the first batch's 3 only", srv.Submitted(), srv.Batches())
	}
}

// -y --batch writes the request files as they would be sent, with a cost
// estimate, and calls nothing.
func TestRunBatchDryRun(t *testing.T) {
	srv := fakeserver.NewOpenAIBatch(t, fakeserver.BatchOptions{MaxRequests: 1})
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), &stdout, &stderr, batchArgs("openai/gpt-4o", srv.URL, out, "-y", "--max-tokens", "10")); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	data, err := os.ReadFile(filepath.Join(out, "batch-requests-openai_gpt-4o-1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"url":"/v1/chat/completions"`) || !strings.Contains(lines[0], `"max_tokens":10`) {
		t.Errorf("request file:\n%s", data)
	}
	if !strings.Contains(stderr.String(), "estimated cost at batch prices: $") || !strings.Contains(stderr.String(), "(30 tokens at most)") {
		t.Errorf("no estimate:\n%s", stderr.String())
	}
	if srv.Batches() != 0 || len(srv.Calls()) != 0 {
		t.Error("a dry run called the server")
	}
	if f := readOnly(t, out); !f.Sheet.DryRun {
		t.Error("the dry run's output is not marked dry_run")
	}
	// The real run sends the very lines the dry run wrote.
	real := fakeserver.NewOpenAIBatch(t, fakeserver.BatchOptions{})
	if err := run(context.Background(), &stdout, &stderr, batchArgs("openai/gpt-4o", real.URL, t.TempDir(), "--max-tokens", "10")); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	sent := real.Calls()
	for _, line := range lines {
		found := false
		for id := range real.SubmittedIDs() {
			found = found || strings.Contains(line, `"custom_id":"`+id+`"`)
		}
		if !found {
			t.Errorf("dry-run line not sent: %.80s", line)
		}
	}
	if len(sent) != 3 {
		t.Errorf("%d requests sent, want 3", len(sent))
	}
}

// What a batch cannot do is refused before anything is sent.
func TestRunBatchRefusals(t *testing.T) {
	srv := fakeserver.NewOpenAIBatch(t, fakeserver.BatchOptions{MaxRequests: 1})
	agent := modeSheet(t, "mode: agent\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-f", agent, "-m", "openai/gpt-4o", "--base-url", srv.URL, "--batch", "-o", t.TempDir()}, "agent mode"},
		{[]string{"-f", agent, "-m", "mock", "--batch", "-o", t.TempDir()}, "model mock has no batch API"},
		{[]string{"-f", agent, "-m", "mock", "--batch-fallback", "live"}, "go with --batch"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), &stdout, &stderr, c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one saying %q", c.args, err, c.want)
		}
	}
	if srv.Batches() != 0 {
		t.Error("a refused run created a batch")
	}
}

// Code mode in a batch: the code of each answer runs once the batch's
// results are in, as in a live run.
func TestRunBatchCodeMode(t *testing.T) {
	needSandbox(t)
	sheet := modeSheet(t, "mode: code\ncode_extract: lenient\n")
	srv := fakeserver.NewAnthropicBatch(t, fakeserver.BatchOptions{Reply: func(c fakeserver.Call) fakeserver.Reply {
		if strings.Contains(c.LastUserText(), "total") {
			return fakeserver.Reply{Text: "```python\ndf['amount'].sum()\n```"}
		}
		return fakeserver.Reply{Text: "return df['region'].nunique()"}
	}})
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), &stdout, &stderr, []string{"-f", sheet, "-m", "anthropic/claude-haiku-4-5",
		"--base-url", srv.URL, "-o", out, "--batch", "--batch-poll", "1ms"}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	f := readOnly(t, out)
	for i, want := range []string{"49", "3"} {
		q := f.Questions[i]
		if q.Answer == nil || *q.Answer != want || q.Grade == nil || !*q.Grade || q.BatchID == "" || q.Sandbox["pandas"] == "" {
			t.Errorf("%s: answer %v grade %v batch %q sandbox %v", q.Name, q.Answer, q.Grade, q.BatchID, q.Sandbox)
		}
	}
}

// A request that expired goes into a new batch, or live with
// --batch-fallback live, priced at the live price.
func TestRunBatchExpiredRequest(t *testing.T) {
	for _, live := range []bool{false, true} {
		expired := ""
		srv := fakeserver.NewOpenAIBatch(t, fakeserver.BatchOptions{InputTokens: 1000, OutputTokens: 100,
			Reply: func(c fakeserver.Call) fakeserver.Reply { return fakeserver.Reply{Text: "7.50"} },
			Expire: func(n int, id string) bool {
				if n == 1 && expired == "" {
					expired = id
				}
				return id == expired && n == 1
			}})
		out := t.TempDir()
		args := batchArgs("openai/gpt-4o", srv.URL, out)
		if live {
			args = append(args, "--batch-fallback", "live")
		}
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), &stdout, &stderr, args); err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		wantBatches, wantLive := 2, 0
		if live {
			wantBatches, wantLive = 1, 1
		}
		if srv.Batches() != wantBatches || len(srv.LiveCalls()) != wantLive {
			t.Errorf("live %v: %d batches, %d live calls; want %d and %d", live, srv.Batches(), len(srv.LiveCalls()), wantBatches, wantLive)
		}
		full := (1000*2.0 + 100*8.0) / 1e6
		liveAnswers := 0
		for _, q := range readOnly(t, out).Questions {
			if q.Completion == nil || *q.Completion != "7.50" || q.Cost == nil {
				t.Errorf("live %v: %s not answered: %v", live, q.Name, q.Error)
				continue
			}
			switch {
			case q.BatchID == "" && math.Abs(*q.Cost-full) < 1e-12:
				liveAnswers++
			case q.BatchID != "" && math.Abs(*q.Cost-full/2) < 1e-12:
			default:
				t.Errorf("live %v: %s: batch %q cost %v", live, q.Name, q.BatchID, *q.Cost)
			}
		}
		if liveAnswers != wantLive {
			t.Errorf("live %v: %d answers at the live price, want %d", live, liveAnswers, wantLive)
		}
	}
}
