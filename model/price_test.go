package model

import (
	"math"
	"strings"
	"testing"
)

func TestCost(t *testing.T) {
	override := &Price{In: 1, Out: 2}
	for _, tc := range []struct {
		info     Info
		in, out  int
		override *Price
		want     float64
		ok       bool
	}{
		{Describe("openai/gpt-4o"), 1_000_000, 1_000_000, nil, 12.5, true},
		{Describe("gpt-4o-2024-08-06"), 1_000_000, 0, nil, 2.5, true},
		{Describe("openai/gpt-4o-mini"), 2_000_000, 1_000_000, nil, 0.3 + 0.6, true},
		{Describe("gpt-4"), 1000, 1000, nil, 0.03 + 0.06, true},
		{Describe("gpt-4-0613"), 1000, 0, nil, 0.03, true},
		{Describe("gpt-4-turbo-2024-04-09"), 1_000_000, 0, nil, 10, true},
		{Describe("anthropic/claude-3-5-sonnet-20241022"), 1_000_000, 1_000_000, nil, 18, true},
		{Describe("anthropic/claude-sonnet-4-5-20250929"), 0, 1_000_000, nil, 15, true},
		{Describe("Claude-3-Haiku-20240307"), 1_000_000, 0, nil, 0, false}, // not a name the providers know
		{Describe("mock"), 100, 100, nil, 0, true},
		{Describe("replay:x.jsonl"), 100, 100, nil, 0, true},
		{Describe("ollama/llama3"), 100, 100, nil, 0, true},
		{Describe("openai-api/together/meta-llama/Llama-3"), 100, 100, nil, 0, false},
		{Describe("gpt-4oops"), 100, 100, nil, 0, false},
		{Info{Model: "gpt-4", Provider: "openai-api"}, 100, 100, nil, 0, false}, // a local server named gpt-4
		{Describe("unknown-model"), 1_000_000, 1_000_000, override, 3, true},
		{Describe("openai/gpt-4o"), 1_000_000, 1_000_000, override, 3, true},
	} {
		got, ok := Cost(tc.info, tc.in, tc.out, tc.override)
		if ok != tc.ok || math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("Cost(%+v, %d, %d) = %v, %v; want %v, %v", tc.info, tc.in, tc.out, got, ok, tc.want, tc.ok)
		}
	}
	// LookupPrice itself is case-blind.
	if p, ok := LookupPrice("Claude-3-Haiku-20240307"); !ok || p.In != 0.25 {
		t.Errorf("LookupPrice(Claude-3-Haiku-20240307) = %v, %v", p, ok)
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
