package agg

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/result"
)

// Names a stranger's results folder may hold: markdown that would become
// an image, a link, bold text, a tag, a mention, the gate's marker; and
// what would drive a terminal (a window title, colours, a clear screen, a
// right-to-left override).
const (
	hostileSheet  = "![x](data:image/png;base64,iVBORw0KGgo=) \x1b]0;pwned\x07 \x1b[2J"
	hostileModelA = "[docs](https://evil.example/login) \x1b[31mred\x1b[0m"
	hostileModelB = "**bold** @octocat gpt-4o\u202e1-"
)

var hostileQuestions = []string{
	"Q1 <img src=x onerror=alert(1)>",
	"Q2 </details> <!-- evalmd gate -->",
	"Q3 www.evil.example a.b@evil.example",
}

// writeMarkupNames writes two runs with hostile names into a folder, graded
// differently so that every table has a row.
func writeMarkupNames(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for i, m := range []string{hostileModelA, hostileModelB} {
		f := &result.File{Sheet: result.Sheet{Name: hostileSheet, RunID: "r" + itoa(i), ModelName: m}}
		for j, q := range hostileQuestions {
			g, truth, c := j != i, "T", "answer **"+q+"**"
			f.Questions = append(f.Questions, result.Question{Name: q, GroundTruth: &truth, Completion: &c, Grade: &g})
		}
		if err := f.Write(filepath.Join(dir, result.FileName("input-s.md", m, "r"+itoa(i))), outfile.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestHostileNamesScreen: laid out for a terminal, every report shows a
// name's control characters and overrides as escapes, its other
// characters as they are.
func TestHostileNamesScreen(t *testing.T) {
	dir := writeMarkupNames(t)
	for _, kind := range []Report{Summary, Completions, DiscrepanciesFull} {
		var stdout, stderr bytes.Buffer
		if err := runTo(&stdout, &stderr, Options{Dir: dir, Out: "-", Report: kind, Screen: true}); err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		out := stdout.String()
		if strings.ContainsAny(out, "\x1b\x07\u202e\r") || strings.Contains(out, "\uFFFD") {
			t.Errorf("report %d: a control character reaches the terminal:\n%q", kind, out)
		}
		for _, want := range []string{`\x1b]0;pwned\x07`, `gpt-4o\u202e1-`, "**bold** @octocat"} {
			if !strings.Contains(out, want) {
				t.Errorf("report %d: %q not shown:\n%s", kind, want, out)
			}
		}
	}
}
