package reviewcmd

import (
	"bufio"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/evalmd/evalmd/internal/testkit/golden"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/review"
	"github.com/evalmd/evalmd/verdict"
)

func ptr[T any](v T) *T { return &v }

// answer is an answer to review as Load makes it.
func answer(question, truth, said string) *review.Answer {
	return &review.Answer{
		Key:    verdict.Key{Sheet: "First-Steps", Question: "Capital-France", N: 1, Model: "mock"},
		Files:  []string{"output-first-steps-mock-1.json"},
		Q:      result.Question{Name: "Capital-France", Question: question, GroundTruth: &truth, Completion: &said, Grader: "lime", Grade: ptr(false)},
		Graded: &said,
		Grader: ptr(false),
	}
}

// lines is n numbered lines.
func lines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "line %d\n", i+1)
	}
	return b.String()
}

// The screens a person sees, each in a box the size of its terminal.
func TestFrameGolden(t *testing.T) {
	plain := answer("What is the capital of France?", "Paris", "Paree, surely")
	long := answer("Name the capital.\n"+lines(30), "Paris", lines(40))
	long.Q.Reasoning = lines(12)
	long.Q.GradeDetail = "lime: no match of the truth in the answer"
	judged := answer("Q?", "B", "(b)")
	judged.Verdict = &verdict.Verdict{Right: true, By: "ann", At: time.Date(2026, 12, 1, 10, 4, 0, 0, time.UTC), Reason: "(b) is B"}
	judged.Files = append(judged.Files, "output-first-steps-mock-2.json")
	judged.Graders = []*bool{ptr(true)}
	var b strings.Builder
	for _, tc := range []struct {
		name          string
		v             view
		width, height int
	}{
		{"plain", view{a: plain, pos: 1, total: 3}, 60, 16},
		{"long, cut", view{a: long, pos: 2, total: 3, note: "First-Steps / Capital-France / mock: right, recorded"}, 60, 24},
		{"reasoning shown", view{a: long, pos: 2, total: 3, reasoning: true}, 60, 24},
		{"a verdict, asked a reason", view{a: judged, pos: 3, total: 3, asking: "wrong", reason: "not B at all, whatever the grader says", accept: true}, 60, 14},
		{"help", view{a: plain, pos: 1, total: 3, help: true, accept: true}, 100, 16},
		{"narrow", view{a: plain, pos: 1, total: 3}, 20, 8},
	} {
		fmt.Fprintf(&b, "%s (%dx%d)\n+%s+\n", tc.name, tc.width, tc.height, strings.Repeat("-", tc.width))
		for _, l := range frame(tc.v, tc.width, tc.height) {
			fmt.Fprintf(&b, "|%s%s|\n", l, strings.Repeat(" ", tc.width-utf8.RuneCountInString(l)))
		}
		fmt.Fprintf(&b, "+%s+\n\n", strings.Repeat("-", tc.width))
	}
	golden.Check(t, filepath.Join("testdata", "screens.txt"), []byte(b.String()))
}

