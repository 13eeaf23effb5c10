package agg

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/golden"
	"github.com/evalmd/evalmd/internal/testkit/shared"
)

// LIME's report types and the terminal layout, on hand-made outputs with
// hostile completions, a code-mode answer and null grades: golden files.
func TestReportTypesGolden(t *testing.T) {
	for _, tc := range []struct {
		name   string
		report Report
		screen bool
	}{
		{"completions.md", Completions, false},
		{"completions.screen", Completions, true},
		{"discrepancies-full.md", DiscrepanciesFull, false},
		{"discrepancies-full.screen", DiscrepanciesFull, true},
		{"summary.screen", Summary, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if err := runTo(&stdout, &stderr, Options{Dir: "testdata/reports", Out: "-", Report: tc.report, Screen: tc.screen}); err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			golden.Check(t, "testdata/reports-"+tc.name, stdout.Bytes())
		})
	}
}

// What the report types must keep, whatever the golden files say: every
// completion's table row stays one row (no '|' or newline escapes the
// cell), model text never becomes markup, the questions shown are those
// graded differently, and code mode's answer is shown.
func TestReportTypesRules(t *testing.T) {
	text := func(kind Report, screen bool) string {
		var stdout, stderr bytes.Buffer
		if err := runTo(&stdout, &stderr, Options{Dir: "testdata/reports", Out: "-", Report: kind, Screen: screen}); err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		return stdout.String()
	}
	comp := text(Completions, false)
	rows := 0
	for _, line := range strings.Split(comp, "\n") {
		if strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "| input_name") {
			rows++
			if n := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|"); n != 7 {
				t.Errorf("a completions row has %d cell borders, want 7: %s", n, line)
			}
		}
	}
	if rows != 12 {
		t.Errorf("%d completion rows, want 12 (one per question and run)", rows)
	}
	if strings.Contains(comp, "<script>") || strings.Contains(comp, "<b>") {
		t.Error("model text became markup in the completions report")
	}
	if !strings.Contains(comp, "| answer") || !strings.Contains(comp, "| 20 ") {
		t.Error("code mode's answer is not shown")
	}
	disc := text(DiscrepanciesFull, false)
	for _, name := range []string{"Guesses", "Hostile", "Long", "Count rows"} {
		if !strings.Contains(disc, "| "+name+" ") {
			t.Errorf("%s is graded differently but missing from --discrepancies-full", name)
		}
	}
	for _, name := range []string{"| Letters ", "| Max price "} {
		if strings.Contains(disc, name) {
			t.Errorf("%s is not graded differently but shown by --discrepancies-full", name)
		}
	}
	screen := text(DiscrepanciesFull, true)
	if !strings.Contains(screen, "┌") || strings.Contains(screen, "<br>") {
		t.Error("the terminal layout is not a boxed table")
	}
	// LIME cuts terminal completions at 20 characters in this report.
	if strings.Contains(screen, "Each guess must be a valid") {
		t.Error("the terminal layout did not cut a long completion")
	}
}

// --discrepancies-full on LIME's real results shows the questions the
// default report counts as discrepancies, no more and no fewer.
func TestDiscrepanciesFullLIME(t *testing.T) {
	dir := shared.Path(t, "corpora", "lime", "results")
	d, err := Load(context.Background(), dir, nil, LoadOptions{Answers: true})
	if err != nil {
		t.Fatal(err)
	}
	_, want := d.Discrepancies(1)
	tables, err := d.discrepanciesTables(mdText)
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for _, tb := range tables {
		got += len(tb.frame.Rows)
	}
	if got != want || want == 0 {
		t.Errorf("%d rows in --discrepancies-full, %d discrepancies in the default report", got, want)
	}
}

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		in    string
		width int
		want  string
	}{
		{"", 10, ""},
		{"a b c", 10, "a b c"},
		{"one two three four", 9, "one two\nthree\nfour"},
		{"abcdefghijkl", 5, "abcde\nfghij\nkl"},
		{"tab\there\nnewline  spaces", 40, "tab here newline spaces"},
	} {
		if got := strings.Join(wrap(tc.in, tc.width), "\n"); got != tc.want {
			t.Errorf("wrap(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
		}
	}
}

// A completion's escape sequences never reach the terminal.
func TestScreenNoControl(t *testing.T) {
	for _, kind := range []Report{Completions, DiscrepanciesFull} {
		for _, screen := range []bool{false, true} {
			var stdout, stderr bytes.Buffer
			if err := runTo(&stdout, &stderr, Options{Dir: "testdata/reports", Out: "-", Report: kind, Screen: screen}); err != nil {
				t.Fatal(err)
			}
			if strings.ContainsAny(stdout.String(), "\x1b\x07") {
				t.Errorf("report %d (screen %v) writes a completion's control characters", kind, screen)
			}
		}
	}
}
