package execute

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/openai"
	"github.com/evalmd/evalmd/runner"
)

// TestRunThroughBatches: with --batch each question goes through its
// model's batch API (a fake OpenAI server on 127.0.0.1) and is recorded
// with the batch that answered it at half the live price; what a batch
// let expire goes into a new batch, or live with --batch-fallback live.
// The batch journal goes with the run's once every answer is in.
func TestRunThroughBatches(t *testing.T) {
	tests := []struct {
		name    string
		expire  bool // the first batch expires before answering any request
		live    bool // --batch-fallback live
		batches int
		byBatch bool // the answers carry a batch id and its price
	}{
		{name: "answered by a batch", batches: 1, byBatch: true},
		{name: "expired, asked in a new batch", expire: true, batches: 2, byBatch: true},
		{name: "expired, asked live", expire: true, live: true, batches: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeserver.NewOpenAIBatch(t, fakeserver.BatchOptions{
				Reply: func(c fakeserver.Call) fakeserver.Reply {
					text := strings.TrimSpace(c.LastUserText())
					return fakeserver.Reply{Text: text[len(text)-1:], InputTokens: 1000, OutputTokens: 10}
				},
				Expire: func(n int, _ string) bool { return tt.expire && n == 1 },
			})
			r := model.NewRegistry()
			openai.Register(r)
			m, err := r.New("openai/gpt-4o", model.Options{APIKey: "test-key", BaseURL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			b := newBench(t, []model.Model{m}, "input-s1.md", threeQuestions)
			b.batch = &Batch{Poll: time.Millisecond, FallbackLive: tt.live}
			price := &model.Price{In: 1e3, Out: 1e4} // a tenth of a cent a token in, a cent out
			b.prices.One = price
			res, outs, err := b.run(context.Background(), runner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Files[0].Tally.Correct != 3 || srv.Batches() != tt.batches {
				t.Errorf("%d correct in %d batches, want 3 in %d", res.Files[0].Tally.Correct, srv.Batches(), tt.batches)
			}
			live, _ := model.Cost(m.Info(), model.Usage{In: 1000, Out: 10}, price)
			f := readOutput(t, outs[0].OutPath)
			for _, q := range f.Questions {
				want := live
				if tt.byBatch {
					want *= model.BatchDiscount
				}
				if (q.BatchID != "") != tt.byBatch || q.Cost == nil || *q.Cost != want {
					t.Errorf("%s: batch %q, cost %v; want a batch id %v, cost %v", q.Name, q.BatchID, q.Cost, tt.byBatch, want)
				}
			}
			journal := batchJournal(b.journal(), m.Name())
			if say := "openai/gpt-4o: 3 questions through its batch API (journal " + journal + ")"; !strings.Contains(b.console.String(), say) {
				t.Errorf("console lacks %q:\n%s", say, b.console.String())
			}
			if _, err := os.Stat(journal); err == nil {
				t.Errorf("%s kept after every answer is in", journal)
			}
		})
	}
}
