package reviewcmd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/evalmd/evalmd/internal/visible"
	"github.com/evalmd/evalmd/review"
	"github.com/evalmd/evalmd/verdict"
)

// view is what one screen shows: the answer at pos of total, and the
// state of the review around it.
type view struct {
	a          *review.Answer
	pos, total int
	reasoning  bool   // the reasoning unfolded
	help       bool   // the keys explained instead of the answer
	note       string // what the last key did
	asking     string // the decision a reason is asked for; "" when none
	reason     string // the reason typed so far
	accept     bool   // the a key is offered
}

// section is a titled block of the screen: its text in lines cut to the
// screen's width.
type section struct {
	title string
	lines []string
}

// frame lays v out on a screen of width x height: at most height lines,
// none wider than width (in characters), every text from a file made
// visible and long texts cut, each saying how much more there is.
func frame(v view, width, height int) []string {
	head := fmt.Sprintf("evalmd review  %d/%d  %s", v.pos, v.total, visible.Line(v.a.Label()))
	if n := len(v.a.Files); n > 1 {
		head += fmt.Sprintf("  (%d files)", n)
	}
	var foot []string
	if v.note != "" {
		foot = append(foot, visible.Line(v.note))
	}
	foot = append(foot, promptLine(v, width))
	room := height - 3 - len(foot) // the head, and a blank line before and after the body
	var body []string
	if v.help {
		body = helpLines(v.accept)
	} else {
		body = layout(sections(v, width), width, room)
	}
	lines := append([]string{head, ""}, body[:min(len(body), max(room, 0))]...)
	lines = append(append(lines, ""), foot...)
	for i, l := range lines {
		lines[i] = cut(l, width)
	}
	return lines[:min(len(lines), height)]
}

// sections are the blocks of v's answer, in the order shown.
func sections(v view, width int) []section {
	a, q := v.a, &v.a.Q
	text := q.QuestionUsr
	if text == "" {
		text = q.Question
	}
	ss := []section{
		{"question", wrap(text, width-2)},
		{"truth", wrap(orNone(q.GroundTruth), width-2)},
		{"answer", wrap(orNone(a.Graded), width-2)},
	}
	folded := foldedTexts(v.a)
	switch {
	case len(folded) == 0:
	case v.reasoning:
		for i, f := range folded {
			if i == 0 {
				f.title += " (r to hide)"
			}
			ss = append(ss, section{f.title, wrap(f.text, width-2)})
		}
	default:
		var parts []string
		for _, f := range folded {
			parts = append(parts, fmt.Sprintf("%s %s", f.title, plural(len(wrap(f.text, width-2)), "line")))
		}
		ss = append(ss, section{strings.Join(parts, ", ") + " (r to show)", nil})
	}
	grader := section{title: graderTitle(a)}
	if q.GradeDetail != "" {
		grader.lines = wrap(q.GradeDetail, width-2)
	}
	ss = append(ss, grader)
	return append(ss, section{verdictLine(a), nil})
}

// folded is a text shown only on request.
type folded struct{ title, text string }

// foldedTexts are the texts of a's answer besides the graded one: the
// model's reasoning, and the completion when another text was graded
// (code mode's code, a reply whose <think> block was cut away).
func foldedTexts(a *review.Answer) []folded {
	var out []folded
	if a.Q.Reasoning != "" {
		out = append(out, folded{"reasoning", a.Q.Reasoning})
	}
	if c := a.Q.Completion; c != nil && a.Graded != nil && *c != *a.Graded {
		out = append(out, folded{"completion", *c})
	}
	return out
}

func graderTitle(a *review.Answer) string {
	s := "grader: " + verdict.GradeWord(a.Grader)
	if a.Q.Grader != "" {
		s += " (" + visible.Line(a.Q.Grader) + ")"
	}
	var others []string
	for _, g := range a.Graders {
		others = append(others, verdict.GradeWord(g))
	}
	if slices.ContainsFunc(others, func(w string) bool { return w != verdict.GradeWord(a.Grader) }) {
		s += "; in its other files: " + strings.Join(others, ", ")
	}
	return s
}

func verdictLine(a *review.Answer) string {
	v := a.Verdict
	if v == nil {
		return "verdict: none yet"
	}
	s := fmt.Sprintf("verdict: %s by %s, %s", verdict.GradeWord(&v.Right), visible.Line(v.By), v.At.UTC().Format("2006-01-02 15:04"))
	if v.Reason != "" {
		s += ": " + visible.Line(v.Reason)
	}
	return s
}

