package model

import (
	"strings"
	"testing"
)

func TestParsePrice(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Price
		err  string
	}{
		{in: "2.5,10", want: Price{In: 2.5, Out: 10}},
		{in: " 0 , 0.6 ", want: Price{In: 0, Out: 0.6}},
		{in: "$3,$15", want: Price{In: 3, Out: 15}},
		{in: "2.5,10,1.25", want: Price{In: 2.5, Out: 10, CachedIn: 1.25}},
		{in: "3,15,0.3,3.75", want: Price{In: 3, Out: 15, CachedIn: 0.3, CacheWrite: 3.75}},
		{in: "3", err: "IN,OUT"},
		{in: "1,2,3,4,5", err: "IN,OUT[,CACHED_IN[,CACHE_WRITE]]"},
		{in: "1,2,x", err: "cached input"},
		{in: "1,2,3,-4", err: "cache write"},
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

// A batch price halves every rate, the cache rates too; a cache rate not
// given stays not given, so it follows the halved input price.
func TestBatchPrice(t *testing.T) {
	for _, tc := range []struct{ in, want Price }{
		{Price{In: 2.5, Out: 10, CachedIn: 1.25}, Price{In: 1.25, Out: 5, CachedIn: 0.625}},
		{claude(3, 15), Price{In: 1.5, Out: 7.5, CachedIn: 0.15, CacheWrite: 1.875}},
		{Price{In: 1, Out: 2}, Price{In: 0.5, Out: 1}},
	} {
		if got := BatchPrice(tc.in); got != tc.want {
			t.Errorf("BatchPrice(%+v) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}
