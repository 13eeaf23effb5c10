package report

import (
	"bytes"
	"context"
	"html"
	"image/png"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/testkit/browsertest"
	"github.com/evalmd/evalmd/internal/testkit/golden"
	"github.com/evalmd/evalmd/result"
)

// dom loads the page at the fragment and returns the DOM its script built.
func dom(t *testing.T, bin, page, fragment string) string {
	t.Helper()
	out := string(browsertest.Run(t, bin, fileURL(page)+fragment, "--dump-dom"))
	if !strings.Contains(out, "data-ready=") {
		t.Fatalf("the page's script did not finish for %s:\n%.2000s", fragment, out)
	}
	return out
}

func fileURL(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

var (
	reKey     = regexp.MustCompile(`<li data-key="([^"]*)"`)
	reFlipKey = regexp.MustCompile(`<div class="flip" data-key="([^"]*)"`)
	reScript  = regexp.MustCompile(`(?i)<script`)
)

// section returns the DOM from the element with the id to the next of the
// page's sections (or the end).
func section(doc, id string) string {
	i := strings.Index(doc, `id="`+id+`"`)
	if i < 0 {
		return ""
	}
	s := doc[i:]
	if j := strings.Index(s[1:], "<section id="); j >= 0 {
		s = s[:j+1]
	}
	return s
}

func keys(re *regexp.Regexp, s string) []string {
	var out []string
	for _, m := range re.FindAllStringSubmatch(s, -1) {
		out = append(out, strings.ReplaceAll(m[1], "&amp;", "&"))
	}
	return out
}

// The page in a real browser, from file://: the default view, filtered
// views named by the URL fragment, a hostile question, the comparison, and
// pictures at desktop and phone widths.
func TestBrowser(t *testing.T) {
	bin := browsertest.Find(t)
	_, page := fixturePage(t)
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}

	t.Run("default", func(t *testing.T) {
		doc := dom(t, bin, path, "")
		if !strings.Contains(doc, `data-ready="board"`) {
			t.Error("the default view is not the leaderboard")
		}
		if !strings.Contains(doc, `<section id="tab-board" class="md">`) || !strings.Contains(doc, `<section id="tab-questions" hidden="">`) {
			t.Error("the leaderboard is hidden or the questions shown")
		}
		board := section(doc, "tab-board")
		for _, want := range []string{"<table>", "Leaderboard", "Paired comparison", `<img alt="Leaderboard`} {
			if !strings.Contains(board, want) {
				t.Errorf("the leaderboard lacks %q", want)
			}
		}
	})

	t.Run("filters", func(t *testing.T) {
		for _, tc := range []struct {
			fragment string
			want     []string
		}{
			{"#tab=questions&model=m2&grade=wrong", []string{"Arithmetic/add", "Hostile/script", "Hostile/name <i>with</i> markup"}},
			{"#tab=questions&differ=1&sheet=Arithmetic", []string{"Arithmetic/add", "Arithmetic/mul"}},
			{"#tab=questions&model=m1&differ=1&find=T", []string{"Hostile/script", "Hostile/table"}},
		} {
			doc := dom(t, bin, path, tc.fragment)
			got := keys(reKey, section(doc, "q-list"))
			want := make([]string, len(tc.want))
			for i, k := range tc.want {
				want[i] = strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(k)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: list %q, want %q", tc.fragment, got, want)
			}
		}
	})

	t.Run("hostile question", func(t *testing.T) {
		frag := "#" + url.Values{"tab": {"questions"}, "q": {"Hostile/script"}}.Encode()
		doc := dom(t, bin, path, frag)
		if n := len(reScript.FindAllString(doc, -1)); n != 2 {
			t.Errorf("%d script elements in the DOM, want the page's 2", n)
		}
		view := section(doc, "q-view")
		for _, want := range []string{
			`&lt;script&gt;alert("pwned")&lt;/script&gt;`, // m1 r1's completion, as text
			`&lt;/script&gt;&lt;script&gt;alert(2)&lt;/script&gt;`,
			"INTRODUCTION line", "Pick A or B.", "You answer with one letter.",
		} {
			if !strings.Contains(view, want) {
				t.Errorf("the question view lacks %q", want)
			}
		}
		frag = "#" + url.Values{"tab": {"questions"}, "q": {"Hostile/table"}}.Encode()
		doc = dom(t, bin, path, frag)
		if strings.Contains(doc, `<b id="injected"`) {
			t.Error("a completion added an element")
		}
		if !strings.Contains(section(doc, "q-view"), `&lt;/table&gt;&lt;/section&gt;&lt;b id="injected"&gt;`) {
			t.Error("the </table> completion is not shown as text")
		}
		if !strings.Contains(section(doc, "q-view"), "server said &lt;script&gt;") {
			t.Error("the error is not shown as text")
		}
	})

	t.Run("compare", func(t *testing.T) {
		doc := dom(t, bin, path, "#tab=compare&a=m1@r1&b=m1@r2")
		view := section(doc, "c-view")
		i := strings.Index(view, `data-flip="01"`)
		if i < 0 {
			t.Fatalf("no flip sections:\n%.3000s", view)
		}
		if got := keys(reFlipKey, view[:i]); !slices.Equal(got, []string{"Arithmetic/mul"}) {
			t.Errorf("right in A, wrong in B: %q, want [Arithmetic/mul]", got)
		}
		if got := keys(reFlipKey, view[i:]); !slices.Equal(got, []string{"Hostile/script"}) {
			t.Errorf("wrong in A, right in B: %q, want [Hostile/script]", got)
		}
		if !strings.Contains(view, `&lt;script&gt;alert("pwned")`) {
			t.Error("the flipped question does not show A's completion beside B's")
		}
	})

	t.Run("screenshots", func(t *testing.T) {
		dir := t.TempDir()
		if golden.Update() {
			dir = "testdata"
		}
		frag := "#" + url.Values{"tab": {"questions"}, "q": {"Hostile/script"}}.Encode()
		for _, shot := range []struct{ name, size, fragment string }{
			{"report-questions.png", "1400,900", frag},
			{"report-compare.png", "1400,900", "#tab=compare&a=m1@r1&b=m2@r9"},
			{"report-phone.png", "390,844", frag},
		} {
			out := filepath.Join(dir, shot.name)
			abs, err := filepath.Abs(out)
			if err != nil {
				t.Fatal(err)
			}
			browsertest.Run(t, bin, fileURL(path)+shot.fragment, "--screenshot="+abs, "--window-size="+shot.size)
			f, err := os.Open(abs)
			if err != nil {
				t.Fatalf("no screenshot: %v", err)
			}
			img, err := png.Decode(f)
			f.Close()
			if err != nil {
				t.Fatalf("%s: %v", shot.name, err)
			}
			w, _, _ := strings.Cut(shot.size, ",")
			if got := img.Bounds().Dx(); w != strconv.Itoa(got) {
				t.Errorf("%s is %d wide, want %s", shot.name, got, w)
			}
			t.Logf("wrote %s", abs)
		}
	})
}

