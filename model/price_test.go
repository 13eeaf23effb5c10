package model

import (
	"math"
	"strings"
	"testing"
)

func TestCost(t *testing.T) {
	override := &Price{In: 1, Out: 2}
	for _, tc := range []struct {
		model    string
		in, out  int
		override *Price
		want     float64
		ok       bool
	}{
		{"openai/gpt-4o", 1_000_000, 1_000_000, nil, 12.5, true},
		{"gpt-4o-2024-08-06", 1_000_000, 0, nil, 2.5, true},
		{"openai/gpt-4o-mini", 2_000_000, 1_000_000, nil, 0.3 + 0.6, true},
		{"gpt-4", 1000, 1000, nil, 0.03 + 0.06, true},
		{"gpt-4-0613", 1000, 0, nil, 0.03, true},
		{"gpt-4-turbo-2024-04-09", 1_000_000, 0, nil, 10, true},
		{"anthropic/claude-3-5-sonnet-20241022", 1_000_000, 1_000_000, nil, 18, true},
		{"anthropic/claude-sonnet-4-5-20250929", 0, 1_000_000, nil, 15, true},
		{"Claude-3-Haiku-20240307", 1_000_000, 0, nil, 0.25, true},
		{"mock", 100, 100, nil, 0, true},
		{"replay:x.jsonl", 100, 100, nil, 0, true},
		{"ollama/llama3", 100, 100, nil, 0, true},
		{"openai-api/together/meta-llama/Llama-3", 100, 100, nil, 0, false},
		{"gpt-4oops", 100, 100, nil, 0, false},
		{"unknown-model", 1_000_000, 1_000_000, override, 3, true},
		{"openai/gpt-4o", 1_000_000, 1_000_000, override, 3, true},
	} {
		got, ok := Cost(tc.model, tc.in, tc.out, tc.override)
		if ok != tc.ok || math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("Cost(%q, %d, %d) = %v, %v; want %v, %v", tc.model, tc.in, tc.out, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParsePrice(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Price
		err  string
	}{
		{in: "2.5,10", want: Price{2.5, 10}},
		{in: " 0 , 0.6 ", want: Price{0, 0.6}},
		{in: "$3,$15", want: Price{3, 15}},
		{in: "3", err: "IN,OUT"},
		{in: "a,1", err: "input"},
		{in: "1,", err: "output"},
		{in: "-1,1", err: "not a price"},
		{in: "1,NaN", err: "not a price"},
		{in: "1,Inf", err: "not a price"},
	} {
		got, err := ParsePrice(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParsePrice(%q) error = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParsePrice(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}
