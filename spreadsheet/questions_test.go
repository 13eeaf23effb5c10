package spreadsheet

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/shared"
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

// A sheet converted to xlsx and back asks the same questions: LIME's real
// sheets and the project's examples.
func TestXLSXRoundTrip(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "sheets", "*.md"))
	lime, _ := filepath.Glob(filepath.Join(shared.Path(t, "corpora", "lime", "sheets"), "*", "input*.md"))
	paths = append(paths, lime...)
	if len(lime) == 0 {
		t.Fatal("no LIME sheets found")
	}
	for _, p := range paths {
		doc, err := sheet.ParseFile(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		f, err := toXLSX(doc)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		x := filepath.Join(t.TempDir(), "q.xlsx")
		if err := f.SaveAs(x); err != nil {
			t.Fatal(err)
		}
		f.Close()
		back, err := ReadTable(x)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		md, err := sheet.Format(back, nil)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
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
	}
}

// A CSV question table: other columns are meta, cells keep their text, and
// errors name the row and column.
func TestCSVTable(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "q.csv")
	os.WriteFile(good, []byte("name,question,answer,difficulty,grader\nq1,What is 1+2?,3,easy,exact\nq2,\"Two\nlines\",3.0,,\n"), 0o644)
	doc, err := ReadTable(good)
	if err != nil {
		t.Fatal(err)
	}
	got := dryRun(t, doc)
	if len(got) != 2 || got[0].Prompt != "What is 1+2?" || *got[0].Truth != "3" || got[0].Meta["difficulty"] != "easy" ||
		got[0].Meta["grader"] != "exact" || got[1].Prompt != "Two\nlines" || *got[1].Truth != "3.0" || got[1].Meta != nil {
		t.Errorf("%+v", got)
	}
	dup := filepath.Join(dir, "dup.csv")
	os.WriteFile(dup, []byte("name,question\na,x\na,y\n"), 0o644)
	if doc, err := ReadTable(dup); err != nil || len(doc.Warnings) != 1 || !strings.Contains(doc.Warnings[0].Msg, `row 3, column A (name): "a" is also the name of row 2`) {
		t.Errorf("a repeated name: %v, warnings %v", err, doc.Warnings)
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
		doc, err := ReadTable(p)
		if err != nil {
			return
		}
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
