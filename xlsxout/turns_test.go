package xlsxout

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/sheet"
)

// A sheet's few-shot turns and schema are Sheet rows, in order, and come
// back from the workbook whether or not it keeps its source; a question's
// own turns, which a table row cannot hold, are refused at their line.
func TestXLSXSheetTurns(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "input-few.md")
	text := "# S\n#### user\n2+2?<EVAL-ENDCHAR>\n#### assistant\n4<EVAL-ENDCHAR>\n#### user\n3+3?<EVAL-ENDCHAR>\n#### assistant\n6<EVAL-ENDCHAR>\n" +
		"#### schema\n{\"type\": \"integer\"}<EVAL-ENDCHAR>\n## Q\n#### question\n6*7?<EVAL-ENDCHAR>\n#### answer\n42<EVAL-ENDCHAR>\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, keep := range []bool{true, false} {
		doc, _, back := exportImport(t, path, keep)
		got, err := sheet.Parse(path, back.Markdown, nil)
		if err != nil {
			t.Fatalf("keep %v: %v\n%s", keep, err, back.Markdown)
		}
		_, want := doc.Resolve()
		_, items := got.Resolve()
		w, g := want[0], items[0]
		if len(g.Turns) != 4 || g.Schema == nil || g.Schema.Text != w.Schema.Text {
			t.Fatalf("keep %v: turns %+v, schema %+v", keep, g.Turns, g.Schema)
		}
		for i := range g.Turns {
			g.Turns[i].Line, w.Turns[i].Line = 0, 0
		}
		if !reflect.DeepEqual(g.Turns, w.Turns) {
			t.Errorf("keep %v: turns %+v, want %+v", keep, g.Turns, w.Turns)
		}
	}
	own := filepath.Join(dir, "input-own.md")
	if err := os.WriteFile(own, []byte("## Q\n#### user\nhi\n#### question\nx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	doc, err := sheet.ParseFile(own, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := toXLSX(doc, nil); err == nil || !strings.Contains(err.Error(), own+`:2: question "Q": a user section has no column`) {
		t.Errorf("err = %v, want the user turn refused at line 2", err)
	}
}
