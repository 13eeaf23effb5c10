// Package report writes agg's results as one self-contained HTML page: the
// leaderboard and every agg table, rendered with goldmark from the same
// markdown agg writes, the charts inline, every question with its prompt,
// each run's completion, the ground truth and the grade, filters, and a
// two-run comparison.
//
// The page needs nothing but itself: no network, no external asset (a
// Content-Security-Policy forbids any fetch and lets only the page's own
// script run), so it opens from file:// and can be mailed around. Served by
// agg --serve (Options.Live), it has one more script, which asks its own
// server, and no other, whether the outputs changed. Its view
// (tab, filters, selected question, compared runs) lives in the URL
// fragment, so a link shows the same view.
//
// Model text is untrusted. It never becomes markup: the page's data is one
// JSON block whose '<', '>' and '&' are escaped, and the script puts text
// into the page as text nodes only. Tables are rendered by goldmark, which
// escapes text and drops raw HTML.
//
// Texts are stored once per page: each text is cut into chunks at
// content-defined line boundaries and chunks are interned, so a DSBench
// case's introduction or workbook, repeated in every question's prompt and
// in every run, is stored once even where a model's context limit cut the
// prompt at a different place.
//
// A Builder collects the output files agg reads (agg.LoadOptions.Each, so
// the folder is read once) into the page's Data: a Run per model run, a
// Question per question with each run's Answer, and each Section shown with
// an answer, titled by one of the Section constants (SectionCode,
// SectionAnswer, SectionCodeError, SectionDetail, SectionSubs,
// SectionJudge, SectionSchema). A question asked after a conversation
// shows its turns, each under its role, before its user message.
// Package xlsxout reads it too. WriteFile reads a folder
// and writes its page; Save writes the page of data already read.
//
// An answer a person's verdict covers carries its Review, which the page
// shows read-only. A served page given Options.Verdicts also overrides a
// grade: each Answer carries a Ref naming it to the server, and the page
// sends the server a VerdictRequest, its token in TokenHeader, which the
// server answers with a VerdictReply.
package report

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"path/filepath"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/evalmd/evalmd/agg"
	"github.com/evalmd/evalmd/agg/load"
	"github.com/evalmd/evalmd/agg/stats"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/result"
)

// Options shape the page.
type Options struct {
	// Title heads the page; empty means "evalmd report".
	Title string
	// MaxDiscrepancies caps agg's discrepancy table (as agg.ReportOptions).
	MaxDiscrepancies int
	// Warn receives one line per file that is skipped (agg's warnings).
	Warn io.Writer
	// Force lets WriteFile replace a file evalmd did not write or that was
	// changed since (see internal/outfile).
	Force bool
	// IncludeDryRuns counts dry-run outputs, which agg leaves out by
	// default.
	IncludeDryRuns bool
	// Metrics are the benchmarks' figures in agg's report (as
	// agg.Options.Metrics).
	Metrics []agg.Metric
	// Live, for a page a server serves (agg --serve), is the URL on that
	// server that the page asks whether the output files changed since
	// it was made; the page reloads itself when the answer is 205 Reset
	// Content. Empty: the page asks nothing of any server.
	Live string
	// Reducer scores a question a model answered more than once in agg's
	// models table (as agg.Options.Reducer).
	Reducer stats.Reducer
	// LatestVersion counts, of each sheet, only the runs of the newest
	// version of its questions (as agg.LoadOptions.LatestVersion): the
	// page shows the sheets as they are now.
	LatestVersion bool
	// Verdicts, for a page a server serves (agg --serve), lets a person
	// override each answer's grade from the page; nil: the page shows
	// people's verdicts and takes none.
	Verdicts *Verdicts
}

// Verdicts is what a page that takes people's verdicts needs of its
// server (see verdicts.go).
type Verdicts struct {
	// URL, on the page's own server, takes a verdict as a POST of JSON.
	URL string
	// Token is the server's secret, sent back in the TokenHeader of each
	// POST: only a page the server served holds it.
	Token string
	// By is the reviewer's name the page's field starts with.
	By string
	// Accept offers "accept" beside right and wrong: right, and the
	// answer added to the sheet's accepted answers.
	Accept bool
}

//go:embed page.css
var pageCSS string

//go:embed page.js
var pageJS string

