package spreadsheet

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/evalmd/evalmd/sheet"
)

// Question tables: a sheet as a table of questions, one row each, for
// people who edit questions in a spreadsheet (convert xlsx) or keep them
// as CSV or xlsx (convert table), as promptfoo and Inspect take datasets.
//
// The columns are name, then the sections below, then "meta" (yes when
// the question has a meta section: LIME gives the sheet's meta only to
// those, even when theirs is empty), then one column per meta key (a key
// that is also a column's name is written "meta.KEY"). An empty cell is a
// section the question does not have; a table made elsewhere needs no
// "meta" column, as its meta keys imply the section. The xlsx has a
// second sheet, "Sheet", with the sheet's own name and sections, one row
// each.

// sectionColumns are the question sections that have a column, in order.
var sectionColumns = []string{"question", "answer", "system", "context", "files", "templates"}

const (
	questionsSheet = "Questions"
	sheetSheet     = "Sheet"
	metaPrefix     = "meta."
	metaColumn     = "meta"
)

// isFixed reports whether a column name is name or a section.
func isFixed(col string) bool {
	return col == "name" || col == metaColumn || slices.Contains(sectionColumns, col)
}

// toXLSX writes a parsed sheet as a workbook of its questions. It refuses a
// sheet a table cannot hold whole: a sheet header after a question, a
// question with a section twice or a section that has no column, a text
// longer than a cell.
func toXLSX(doc *sheet.Doc) (*excelize.File, error) {
	var head *sheet.Block
	var questions []*sheet.Block
	for i := range doc.Blocks {
		b := &doc.Blocks[i]
		if b.Kind == sheet.SheetKind {
			if head != nil || len(questions) > 0 {
				return nil, fmt.Errorf("%s:%d: a second sheet header; a question table holds one sheet", doc.Path, b.Line)
			}
			head = b
			continue
		}
		questions = append(questions, b)
	}
	// Meta keys, in the order first seen.
	var keys []string
	metas := make([]map[string]string, len(questions))
	for i, q := range questions {
		seen := map[string]bool{}
		for _, s := range q.Sections {
			if seen[s.Kind] {
				return nil, fmt.Errorf("%s:%d: question %q has a second %s section; a table row holds one", doc.Path, s.Line, q.Name, s.Kind)
			}
			seen[s.Kind] = true
			if s.Kind != "meta" && !slices.Contains(sectionColumns, s.Kind) {
				return nil, fmt.Errorf("%s:%d: question %q: a %s section has no column", doc.Path, s.Line, q.Name, s.Kind)
			}
		}
		if m := q.First("meta"); m != nil {
			metas[i] = sheet.ParseMeta(m.Text)
			var ks []string
			for k := range metas[i] {
				if !slices.Contains(keys, k) {
					ks = append(ks, k)
				}
			}
			sort.Strings(ks)
			keys = append(keys, ks...)
		}
	}
	b, err := newBook()
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*excelize.File, error) { b.f.Close(); return nil, err }
	if err := b.f.SetSheetName("Sheet1", questionsSheet); err != nil {
		return fail(err)
	}
	header := append(append([]string{"name"}, sectionColumns...), metaColumn)
	for _, k := range keys {
		if isFixed(k) || strings.HasPrefix(k, metaPrefix) {
			k = metaPrefix + k
		}
		header = append(header, k)
	}
	widths := []float64{24, 60, 20, 30, 30, 20, 30}
	if err := b.table(questionsSheet, header, widths, len(questions)); err != nil {
		return fail(err)
	}
	put := func(sh string, col, row int, what, text string) error {
		if _, cut := cutCell(text); cut {
			return fmt.Errorf("%s: %s is longer than a cell holds (%d characters)", doc.Path, what, maxCell)
		}
		return b.setText(sh, col, row, text)
	}
	for i, q := range questions {
		row := i + 2
		if err := put(questionsSheet, 0, row, "a name", q.Name); err != nil {
			return fail(err)
		}
		for j, kind := range sectionColumns {
			if s := q.First(kind); s != nil {
				if err := put(questionsSheet, 1+j, row, fmt.Sprintf("question %q's %s", q.Name, kind), sheet.CutEnd(s.Text)); err != nil {
					return fail(err)
				}
			}
		}
		if metas[i] != nil {
			if err := b.setText(questionsSheet, 1+len(sectionColumns), row, "yes"); err != nil {
				return fail(err)
			}
		}
		for j, k := range keys {
			if v, ok := metas[i][k]; ok {
				if err := put(questionsSheet, 2+len(sectionColumns)+j, row, fmt.Sprintf("question %q's %s", q.Name, k), v); err != nil {
					return fail(err)
				}
			}
		}
	}
	var secs []sheet.Section
	if head != nil {
		secs = head.Sections
	}
	if err := b.table(sheetSheet, []string{"section", "text"}, []float64{14, 100}, len(secs)+1); err != nil {
		return fail(err)
	}
	if head != nil {
		if err := b.setText(sheetSheet, 0, 2, "name"); err != nil {
			return fail(err)
		}
		if err := put(sheetSheet, 1, 2, "the sheet's name", head.Name); err != nil {
			return fail(err)
		}
		for i, s := range secs {
			if err := b.setText(sheetSheet, 0, 3+i, s.Kind); err != nil {
				return fail(err)
			}
			if err := put(sheetSheet, 1, 3+i, "the sheet's "+s.Kind, sheet.CutEnd(s.Text)); err != nil {
				return fail(err)
			}
		}
	}
	return b.f, nil
}

