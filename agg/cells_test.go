package agg

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// hostileName is a model name that, written raw into a table, adds a row
// of its own.
const hostileName = "mymodel | 1 | 100.0 |\n| Hostile | gpt-4o"

// writeHostile writes two runs of one sheet into a new folder: an honest
// model's and one whose model, sheet, run id and question names hold '|'
// and line breaks.
func writeHostile(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for i, run := range []struct{ sheet, model, id, q string }{
		{"S|x\r\n| forged | sheet", "honest", "r1", "a\n| forged | question |"},
		{"S|x\r\n| forged | sheet", hostileName, "r|2\rx", "a\n| forged | question |"},
	} {
		doc := map[string]any{
			"sheet": map[string]any{"name": run.sheet, "run_id": run.id, "model_name": run.model},
			"questions": []map[string]any{
				{"name": run.q, "grade": i == 0, "completion": "x | y\nz", "ground_truth": "x"},
				{"name": "b", "grade": true, "completion": "b", "ground_truth": "b"},
			},
		}
		data, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "output-s-m-r"+string(rune('1'+i))+".json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// mdTables parses markdown as GFM (goldmark, as the HTML report does) and
// returns each table under its heading: rows of cells, the header first,
// each cell's text as the page shows it, with raw HTML (<br>) kept.
func mdTables(t *testing.T, src []byte) map[string][][]string {
	t.Helper()
	doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(src))
	tables := map[string][][]string{}
	heading := ""
	var cellText func(n ast.Node) string
	cellText = func(n ast.Node) string {
		var b strings.Builder
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text: // its source: "\|" is read as '|'
				b.WriteString(strings.ReplaceAll(string(c.Segment.Value(src)), `\|`, "|"))
			case *ast.RawHTML:
				for i := 0; i < c.Segments.Len(); i++ {
					seg := c.Segments.At(i)
					b.Write(seg.Value(src))
				}
			default:
				b.WriteString(cellText(c))
			}
		}
		return b.String()
	}
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *ast.Heading:
			heading = cellText(n)
		case *east.Table:
			var rows [][]string
			for r := n.FirstChild(); r != nil; r = r.NextSibling() {
				var cells []string
				for c := r.FirstChild(); c != nil; c = c.NextSibling() {
					cells = append(cells, cellText(c))
				}
				rows = append(rows, cells)
			}
			tables[heading] = rows
		}
	}
	return tables
}

// A '|' or a line break in a model's, a sheet's, a run's or a question's
// name stays in its cell in every markdown table agg writes (LIME's,
// agg's own, the two report types'): every row has the header's cells,
// no table gains a row, and the leaderboard and the Models table name the
// model alike.
func TestNamesStayInTheirCells(t *testing.T) {
	dir := writeHostile(t)
	want := "mymodel | 1 | 100.0 |<br>| Hostile | gpt-4o" // as goldmark reads the cell
	for _, kind := range []Report{Summary, Completions, DiscrepanciesFull} {
		var stdout, stderr bytes.Buffer
		if err := runTo(&stdout, &stderr, Options{Dir: dir, Out: "-", Report: kind}); err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		tables := mdTables(t, stdout.Bytes())
		if len(tables) == 0 {
			t.Fatalf("report %d: no table\n%s", kind, stdout.String())
		}
		for h, rows := range tables {
			for _, r := range rows[1:] {
				if len(r) != len(rows[0]) {
					t.Errorf("report %d: %s: row %q has %d cells, the header %d", kind, h, r, len(r), len(rows[0]))
				}
				if slices.Contains(r, "forged") || slices.Contains(r, "Hostile") {
					t.Errorf("report %d: %s: a forged row %q", kind, h, r)
				}
			}
		}
		if kind != Summary {
			continue
		}
		models := func(title string, col int) []string {
			for h, rows := range tables {
				if strings.HasPrefix(h, title) {
					var out []string
					for _, r := range rows[1:] {
						out = append(out, r[col])
					}
					return out
				}
			}
			t.Fatalf("no table %q", title)
			return nil
		}
		board, runs, totals := models("Leaderboard", 1), models("Runs", 1), models("Models", 0)
		if !slices.Equal(board, []string{"honest", want}) || !slices.Equal(runs, board) || !slices.Equal(totals, board) {
			t.Errorf("models: leaderboard %q, runs %q, Models table %q; want %q each", board, runs, totals, []string{"honest", want})
		}
		if qs := models("All Questions", 1); !slices.Equal(qs, []string{"a<br>| forged | question |", "b"}) {
			t.Errorf("All Questions: %q", qs)
		}
	}
}
