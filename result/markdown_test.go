package result

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/model"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// hostile are texts a model (or a server's error) might send that would
// change a markdown document's structure if inserted raw.
var hostile = []string{
	"### Injected heading",
	"```\n# inside an open fence",
	"````\n## four backticks\n```` and text after",
	"</table>\n<script>alert(1)</script>\n# after html",
	"Setext heading\n===\n",
	"~~~\n# tilde fence\n",
	"<details>\n\n# after a details tag\n",
	"   ```\n### indented fence\n",
	"`` ` ``` ```` `````\n# many runs",
	"",
}

// The readable .md parses (with goldmark, as any viewer would) to exactly
// the tool's headings, whatever the model wrote, and each text comes back
// whole from its code block.
func TestMarkdownHostileText(t *testing.T) {
	sys := "### system heading"
	sheetQ := "# sheet-level question\n```"
	f := &File{Sheet: Sheet{Name: "Sheet one", RunID: "ab12", ModelName: "m/x", Question: &sheetQ,
		MetaData: map[string]string{"grader": "lime"}}}
	var wantHeads []string
	wantHeads = append(wantHeads, "1:Sheet one")
	for i, h := range hostile {
		gt := "## ground truth " + h
		errText := "#### error " + h
		q := Question{Name: fmt.Sprintf("Q%d", i), Question: "## user " + h, Completion: &h, GroundTruth: &gt,
			System: &sys, MetaData: map[string]string{"k": "v"}}
		if i%2 == 1 {
			q.ServedModel = "served " + h
		}
		if i%2 == 0 {
			q.Error = &errText
			g := true
			q.Grade = &g
		}
		f.Questions = append(f.Questions, q)
		wantHeads = append(wantHeads, fmt.Sprintf("3:Q%d", i))
	}
	src := []byte(Markdown(f))
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	var heads, blocks []string
	err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			heads = append(heads, fmt.Sprintf("%d:%s", n.Level, plain(n, src)))
		case *ast.FencedCodeBlock:
			var b strings.Builder
			for i := 0; i < n.Lines().Len(); i++ {
				seg := n.Lines().At(i)
				b.Write(seg.Value(src))
			}
			blocks = append(blocks, b.String())
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(heads, wantHeads) {
		t.Errorf("headings:\n got %q\nwant %q\n%s", heads, wantHeads, src)
	}
	var want []string
	for i, h := range hostile {
		if i%2 == 1 {
			want = append(want, "served "+h)
		}
	}
	for _, h := range append(append(want, hostile...), sys, sheetQ) {
		want := h
		if want != "" && !strings.HasSuffix(want, "\n") {
			want += "\n"
		}
		if !slices.Contains(blocks, want) {
			t.Errorf("no code block holds %q whole", h)
		}
	}
}