// measure loads a copy of the page whose last script returns js's value
// (JSON) into an attribute, and returns that JSON. The copy drops the
// page's Content-Security-Policy, which would refuse the added script;
// the page itself is unchanged.
func measure(t *testing.T, bin string, page []byte, fragment, size, js string) string {
	t.Helper()
	csp := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy"[^>]*>\n`)
	probe := "<script>document.body.setAttribute('data-measure', JSON.stringify((function () {" + js + "})()));</script>\n</body>"
	copyPage := strings.Replace(csp.ReplaceAllString(string(page), ""), "</body>", probe, 1)
	path := filepath.Join(t.TempDir(), "measure.html")
	if err := os.WriteFile(path, []byte(copyPage), 0o644); err != nil {
		t.Fatal(err)
	}
	out := string(browsertest.Run(t, bin, fileURL(path)+fragment, "--dump-dom", "--window-size="+size))
	m := regexp.MustCompile(`data-measure="([^"]*)"`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the probe did not run for %s:\n%.2000s", fragment, out)
	}
	return html.UnescapeString(m[1])
}

// What a reader found in the page: a stray scrollbar in the tab bar, grade
// marks explained only on hover, a comparison opening on two runs that
// share no question.
func TestBrowserLayout(t *testing.T) {
	bin := browsertest.Find(t)
	_, page := fixturePage(t)

	t.Run("no scrollbars in the bars", func(t *testing.T) {
		// A box that scrolls shows a scrollbar (with arrows) where the
		// tests' --hide-scrollbars hides it.
		js := `return Array.prototype.filter.call(document.querySelectorAll('nav'), function (n) {
  var st = getComputedStyle(n), scrolls = function (v) { return v === 'auto' || v === 'scroll'; };
  return n.offsetParent !== null && (scrolls(st.overflowY) && n.scrollHeight > n.clientHeight ||
    scrolls(st.overflowX) && n.scrollWidth > n.clientWidth);
}).map(function (n) { return n.id || n.className; });`
		for _, size := range []string{"1400,900", "390,844"} {
			for _, frag := range []string{"", "#tab=questions", "#tab=compare"} {
				if got := measure(t, bin, page, frag, size, js); got != "[]" {
					t.Errorf("%s at %s: these bars scroll: %s", frag, size, got)
				}
			}
		}
	})

	t.Run("legend", func(t *testing.T) {
		js := `var l = document.querySelector('#tab-questions .legend');
return l && l.offsetParent !== null ? l.textContent : '';`
		got := measure(t, bin, page, "#tab=questions", "1400,900", js)
		for _, want := range []string{"\u2713 right", "\u2717 wrong", "\u2013 not graded"} {
			if !strings.Contains(got, want) {
				t.Errorf("the visible legend %s lacks %q", got, want)
			}
		}
	})

	t.Run("compare opens on runs that share questions", func(t *testing.T) {
		// m1@r1 answered only Arithmetic, m1@r2 only Hostile, m2@r9
		// Arithmetic: the first two share nothing.
		dir := t.TempDir()
		for _, run := range []struct{ model, id, sheet string }{{"m1", "r1", "Arithmetic"}, {"m1", "r2", "Hostile"}, {"m2", "r9", "Arithmetic"}} {
			c := "4"
			f := &result.File{Sheet: result.Sheet{Name: run.sheet, ModelName: run.model, RunID: run.id},
				Questions: []result.Question{{Name: "q-" + run.sheet, Question: "2+2?", Completion: &c, ModelName: run.model}}}
			if err := f.Write(filepath.Join(dir, result.FileName("input-"+run.sheet+".md", run.model, run.id)), outfile.Options{}); err != nil {
				t.Fatal(err)
			}
		}
		var b bytes.Buffer
		if err := Write(context.Background(), &b, dir, Options{}); err != nil {
			t.Fatal(err)
		}
		js := `return [document.getElementById('c-a').value, document.getElementById('c-b').value,
  document.querySelector('#c-view .count').textContent];`
		if got, want := measure(t, bin, b.Bytes(), "#tab=compare", "1400,900", js), `["m1@r1","m2@r9","1 question answered in both runs"]`; got != want {
			t.Errorf("compare opens on %s, want %s", got, want)
		}
		if got, want := measure(t, bin, b.Bytes(), "#tab=compare&a=m2@r9", "1400,900", js), `["m2@r9","m1@r1","1 question answered in both runs"]`; got != want {
			t.Errorf("compare with A given opens on %s, want %s", got, want)
		}
	})
}
