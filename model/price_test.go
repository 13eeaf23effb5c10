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
