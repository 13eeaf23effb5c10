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
	// CachedIn is per 1M input tokens read from the provider's prompt
	// cache, and CacheWrite per 1M written to it (Anthropic's cache
	// creation). 0 means not given: Cost then takes the provider's rule
	// (Anthropic's 0.1x and 1.25x In) or, elsewhere, In.
	CachedIn   float64 `json:",omitempty"`
	CacheWrite float64 `json:",omitempty"`
}

// claude is an Anthropic price with its prompt cache rates: a read costs
// a tenth of the input price, a write (to the 5-minute cache) a quarter
// more. Divided, not multiplied by 0.1, so that $3 reads at $0.30 exactly.
func claude(in, out float64) Price {
	return Price{In: in, Out: out, CachedIn: in / 10, CacheWrite: in * 5 / 4}
}

// rates is p with every rate filled in: a cache rate not given takes the
// provider's rule over In (Anthropic's, else In itself).
func (p Price) rates(provider string) Price {
	def := Price{CachedIn: p.In, CacheWrite: p.In}
	if provider == "anthropic" {
		def = claude(p.In, p.Out)
	}
	if p.CachedIn == 0 {
		p.CachedIn = def.CachedIn
	}
	if p.CacheWrite == 0 {
		p.CacheWrite = def.CacheWrite
	}
	return p
}

// priceEntry is one row of the price table.
type priceEntry struct {
	model string
	price Price
}

// priceTable lists approximate list prices, USD per 1M tokens, as published
// by OpenAI and Anthropic around 2025-11 (standard tier, no batch
// discount), with OpenAI's cached-input price where the model has one and
// Anthropic's cache rates (claude). Prices change: treat costs as estimates and use --price for
// exact numbers. A function, not a package variable, so nothing can change
// the table at run time.
func priceTable() []priceEntry {
	return []priceEntry{
		// OpenAI
		{"gpt-5", Price{In: 1.25, Out: 10, CachedIn: 0.125}},
		{"gpt-5-mini", Price{In: 0.25, Out: 2, CachedIn: 0.025}},
		{"gpt-5-nano", Price{In: 0.05, Out: 0.40, CachedIn: 0.005}},
		{"gpt-4.1", Price{In: 2, Out: 8, CachedIn: 0.50}},
		{"gpt-4.1-mini", Price{In: 0.40, Out: 1.60, CachedIn: 0.10}},
		{"gpt-4.1-nano", Price{In: 0.10, Out: 0.40, CachedIn: 0.025}},
		{"gpt-4o", Price{In: 2.50, Out: 10, CachedIn: 1.25}},
		{"gpt-4o-mini", Price{In: 0.15, Out: 0.60, CachedIn: 0.075}},
		{"chatgpt-4o-latest", Price{In: 5, Out: 15}},
		{"gpt-4-turbo", Price{In: 10, Out: 30}},
		{"gpt-4", Price{In: 30, Out: 60}},
		{"gpt-4-32k", Price{In: 60, Out: 120}},
		{"gpt-3.5-turbo", Price{In: 0.50, Out: 1.50}},
		{"o1", Price{In: 15, Out: 60, CachedIn: 7.50}},
		{"o1-mini", Price{In: 1.10, Out: 4.40, CachedIn: 0.55}},
		{"o3", Price{In: 2, Out: 8, CachedIn: 0.50}},
		{"o3-mini", Price{In: 1.10, Out: 4.40, CachedIn: 0.55}},
		{"o4-mini", Price{In: 1.10, Out: 4.40, CachedIn: 0.275}},
		// Anthropic
		{"claude-opus-4-5", claude(5, 25)},
		{"claude-opus-4-1", claude(15, 75)},
		{"claude-opus-4", claude(15, 75)},
		{"claude-sonnet-4-5", claude(3, 15)},
		{"claude-sonnet-4", claude(3, 15)},
		{"claude-haiku-4-5", claude(1, 5)},
		{"claude-3-7-sonnet", claude(3, 15)},
		{"claude-3-5-sonnet", claude(3, 15)},
		{"claude-3-5-haiku", claude(0.80, 4)},
		{"claude-3-opus", claude(15, 75)},
		{"claude-3-sonnet", claude(3, 15)},
		{"claude-3-haiku", claude(0.25, 1.25)},
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

// Usage is what one reply used, in tokens, as Cost prices it.
type Usage struct {
	In, Out int
	// CacheRead and CacheWrite are the parts of In read from and written
	// to the provider's prompt cache.
	CacheRead, CacheWrite int
}

// Usage is r's usage.
func (r Response) Usage() Usage {
	return Usage{In: r.InputTokens, Out: r.OutputTokens, CacheRead: r.CacheReadTokens, CacheWrite: r.CacheWriteTokens}
}

// Cost returns the cost in US dollars of u on a model: override (--price),
// when not nil, is used instead of the model's Info.Price. Input tokens
// read from or written to a prompt cache are priced at the cache rates,
// the rest of In at the input price. It reports false when the price is
// unknown; the cost is then 0 and should be shown as unknown, not as free.
func Cost(info Info, u Usage, override *Price) (float64, bool) {
	p := info.Price
	if override != nil {
		p = override
	}
	if p == nil {
		return 0, false
	}
	r := p.rates(info.Provider)
	// A provider that counts more cached tokens than input tokens is
	// trusted for the cached parts; the rest is never negative.
	plain := max(u.In-u.CacheRead-u.CacheWrite, 0)
	return (float64(plain)*r.In + float64(u.CacheRead)*r.CachedIn +
		float64(u.CacheWrite)*r.CacheWrite + float64(u.Out)*r.Out) / 1e6, true
}

// ParsePrice parses a --price override "IN,OUT[,CACHED_IN[,CACHE_WRITE]]":
// US dollars per million input, output, cached input and cache-written
// input tokens, e.g. "2.5,10" or "3,15,0.3,3.75". A cache rate left out
// (or 0) is the provider's (see Price).
func ParsePrice(s string) (Price, error) {
	parts := strings.Split(s, ",")
	if len(parts) < 2 || len(parts) > 4 {
		return Price{}, fmt.Errorf("price %q: want IN,OUT[,CACHED_IN[,CACHE_WRITE]] (USD per 1M input and output tokens), e.g. 2.5,10", s)
	}
	names := []string{"input", "output", "cached input", "cache write"}
	var v [4]float64
	for i, part := range parts {
		f, err := parsePriceNumber(part)
		if err != nil {
			return Price{}, fmt.Errorf("price %q: %s: %w", s, names[i], err)
		}
		v[i] = f
	}
	return Price{In: v[0], Out: v[1], CachedIn: v[2], CacheWrite: v[3]}, nil
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
