package score

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/internal/testkit/shared"
)

type databenchRefCase struct {
	Value    string  `json:"value"`
	Truth    string  `json:"truth"`
	Semantic string  `json:"semantic"`
	V3       *bool   `json:"v3"`
	V4       *bool   `json:"v4"`
	ErrorV3  *string `json:"error_v3"`
	ErrorV4  *string `json:"error_v4"`
}

type databenchRefMeta struct {
	Line      int    `json:"line"`
	Group     string `json:"group"`
	Tag       string `json:"tag"`
	DateParse string `json:"date_parse"`
}

// databenchClock is a fixed clock, so dates filled in from "today" do not
// depend on when the test runs.
func databenchClock() time.Time { return time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC) }

// databenchOutcome renders a verdict or an error the way the reference
// does: the verdict, or null with "Exception: <text>".
func databenchOutcome(ok bool, err error) (verdict *bool, errText *string) {
	if err != nil {
		var se *semanticError
		s := err.Error()
		if errors.As(err, &se) {
			s = "Exception: " + se.Error()
		}
		var oe *overflowError
		if errors.As(err, &oe) {
			s = "OverflowError: " + oe.Error()
		}
		return nil, &s
	}
	return &ok, nil
}

func databenchSame(a, b *bool, ea, eb *string) bool {
	if (a == nil) != (b == nil) || (ea == nil) != (eb == nil) {
		return false
	}
	if a != nil && *a != *b {
		return false
	}
	return ea == nil || *ea == *eb
}

func show(b *bool, e *string) string {
	if e != nil {
		return "error " + *e
	}
	if b == nil {
		return "null"
	}
	return fmt.Sprint(*b)
}

// TestDataBenchReference checks every line of databench-compare.jsonl, the
// verdicts databench_eval 3.0.0 and 4.0.1 gave, against comparer.
func TestDataBenchReference(t *testing.T) {
	ref := shared.Path(t, "reference")
	cases := readLines[databenchRefCase](t, filepath.Join(ref, "databench-compare.jsonl"))
	metas := readLines[databenchRefMeta](t, filepath.Join(ref, "databench-compare.meta.jsonl"))
	if len(cases) != len(metas) || len(cases) < 2000 {
		t.Fatalf("%d cases, %d meta lines", len(cases), len(metas))
	}
	for _, v := range []struct {
		name    string
		semeval bool
	}{{"v4", false}, {"v3", true}} {
		c := comparer{SemEval: v.semeval, Now: databenchClock}
		equal, bad := 0, 0
		byGroup := map[string][2]int{}
		for i, tc := range cases {
			want, wantErr := tc.V4, tc.ErrorV4
			if v.semeval {
				want, wantErr = tc.V3, tc.ErrorV3
			}
			got, gotErr := databenchOutcome(c.Compare(tc.Value, tc.Truth, tc.Semantic))
			g := byGroup[metas[i].Group]
			g[1]++
			if databenchSame(got, want, gotErr, wantErr) {
				equal++
				g[0]++
			} else if bad++; bad <= 20 {
				t.Errorf("%s line %d (%s/%s): compare(%q, %q, %q) = %s, want %s", v.name, i+1, metas[i].Group, metas[i].Tag,
					tc.Value, tc.Truth, tc.Semantic, show(got, gotErr), show(want, wantErr))
			}
			byGroup[metas[i].Group] = g
		}
		t.Logf("%s: %d/%d lines equal the reference; by group %v", v.name, equal, len(cases), byGroup)
		if equal != len(cases) {
			t.Errorf("%s: %d lines differ", v.name, len(cases)-equal)
		}
	}
}

func TestDataBenchCompare(t *testing.T) {
	c4 := comparer{Now: databenchClock}
	c3 := comparer{SemEval: true, Now: databenchClock}
	tests := []struct {
		value, truth, semantic string
		v4, v3                 bool
	}{
		{"nan", "None", "whatever", true, true},
		{"['x']", "nan", "category", false, false},
		{"Y", "true", "boolean", true, true},
		{"no", "False", " boolean\n", true, true},
		{"1e3", "13", "number", true, true},
		{"0.29", "0.28", "number", true, false},
		{"2.675", "2.67", "number", true, true}, // binary 2.67499...: round gives 2.67
		{"1-2", "1-2", "number", false, false},
		{"$1,234.5", "1234.50", "number", true, true},
		{"[1, 2, 2]", "[2, 1, 1]", "list[number]", true, true},
		{"[1, 2]", "[1, 2, 3]", "list[number]", false, false},
		{"['a', 'b']", "['b', 'a']", "list[category]", true, true},
		{"['2012', '2011']", "['2011-01-01', '2012']", "list[category]", true, true},
		{"['NaT', '2020']", "['none', '2020-01-01']", "list[category]", true, true}, // NaT is one set member
		{"NaT", "nat", "category", false, false},                                    // NaT == NaT is False
		{"Jan 5, 2021", "2021-01-05", "category", true, true},
		{"Monday", "monday", "category", false, false},  // year 1: out of datetime64[ns]
		{"12:30", "2025-03-14", "category", true, true}, // time only: today
		{"2Q2020", "2020-04-01", "category", true, true},
		{"5Q2020", "5Q2020 ", "category", true, true}, // equal after strip
		{"today", "2025-03-14", "category", true, true},
		{"1500-01-01", "1500-01-01T00:00", "category", false, false},
	}
	for _, tc := range tests {
		for _, v := range []struct {
			c    comparer
			want bool
		}{{c4, tc.v4}, {c3, tc.v3}} {
			got, err := v.c.Compare(tc.value, tc.truth, tc.semantic)
			if err != nil || got != v.want {
				t.Errorf("Compare(%q, %q, %q) semeval=%v = %v, %v; want %v", tc.value, tc.truth, tc.semantic, v.c.SemEval, got, err, v.want)
			}
		}
	}
	if _, err := c4.Compare("1", "2", "Number"); err == nil || err.Error() != "Semantic not supported: Number" {
		t.Errorf("unknown semantic: err = %v", err)
	}
	if _, err := c4.Compare("Jan 1 99999999999", "x", "category"); !errors.As(err, new(*overflowError)) {
		t.Errorf("overflowing year: err = %v, want OverflowError", err)
	}
	if ok, err := c4.Compare("['Jan 1 99999999999']", "['x']", "list[category]"); err != nil || ok {
		t.Errorf("overflow inside a list: %v, %v; want false, nil", ok, err)
	}
}

