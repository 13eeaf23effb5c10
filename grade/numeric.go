package grade

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Default tolerances of the numeric grader, used when the question's meta
// has no "tolerance" (absolute) or "rel_tolerance" (relative).
const (
	// numericAbsTolerance is the default absolute tolerance: tiny, so that
	// float noise ("0.30000000000000004") is forgiven and nothing else.
	numericAbsTolerance = 1e-9
	// numericRelTolerance is the default relative tolerance: one part in a
	// million, so "1661626" accepts "1,661,626.4" but not "1,661,700".
	numericRelTolerance = 1e-6
)

// numeric grades typed numeric answers (DSBench's non-letter answers, say).
//
// Numbers are read with thousands separators ("1,661,626"), currency
// symbols ($ € £ ¥ ₹), a percent sign, scientific notation ("1.5e6"), a
// Unicode minus, scale words ("2.5 million"), and accounting negatives in
// parentheses ("($1,200)" is -1200; a bare "(2024)" is only negative when it
// is the whole text, so years in asides stay positive).
//
// Which number of a chatty completion counts: the first number after the
// last "answer" in it ("Final answer: 42"), else the last number in it
// ("The NPV is $1,661,626."). The ground truth's number is its first.
//
// The completion is correct when |got - want| <= max(tolerance,
// rel_tolerance*|want|) (meta keys; defaults numericAbsTolerance and
// numericRelTolerance), or when the truth is written with d > 0 decimals and
// got rounded to d decimals equals it ("3.14" accepts "3.14159"). A percent
// on either side may also be read as a fraction ("12.5%" equals "0.125").
// A ground truth with no number falls back to the exact grader.
type numeric struct{}

func newNumeric(Options) Grader { return numeric{} }

// Name is "numeric".
func (numeric) Name() string { return "numeric" }

// Check refuses a tolerance that is no number, and a truth without a
// number that the exact grader, which grades it then, refuses.
func (numeric) Check(in Input) error {
	if _, _, err := numericTolerances(in.Meta); err != nil {
		return err
	}
	if _, ok := numericTruth(in.Truth); !ok {
		return exact{}.Check(in)
	}
	return nil
}

// Grade compares the completion's number with the ground truth's.
func (numeric) Grade(ctx context.Context, in Input) (Verdict, error) {
	want, ok := numericTruth(in.Truth)
	if !ok {
		v, err := exact{}.Grade(ctx, in)
		v.Detail = "numeric: truth has no number; " + v.Detail
		return v, err
	}
	abs, rel, err := numericTolerances(in.Meta)
	if err != nil {
		return Verdict{}, err
	}
	got, ok := numericAnswer(in.Completion)
	if !ok {
		return Verdict{Correct: Bool(false), Detail: fmt.Sprintf("numeric: no number in completion; want %s", want.Text)}, nil
	}
	match := numericMatch(got, want, abs, rel)
	return Verdict{Correct: Bool(match), Detail: fmt.Sprintf("numeric: got %s (%g), want %s (%g)", got.Text, got.Value, want.Text, want.Value)}, nil
}

// numericValue is a number read from text.
type numericValue struct {
	Value    float64 // the value, percent not applied ("12.5%" is 12.5)
	Percent  bool    // written with a percent sign
	Decimals int     // digits written after the decimal point
	Text     string  // the text it was read from
}

// numericRe matches one number with its decorations. Groups: 1 opening
// parenthesis, 2 sign before currency, 3 currency, 4 sign after currency,
// 5 digits, 6 fraction, 7 exponent, 8 scale word, 9 percent, 10 closing
// parenthesis.
var numericRe = regexp.MustCompile(`(\(\s*)?([-+−]\s*)?([$€£¥₹]\s*)?([-+−])?((?:\d{1,3}(?:,\d{3})+|\d+)?)(\.\d+)?([eE][-+]?\d+)?(?:\s*(thousand|million|billion|trillion)\b)?(\s*%)?(\s*\))?`)

