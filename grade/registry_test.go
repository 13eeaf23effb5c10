package grade

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

func TestRegistry(t *testing.T) {
	r := NewRegistry()
	want := []string{"choice", "exact", "json", "judge", "lime", "numeric", "regex", "script"}
	if got := r.Names(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	for _, name := range r.Names() {
		opt := Options{}
		if name == "judge" {
			opt.Judge = &fakeJudge{reply: "GRADE: C"}
		}
		g, err := r.New(name, opt)
		if err != nil {
			t.Errorf("New(%q): %v", name, err)
			continue
		}
		if g.Name() != name {
			t.Errorf("New(%q).Name() = %q", name, g.Name())
		}
	}
	if _, err := r.New("nope", Options{}); err == nil || !strings.Contains(err.Error(), "lime") {
		t.Errorf("unknown grader: %v", err)
	}
	if g, err := r.New(" LIME ", Options{}); err != nil || g.Name() != "lime" {
		t.Errorf("New is not forgiving about case and space: %v", err)
	}
	if _, err := r.New("judge", Options{}); err != nil {
		t.Errorf("judge without a model (it grades identical answers, leaves others null): %v", err)
	}

	// A grader added to one registry is known there and nowhere else.
	other := NewRegistry()
	if err := r.Add("Toy", func(Options) (Grader, error) { return exact{}, nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := r.New("toy", Options{}); err != nil {
		t.Errorf("added grader: %v", err)
	}
	if _, err := other.New("toy", Options{}); err == nil {
		t.Error("a grader added to one registry is known to another")
	}
	if r.Known(" Toy ") != nil || other.Known("toy") == nil || !strings.Contains(fmt.Sprint(other.Known("contians")), "known: choice, exact") {
		t.Errorf("Known: %v, %v, %v", r.Known(" Toy "), other.Known("toy"), other.Known("contians"))
	}
	for _, name := range []string{"toy", " LIME", ""} {
		if err := r.Add(name, func(Options) (Grader, error) { return exact{}, nil }); err == nil {
			t.Errorf("Add(%q) again: no error", name)
		}
	}
	if err := r.Add("nil", nil); err == nil {
		t.Error("Add with no factory: no error")
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
		if got := GraderName(tt.meta, tt.override); got != tt.want {
			t.Errorf("GraderName(%v, %q) = %q, want %q", tt.meta, tt.override, got, tt.want)
		}
	}
}

func TestNullableAsksNothing(t *testing.T) {
	m := &fakeJudge{reply: "GRADE: C"}
	g, _ := newJudge(Options{JudgeOptions: JudgeOptions{Judge: m}})
	s := "x"
	if v, err := Nullable(context.Background(), g, nil, &s, Input{}); err != nil || v.Correct != nil {
		t.Errorf("no truth: %s %v", limeFmtBool(v.Correct), err)
	}
	if len(m.got) != 0 {
		t.Errorf("judge asked %d times for an ungradable question", len(m.got))
	}
	other := "y"
	if v, err := Nullable(context.Background(), g, &s, &other, Input{}); err != nil || v.Correct == nil || !*v.Correct {
		t.Errorf("graded question: %s %v", limeFmtBool(v.Correct), err)
	}
}
