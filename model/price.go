package model

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	In  float64 // per 1M input (prompt) tokens
	Out float64 // per 1M output (completion) tokens
}

// priceEntry is one row of the price table.
type priceEntry struct {
	model string
	price Price
}

// priceTable lists approximate list prices, USD per 1M tokens, as published
// by OpenAI and Anthropic around 2025-11 (standard tier, no batch or cache
// discounts). Prices change: treat costs as estimates and use --price for
// exact numbers. A function, not a package variable, so nothing can change
// the table at run time.
func priceTable() []priceEntry {
	return []priceEntry{
		// OpenAI
		{"gpt-5", Price{1.25, 10}},
		{"gpt-5-mini", Price{0.25, 2}},
		{"gpt-5-nano", Price{0.05, 0.40}},
		{"gpt-4.1", Price{2, 8}},
		{"gpt-4.1-mini", Price{0.40, 1.60}},
		{"gpt-4.1-nano", Price{0.10, 0.40}},
		{"gpt-4o", Price{2.50, 10}},
		{"gpt-4o-mini", Price{0.15, 0.60}},
		{"chatgpt-4o-latest", Price{5, 15}},
		{"gpt-4-turbo", Price{10, 30}},
		{"gpt-4", Price{30, 60}},
		{"gpt-4-32k", Price{60, 120}},
		{"gpt-3.5-turbo", Price{0.50, 1.50}},
		{"o1", Price{15, 60}},
		{"o1-mini", Price{1.10, 4.40}},
		{"o3", Price{2, 8}},
		{"o3-mini", Price{1.10, 4.40}},
		{"o4-mini", Price{1.10, 4.40}},
		// Anthropic
		{"claude-opus-4-5", Price{5, 25}},
		{"claude-opus-4-1", Price{15, 75}},
		{"claude-opus-4", Price{15, 75}},
		{"claude-sonnet-4-5", Price{3, 15}},
		{"claude-sonnet-4", Price{3, 15}},
		{"claude-haiku-4-5", Price{1, 5}},
		{"claude-3-7-sonnet", Price{3, 15}},
		{"claude-3-5-sonnet", Price{3, 15}},
		{"claude-3-5-haiku", Price{0.80, 4}},
		{"claude-3-opus", Price{15, 75}},
		{"claude-3-sonnet", Price{3, 15}},
		{"claude-3-haiku", Price{0.25, 1.25}},
	}
}

// LookupPrice returns the table's price for a model name, with or without a
// provider ("openai/gpt-4o", "gpt-4o"). A dated or suffixed name takes the
// price of its longest listed prefix that ends at a "-"
// ("gpt-4o-2024-08-06" is "gpt-4o", "claude-sonnet-4-20250514" is
// "claude-sonnet-4"), so "gpt-4o" never borrows the price of "gpt-4".
func LookupPrice(model string) (Price, bool) {
	name := model
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	name = strings.ToLower(name)
	best, found := "", Price{}
	for _, e := range priceTable() {
		if name != e.model && !strings.HasPrefix(name, e.model+"-") {
			continue
		}
		if len(e.model) > len(best) {
			best, found = e.model, e.price
		}
	}
	return found, best != ""
}

// Cost returns the cost in US dollars of in input and out output tokens on
// a model: override (--price), when not nil, is used instead of the model's
// Info.Price. It reports false when the price is unknown; the cost is then
// 0 and should be shown as unknown, not as free.
func Cost(info Info, in, out int, override *Price) (float64, bool) {
	p := info.Price
	if override != nil {
		p = override
	}
	if p == nil {
		return 0, false
	}
	return (float64(in)*p.In + float64(out)*p.Out) / 1e6, true
}

// ParsePrice parses a --price override "IN,OUT": US dollars per million
// input and output tokens, e.g. "2.5,10".
func ParsePrice(s string) (Price, error) {
	inS, outS, ok := strings.Cut(s, ",")
	if !ok {
		return Price{}, fmt.Errorf("price %q: want IN,OUT (USD per 1M input and output tokens), e.g. 2.5,10", s)
	}
	in, err := parsePriceNumber(inS)
	if err != nil {
		return Price{}, fmt.Errorf("price %q: input: %w", s, err)
	}
	out, err := parsePriceNumber(outS)
	if err != nil {
		return Price{}, fmt.Errorf("price %q: output: %w", s, err)
	}
	return Price{In: in, Out: out}, nil
}

func parsePriceNumber(s string) (float64, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "$")
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%q is not a price (want a finite number >= 0)", s)
	}
	return f, nil
}