// Save writes the page of d (agg's tables) and data (the questions) to
// path, as WriteFile does: what a command that read the folder once,
// for several reports, calls.
func Save(path string, d *agg.Data, data *Data, opt Options) error {
	var b bytes.Buffer
	if err := writePage(&b, d, data, opt); err != nil {
		return err
	}
	if err := outfile.Write(path, b.Bytes(), outfile.Options{Force: opt.Force, Inputs: d.Paths}); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// read reads the output files below dir once: agg decides which files
// count (not dry runs unless asked, a run once) and warns about the
// others, and hands each counted file, whole, to the page's Builder.
func read(ctx context.Context, dir string, opt Options) (*agg.Data, *Data, error) {
	if opt.Warn == nil {
		opt.Warn = io.Discard
	}
	b := NewBuilder(dir)
	b.refs = opt.Verdicts != nil
	d, err := agg.Load(ctx, dir, opt.Warn, agg.LoadOptions{IncludeDryRuns: opt.IncludeDryRuns, Metrics: opt.Metrics, LatestVersion: opt.LatestVersion,
		Each: func(path string, f *result.File, counted bool) {
			if counted {
				b.Add(path, f)
			}
		}})
	if err != nil {
		return nil, nil, fmt.Errorf("report: %w", err)
	}
	if d.Files == 0 {
		return nil, nil, fmt.Errorf("report: %s: %w", dir, agg.ErrNoOutputs)
	}
	return d, b.Data(), nil
}

// writePage writes the page of d (agg's tables, read with opt.Reducer and
// opt.MaxDiscrepancies) and data (the questions).
func writePage(w io.Writer, d *agg.Data, data *Data, opt Options) error {
	d.Reducer = opt.Reducer
	md, err := d.Markdown(agg.ReportOptions{MaxDiscrepancies: opt.MaxDiscrepancies})
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	charts, err := d.Charts("chart")
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	title := opt.Title
	if title == "" {
		title = "evalmd report"
	}
	return render(w, page{Title: title, Markdown: md, Charts: charts, Data: data, Live: opt.Live, Verdicts: opt.Verdicts,
		Found: d.Found(), LeftOut: leftOut(d, data.root)})
}

// page is everything the HTML holds.
type page struct {
	Title    string
	Markdown string      // agg's report
	Charts   []agg.Chart // drawn inline, in order
	Data     *Data       // the questions
	Live     string      // Options.Live
	Verdicts *Verdicts   // Options.Verdicts
	Found    int         // the output files found, counted or not
	LeftOut  []leftGroup // the files found and not counted, by reason
}

// leftGroup is the output files left out of the page for one reason.
type leftGroup struct {
	Why   string
	Files []string // relative to the folder read; for files that could not be read, the error
}

// leftOut groups the output files agg found and did not count by why
// (agg's lists), each named relative to root. The parts of a run split in
// shards are that run's one file (agg.Data.PartsOf), counted or left out
// as it is.
func leftOut(d *agg.Data, root string) []leftGroup {
	rel := func(p string) string {
		if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
			return filepath.ToSlash(r)
		}
		return p
	}
	var out []leftGroup
	group := func(why string, files []string, isPath bool) {
		if len(files) == 0 {
			return
		}
		g := leftGroup{Why: why}
		for _, f := range files {
			if parts := d.PartsOf[f]; isPath && len(parts) > 0 {
				// A run split in shards: named by its parts, on disk.
				rels := make([]string, len(parts))
				for i, p := range parts {
					rels[i] = rel(p)
				}
				f = load.JoinParts(rels)
			} else if isPath {
				f = rel(f)
			} else {
				f = strings.ReplaceAll(f, root+string(filepath.Separator), "")
			}
			g.Files = append(g.Files, f)
		}
		out = append(out, g)
	}
	group("the same run as a file counted, or a rerun every answer of which a file counted carries (one answer, one sample)", d.Duplicates, true)
	group("dry runs (run -y: prompts, no answers); --include-dry-runs counts them", d.DryRuns, true)
	group("runs of an older version of their sheet (--latest-version)", d.OlderVersions, true)
	group("could not be read", d.Skipped, false)
	return out
}