// Whatever the texts and the screen, a frame fits it, shows no control
// character from a file, and says how much it cut.
func TestFrameFits(t *testing.T) {
	evil := "\x1b]0;pwned\x07\x1b[2J\u202egpt\r\x9b31m"
	for _, tc := range []struct {
		name          string
		a             *review.Answer
		width, height int
		want          []string
	}{
		{"control characters", answer(evil, evil, evil), 80, 24, []string{`\x1b]0;pwned\x07\x1b[2J\u202egpt\r\x9b31m`}},
		{"a long answer", answer("Q", "T", lines(100)), 80, 24, []string{"line 1", "more lines)"}},
		{"one long line", answer("Q", "T", strings.Repeat("word ", 1000)), 80, 24, []string{"more lines)"}},
		{"tabs and CRLF", answer("Q", "T", "a\tb\r\nc"), 80, 24, []string{"a    b", "  c"}},
		{"empty answer", answer("Q", "T", ""), 80, 24, []string{"answer: (empty)"}},
		{"tiny screen", answer(lines(5), lines(5), lines(5)), 20, 8, nil},
		{"wide characters", answer("Q", "T", strings.Repeat("日本語", 100)), 40, 12, []string{"日本語"}},
	} {
		got := frame(view{a: tc.a, pos: 1, total: 1}, tc.width, tc.height)
		if len(got) > tc.height {
			t.Errorf("%s: %d lines on a screen of %d", tc.name, len(got), tc.height)
		}
		all := strings.Join(got, "\n")
		for _, l := range got {
			if n := utf8.RuneCountInString(l); n > tc.width {
				t.Errorf("%s: a line of %d characters on a screen of %d: %q", tc.name, n, tc.width, l)
			}
			if i := strings.IndexFunc(l, func(r rune) bool { return r < 0x20 || r >= 0x7f && r < 0xa0 || r == '\u202e' }); i >= 0 {
				t.Errorf("%s: a control character shown raw: %q", tc.name, l)
			}
		}
		for _, w := range tc.want {
			if !strings.Contains(all, w) {
				t.Errorf("%s: the screen lacks %q:\n%s", tc.name, w, all)
			}
		}
	}
}

func TestShare(t *testing.T) {
	for _, tc := range []struct {
		need []int
		room int
		want []int
	}{
		{[]int{1, 1, 1}, 10, []int{1, 1, 1}},
		{[]int{1, 20, 30}, 11, []int{1, 5, 5}},
		{[]int{3, 20, 30}, 12, []int{3, 5, 4}},
		{[]int{5, 5}, 0, []int{0, 0}},
		{[]int{5, 5}, -3, []int{0, 0}},
		{nil, 5, []int{}},
	} {
		if got := share(tc.need, tc.room); !slices.Equal(got, tc.want) {
			t.Errorf("share(%v, %d) = %v, want %v", tc.need, tc.room, got, tc.want)
		}
	}
}

func TestCutLines(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want []string
	}{
		{5, []string{"a", "b", "c"}},
		{3, []string{"a", "b", "c"}},
		{2, []string{"a", "… (2 more lines)"}},
		{1, []string{"… (3 more lines)"}},
		{0, nil},
	} {
		if got := cutLines([]string{"a", "b", "c"}, tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("cutLines(a b c, %d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestNextKey(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []rune
	}{
		{"yn", []rune{'y', 'n'}},
		{"é日", []rune{'é', '日'}},
		{"\x1b[D\x1b[C", []rune{keyLeft, keyRight}},
		{"\x1bOD", []rune{keyLeft}},
		{"\x1b[1;5A", []rune{keyOther}},
		{"\x1b", []rune{keyEsc}},
		{"\x1bq", []rune{keyEsc, 'q'}},
		{"\x03\r\x7f", []rune{keyCtrlC, '\r', keyBackspace}},
		{"\x1b[200~y\x1b[201~", []rune{keyPasteStart, 'y', keyPasteEnd}},
	} {
		br := bufio.NewReader(strings.NewReader(tc.in))
		var got []rune
		for {
			r, err := nextKey(br)
			if err != nil {
				break
			}
			got = append(got, r)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("keys of %q: %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		in    string
		width int
		want  []string
	}{
		{"the quick brown fox jumps", 10, []string{"the quick", "brown fox", "jumps"}},
		{"abcdefghijklmno", 10, []string{"abcdefghij", "klmno"}},
		{"a bcdefghijklmno", 10, []string{"a bcdefghi", "jklmno"}},
		{"one\n\ntwo\n\n", 10, []string{"one", "", "two"}},
		{"\x1b[2J", 10, []string{`\x1b[2J`}},
		{"\n", 10, []string{"(empty)"}},
	} {
		if got := wrap(tc.in, tc.width); !slices.Equal(got, tc.want) {
			t.Errorf("wrap(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
		}
	}
}
