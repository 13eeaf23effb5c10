package agg

import (
	"bytes"
	"html"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

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

// rendered markup: what goldmark makes of a link, an image, emphasis,
// strikethrough or a raw tag left in (goldmark drops raw HTML, so a tag
// shows as its comment).
var renderedMarkup = regexp.MustCompile(`<a |<img|<strong>|<em>|<del>|raw HTML omitted -->[^<]*(img|details|evalmd)`)

// TestHostileNamesMarkdown: in every markdown report, rendered as the
// HTML report renders it, a name is its own characters (escapes shown
// for control characters), never markup; the raw markdown, pasted into
// a pull request, holds no mention, no second gate marker and no control
// character. LIME's parity tests keep ordinary names byte for byte.
func TestHostileNamesMarkdown(t *testing.T) {
	dir := writeMarkupNames(t)
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	for _, kind := range []Report{Summary, Completions, DiscrepanciesFull} {
		var stdout, stderr bytes.Buffer
		if err := runTo(&stdout, &stderr, Options{Dir: dir, Out: "-", Report: kind}); err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		raw := stdout.String()
		if strings.ContainsAny(raw, "\x1b\x07\u202e") || strings.Contains(raw, "@octocat") || strings.Contains(raw, "<!-- evalmd gate -->") {
			t.Errorf("report %d: the markdown holds a control character, a mention or the gate's marker:\n%s", kind, raw)
		}
		var b bytes.Buffer
		if err := md.Convert(stdout.Bytes(), &b); err != nil {
			t.Fatal(err)
		}
		page := b.String()
		if m := renderedMarkup.FindString(page); m != "" {
			t.Errorf("report %d: a name became markup (%s):\n%s", kind, m, page)
		}
		text := strings.ReplaceAll(html.UnescapeString(page), "\u2060", "")
		for _, want := range []string{`![x](data:image/png;base64,iVBORw0KGgo=) \x1b]0;pwned\x07 \x1b[2J`,
			`[docs](https://evil.example/login) \x1b[31mred\x1b[0m`, `**bold** @octocat gpt-4o\u202e1-`,
			hostileQuestions[0], hostileQuestions[1], hostileQuestions[2]} {
			if kind == DiscrepanciesFull && want == hostileQuestions[2] {
				continue // graded alike: not a discrepancy
			}
			if !strings.Contains(text, want) {
				t.Errorf("report %d: %q is not shown as text:\n%s", kind, want, page)
			}
		}
	}
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
