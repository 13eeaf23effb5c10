package harness

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
)

// The prompt cache's tokens as each provider reports them reach the
// output: per question (cache_read_tokens, cache_write_tokens, a part of
// input_tokens) and in the totals, each part costed at its rate.
func TestCachedTokensRecordedAndCosted(t *testing.T) {
	for _, tc := range []struct {
		name        string
		start       func(testing.TB, fakeserver.Options) *fakeserver.Server
		model       string
		price       model.Price
		reply       fakeserver.Reply
		read, write int
		cost        float64 // of one question
		said        string  // the sheet's line on the console
	}{
		{
			// OpenAI's prompt_tokens 1000 holds cached_tokens 600.
			name: "openai", start: fakeserver.NewOpenAI, model: "openai-api/fake/m",
			price: model.Price{In: 2, Out: 8, CachedIn: 0.5},
			reply: fakeserver.Reply{InputTokens: 1000, CacheReadTokens: 600, OutputTokens: 10},
			read:  600,
			// 400 at $2, 600 at $0.50, 10 out at $8.
			cost: (400*2 + 600*0.5 + 10*8) / 1e6,
			said: "tokens 2000 in (1200 cache read) / 20 out",
		},
		{
			// Anthropic's input_tokens 100 beside cache_read_input_tokens
			// 600 and cache_creation_input_tokens 300; --price 3,15 takes
			// Anthropic's cache rates, $0.30 and $3.75.
			name: "anthropic", start: fakeserver.NewAnthropic, model: "anthropic/claude-sonnet-4-5",
			price: model.Price{In: 3, Out: 15},
			reply: fakeserver.Reply{InputTokens: 1000, CacheReadTokens: 600, CacheWriteTokens: 300, OutputTokens: 10},
			read:  600, write: 300,
			cost: (100*3 + 600*0.30 + 300*3.75 + 10*15) / 1e6,
			said: "tokens 2000 in (1200 cache read, 600 cache write) / 20 out",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := tc.start(t, fakeserver.Options{MaxRequests: 10, Reply: func(c fakeserver.Call) fakeserver.Reply {
				r := tc.reply
				r.Text = answerOf(c)
				return r
			}})
			out := t.TempDir()
			cfg := serverConfig(t, writeSheets(t, t.TempDir(), 1, 2), out, srv.URL, 2)
			cfg.Models, cfg.Price = []string{tc.model}, &tc.price
			var stderr bytes.Buffer
			cfg.Stderr = &stderr
			if _, err := Run(context.Background(), cfg); err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.said) {
				t.Errorf("console does not say %q:\n%s", tc.said, stderr.String())
			}
			files := outputs(t, out)
			if len(files) != 1 {
				t.Fatalf("%d outputs, want 1", len(files))
			}
			for _, f := range files {
				for _, q := range f.Questions {
					if q.InputTokens != 1000 || q.CacheReadTokens != tc.read || q.CacheWriteTokens != tc.write {
						t.Errorf("%s: input %d, cache read %d, written %d; want 1000, %d, %d", q.Name, q.InputTokens, q.CacheReadTokens, q.CacheWriteTokens, tc.read, tc.write)
					}
					if q.Cost == nil || math.Abs(*q.Cost-tc.cost) > 1e-12 {
						t.Errorf("%s: cost %v, want %v", q.Name, q.Cost, tc.cost)
					}
				}
				tot := f.Sheet.Totals
				if tot.InputTokens != 2000 || tot.CacheReadTokens != 2*tc.read || tot.CacheWriteTokens != 2*tc.write {
					t.Errorf("totals %+v, want input 2000, cache read %d, written %d", tot, 2*tc.read, 2*tc.write)
				}
				if tot.Cost == nil || math.Abs(*tot.Cost-2*tc.cost) > 1e-12 {
					t.Errorf("totals cost %v, want %v", tot.Cost, 2*tc.cost)
				}
			}
		})
	}
}

// An answer without cached tokens writes no cache fields, so the outputs
// of earlier runs stay byte for byte.
func TestNoCacheFieldsWithoutCache(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10,
		Reply: func(c fakeserver.Call) fakeserver.Reply { return fakeserver.Reply{Text: answerOf(c)} }})
	out := t.TempDir()
	cfg := serverConfig(t, writeSheets(t, t.TempDir(), 1, 1), out, srv.URL, 1)
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join(out, "output-*.json"))
	if len(paths) != 1 {
		t.Fatalf("outputs %v, want 1", paths)
	}
	b, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("cache_read_tokens")) || bytes.Contains(b, []byte("cache_write_tokens")) {
		t.Errorf("output %s names cache tokens with none", paths[0])
	}
}