// leftOutHTML is the header's account of the files found and not counted:
// nothing when every file found is counted.
func leftOutHTML(b *bytes.Buffer, p page) {
	n := 0
	for _, g := range p.LeftOut {
		n += len(g.Files)
	}
	if n == 0 {
		return
	}
	fmt.Fprintf(b, "<details class=\"left-out\"><summary>%s of %d found left out: why</summary>\n<ul>\n", count(n, "output file"), p.Found)
	for _, g := range p.LeftOut {
		fmt.Fprintf(b, "<li>%d: %s<ul>", len(g.Files), html.EscapeString(g.Why))
		for _, f := range g.Files {
			fmt.Fprintf(b, "<li>%s</li>", html.EscapeString(f))
		}
		b.WriteString("</ul></li>\n")
	}
	b.WriteString("</ul></details>\n")
}

// board is agg's markdown rendered: its table of contents, the headline
// (shown first, the charts after it) and the details.
type board struct{ toc, headline, details string }

// markdown renders agg's markdown, cut in its headline and its details
// (headlineFirst), as HTML (GFM tables; raw HTML dropped, goldmark's
// default, so no cell can add markup), with a list of links to its
// headings, the charts' between the two.
func markdown(headline string, charts bool, details string) (board, error) {
	var out board
	var links []link
	var err error
	if out.headline, links, err = renderMD(headline); err != nil {
		return out, err
	}
	if charts {
		links = append(links, link{id: "charts", title: "Charts", short: "Charts"})
	}
	more, err := func() ([]link, error) {
		var ls []link
		out.details, ls, err = renderMD(details)
		return ls, err
	}()
	if err != nil {
		return out, err
	}
	out.toc = tocOf(append(links, more...))
	return out, nil
}

// link is a heading the table of contents links to.
type link struct{ id, title, short string }

// renderMD renders src, and lists its headings.
func renderMD(src string) (string, []link, error) {
	md := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithParserOptions(parser.WithAutoHeadingID()))
	source := []byte(src)
	doc := md.Parser().Parse(text.NewReader(source))
	var links []link
	err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		id, _ := h.AttributeString("id")
		idb, _ := id.([]byte)
		title := headingText(h, source)
		short, _, _ := strings.Cut(title, ":") // "Leaderboard: {input_sheet, model} on pct_correct"
		links = append(links, link{string(idb), title, short})
		return ast.WalkSkipChildren, nil
	})
	if err != nil {
		return "", nil, fmt.Errorf("report: markdown: %w", err)
	}
	var b strings.Builder
	if err := md.Renderer().Render(&b, source, doc); err != nil {
		return "", nil, fmt.Errorf("report: markdown: %w", err)
	}
	return b.String(), links, nil
}

// tocOf is the table of contents of links: each heading named short
// unless another shares its short name (a benchmark's tables: "DABench:
// ABQ per level", ...).
func tocOf(links []link) string {
	shorts := map[string]int{}
	for _, l := range links {
		shorts[l.short]++
	}
	var toc strings.Builder
	for _, l := range links {
		title := l.short
		if shorts[l.short] > 1 || title == "" {
			title = l.title
		}
		fmt.Fprintf(&toc, "<a href=\"#%s\">%s</a>\n", html.EscapeString(l.id), html.EscapeString(title))
	}
	return "<nav class=\"toc\">\n" + toc.String() + "</nav>\n"
}

// headingText is a heading's text, code spans included.
func headingText(n ast.Node, src []byte) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			b.Write(t.Segment.Value(src))
		} else {
			b.WriteString(headingText(c, src))
		}
	}
	return b.String()
}

