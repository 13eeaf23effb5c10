package grade

import (
	"context"
	"strings"
	"testing"
)

func TestNew(t *testing.T) {
	for _, name := range Names() {
		opt := Options{}
		if name == "judge" {
			opt.Judge = &fakeJudge{reply: "GRADE: C"}
		}
		g, err := New(name, opt)
		if err != nil {
			t.Errorf("New(%q): %v", name, err)
			continue
		}
		if g.Name() != name {
			t.Errorf("New(%q).Name() = %q", name, g.Name())
		}
	}
	if len(Names()) != 8 {
		t.Errorf("Names() = %v, want 8 graders", Names())
	}
	if _, err := New("nope", Options{}); err == nil || !strings.Contains(err.Error(), "lime") {
		t.Errorf("unknown grader: %v", err)
	}
	if g, err := New(" LIME ", Options{}); err != nil || g.Name() != "lime" {
		t.Errorf("New is not forgiving about case and space: %v", err)
	}
}

func TestSelect(t *testing.T) {
	tests := []struct {
		meta     map[string]string
		override string
		want     string
	}{
		{nil, "", "lime"},
		{map[string]string{}, "", "lime"},
		{map[string]string{"grader": "choice"}, "", "choice"},
		{map[string]string{"grader": " numeric "}, "", "numeric"},
		{map[string]string{"grader": "choice"}, "exact", "exact"},
		{nil, "judge", "judge"},
		{map[string]string{"grader": ""}, " ", "lime"},
	}
	for _, tt := range tests {
		if got := Select(tt.meta, tt.override); got != tt.want {
			t.Errorf("Select(%v, %q) = %q, want %q", tt.meta, tt.override, got, tt.want)
		}
	}
}

func TestNullableAsksNothing(t *testing.T) {
	m := &fakeJudge{reply: "GRADE: C"}
	g, _ := New("judge", Options{JudgeOptions: JudgeOptions{Judge: m}})
	s := "x"
	if v, err := Nullable(context.Background(), g, nil, &s, Input{}); err != nil || v.Correct != nil {
		t.Errorf("no truth: %s %v", limeFmtBool(v.Correct), err)
	}
	if len(m.got) != 0 {
		t.Errorf("judge asked %d times for an ungradable question", len(m.got))
	}
	if v, err := Nullable(context.Background(), g, &s, &s, Input{}); err != nil || v.Correct == nil || !*v.Correct {
		t.Errorf("graded question: %s %v", limeFmtBool(v.Correct), err)
	}
}