// numericFind returns every number in s, in order.
func numericFind(s string) []numericValue {
	var out []numericValue
	for _, m := range numericRe.FindAllStringSubmatchIndex(s, -1) {
		g := func(i int) string {
			if m[2*i] < 0 {
				return ""
			}
			return s[m[2*i]:m[2*i+1]]
		}
		digits, frac := g(5), g(6)
		if digits == "" && frac == "" {
			continue
		}
		start := m[0]
		// Skip numbers glued to a word ("Q3", "x2", "2nd" is cut below).
		if start > 0 && g(1) == "" && g(2) == "" && g(3) == "" && g(4) == "" {
			if c := s[start-1]; choiceIsLetter(c) || c == '_' || c == '.' {
				continue
			}
		}
		// A sign glued to a preceding word or digit is a hyphen ("2024-01").
		if (g(2) != "" || g(4) != "") && start > 0 && choiceIsAlnum(s[start-1]) {
			continue
		}
		text := strings.TrimSpace(s[m[0]:m[1]])
		clean := strings.ReplaceAll(digits, ",", "") + frac + g(7)
		if strings.HasPrefix(clean, ".") {
			clean = "0" + clean
		}
		v, err := strconv.ParseFloat(clean, 64)
		if err != nil {
			continue
		}
		switch g(8) {
		case "thousand":
			v *= 1e3
		case "million":
			v *= 1e6
		case "billion":
			v *= 1e9
		case "trillion":
			v *= 1e12
		}
		sign := strings.TrimSpace(g(2) + g(4))
		if strings.Contains(sign, "-") || strings.Contains(sign, "−") {
			v = -v
		}
		open, closed := g(1) != "", g(10) != ""
		if open && closed {
			whole := strings.TrimSpace(s) == strings.TrimSpace(s[m[0]:m[1]])
			if g(3) != "" || strings.Contains(digits, ",") || whole {
				v = -math.Abs(v)
			}
		}
		dec := 0
		if frac != "" {
			dec = len(frac) - 1
		}
		out = append(out, numericValue{Value: v, Percent: g(9) != "", Decimals: dec, Text: text})
	}
	return out
}

// numericTruth reads the ground truth's number: its first.
func numericTruth(s string) (numericValue, bool) {
	ns := numericFind(s)
	if len(ns) == 0 {
		return numericValue{}, false
	}
	return ns[0], true
}

// numericAnswer reads the number a completion answers with: the first after
// its last "answer", else its last.
func numericAnswer(s string) (numericValue, bool) {
	// Lowering ASCII only keeps byte offsets valid in s.
	if i := strings.LastIndex(choiceASCIILower(s), "answer"); i >= 0 {
		if ns := numericFind(s[i+len("answer"):]); len(ns) > 0 {
			return ns[0], true
		}
	}
	ns := numericFind(s)
	if len(ns) == 0 {
		return numericValue{}, false
	}
	return ns[len(ns)-1], true
}

// numericTolerances reads "tolerance" and "rel_tolerance" from the meta.
func numericTolerances(meta map[string]string) (abs, rel float64, err error) {
	abs, rel = numericAbsTolerance, numericRelTolerance
	if s := strings.TrimSpace(meta["tolerance"]); s != "" {
		if abs, err = strconv.ParseFloat(s, 64); err != nil || abs < 0 || math.IsNaN(abs) {
			return 0, 0, fmt.Errorf("numeric: meta tolerance %q is not a non-negative number", s)
		}
	}
	if s := strings.TrimSpace(meta["rel_tolerance"]); s != "" {
		if rel, err = strconv.ParseFloat(s, 64); err != nil || rel < 0 || math.IsNaN(rel) {
			return 0, 0, fmt.Errorf("numeric: meta rel_tolerance %q is not a non-negative number", s)
		}
	}
	return abs, rel, nil
}

// numericMatch applies the tolerance and rounding rules, reading a percent
// on either side both as written and as a fraction.
func numericMatch(got, want numericValue, abs, rel float64) bool {
	gs := []float64{got.Value}
	if got.Percent {
		gs = append(gs, got.Value/100)
	}
	ws := []float64{want.Value}
	if want.Percent {
		ws = append(ws, want.Value/100)
	}
	for _, g := range gs {
		for i, w := range ws {
			if math.Abs(g-w) <= math.Max(abs, rel*math.Abs(w)) {
				return true
			}
			if want.Decimals > 0 && i == 0 {
				p := math.Pow(10, float64(want.Decimals))
				if math.Round(g*p) == math.Round(w*p) {
					return true
				}
			}
		}
	}
	return false
}
