package mdcell

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/evalmd/evalmd/internal/visible"
)

// hostile are names a stranger's results folder may hold.
var hostile = []string{
	"![x](data:image/png;base64,iVBORw0KGgo=)",
	"**bold**",
	"[docs](https://evil.example/login)",
	"<img src=x onerror=alert(1)>",
	"thanks @octocat and @org/team",
	"<!-- evalmd gate -->",
	"</details>",
	"https://evil.example/login",
	"www.evil.example",
	"mail me: a.b@evil.example",
	"_under_ ~~gone~~ `code`",
	"&lt;b&gt; &#60; &#x3C;",
	`a\*b\`,
}

func TestLiteral(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// Ordinary names, byte for byte.
		{"", ""},
		{"gpt-4o", "gpt-4o"},
		{"openai/gpt-4o-mini", "openai/gpt-4o-mini"},
		{"mistral_hf_7b", "mistral_hf_7b"},
		{"What Shows Up", "What Shows Up"},
		{"Simulated-Missing-2-Easy-B", "Simulated-Missing-2-Easy-B"},
		{"[+0.314, +0.797]", "[+0.314, +0.797]"},
		{"<0.0001", "<0.0001"},
		{"x < 5 && y > 2", "x < 5 && y > 2"},
		{"Q&A", "Q&A"},
		{"accuracy (pass@3)", "accuracy (pass@3)"},
		{"replay:answers.jsonl", "replay:answers.jsonl"},
		{"café 日本語 🎉", "café 日本語 🎉"},
		{`C:\models\x`, `C:\models\x`},
		// What Escape does.
		{"a|b", `a\|b`},
		{"a\nb\r\nc\rd", "a<br>b<br>c<br>d"},
		// Markup made text.
		{"![x](data:image/png;base64,iVBORw0KGgo=)", `![x\](data:image/png;base64,iVBORw0KGgo=)`},
		{"**bold**", `\*\*bold\*\*`},
		{"[docs](https://evil.example/login)", `[docs\](https\://evil.example/login)`},
		{"<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)>"},
		{"@octocat", "@\u2060octocat"},
		{"a.b@evil.example", "a.b@\u2060evil.example"},
		{"<!-- evalmd gate -->", "&lt;!-- evalmd gate -->"},
		{"</details>", "&lt;/details>"},
		{"www.evil.example", `www\.evil.example`},
		{"_x_ __init__ a_b", `\_x\_ \_\_init\_\_ a_b`},
		{"~~x~~ `y`", "\\~\\~x\\~\\~ \\`y\\`"},
		{"&lt; &#60; &#x3C; & ;", "&amp;lt; &amp;#60; &amp;#x3C; & ;"},
		{`a\*b\`, `a\\\*b\\`},
		{"a\\\nb", `a\\<br>b`},
		// Terminal escapes shown, as on a terminal.
		{"x\x1b]0;pwned\x07y", `x\x1b]0;pwned\x07y`},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"gpt-4o\u202e1-", `gpt-4o\u202e1-`},
		{"\\\x1b", `\\\x1b`},
		{"bad\xffbyte", `bad\xffbyte`},
	} {
		if got := Literal(tc.in); got != tc.want {
			t.Errorf("Literal(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// markup matches the HTML goldmark makes of markdown constructs: none may
// come out of a Literal cell.
var markup = regexp.MustCompile(`<(a|img|em|strong|del|code|details|script)\b|<!--`)

// rendered is the HTML of the first cell of a GFM table whose cell is
// Literal(s), and the number of cells and rows.
func rendered(t *testing.T, s string) (cell string, cells, rows int) {
	t.Helper()
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	var b bytes.Buffer
	src := "| a | b |\n| --- | --- |\n| " + Literal(s) + " | end |\n"
	if err := md.Convert([]byte(src), &b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	cells, rows = strings.Count(out, "<td>"), strings.Count(out, "<tr>")
	if i := strings.Index(out, "<td>"); i >= 0 {
		if j := strings.Index(out[i:], "</td>"); j >= 0 {
			cell = out[i+len("<td>") : i+j]
		}
	}
	return cell, cells, rows
}

// shown is the text a reader sees in a rendered cell: the line breaks'
// raw HTML (dropped by goldmark) removed, entities decoded, the word
// joiner taken out.
func shown(cell string) string {
	cell = strings.ReplaceAll(cell, "<!-- raw HTML omitted -->", "")
	return strings.ReplaceAll(html.UnescapeString(cell), "\u2060", "")
}

// TestLiteralRenders renders each hostile name as goldmark (the HTML
// report's) renders agg's markdown: one cell, no link, image, emphasis or
// tag, and the very characters of the name.
func TestLiteralRenders(t *testing.T) {
	for _, s := range hostile {
		cell, cells, rows := rendered(t, s)
		if cells != 2 || rows != 2 {
			t.Errorf("%q made %d cells in %d rows", s, cells, rows)
		}
		if markup.MatchString(cell) {
			t.Errorf("%q rendered as markup: %s", s, cell)
		}
		if got := shown(cell); got != s {
			t.Errorf("%q shows as %q", s, got)
		}
	}
}

// FuzzLiteral: whatever a name holds, its cell is one cell of text, with
// no markup, showing the name (line breaks and escapes aside).
func FuzzLiteral(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.TrimSpace(s) != s || s == "" || visible.Line(s) != s {
			t.Skip() // line breaks become <br>; controls become escapes
		}
		cell, cells, rows := rendered(t, s)
		if cells != 2 || rows != 2 || markup.MatchString(cell) {
			t.Fatalf("%q made %d cells in %d rows: %s", s, cells, rows, cell)
		}
		if got := shown(cell); got != s {
			t.Errorf("%q shows as %q", s, got)
		}
	})
}
