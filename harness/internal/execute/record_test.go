package execute

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/runner"
)

// TestRecord: an outcome goes into its question as the output file keeps
// it: the completion with the reasoning apart, a note for an answer that
// is no plain text, the cut of max_tokens while reasoning, an error or no
// answer, and the cost, halved when a batch answered.
func TestRecord(t *testing.T) {
	price := &model.Price{In: 1e6, Out: 1e6} // a dollar a token
	tests := []struct {
		name       string
		resp       model.Response
		err        error
		batch      string
		completion string // "-" for none
		reasoning  string
		note       string // a part of the note, "" for none
		limit      string
		cost       float64 // -1 for none
		failed     bool
		unanswered bool
	}{
		{name: "an answer", resp: model.Response{Text: "42", InputTokens: 2, OutputTokens: 1, FinishReason: "stop"},
			completion: "42", cost: 3},
		{name: "a batch answer costs half", resp: model.Response{Text: "42", InputTokens: 2, OutputTokens: 2}, batch: "b1",
			completion: "42", cost: 2},
		{name: "think tags split off", resp: model.Response{Text: "<think>hmm</think>42"},
			completion: "42", reasoning: "hmm", cost: 0},
		{name: "a refusal with text", resp: model.Response{Text: "no", FinishReason: model.FinishRefusal},
			completion: "no", note: "the model refused: the completion is its refusal", cost: 0},
		{name: "a refusal without text", resp: model.Response{FinishReason: model.FinishRefusal},
			completion: "", note: "the model refused, with no text", cost: 0},
		{name: "no text", resp: model.Response{FinishReason: "content_filter"},
			completion: "", note: "the reply had no text (finish_reason content_filter)", cost: 0},
		{name: "reasoning and no answer", resp: model.Response{Reasoning: "so...", FinishReason: "stop"},
			completion: "", reasoning: "so...", note: "the reply had reasoning and no answer", cost: 0},
		{name: "cut while reasoning", resp: model.Response{Text: "<think>so", FinishReason: "length", OutputTokens: 5},
			completion: "", reasoning: "so", note: "cut by max_tokens while reasoning (finish_reason length)", limit: LimitMaxTokens, cost: 5},
		{name: "cut after the answer began", resp: model.Response{Text: "the answer is", FinishReason: "max_tokens"},
			completion: "the answer is", note: "the answer may be cut short", cost: 0},
		{name: "an error", err: errors.New("model m, question \"A\": 500 after 6 attempts"),
			completion: "-", cost: -1, failed: true},
		{name: "no answer", err: fmt.Errorf("replay: %w", model.ErrNoAnswer),
			completion: "-", cost: -1, unanswered: true},
	}
	info := model.Info{Provider: "test", Model: "m"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var q result.Question
			record(&q, runner.Outcome{Response: tt.resp, Err: tt.err, Elapsed: 1500 * time.Millisecond}, info, price, tt.batch)
			if q.EvalTime == nil || *q.EvalTime != 1.5 {
				t.Errorf("eval_time %v, want 1.5", q.EvalTime)
			}
			switch {
			case tt.completion == "-" && q.Completion != nil:
				t.Errorf("completion %q, want none", *q.Completion)
			case tt.completion != "-" && (q.Completion == nil || *q.Completion != tt.completion):
				t.Errorf("completion %v, want %q", q.Completion, tt.completion)
			}
			if q.Reasoning != tt.reasoning {
				t.Errorf("reasoning %q, want %q", q.Reasoning, tt.reasoning)
			}
			if !strings.Contains(q.Note, tt.note) || (tt.note == "") != (q.Note == "") {
				t.Errorf("note %q, want one holding %q", q.Note, tt.note)
			}
			if q.Limit != tt.limit {
				t.Errorf("limit %q, want %q", q.Limit, tt.limit)
			}
			switch {
			case tt.cost < 0 && q.Cost != nil:
				t.Errorf("cost %v, want none", *q.Cost)
			case tt.cost >= 0 && (q.Cost == nil || *q.Cost != tt.cost):
				t.Errorf("cost %v, want %v", q.Cost, tt.cost)
			}
			if (q.Error != nil) != tt.failed || q.Unanswered != tt.unanswered {
				t.Errorf("error %v, unanswered %v; want failed %v, unanswered %v", q.Error, q.Unanswered, tt.failed, tt.unanswered)
			}
			if q.BatchID != tt.batch {
				t.Errorf("batch id %q, want %q", q.BatchID, tt.batch)
			}
		})
	}
}

// TestOneLine: an error on a console line is its first line, at most 300
// bytes and an ellipsis.
func TestOneLine(t *testing.T) {
	long := strings.Repeat("x", 301)
	tests := []struct{ in, want string }{
		{"short", "short"},
		{"first\nsecond", "first"},
		{long, long[:300] + "..."},
		{strings.Repeat("y", 300), strings.Repeat("y", 300)},
	}
	for _, tt := range tests {
		if got := OneLine(tt.in); got != tt.want {
			t.Errorf("OneLine(%.20q) = %.20q, want %.20q", tt.in, got, tt.want)
		}
	}
}

// TestRunError: a run that did not end says why and where its answers
// are kept; a batch run says its batches keep running.
func TestRunError(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	broke := errors.New("disk full")
	tests := []struct {
		name         string
		ctx          context.Context
		batch        bool
		finish, send error
		want         string // "" for no error
		wantIs       error
		stats        runner.Stats
	}{
		{name: "done", ctx: context.Background()},
		{name: "a write failed", ctx: cancelled, finish: broke, wantIs: broke,
			want: "disk full (answers so far are kept in J; rerun the same command to go on)"},
		{name: "stopped", ctx: cancelled, stats: runner.Stats{Jobs: 9, Answered: 2, NoAnswer: 1, Failed: 1},
			want: "stopped with 4 of 9 questions answered; answers so far are kept in J"},
		{name: "sending failed", ctx: context.Background(), send: broke, wantIs: broke,
			want: "disk full; answers so far are kept in J"},
		{name: "batches", ctx: context.Background(), batch: true, send: broke,
			want: "disk full; the batches keep running; their ids and answers so far are kept in J; rerun the same command to go on and collect them"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := Options{Resume: Resume{Journal: "J"}}
			if tt.batch {
				opt.Batch = &Batch{}
			}
			err := runError(tt.ctx, opt, tt.stats, tt.finish, tt.send)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error %v, want %q", err, tt.want)
			case tt.wantIs != nil && !errors.Is(err, tt.wantIs):
				t.Errorf("error %v does not wrap %v", err, tt.wantIs)
			}
		})
	}
}
