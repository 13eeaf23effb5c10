package sheet

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/schema"
)

// sameItems compares what a sheet asks: the resolved questions and info.
func sameItems(t *testing.T, name string, a, b *Doc) {
	t.Helper()
	ia, qa := a.Resolve()
	ib, qb := b.Resolve()
	ia.Line, ib.Line = 0, 0
	ia.MetaLines, ib.MetaLines = nil, nil // lines move when a sheet is rewritten
	// The raw sheet question may gain an end token (a text that did not
	// end in a newline); what LIME cuts from it must not change.
	if ia.Question != nil && ib.Question != nil && CutEnd(*ia.Question) == CutEnd(*ib.Question) {
		ia.Question, ib.Question = nil, nil
	}
	if !reflect.DeepEqual(ia, ib) {
		t.Errorf("%s: sheet info changed:\n%+v\n%+v", name, ia, ib)
	}
	if len(qa) != len(qb) {
		t.Fatalf("%s: %d questions became %d", name, len(qa), len(qb))
	}
	for i := range qa {
		x, y := qa[i], qb[i]
		x.Line, y.Line = 0, 0
		x.MetaLines, y.MetaLines = nil, nil
		if x.Template != nil && y.Template != nil {
			x.Template.Line, y.Template.Line = 0, 0
		}
		if x.Schema != nil && y.Schema != nil {
			x.Schema.Line, y.Schema.Line = 0, 0
		}
		for _, ts := range [][]Turn{x.Turns, y.Turns} {
			for j := range ts {
				ts[j].Line = 0
			}
		}
		fx, fy := stripLines(x.Files), stripLines(y.Files)
		x.Files, y.Files = nil, nil
		if !reflect.DeepEqual(x, y) || !reflect.DeepEqual(fx, fy) {
			t.Errorf("%s: question %q changed:\n%#v\n%#v", name, qa[i].Name, x, y)
		}
	}
}

func stripLines(l []Located) []string {
	var out []string
	for _, x := range l {
		out = append(out, x.Text)
	}
	return out
}

// Every real LIME sheet survives parse -> write -> parse.
func TestRoundTripLIMESheets(t *testing.T) {
	var paths []string
	filepath.Walk(shared.Path(t, "corpora", "lime"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".md") && strings.Contains(filepath.Base(p), "input") && !strings.Contains(p, "results") {
			paths = append(paths, p)
		}
		return nil
	})
	if len(paths) < 16 {
		t.Fatalf("found %d sheets", len(paths))
	}
	for _, p := range paths {
		a, err := ParseFile(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Format(a, nil)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		b, err := Parse(p, out, nil)
		if err != nil {
			t.Fatalf("%s: reparse: %v", p, err)
		}
		sameItems(t, filepath.Base(p), a, b)
	}
}

// A sheet built in code, with texts that need the end token and escapes,
// reads back exactly.
func TestWriteExactTexts(t *testing.T) {
	doc := &Doc{Blocks: []Block{
		{Kind: SheetKind, Name: "Built", Sections: []Section{
			{Kind: "meta", Text: MetaText([2]string{"grader", "exact"}, [2]string{"id", "7"})},
			{Kind: "system", Text: Exact("You are terse. ")},
			{Kind: "context", Text: Exact("# of words\n## not a question\n#### answer\n\\# literal backslash\nend \n\n")},
		}},
		{Kind: QuestionKind, Name: "Q1", Sections: []Section{
			{Kind: "meta", Text: MetaText([2]string{"level", "hard"})},
			{Kind: "question", Text: Exact(" two leading spaces and no newline")},
			{Kind: "answer", Text: "42"},
		}},
	}}
	out, err := Format(doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("built.md", out, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, items := back.Resolve()
	if len(items) != 1 {
		t.Fatalf("%d items\n%s", len(items), out)
	}
	it := items[0]
	for _, c := range []struct{ got, want any }{
		{*it.System, "You are terse. "},
		{*it.Context, "# of words\n## not a question\n#### answer\n\\# literal backslash\nend \n\n"},
		{it.Text, " two leading spaces and no newline"},
		{*it.GroundTruth, "42"},
		{it.Meta, map[string]string{"grader": "exact", "id": "7", "level": "hard"}},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("got %q, want %q\nsheet:\n%s", c.got, c.want, out)
		}
	}
	// Without escapes (LIME's schema) a header-like line is refused.
	lime := *schema.Default()
	lime.EscapeHeaders = false
	if _, err := Format(doc, &lime); err == nil || !strings.Contains(err.Error(), "would be read as a header") {
		t.Errorf("LIME schema: err = %v", err)
	}
}

func TestWriteRefuses(t *testing.T) {
	for _, b := range []Block{
		{Kind: QuestionKind, Name: "two\nlines"},
		{Kind: QuestionKind, Name: "a ## b"},
		{Kind: QuestionKind, Name: "Q", Sections: []Section{{Kind: "colour", Text: "x"}}},
		{Kind: SheetKind, Name: "S", Sections: []Section{{Kind: "answer", Text: "x"}}},
		{Kind: QuestionKind, Name: "Q", Sections: []Section{{Kind: "question", Text: "a\rb"}}},
	} {
		if _, err := Format(&Doc{Blocks: []Block{b}}, nil); err == nil {
			t.Errorf("Format(%+v) succeeded", b)
		}
	}
}

// MetaLines points at the line that set each key, the sheet's for a key a
// question takes from it.
func TestMetaLines(t *testing.T) {
	doc, err := Parse("s.md", []byte("# S\n#### meta\nseed: None\ntop_p: 1\n## Q\n#### meta\n- Top P: 0.5\n#### question\nq\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	info, items := doc.Resolve()
	if info.MetaLines["seed"] != 3 || info.MetaLines["top_p"] != 4 {
		t.Errorf("sheet MetaLines = %v", info.MetaLines)
	}
	if l := items[0].MetaLines; l["seed"] != 3 || l["top_p"] != 7 {
		t.Errorf("question MetaLines = %v, want seed 3 (sheet) and top_p 7", l)
	}
}

// A block's notes (the lines between its header and its first section,
// which LIME ignores) are kept by Parse and written back by Format; a
// notes line that would open a section is refused.
func TestNotesKept(t *testing.T) {
	src := "# S\nNotes for people.\n\n#### meta\n- k: v\n\n## Q1\n#### info\nwhy this question\n#### question\nWhat?\n"
	doc, err := Parse("s.md", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Blocks[0].Notes != "Notes for people.\n\n" || doc.Blocks[1].Notes != "#### info\nwhy this question\n" {
		t.Fatalf("notes %q, %q", doc.Blocks[0].Notes, doc.Blocks[1].Notes)
	}
	md, err := Format(doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("s.md", md, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range doc.Blocks {
		if back.Blocks[i].Notes != doc.Blocks[i].Notes {
			t.Errorf("block %d: notes %q back, want %q\n%s", i, back.Blocks[i].Notes, doc.Blocks[i].Notes, md)
		}
	}
	doc.Blocks[1].Notes = "fine\n#### question\n"
	if _, err := Format(doc, nil); err == nil || !strings.Contains(err.Error(), `notes line 2 "#### question" would be read as a header`) {
		t.Errorf("a notes line that opens a section: %v", err)
	}
}
