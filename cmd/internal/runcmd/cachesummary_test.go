package runcmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/harness"
	"github.com/evalmd/evalmd/result"
)

// The run summary says the input the prompt cache served and what it
// saved, where some model's answers read from or wrote to it; a run
// without any has neither column.
func TestRunSummaryCacheColumns(t *testing.T) {
	cost := func(f float64) *float64 { return &f }
	file := func(name string, tot result.Totals) harness.OutputFile {
		return harness.OutputFile{Sheet: &result.Sheet{ModelName: name, Totals: &tot}, Tally: result.Tally{Questions: tot.Questions}}
	}
	for _, tc := range []struct {
		name  string
		files []harness.OutputFile
		want  []string
		not   []string
	}{
		{"cached", []harness.OutputFile{
			file("anthropic/claude-sonnet-4-5", result.Totals{Questions: 10, Answered: 10, InputTokens: 50400, CacheReadTokens: 45000,
				CacheWriteTokens: 5000, OutputTokens: 100, Cost: cost(0.03495), CacheSaved: cost(0.11775)}),
			file("openai/gpt-4o", result.Totals{Questions: 10, Answered: 10, InputTokens: 50400, OutputTokens: 100, Cost: cost(0.127)}),
		}, []string{
			"| model                       | questions | correct | answered | errors | tokens in | cache read | tokens out |    cost | cache saved | time |",
			"| anthropic/claude-sonnet-4-5 |        10 |  0 (0%) |       10 |      0 |     50400 |      45000 |        100 | $0.0350 |     $0.1177 |",
			"| openai/gpt-4o               |        10 |  0 (0%) |       10 |      0 |     50400 |          0 |        100 | $0.1270 |     $0.0000 |",
			"cache saved: the cost at the full input price less the cost paid",
		}, nil},
		{"none", []harness.OutputFile{
			file("openai/gpt-4o", result.Totals{Questions: 10, Answered: 10, InputTokens: 50400, OutputTokens: 100, Cost: cost(0.127)}),
		}, nil, []string{"cache read", "cache saved"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := writeSummary(&b, tc.files); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("summary lacks %q:\n%s", w, b.String())
				}
			}
			for _, w := range tc.not {
				if strings.Contains(b.String(), w) {
					t.Errorf("summary has %q:\n%s", w, b.String())
				}
			}
		})
	}
}