// The names and meta written unfenced (the sheet's, the run id, the
// model's, the questions', meta keys and values, the subset's globs) are
// escaped as table cells are: a '|' or a line break in them, from a
// stranger's output file that grade -w renders, adds no heading, table or
// list item, and a name without them is written as LIME writes it.
func TestMarkdownHostileNames(t *testing.T) {
	bad := "x |\n| a | b |\n|---|---|\n| Hostile | row |\r\n### Forged heading\r- forged: item"
	f := &File{Sheet: Sheet{Name: "Sheet " + bad, RunID: "r " + bad, ModelName: "m " + bad,
		MetaData: map[string]string{"k " + bad: "v " + bad}, Subset: &Subset{Questions: []string{"q*" + bad}, Of: 3}},
		Questions: []Question{{Name: "Q " + bad, Question: "q", MetaData: map[string]string{"k": "v " + bad}}, {Name: "plain | name", Question: "q"}}}
	src := []byte(Markdown(f))
	doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(src))
	var heads []string
	items := 0
	err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch h := n.(type) {
		case *ast.Heading:
			heads = append(heads, fmt.Sprintf("%d:%s", h.Level, plain(h, src)))
		case *ast.ListItem:
			items++
		case *east.Table:
			t.Errorf("a name made a table:\n%s", src)
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(heads) != 3 || !strings.HasPrefix(heads[0], "1:Sheet x ") || !strings.HasPrefix(heads[1], "3:Q x ") || !strings.HasPrefix(heads[2], "3:plain ") {
		t.Errorf("headings %q, want the sheet's and the two questions'\n%s", heads, src)
	}
	if items != 2 {
		t.Errorf("%d list items, want the two meta lines\n%s", items, src)
	}
	plainFile := &File{Sheet: Sheet{Name: "S", RunID: "ab12", ModelName: "openai/gpt-4o", MetaData: map[string]string{"grader": "lime"}},
		Questions: []Question{{Name: "Q 1", Question: "q"}}}
	if got, want := Markdown(plainFile), "# S\n**Run ID:** ab12\n**Model name:** openai/gpt-4o\n**Meta Data:**\n- grader: lime\n\n### Q 1\n\n"; !strings.HasPrefix(got, want) {
		t.Errorf("plain names:\n%s\nwant them as written:\n%s", got, want)
	}
}

// plain is a heading's text.
func plain(n ast.Node, src []byte) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			b.Write(t.Segment.Value(src))
		}
	}
	return b.String()
}

