package report

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/testkit/browsertest"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/verdict"
)

// reviewedFolder is a folder of one output: Q1 right by its grader, Q2
// right by ann's verdict where its grader said wrong.
func reviewedFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	four, six, five := "4", "6", "5"
	yes, no := true, false
	f := &result.File{Sheet: result.Sheet{Name: "S", ModelName: "m1", RunID: "r1"}, Questions: []result.Question{
		{Name: "Q1", Question: "2+2?", GroundTruth: &four, Completion: &four, ModelName: "m1", Grade: &yes, Grader: "exact"},
		{Name: "Q2", Question: "2*3?", GroundTruth: &six, Completion: &five, ModelName: "m1", Grade: &yes, Grader: "exact",
			Review: &result.Review{By: "ann", At: "2026-12-01T10:00:00Z", Reason: "5 <b>is</b> close", GraderGrade: &no}},
	}}
	if err := f.Write(filepath.Join(dir, result.FileName("input-s.md", "m1", "r1")), outfile.Options{}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The page's data says whose verdict a grade is; only a page that takes
// verdicts names its answers to the server, by question and digest.
func TestVerdictsData(t *testing.T) {
	dir := reviewedFolder(t)
	for _, takes := range []bool{false, true} {
		opt := Options{}
		if takes {
			opt.Verdicts = &Verdicts{URL: "/verdict", Token: "t"}
		}
		_, d, err := read(context.Background(), dir, opt)
		if err != nil {
			t.Fatal(err)
		}
		q1, q2 := d.Questions[0].Answers[0], d.Questions[1].Answers[0]
		if q1.Review != nil || q2.Review == nil || *q2.Review != (Review{By: "ann", At: "2026-12-01T10:00:00Z", Reason: "5 <b>is</b> close", Grader: 0}) || q2.Grade != 1 {
			t.Errorf("reviews: Q1 %+v, Q2 %+v (grade %d)", q1.Review, q2.Review, q2.Grade)
		}
		five := "5"
		want := &Ref{Index: 1, Answer: verdict.Digest(&five)}
		if takes != (q2.Ref != nil) || takes && *q2.Ref != *want {
			t.Errorf("takes verdicts %v: Q2's ref %+v, want %+v", takes, q2.Ref, want)
		}
	}
}

// A page that takes verdicts runs verdicts.js, before page.js, with the
// server's token, and its policy lets it run and ask its server only.
func TestVerdictsScript(t *testing.T) {
	var b bytes.Buffer
	opt := Options{Live: "/changes?since=x", Verdicts: &Verdicts{URL: "/verdict", Token: "abc123", By: `o"hara`, Accept: true}}
	if err := Write(context.Background(), &b, reviewedFolder(t), opt); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	csp := regexp.MustCompile(`content="(default-src[^"]*)"`).FindStringSubmatch(page)
	if csp == nil || !strings.Contains(csp[1], scriptHash(verdictsJS)) || !strings.Contains(csp[1], "connect-src 'self'") {
		t.Errorf("the policy %q lets verdicts.js not run or ask", csp)
	}
	tag := `<script data-url="/verdict" data-token="abc123" data-by="o&#34;hara" data-accept="1" data-header="X-Evalmd-Token">`
	i, j := strings.Index(page, tag), strings.Index(page, "<script>"+pageJS)
	if i < 0 || j < 0 || i > j {
		t.Errorf("verdicts.js at %d, page.js at %d: want it before, as %s", i, j, tag)
	}
}

// The static page shows a person's verdict read-only: the mark says it,
// the answer says who, when, why and what the grader said, and nothing
// offers to change it.
func TestBrowserVerdicts(t *testing.T) {
	bin := browsertest.Find(t)
	var b bytes.Buffer
	if err := Write(context.Background(), &b, reviewedFolder(t), Options{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	doc := dom(t, bin, path, "#tab=questions&q=S/Q2")
	for _, want := range []string{
		`<span class="mark g1 rv" title="m1: right (ann’s verdict; the grader said wrong)">`,
		`<p class="reviewed">A person’s verdict: right, by ann at 2026-12-01T10:00:00Z (5 &lt;b&gt;is&lt;/b&gt; close); the grader said wrong.</p>`,
		`<span class="mark g1" title="m1: right">`,
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("the page lacks %s:\n%.3000s", want, section(doc, "q-list"))
		}
	}
	for _, not := range []string{`class="override"`, `id="reviewer"`, "<button"} {
		if strings.Contains(section(doc, "tab-questions"), not) {
			t.Errorf("the static page offers %s", not)
		}
	}
}