// render writes the page. Every piece of text that did not come from this
// package is escaped here or by goldmark; the data goes in a JSON block
// with '<', '>' and '&' escaped, so no text can close it.
func render(w io.Writer, p page) error {
	headline, details := headlineFirst(p.Markdown)
	board, err := markdown(headline, len(p.Charts) > 0, details)
	if err != nil {
		return err
	}
	data, err := json.Marshal(p.Data) // escapes <, >, &, U+2028, U+2029
	if err != nil {
		return fmt.Errorf("report: encoding data: %w", err)
	}
	csp := "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src " + scriptHash(pageJS)
	if p.Live != "" {
		csp += " " + scriptHash(liveJS)
	}
	if p.Verdicts != nil {
		csp += " " + scriptHash(verdictsJS)
	}
	if p.Live != "" || p.Verdicts != nil {
		csp += "; connect-src 'self'" // the scripts ask their server, and no other
	}
	csp += "; base-uri 'none'; form-action 'none'"

	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	fmt.Fprintf(&b, "<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n", csp)
	fmt.Fprintf(&b, "<title>%s</title>\n<style>\n%s</style>\n</head>\n<body>\n", html.EscapeString(p.Title), pageCSS)
	fmt.Fprintf(&b, "<header><h1>%s</h1>\n", html.EscapeString(p.Title))
	files := count(p.Data.Files, "output file")
	if p.Found > p.Data.Files {
		files += fmt.Sprintf(" counted of %d found", p.Found)
	}
	fmt.Fprintf(&b, "<p class=\"counts\">%s, %s, %s, %s</p>\n", files,
		count(len(p.Data.Runs), "run"), count(len(p.Data.Sheets), "sheet"), count(len(p.Data.Questions), "question"))
	leftOutHTML(&b, p)
	b.WriteString(`<nav id="tabs"><a href="#tab=board" data-tab="board">Leaderboard</a><a href="#tab=questions" data-tab="questions">Questions</a><a href="#tab=compare" data-tab="compare">Compare runs</a></nav>
</header>
<main>
<section id="tab-board" class="md">
`)
	b.WriteString(board.toc)
	b.WriteString(board.headline)
	if len(p.Charts) > 0 {
		b.WriteString("<h3 id=\"charts\">Charts</h3>\n")
		for _, c := range p.Charts {
			// An <img> never runs what an SVG holds.
			fmt.Fprintf(&b, "<figure><img alt=\"%s\" src=\"data:image/svg+xml;base64,%s\"><figcaption>%s</figcaption></figure>\n",
				html.EscapeString(c.Title), base64.StdEncoding.EncodeToString(c.SVG), html.EscapeString(c.Title))
		}
	}
	b.WriteString(board.details)
	b.WriteString(`</section>
<section id="tab-questions" hidden>
<form id="filters" class="filters">
<label>Sheet <select id="f-sheet"><option value="">all</option></select></label>
<label>Model <select id="f-model"><option value="">all</option></select></label>
<label>Grade <select id="f-grade"><option value="">any</option><option value="right">right</option><option value="wrong">wrong</option><option value="ungraded">ungraded</option></select></label>
<label class="check"><input type="checkbox" id="f-differ"> only questions that differ</label>
<label>Order <select id="f-order"><option value="">sheet order</option><option value="disagree">most disagreement between epochs</option></select></label>
<label>Name <input type="search" id="f-find" placeholder="part of a name"></label>
</form>
<p id="q-count" class="count"></p>
<p class="legend">Marks, one per answer (a run of several epochs has one per epoch), grouped by run: <span><span class="mark g1">&#x2713;</span> right</span> <span><span class="mark g0">&#x2717;</span> wrong</span> <span><span class="mark g-1">&#x2013;</span> not graded</span> <span><span class="mark g1 ru">&#x2713;</span> reused from an earlier run</span> <span><span class="mark g1 rv">&#x2713;</span> a person's verdict</span> (a mark's tooltip names its run and epoch)</p>
<p class="legend" id="legend-runs"></p>
<div class="split"><ol id="q-list" class="qlist"></ol><article id="q-view" class="qview"><p class="hint">Choose a question.</p></article></div>
</section>
<section id="tab-compare" hidden>
<form class="filters">
<label>Sheet <select id="c-sheet"><option value="">all</option></select></label>
<label>A <select id="c-a"></select></label>
<label>B <select id="c-b"></select></label>
</form>
<div id="c-view"></div>
</section>
</main>
<script type="application/json" id="data">`)
	b.Write(data)
	b.WriteString("</script>\n")
	if p.Verdicts != nil {
		// Before page.js, to hear of each answer it draws.
		b.WriteString(verdictsScript(p.Verdicts))
	}
	b.WriteString("<script>")
	b.WriteString(pageJS)
	b.WriteString("</script>\n")
	if p.Live != "" {
		b.WriteString(liveScript(p.Live))
	}
	b.WriteString("</body>\n</html>\n")
	_, err = w.Write(b.Bytes())
	return err
}

// count is "1 noun" or "N nouns".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
