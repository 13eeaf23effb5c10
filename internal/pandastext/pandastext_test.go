package pandastext

import (
	"math"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/py"
)

func TestFrames(t *testing.T) {
	for _, tc := range frameCases {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			fr := FromRows(tc.rows)
			if _, err := fr.WriteTo(&b); err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// pointThree is 0.1+0.2 computed at run time (constants would be exact).
func pointThree() float64 {
	a, b := 0.1, 0.2
	return a + b
}

func TestPyRepr(t *testing.T) {
	// Python 3.11 repr() of each value.
	cases := []struct {
		f    float64
		want string
	}{
		{0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {1, "1.0"}, {-2.5, "-2.5"},
		{pointThree(), "0.30000000000000004"}, {1e-4, "0.0001"}, {1e-5, "1e-05"},
		{1.5e-7, "1.5e-07"}, {1e15, "1000000000000000.0"}, {1e16, "1e+16"},
		{1.2345e22, "1.2345e+22"}, {123456789.125, "123456789.125"},
		{math.Inf(1), "inf"}, {math.NaN(), "nan"},
	}
	for _, c := range cases {
		if got := py.Repr(c.f); got != c.want {
			t.Errorf("py.Repr(%v) = %q, want %q", c.f, got, c.want)
		}
	}
}

func TestParseNumber(t *testing.T) {
	cases := []struct {
		s     string
		f     float64
		isInt bool
		ok    bool
	}{
		{"1", 1, true, true}, {" 2 ", 2, true, true}, {"+3", 3, true, true},
		{"-4.5", -4.5, false, true}, {"1e3", 1000, false, true}, {".5", 0.5, false, true},
		{"5.", 5, false, true}, {"inf", math.Inf(1), false, true}, {"-Infinity", math.Inf(-1), false, true},
		{"abc", 0, false, false}, {"1,000", 0, false, false}, {"0x7", 0, false, false},
		{"", 0, false, false}, {".", 0, false, false}, {"1e", 0, false, false},
		{"99999999999999999999", 0, false, false}, {"1e400", 0, false, false},
		{"1e-400", 0, false, true}, {"1_000", 0, false, false}, {"INF", math.Inf(1), false, true},
	}
	for _, c := range cases {
		f, isInt, _, ok := parseNumber(c.s)
		if ok != c.ok || (ok && (f != c.f || isInt != c.isInt)) {
			t.Errorf("parseNumber(%q) = %v, %v, %v; want %v, %v, %v", c.s, f, isInt, ok, c.f, c.isInt, c.ok)
		}
	}
}

// FuzzParseNumber checks that pandas' number parsing never panics and that
// what it accepts round-trips through strconv.
func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"1", " 2.5 ", "-1e-3", "inf", "abc", ".", "1e", "+.5e+2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, isInt, iv, ok := parseNumber(s)
		if ok && isInt && float64(iv) != v && !math.IsInf(v, 0) {
			if math.Abs(float64(iv)-v) > math.Abs(v)*1e-15 {
				t.Errorf("parseNumber(%q): int %d and float %v disagree", s, iv, v)
			}
		}
	})
}
