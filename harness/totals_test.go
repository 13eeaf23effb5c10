package harness

import (
	"bytes"
	"context"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
)

// A run's totals carry its cost only when the model's price is known: a
// local server without a price records null, not a cost of 0; with --price the sum of the questions' costs.
func TestTotalsCostUnknown(t *testing.T) {
	for _, tc := range []struct {
		name  string
		price *model.Price
		want  *float64
	}{
		{"no price", nil, nil},
		{"priced", &model.Price{In: 1, Out: 2}, new(float64)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10,
				Reply: func(c fakeserver.Call) fakeserver.Reply { return fakeserver.Reply{Text: answerOf(c)} }})
			out := t.TempDir()
			cfg := serverConfig(t, writeSheets(t, t.TempDir(), 1, 2), out, srv.URL, 2)
			cfg.Price = tc.price
			var stderr bytes.Buffer
			cfg.Stderr = &stderr
			if _, err := Run(context.Background(), cfg); err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			for _, f := range outputs(t, out) {
				tot := f.Sheet.Totals
				if tot == nil {
					t.Fatal("no totals")
				}
				if tc.want == nil {
					if tot.Cost != nil {
						t.Errorf("totals cost %v, want null for an unknown price", *tot.Cost)
					}
					continue
				}
				var sum float64
				for _, q := range f.Questions {
					if q.Cost == nil {
						t.Fatalf("%s: no cost with a price", q.Name)
					}
					sum += *q.Cost
				}
				if tot.Cost == nil || *tot.Cost != sum || sum <= 0 {
					t.Errorf("totals cost %v, want the questions' sum %v (> 0)", tot.Cost, sum)
				}
			}
		})
	}
}
