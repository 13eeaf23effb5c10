package mdcell

import (
	"bytes"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"openai/gpt-4o", "openai/gpt-4o"},
		{"", ""},
		{`a\b <i>`, `a\b <i>`},
		{"a|b", `a\|b`},
		{"a\nb", "a<br>b"},
		{"a\r\nb", "a<br>b"},
		{"a\rb", "a<br>b"},
		{"a\n\nb", "a<br><br>b"},
		{"mymodel | 1 | 100.0 |\n| Hostile | gpt-4o", `mymodel \| 1 \| 100.0 \|<br>\| Hostile \| gpt-4o`},
	} {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Whatever a cell holds, a GFM parser (goldmark, as the HTML report's)
// reads one row of two cells, the first holding the text.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"a|b", "x\\|y", "a\nb\r\nc\rd", "m | 1 |\n| H | g", "\\", "|---|---|\n"} {
		f.Add(s)
	}
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsAny(s, "<>&`*_[]!\\\x00") || strings.TrimSpace(s) != s || s == "" {
			t.Skip() // inline markup changes the HTML; only the table's shape is checked here
		}
		var b bytes.Buffer
		src := "| a | b |\n| --- | --- |\n| " + Escape(s) + " | end |\n"
		if err := md.Convert([]byte(src), &b); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if strings.Count(out, "<tr>") != 2 || strings.Count(out, "<td>") != 2 || !strings.Contains(out, "<td>end</td>") {
			t.Errorf("%q made the table\n%s", s, out)
		}
	})
}
