package builtin

import (
	"context"
	"errors"
	"fmt"
	"github.com/evalmd/evalmd/model"
	"slices"
	"strings"
	"testing"
)

func ask(text string, q model.QuestionRef) model.Task {
	return model.Task{Request: model.Request{Messages: []model.Message{{Role: "user", Content: text}}}, Question: q}
}

func TestMock(t *testing.T) {
	for _, tc := range []struct {
		reply, want string
	}{{"", defaultMockReply}, {"B", "B"}} {
		m, err := newModel("mock", model.Options{Provider: []any{Options{MockReply: tc.reply}}})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := model.Ask(context.Background(), m, ask("anything", model.QuestionRef{Name: "q"}))
		if err != nil || resp.Text != tc.want {
			t.Errorf("mock with %q = %q, %v; want %q", tc.reply, resp.Text, err, tc.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m, _ := newModel("mock", model.Options{})
	if _, err := model.Ask(ctx, m, ask("x", model.QuestionRef{})); !errors.Is(err, context.Canceled) {
		t.Errorf("mock on a cancelled context: %v", err)
	}
}

func TestOracle(t *testing.T) {
	m, err := newModel("oracle", model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	gt := "42"
	resp, err := model.Ask(context.Background(), m, ask("q", model.QuestionRef{Name: "q1", GroundTruth: &gt}))
	if err != nil || resp.Text != "42" {
		t.Errorf("oracle = %q, %v; want 42", resp.Text, err)
	}
	empty := ""
	resp, err = model.Ask(context.Background(), m, ask("q", model.QuestionRef{Name: "q2", GroundTruth: &empty}))
	if err != nil || resp.Text != "" {
		t.Errorf("oracle with an empty ground truth = %q, %v; want an empty answer", resp.Text, err)
	}
	_, err = model.Ask(context.Background(), m, ask("q", model.QuestionRef{Name: "q3"}))
	if !errors.Is(err, model.ErrNoAnswer) {
		t.Errorf("oracle without ground truth: %v, want model.ErrNoAnswer", err)
	}
}

func TestRandomFindsOptions(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"Pick one:\nA) red\nB) green\nC) blue", []string{"A", "B", "C"}},
		{"A. one\nB. two", []string{"A", "B"}},
		{"(A) x\n(B) y\n(C) z\n(D) w", []string{"A", "B", "C", "D"}},
		{"- A) bullet\n* B) star\n  C. indented", []string{"A", "B", "C"}},
		{"A) a\nB) b\nA) again", []string{"A", "B"}},
		{"e.g. this is prose\nI think so.\nNo options here", nil},
		{"What is 2+2?", nil},
		{"A)no space\nB.x", nil},
	} {
		if got := options(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("options(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestRandomIsReproducibleAndFair(t *testing.T) {
	const text = "Which?\nA) one\nB) two\nC) three\nD) four"
	picks := func(seed int64, order []int) map[int]string {
		m, err := newModel("random", model.Options{Provider: []any{Options{Seed: seed}}})
		if err != nil {
			t.Fatal(err)
		}
		out := map[int]string{}
		for _, i := range order {
			resp, err := model.Ask(context.Background(), m, ask(text, model.QuestionRef{Sheet: "s", Name: fmt.Sprintf("q%d", i)}))
			if err != nil {
				t.Fatal(err)
			}
			out[i] = resp.Text
		}
		return out
	}
	const n = 400
	forward, backward := make([]int, n), make([]int, n)
	for i := range n {
		forward[i], backward[n-1-i] = i, i
	}
	a, b := picks(7, forward), picks(7, backward)
	counts := map[string]int{}
	for i := range n {
		if a[i] != b[i] {
			t.Fatalf("question %d: %q forward, %q backward: the pick depends on request order", i, a[i], b[i])
		}
		counts[a[i]]++
	}
	// Each of 4 options should get about n/4 = 100; 60..140 is far outside
	// chance for a fair pick and catches a pick stuck on one option.
	for _, opt := range []string{"A", "B", "C", "D"} {
		if c := counts[opt]; c < 60 || c > 140 {
			t.Errorf("option %s picked %d times of %d: %v", opt, c, n, counts)
		}
	}
	other := picks(8, forward)
	same := 0
	for i := range n {
		if other[i] == a[i] {
			same++
		}
	}
	if same > n/2 {
		t.Errorf("seeds 7 and 8 agree on %d of %d questions: the seed does not matter", same, n)
	}

	m, _ := newModel("random", model.Options{})
	resp, err := model.Ask(context.Background(), m, ask("What is 2+2?", model.QuestionRef{Name: "open"}))
	if err != nil || resp.Text != noOptionsReply {
		t.Errorf("random on a free-form question = %q, %v", resp.Text, err)
	}
}

// The random baseline depends on the sheet's file name, not on the path
// it was given by, so it is the same from any working directory.
func TestRandomSameFromAnyPath(t *testing.T) {
	m, err := newModel("random", model.Options{Provider: []any{Options{Seed: 3}}})
	if err != nil {
		t.Fatal(err)
	}
	text := "Pick one.\nA) w\nB) x\nC) y\nD) z\nE) v\nF) u\n"
	for i := 0; i < 20; i++ {
		name := fmt.Sprintf("Q%d", i)
		var got []string
		for _, sheet := range []string{"sheets/input-a.md", "/home/me/evals/sheets/input-a.md", "input-a.md"} {
			r, err := model.Ask(context.Background(), m, ask(text, model.QuestionRef{Sheet: sheet, Name: name}))
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, r.Text)
		}
		if got[0] != got[1] || got[1] != got[2] {
			t.Errorf("%s: picks %q differ by path", name, got)
		}
	}
}

func newModel(name string, opt model.Options) (model.Model, error) {
	r := model.NewRegistry()
	Register(r)
	return r.New(name, opt)
}

func TestInfo(t *testing.T) {
	for _, name := range []string{"mock", "random", "oracle"} {
		m, err := newModel(name, model.Options{BaseURL: "http://ignored/v1"})
		if err != nil {
			t.Fatal(err)
		}
		if i := m.Info(); !i.Offline || i.Vision || i.Price == nil || *i.Price != (model.Price{}) || i.BaseURL != "" || i.Provider != name {
			t.Errorf("%s: Info() = %+v, want offline, free, no vision, no server", name, i)
		}
	}
	if _, err := newModel("replay:", model.Options{}); err == nil || !strings.Contains(err.Error(), "replay:FILE") {
		t.Errorf("replay without a file: %v", err)
	}
	if _, err := newModel("replay:/does/not/exist.jsonl", model.Options{}); err == nil || !strings.Contains(err.Error(), "exist.jsonl") {
		t.Errorf("replay of a missing file: %v", err)
	}
}