// WriteXLSX writes toXLSX(doc) to w.
func WriteXLSX(w io.Writer, doc *sheet.Doc) error {
	f, err := toXLSX(doc)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteTo(w)
	return err
}

// ReadTable reads a question table, CSV or xlsx by its extension, into a
// sheet. Errors name the file, the row and the column.
func ReadTable(path string) (*sheet.Doc, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r := csv.NewReader(f)
		r.FieldsPerRecord = -1
		var rows [][]string
		for {
			rec, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			rows = append(rows, rec)
		}
		return fromRows(path, rows, nil)
	case ".xlsx", ".xlsm":
		f, err := excelize.OpenFile(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer f.Close()
		name := questionsSheet
		if idx, _ := f.GetSheetIndex(name); idx < 0 {
			name = f.GetSheetList()[0] // a table made elsewhere: its first sheet
		}
		rows, err := f.GetRows(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		var head [][]string
		if idx, _ := f.GetSheetIndex(sheetSheet); idx >= 0 {
			if head, err = f.GetRows(sheetSheet); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
		}
		return fromRows(path+": "+name, rows, head)
	}
	return nil, fmt.Errorf("%s: a question table is .csv or .xlsx", path)
}

// fromRows builds a sheet from a question table's rows (the header first)
// and the Sheet sheet's rows (section, text), if any. where names the
// table in errors.
func fromRows(where string, rows, head [][]string) (*sheet.Doc, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no header row", where)
	}
	header := rows[0]
	col := map[string]int{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		if j, dup := col[h]; dup {
			return nil, fmt.Errorf("%s: row 1: column %q is both column %s and %s", where, h, colName(j), colName(i))
		}
		col[h] = i
	}
	if _, ok := col["name"]; !ok {
		return nil, fmt.Errorf("%s: row 1: no \"name\" column", where)
	}
	if _, ok := col["question"]; !ok {
		return nil, fmt.Errorf("%s: row 1: no \"question\" column", where)
	}
	doc := &sheet.Doc{Path: where}
	if len(head) > 1 {
		b := sheet.Block{Kind: sheet.SheetKind}
		for i, r := range head[1:] {
			if len(r) == 0 || r[0] == "" {
				continue
			}
			text := ""
			if len(r) > 1 {
				text = r[1]
			}
			if r[0] == "name" {
				b.Name = text
				continue
			}
			if r[0] != "meta" && !slices.Contains(sectionColumns, r[0]) {
				return nil, fmt.Errorf("%s: Sheet row %d: %q is not a sheet section", where, i+2, r[0])
			}
			b.Sections = append(b.Sections, sheet.Section{Kind: r[0], Text: text})
		}
		if b.Name == "" {
			return nil, fmt.Errorf("%s: Sheet: no name row", where)
		}
		doc.Blocks = append(doc.Blocks, b)
	}
	names := map[string]int{}
	for ri, r := range rows[1:] {
		rowNo := ri + 2
		cell := func(name string) (string, bool) {
			i, ok := col[name]
			if !ok || i >= len(r) {
				return "", false
			}
			return r[i], r[i] != ""
		}
		if slices.IndexFunc(r, func(s string) bool { return s != "" }) < 0 {
			continue // an empty row
		}
		name, _ := cell("name")
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, fmt.Errorf("%s: row %d, column %s (name): empty", where, rowNo, colName(col["name"]))
		}
		if strings.ContainsAny(name, "\r\n") {
			return nil, fmt.Errorf("%s: row %d, column %s (name): a name is one line", where, rowNo, colName(col["name"]))
		}
		if first, dup := names[name]; dup {
			// LIME runs both; the sheet parser warns, and so does this.
			doc.Warnings = append(doc.Warnings, sheet.Diag{Path: where, Line: rowNo,
				Msg: fmt.Sprintf("row %d, column %s (name): %q is also the name of row %d", rowNo, colName(col["name"]), name, first)})
		} else {
			names[name] = rowNo
		}
		q := sheet.Block{Kind: sheet.QuestionKind, Name: name}
		var meta strings.Builder
		for i, h := range header {
			h = strings.TrimSpace(h)
			if h == "" || isFixed(h) || i >= len(r) || r[i] == "" {
				continue
			}
			if strings.ContainsAny(r[i], "\r\n") {
				return nil, fmt.Errorf("%s: row %d, column %s (%s): a meta value is one line", where, rowNo, colName(i), h)
			}
			fmt.Fprintf(&meta, "%s: %s\n", strings.TrimPrefix(h, metaPrefix), r[i])
		}
		if _, ok := cell(metaColumn); ok || meta.Len() > 0 {
			q.Sections = append(q.Sections, sheet.Section{Kind: "meta", Text: meta.String()})
		}
		for _, kind := range sectionColumns {
			if v, ok := cell(kind); ok {
				q.Sections = append(q.Sections, sheet.Section{Kind: kind, Text: v})
			}
		}
		if q.First("question") == nil {
			return nil, fmt.Errorf("%s: row %d, column %s (question): empty", where, rowNo, colName(col["question"]))
		}
		doc.Blocks = append(doc.Blocks, q)
	}
	return doc, nil
}

// colName is a column's spreadsheet letter.
func colName(i int) string {
	n, _ := excelize.ColumnNumberToName(i + 1)
	return n
}
