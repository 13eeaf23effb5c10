package xlsxout

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/sheet"
)

// asked is what a dry run asks of a sheet: each question's name, meta,
// ground truth, prompt, system, context, template and files.
type asked struct {
	Name, Prompt             string
	Meta                     map[string]string
	Truth, System, Context   *string
	Template                 string
	Files                    []string
	SheetName, SheetQuestion string
	SheetMeta                map[string]string
}

func dryRun(t *testing.T, doc *sheet.Doc) []asked {
	t.Helper()
	info, items := doc.Resolve()
	var out []asked
	for _, it := range items {
		a := asked{Name: it.Name, Prompt: it.Prompt, Meta: it.Meta, Truth: it.GroundTruth, System: it.System,
			Context: it.Context, SheetName: info.Name, SheetMeta: info.Meta}
		if info.Question != nil {
			a.SheetQuestion = sheet.CutEnd(*info.Question)
		}
		if it.Template != nil {
			a.Template = it.Template.Text
		}
		for _, f := range it.Files {
			a.Files = append(a.Files, f.Text)
		}
		out = append(out, a)
	}
	return out
}

// roundTripSheets are the sheets a round trip is tested on: the project's
// examples and LIME's real sheets.
func roundTripSheets(t *testing.T) []string {
	paths, _ := filepath.Glob(filepath.Join("..", "sheets", "*.md"))
	var lime []string
	filepath.WalkDir(shared.Path(t, "corpora", "lime", "sheets"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), "input") && strings.HasSuffix(p, ".md") {
			lime = append(lime, p)
		}
		return nil
	})
	if len(lime) == 0 || len(paths) == 0 {
		t.Fatal("no sheets found")
	}
	return append(paths, lime...)
}

// exportImport writes a sheet's workbook (keeping its source when keep)
// and reads it back.
func exportImport(t *testing.T, path string, keep bool) (*sheet.Doc, []byte, *Table) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := sheet.Parse(path, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	src := data
	if !keep {
		src = nil
	}
	f, err := toXLSX(doc, src)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	x := filepath.Join(t.TempDir(), "q.xlsx")
	if err := f.SaveAs(x); err != nil {
		t.Fatal(err)
	}
	f.Close()
	back, err := ReadTable(x)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc, data, back
}