func TestDataBenchGrader(t *testing.T) {
	g := newGrader(false)
	gs := newGrader(true)
	if g.Name() != "databench" || gs.Name() != "databench-semeval" {
		t.Fatalf("names %q %q", g.Name(), gs.Name())
	}
	ctx := context.Background()
	for _, tc := range []struct {
		meta map[string]string
		v4   bool
		v3   bool
	}{
		{map[string]string{"semantic": "number"}, true, false},
		{map[string]string{"type": "number"}, true, false},
		{map[string]string{"semantic": "number", "type": "category"}, true, false},
		{map[string]string{"type": "category"}, false, false},
	} {
		in := grade.Input{Completion: "0.29", Truth: "0.28", Meta: tc.meta}
		v, err := g.Grade(ctx, in)
		if err != nil || *v.Correct != tc.v4 {
			t.Errorf("databench %v: %v %v", tc.meta, v.Correct, err)
		}
		v, err = gs.Grade(ctx, in)
		if err != nil || *v.Correct != tc.v3 {
			t.Errorf("databench-semeval %v: %v %v", tc.meta, v.Correct, err)
		}
	}
	if _, err := g.Grade(ctx, grade.Input{Completion: "1", Truth: "1"}); err == nil {
		t.Error("no semantic meta: no error")
	}
	if _, err := g.Grade(ctx, grade.Input{Completion: "1", Truth: "1", Meta: map[string]string{"semantic": "string"}}); !errors.As(err, new(*semanticError)) {
		t.Errorf("unknown semantic: err = %v", err)
	}
}

func FuzzDataBenchCompare(f *testing.F) {
	for _, s := range []string{"2020-01-01", "Jan 1, 2020", "12:30", "['a', 'b']", "[1.5, 2]", "1e3", "2Q05", "Monday 5pm +0300 (BRST)", "٢٠٢٠"} {
		f.Add(s, "2020-01-01")
	}
	c := comparer{Now: databenchClock}
	f.Fuzz(func(t *testing.T, value, truth string) {
		for _, sem := range []string{"boolean", "category", "number", "list[category]", "list[number]"} {
			ok, err := c.Compare(value, truth, sem)
			if err != nil {
				var oe *overflowError
				if sem != "category" || !errors.As(err, &oe) {
					t.Fatalf("Compare(%q, %q, %q): unexpected error %v", value, truth, sem, err)
				}
				continue
			}
			// default_compare is reflexive except for NaT strings in a
			// category (NaT != NaT) and unparsable numbers.
			if value == truth && sem != "number" && sem != "list[number]" && sem != "boolean" && !ok {
				t.Fatalf("Compare(%q, %q, %q) = false on equal strings", value, truth, sem)
			}
		}
	})
}

// BenchmarkDataBenchGrade10k grades 10,000 questions per op with each
// version: the reference cases (real SemEval answers, perturbations, dates),
// cycled.
func BenchmarkDataBenchGrade10k(b *testing.B) {
	cases := readLines[databenchRefCase](b, filepath.Join(shared.Path(b, "reference"), "databench-compare.jsonl"))
	var ins []grade.Input
	for _, tc := range cases {
		if tc.ErrorV4 != nil {
			continue
		}
		ins = append(ins, grade.Input{Completion: tc.Value, Truth: tc.Truth, Meta: map[string]string{"semantic": tc.Semantic}})
	}
	for _, semeval := range []bool{false, true} {
		g := newGrader(semeval)
		b.Run(g.Name(), func(b *testing.B) {
			ctx := context.Background()
			for n := 0; n < b.N; n++ {
				for i := 0; i < 10000; i++ {
					if _, err := g.Grade(ctx, ins[i%len(ins)]); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// readLines decodes each non-empty line of a JSON Lines file as a T.
func readLines[T any](t testing.TB, path string) []T {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []T
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var v T
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
		out = append(out, v)
	}
	return out
}
