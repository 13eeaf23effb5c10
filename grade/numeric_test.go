package grade

import (
	"context"
	"math"
	"testing"
)

func TestNumeric(t *testing.T) {
	tests := []struct {
		name, truth, completion string
		meta                    map[string]string
		want                    *bool
	}{
		{"npv chatty", "1661626", "The NPV is $1,661,626.", nil, Bool(true)},
		{"npv off", "1661626", "The NPV is $1,661,700.", nil, Bool(false)},
		{"npv within rel", "1661626", "NPV = 1,661,626.4", nil, Bool(true)},
		{"plain", "42", "42", nil, Bool(true)},
		{"last number counts", "42", "Out of 100 rows, 42 match.", nil, Bool(true)},
		{"after answer", "42", "Answer: 42 (out of 100 rows)", nil, Bool(true)},
		{"last answer wins", "7", "My first answer was 3. Final answer: 7", nil, Bool(true)},
		{"percent", "12.5%", "The rate is 12.5%.", nil, Bool(true)},
		{"percent as fraction", "12.5%", "0.125", nil, Bool(true)},
		{"fraction as percent", "0.125", "12.5%", nil, Bool(true)},
		{"negative parens", "-1200", "Net income: ($1,200)", nil, Bool(true)},
		{"paren year stays positive", "2024", "The year with most sales (2024)", nil, Bool(true)},
		{"negative sign", "-3.5", "The change is -3.5", nil, Bool(true)},
		{"unicode minus", "-3.5", "change: −3.5", nil, Bool(true)},
		{"scientific", "1500000", "about 1.5e6 units", nil, Bool(true)},
		{"scientific truth", "1.5E-3", "0.0015", nil, Bool(true)},
		{"scale word", "2500000", "2.5 million", nil, Bool(true)},
		{"rounding to truth decimals", "3.14", "pi is 3.14159", nil, Bool(true)},
		{"rounding not for integers", "2", "2.4", nil, Bool(false)},
		{"euro", "99.99", "€99.99", nil, Bool(true)},
		{"no number", "42", "I cannot compute this.", nil, Bool(false)},
		{"abs tolerance", "100", "The total is 100.4", map[string]string{"tolerance": "0.5"}, Bool(true)},
		{"abs tolerance miss", "100", "The total is 100.6", map[string]string{"tolerance": "0.5"}, Bool(false)},
		{"rel tolerance", "1000", "1009", map[string]string{"rel_tolerance": "0.01"}, Bool(true)},
		{"rel tolerance miss", "1000", "1011", map[string]string{"rel_tolerance": "0.01"}, Bool(false)},
		{"date is not negative", "15", "On 2024-01-15 the count was 15", nil, Bool(true)},
		{"word glued", "7", "In Q3 there were 7", nil, Bool(true)},
		{"text truth falls back to exact", "Paris", " paris ", nil, Bool(true)},
		{"text truth wrong", "Paris", "Lyon", nil, Bool(false)},
	}
	ctx := context.Background()
	g := newNumeric(Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := g.Grade(ctx, Input{Truth: tt.truth, Completion: tt.completion, Meta: tt.meta})
			if err != nil {
				t.Fatal(err)
			}
			if limeFmtBool(v.Correct) != limeFmtBool(tt.want) {
				t.Errorf("truth %q completion %q: got %s, want %s (%s)", tt.truth, tt.completion, limeFmtBool(v.Correct), limeFmtBool(tt.want), v.Detail)
			}
		})
	}
}

func TestNumericBadMeta(t *testing.T) {
	for _, meta := range []map[string]string{{"tolerance": "abc"}, {"rel_tolerance": "-1"}, {"tolerance": "NaN"}} {
		if _, err := newNumeric(Options{}).Grade(context.Background(), Input{Truth: "1", Completion: "1", Meta: meta}); err == nil {
			t.Errorf("meta %v: no error", meta)
		}
	}
}

func TestNumericFind(t *testing.T) {
	tests := []struct {
		in   string
		want []float64
	}{
		{"$1,661,626", []float64{1661626}},
		{"1,5", []float64{1, 5}}, // not a thousands group: two numbers
		{"(1,200) and (7)", []float64{-1200, 7}},
		{"(7)", []float64{-7}},
		{".5 and 2.", []float64{0.5, 2}},
		{"x2 y 3", []float64{3}},
		{"-4 - 5", []float64{-4, -5}},
	}
	for _, tt := range tests {
		got := numericFind(tt.in)
		if len(got) != len(tt.want) {
			t.Errorf("numericFind(%q) = %v, want %v", tt.in, got, tt.want)
			continue
		}
		for i := range got {
			if math.Abs(got[i].Value-tt.want[i]) > 1e-12 {
				t.Errorf("numericFind(%q)[%d] = %v, want %v", tt.in, i, got[i].Value, tt.want[i])
			}
		}
	}
}

func FuzzNumericAnswer(f *testing.F) {
	for _, s := range []string{"ȺȺȺȺȺȺ answer 7", "$1,661,626", "(1,200)", "1e309", "12.5%", "−3", "answer", "2.5 million", "\xff9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := numericAnswer(s)
		if ok && n.Text == "" {
			t.Fatalf("number without text from %q", s)
		}
		if _, err := newNumeric(Options{}).Grade(context.Background(), Input{Truth: "1", Completion: s}); err != nil {
			t.Fatal(err)
		}
	})
}

func TestExact(t *testing.T) {
	tests := []struct {
		truth, completion string
		want              bool
	}{
		{"Paris", "paris", true},
		{"New York", "  new   york\n", true},
		{"New York", "New York.", false},
		{"ΣΟΦΙΑ", "σοφια", true},
		{"Paris", "It is Paris", false},
		{"2019-03", "2019-03", true},
	}
	for _, tt := range tests {
		v, err := newExact(Options{}).Grade(context.Background(), Input{Truth: tt.truth, Completion: tt.completion})
		if err != nil {
			t.Fatal(err)
		}
		if v.Correct == nil || *v.Correct != tt.want {
			t.Errorf("exact(%q, %q) = %s, want %t", tt.truth, tt.completion, limeFmtBool(v.Correct), tt.want)
		}
	}
	v, _ := newExact(Options{}).Grade(context.Background(), Input{Truth: "  ", Completion: "x"})
	if v.Correct != nil {
		t.Errorf("blank truth: got %s, want null", limeFmtBool(v.Correct))
	}
}

func FuzzExactNorm(f *testing.F) {
	f.Add("  a \t b ")
	f.Fuzz(func(t *testing.T, s string) {
		n := exactNorm(s)
		if exactNorm(n) != n {
			t.Fatalf("exactNorm not idempotent on %q", s)
		}
	})
}