// An unchanged sheet converted to xlsx and back gives back the same bytes:
// notes, end tokens, meta layout and all.
func TestXLSXRoundTripBytes(t *testing.T) {
	for _, p := range roundTripSheets(t) {
		_, data, back := exportImport(t, p, true)
		if !bytes.Equal(back.Markdown, data) {
			t.Errorf("%s: %d bytes back, want the %d of the sheet; first difference at byte %d", p, len(back.Markdown), len(data), firstDiff(back.Markdown, data))
		}
		if sum := sha256.Sum256(data); back.SourceSum != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: source sum %q", p, back.SourceSum)
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// A sheet converted to xlsx and back, formatted from the cells alone (a
// workbook without its source, or every row edited), asks the same
// questions and keeps every block's notes and its texts' end tokens.
func TestXLSXRoundTrip(t *testing.T) {
	for _, p := range roundTripSheets(t) {
		doc, _, back := exportImport(t, p, false)
		md := back.Markdown
		again, err := sheet.Parse(p, md, nil)
		if err != nil {
			t.Fatalf("%s: %v\n%s", p, err, md)
		}
		want, got := dryRun(t, doc), dryRun(t, again)
		if !reflect.DeepEqual(want, got) {
			for i := range min(len(want), len(got)) {
				if !reflect.DeepEqual(want[i], got[i]) {
					t.Errorf("%s: question %d:\n got %+v\nwant %+v", p, i, got[i], want[i])
					break
				}
			}
			if len(want) != len(got) {
				t.Errorf("%s: %d questions back, want %d", p, len(got), len(want))
			}
		}
		if len(again.Blocks) != len(doc.Blocks) {
			t.Fatalf("%s: %d blocks back, want %d", p, len(again.Blocks), len(doc.Blocks))
		}
		for i, b := range doc.Blocks {
			if got := again.Blocks[i].Notes; got != b.Notes {
				t.Errorf("%s: block %q: notes %q back, want %q", p, b.Name, got, b.Notes)
			}
			for _, sec := range b.Sections {
				// The text as the sheet has it, end token and all; Format
				// may end it with a newline.
				got := again.Blocks[i].First(sec.Kind)
				if sec.Kind != "meta" && (got == nil || strings.TrimRight(got.Text, "\n") != strings.TrimRight(sec.Text, "\n")) {
					t.Errorf("%s: block %q: %s section %+v back, want %q", p, b.Name, sec.Kind, got, sec.Text)
				}
			}
		}
	}
}

// Editing one question's cell changes that question only: every other
// block keeps its bytes, the edited one is formatted from its cells.
func TestXLSXEditedRow(t *testing.T) {
	p := filepath.Join("..", "sheets", "input-solar-choice.md")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := sheet.Parse(p, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := toXLSX(doc, data)
	if err != nil {
		t.Fatal(err)
	}
	x := filepath.Join(t.TempDir(), "q.xlsx")
	// Row 3 is the second question (Largest-Planet); column C its answer.
	if err := f.SetCellStr(questionsSheet, "C3", "B"); err != nil {
		t.Fatal(err)
	}
	if err := f.SaveAs(x); err != nil {
		t.Fatal(err)
	}
	f.Close()
	back, err := ReadTable(x)
	if err != nil {
		t.Fatal(err)
	}
	largest := "#### question\nWhich planet is the largest?\nA) Saturn\nB) Earth\nC) Jupiter\nD) Neptune\n<EVAL-ENDCHAR>\n\n"
	want := strings.Replace(string(data), "#### meta\n- level: easy\n#### answer\nC<EVAL-ENDCHAR>\n"+largest,
		"#### meta\nlevel: easy\n"+largest+"#### answer\nB<EVAL-ENDCHAR>\n\n", 1)
	if want == string(data) {
		t.Fatal("the test's sheet changed")
	}
	if string(back.Markdown) != want {
		t.Errorf("edited sheet:\n%s\nwant\n%s", back.Markdown, want)
	}
}

// A CSV question table: other columns are meta, cells keep their text, and
// errors name the row and column.
func TestCSVTable(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "q.csv")
	os.WriteFile(good, []byte("name,question,answer,difficulty,grader\nq1,What is 1+2?,3,easy,exact\nq2,\"Two\nlines\",3.0,,\n"), 0o644)
	tb, err := ReadTable(good)
	if err != nil {
		t.Fatal(err)
	}
	got := dryRun(t, tb.Doc)
	if len(got) != 2 || got[0].Prompt != "What is 1+2?" || *got[0].Truth != "3" || got[0].Meta["difficulty"] != "easy" ||
		got[0].Meta["grader"] != "exact" || got[1].Prompt != "Two\nlines" || *got[1].Truth != "3.0" || got[1].Meta != nil {
		t.Errorf("%+v", got)
	}
	dup := filepath.Join(dir, "dup.csv")
	os.WriteFile(dup, []byte("name,question\na,x\na,y\n"), 0o644)
	if tb, err := ReadTable(dup); err != nil || len(tb.Doc.Warnings) != 1 || !strings.Contains(tb.Doc.Warnings[0].Msg, `row 3, column A (name): "a" is also the name of row 2`) {
		t.Errorf("a repeated name: %v, %+v", err, tb)
	}
	for _, tc := range []struct{ csv, want string }{
		{"question\nx\n", `row 1: no "name" column`},
		{"name,question\n,x\n", "row 2, column A (name): empty"},
		{"name,question,tag\na,,x\n", "row 2, column B (question): empty"},
		{"name,question,tag\na,x,\"1\n2\"\n", "row 2, column C (tag): a meta value is one line"},
	} {
		p := filepath.Join(dir, "bad.csv")
		os.WriteFile(p, []byte(tc.csv), 0o644)
		_, err := ReadTable(p)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%q: err %v, want %q", tc.csv, err, tc.want)
		}
	}
}

// Any CSV either fails with an error or gives a sheet that formats and
// parses back to as many questions as it has.
func FuzzCSVTable(f *testing.F) {
	f.Add("name,question,answer,k\nq1,What?,3,v\n")
	f.Add("name,question\n\"a\",\"#### meta\n## b\"\n")
	f.Add("name,question,meta,meta.name\nq,x,yes,n\n")
	f.Fuzz(func(t *testing.T, data string) {
		p := filepath.Join(t.TempDir(), "q.csv")
		os.WriteFile(p, []byte(data), 0o644)
		tb, err := ReadTable(p)
		if err != nil {
			return
		}
		doc := tb.Doc
		md, err := sheet.Format(doc, nil)
		if err != nil {
			return // a name the sheet format cannot hold is refused there
		}
		again, err := sheet.Parse(p, md, nil)
		if err != nil {
			t.Fatalf("%v\n%s", err, md)
		}
		if _, items := again.Resolve(); len(items) != len(doc.Blocks) {
			t.Fatalf("%d questions back from %d rows\n%s", len(items), len(doc.Blocks), md)
		}
	})
}

// A workbook cannot carry hidden text: a Source block that does not give
// exactly its row's cells is not used, and the row is formatted from what
// the cells show.
func TestXLSXHiddenSourceNotTrusted(t *testing.T) {
	p := filepath.Join("..", "sheets", "input-solar-choice.md")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := sheet.Parse(p, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := toXLSX(doc, data)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := f.GetRows(sourceSheet)
	if err != nil {
		t.Fatal(err)
	}
	swapped := false
	for i, r := range rows {
		raw, _ := base64.StdEncoding.DecodeString(strings.Join(r[1:], ""))
		if r[0] == sourceBlock && bytes.HasPrefix(raw, []byte("## Planet-Count\n")) {
			raw = bytes.Replace(raw, []byte("B) 8<EVAL-ENDCHAR>"), []byte("A) 7<EVAL-ENDCHAR>"), 1)
			if err := f.SetCellStr(sourceSheet, cell(1, i+1), base64.StdEncoding.EncodeToString(raw)); err != nil {
				t.Fatal(err)
			}
			swapped = true
		}
	}
	if !swapped {
		t.Fatal("no Planet-Count block in the Source sheet")
	}
	x := filepath.Join(t.TempDir(), "q.xlsx")
	if err := f.SaveAs(x); err != nil {
		t.Fatal(err)
	}
	f.Close()
	back, err := ReadTable(x)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(back.Markdown, []byte("A) 7<EVAL-ENDCHAR>")) || !bytes.Contains(back.Markdown, []byte("B) 8<EVAL-ENDCHAR>")) {
		t.Errorf("the hidden text was used:\n%s", back.Markdown)
	}
}