// layout puts the sections in room lines: a short text on its title's
// line, the others below it, indented; the lines there are shared out so
// that short texts are whole and long ones cut alike.
func layout(ss []section, width, room int) []string {
	inline := make([]bool, len(ss))
	need := make([]int, len(ss))
	for i, s := range ss {
		inline[i] = len(s.lines) == 1 && len([]rune(s.title))+2+len([]rune(s.lines[0])) <= width
		if !inline[i] {
			need[i] = len(s.lines)
		}
	}
	got := share(need, room-len(ss))
	var out []string
	for i, s := range ss {
		switch {
		case inline[i]:
			out = append(out, s.title+": "+s.lines[0])
		case len(s.lines) == 0:
			out = append(out, s.title)
		default:
			out = append(out, s.title+":")
			for _, l := range cutLines(s.lines, got[i]) {
				out = append(out, "  "+l)
			}
		}
	}
	return out
}

// share gives out room lines to texts needing need lines each: one line
// in turn to each text still wanting, so that a text short enough is
// whole and the longest are cut to the same length.
func share(need []int, room int) []int {
	got := make([]int, len(need))
	for more := true; more && room > 0; {
		more = false
		for i := range need {
			if got[i] < need[i] && room > 0 {
				got[i]++
				room--
				more = true
			}
		}
	}
	return got
}

// cutLines is lines in n lines at most, the last saying how many more
// there are.
func cutLines(lines []string, n int) []string {
	if len(lines) <= n {
		return lines
	}
	if n <= 0 {
		return nil
	}
	return append(lines[:n-1:n-1], fmt.Sprintf("… (%s)", plural(len(lines)-n+1, "more line")))
}

// wrap is text as a terminal shows it, in lines of width characters at
// most: control characters made visible, tabs as spaces, trailing line
// ends dropped; an empty text says so.
func wrap(text string, width int) []string {
	text = strings.TrimRight(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if text == "" {
		return []string{"(empty)"}
	}
	width = max(width, 10)
	var out []string
	for _, l := range strings.Split(text, "\n") {
		r := []rune(visible.Line(strings.ReplaceAll(l, "\t", "    ")))
		for len(r) > width {
			n := breakAt(r, width)
			out = append(out, strings.TrimRight(string(r[:n]), " "))
			r = r[n:]
		}
		out = append(out, string(r))
	}
	return out
}

// breakAt is where to break r, longer than width: after the last space
// that leaves the line at least half full, else at width.
func breakAt(r []rune, width int) int {
	for i := width; i > width/2; i-- {
		if r[i] == ' ' {
			return i + 1
		}
	}
	return width
}

// cut is s in width characters at most.
func cut(s string, width int) string {
	if r := []rune(s); len(r) > width {
		return string(r[:width-1]) + "…"
	}
	return s
}

func orNone(s *string) string {
	if s == nil {
		return "(none)"
	}
	return *s
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// promptLine is the last line: the reason being typed (its end, when it
// is longer than the screen), else the keys.
func promptLine(v view, width int) string {
	if v.asking == "" {
		keys := "y right  n wrong  "
		if v.accept {
			keys += "a accept  "
		}
		return keys + "s skip  b back  q quit  ? help"
	}
	p := fmt.Sprintf("reason it is %s (Enter: none, Esc: undo): ", v.asking)
	r := []rune(visible.Line(v.reason))
	if over := len([]rune(p)) + len(r) + 1 - width; over > 0 {
		r = append([]rune("…"), r[min(over+1, len(r)):]...)
	}
	return p + string(r)
}

func helpLines(accept bool) []string {
	lines := []string{
		"keys:",
		"  y      right: record the answer as right",
		"  n      wrong: record it as wrong",
	}
	if accept {
		lines = append(lines, "  a      accept: right, and the answer added to the question's accepted answers in its sheet")
	}
	return append(lines,
		"  s  →   skip: leave it undecided, go to the next",
		"  b  ←   back: the answer before",
		"  r      show or hide the reasoning",
		"  q      quit (Ctrl-C too): each decision is recorded as it is made",
		"  ?      this help; any key goes back",
		"",
		"After y, n or a, type why and Enter (Enter alone: no reason); Esc takes the key back.",
	)
}