func TestFence(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a", "```\na\n```\n"},
		{"a\n", "```\na\n```\n"},
		{"x ``` y", "````\nx ``` y\n````\n"},
		{"`````", "``````\n`````\n``````\n"},
		{"", "```\n```\n"},
	} {
		if got := fence(tc.in); got != tc.want {
			t.Errorf("fence(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A question's note (a reply without text, a refusal) is shown under its
// completion, fenced like the rest: it quotes the server's finish_reason.
func TestMarkdownNote(t *testing.T) {
	empty := ""
	f := &File{Sheet: Sheet{Name: "S"}, Questions: []Question{{Name: "Q", Completion: &empty,
		Note: "the reply had no text (finish_reason x\n### y): graded as an empty answer"}}}
	md := Markdown(f)
	if !strings.Contains(md, "**Note:**\n```\nthe reply had no text (finish_reason x\n### y): graded as an empty answer\n```\n") {
		t.Errorf("no fenced note in\n%s", md)
	}
}

// A served model is shown under the completion only when it is not the
// model asked, so that a local server's echo of the name (and an offline
// run, which records none) leaves the .md as it was.
func TestMarkdownServedBy(t *testing.T) {
	asked := &model.Info{Provider: "openai", Model: "gpt-4o"}
	for _, tc := range []struct {
		name   string
		info   *model.Info
		served string
		want   string // the line and its fence, or "" for none
	}{
		{"none", asked, "", ""},
		{"the name sent", asked, "gpt-4o", ""},
		{"the model's name", nil, "openai/gpt-4o", ""},
		{"a snapshot", asked, "gpt-4o-2024-08-06", "**Served by:**\n```\ngpt-4o-2024-08-06\n```\n"},
		{"a snapshot, no model info", nil, "gpt-4o-2024-08-06", "**Served by:**\n```\ngpt-4o-2024-08-06\n```\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := "B"
			f := &File{Sheet: Sheet{Name: "S", ModelName: "openai/gpt-4o", ModelInfo: tc.info},
				Questions: []Question{{Name: "Q", ModelName: "openai/gpt-4o", Completion: &c, ServedModel: tc.served}}}
			md := Markdown(f)
			switch {
			case tc.want == "" && strings.Contains(md, "Served by"):
				t.Errorf("a served-by line in\n%s", md)
			case tc.want != "" && !strings.Contains(md, "**Completion:**\n```\nB\n```\n\n"+tc.want):
				t.Errorf("no %q under the completion in\n%s", tc.want, md)
			}
		})
	}
}

// A grade given in a mode some source set says the mode and its source
// under the grade; the default mode adds nothing, as LIME's .md.
func TestMarkdownGrading(t *testing.T) {
	for _, tc := range []struct{ mode, from, want string }{
		{"", "", "**Grade:**\nTrue\n"},
		{GradingLiberal, GradingFromFlag, "**Grade:**\nTrue\n**Grading:** liberal (flag)\n"},
		{GradingStrict, "question meta", "**Grade:**\nTrue\n**Grading:** strict (question meta)\n"},
	} {
		yes := true
		md := Markdown(&File{Sheet: Sheet{Name: "S"}, Questions: []Question{{Name: "Q", Grade: &yes, Grading: tc.mode, GradingFrom: tc.from}}})
		if !strings.HasSuffix(md, tc.want) {
			t.Errorf("grading %q from %q:\n%s\nwant it to end with %q", tc.mode, tc.from, md, tc.want)
		}
	}
}

// The verdicts of the also_grade graders follow the grade, each detail
// fenced; a question without any shows none.
func TestMarkdownAlsoGraded(t *testing.T) {
	yes, no := true, false
	f := &File{Sheet: Sheet{Name: "S"}, Questions: []Question{{Name: "Q", Grade: &yes,
		AlsoGraded: []AlsoGrade{{Grader: "json", Grade: &no, Detail: "json (whole): $.Q: 2 != 1"}, {Grader: "regex"}}}}}
	md := Markdown(f)
	want := "**Grade:**\nTrue\n**Also graded by json:** False\n```\njson (whole): $.Q: 2 != 1\n```\n\n**Also graded by regex:** None\n"
	if !strings.HasSuffix(md, want) {
		t.Errorf("markdown\n%s\nwant it to end with\n%s", md, want)
	}
	if strings.Contains(Markdown(&File{Sheet: Sheet{Name: "S"}, Questions: []Question{{Name: "Q"}}}), "Also graded") {
		t.Error("a question without also_graded shows one")
	}
}

// Each accepted answer is shown, fenced, under the ground truth; a
// question without any shows none.
func TestMarkdownAccepted(t *testing.T) {
	truth := "B) 6"
	f := &File{Sheet: Sheet{Name: "S"}, Questions: []Question{{Name: "Q", GroundTruth: &truth, Accepted: []string{"six", "# 6\n```"}}, {Name: "R"}}}
	md := Markdown(f)
	want := "**Ground Truth:**\n```\nB) 6\n```\n\n**Also accepted:**\n```\nsix\n```\n\n**Also accepted:**\n````\n# 6\n```\n````\n\n**Grade:**"
	if !strings.Contains(md, want) || strings.Count(md, "**Also accepted:**") != 2 {
		t.Errorf("markdown\n%s\nlacks\n%s", md, want)
	}
}

// The images a question sent, or left out, are said above its message, as
// literal text; a question without images says neither.
func TestMarkdownImages(t *testing.T) {
	for _, tc := range []struct {
		name          string
		sent, notSent []string
		want, not     string
	}{
		{"none", nil, nil, "", "Images"},
		{"sent", []string{"chart.png", "b_*x*.jpg"}, nil, "\n**Images sent:** chart.png, b\\_\\*x\\*.jpg\n\n**Question:**", "not sent"},
		{"not sent", nil, []string{"chart.png"}, "\n**Images not sent** (the model takes no images; run --vision on if it does): chart.png\n\n**Question:**", "Images sent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := Markdown(&File{Sheet: Sheet{Name: "S"}, Questions: []Question{{Name: "Q", Question: "ask", ImagesSent: tc.sent, ImagesNotSent: tc.notSent}}})
			if !strings.Contains(md, tc.want) || strings.Contains(md, tc.not) {
				t.Errorf("markdown\n%s\nwant %q, not %q", md, tc.want, tc.not)
			}
		})
	}
}
