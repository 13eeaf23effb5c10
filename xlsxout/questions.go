package xlsxout

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/evalmd/evalmd/internal/readfile"
	"github.com/evalmd/evalmd/sheet"
)

// Question tables: a sheet as a table of questions, one row each, for
// people who edit questions in a spreadsheet (convert xlsx) or keep them
// as CSV or xlsx (convert table), as promptfoo and Inspect take datasets.
//
// The columns are name, then the sections below (each section's text as
// the sheet has it, end tokens and what follows them included), then
// "notes" (the lines between the question's header and its first section,
// which LIME ignores), then "meta" (yes when the question has a meta
// section: LIME gives the sheet's meta only to those, even when theirs is
// empty), then one column per meta key (a key that is also a column's name
// is written "meta.KEY"). An empty cell is a section the question does not
// have; a table made elsewhere needs no "meta" column, as its meta keys
// imply the section. The xlsx has a second sheet, "Sheet", with the
// sheet's own name, notes and sections, one row each.
//
// A third sheet, "Source", hidden, holds the sheet file's own bytes, block
// by block, each under a key made of the cells it became, and the file's
// sha256. Importing the workbook back (ImportTable) gives every block
// whose cells are unchanged its bytes from there, and formats only the
// blocks that were edited: a round trip of an unchanged sheet gives back
// the same bytes (meta layout, header spelling, notes above the first
// header and all), and the sum lets the import replace the sheet it was
// exported from while that file is unchanged.

// sectionColumns are the question sections that have a column, in order.
var sectionColumns = []string{"question", "answer", "system", "context", "files", "templates"}

// sheetRowKinds are the sections a Sheet sheet's rows may hold: the
// columns', and a sheet block's few-shot turns and schema, which are rows
// there, in order, however many.
var sheetRowKinds = append(slices.Clip(sectionColumns), "user", "assistant", "schema")

const (
	questionsSheet = "Questions"
	sheetSheet     = "Sheet"
	sourceSheet    = "Source"
	metaPrefix     = "meta."
	metaColumn     = "meta"
	notesColumn    = "notes"
)

// isFixed reports whether a column name is name, a section, notes or meta.
func isFixed(col string) bool {
	return col == "name" || col == metaColumn || col == notesColumn || slices.Contains(sectionColumns, col)
}

// toXLSX writes a parsed sheet as a workbook of its questions; src is the
// sheet file's bytes (nil: the workbook keeps no source). It refuses a
// sheet a table cannot hold whole: a sheet header after a question, a
// question with a section twice or a section that has no column, a text
// longer than a cell.
func toXLSX(doc *sheet.Doc, src []byte) (*excelize.File, error) {
	head, questions, err := tableBlocks(doc)
	if err != nil {
		return nil, err
	}
	keys, err := metaKeys(doc.Path, questions)
	if err != nil {
		return nil, err
	}
	b, err := newBook()
	if err != nil {
		return nil, err
	}
	if err := b.writeSheet(doc, head, questions, keys, src); err != nil {
		b.f.Close()
		return nil, err
	}
	return b.f, nil
}

// tableBlocks is the sheet's header, if any, and its questions; a header
// after a question or a second one is refused.
func tableBlocks(doc *sheet.Doc) (*sheet.Block, []*sheet.Block, error) {
	var head *sheet.Block
	var questions []*sheet.Block
	for i := range doc.Blocks {
		b := &doc.Blocks[i]
		if b.Kind == sheet.SheetKind {
			if head != nil || len(questions) > 0 {
				return nil, nil, fmt.Errorf("%s:%d: a second sheet header; a question table holds one sheet", doc.Path, b.Line)
			}
			head = b
			continue
		}
		questions = append(questions, b)
	}
	return head, questions, nil
}

// metaKeys is the questions' meta keys, in the order first seen (a
// question's new keys sorted); a question with a section twice or a
// section without a column is refused.
func metaKeys(path string, questions []*sheet.Block) ([]string, error) {
	var keys []string
	for _, q := range questions {
		seen := map[string]bool{}
		for _, s := range q.Sections {
			if seen[s.Kind] {
				return nil, fmt.Errorf("%s:%d: question %q has a second %s section; a table row holds one", path, s.Line, q.Name, s.Kind)
			}
			seen[s.Kind] = true
			if s.Kind != "meta" && !slices.Contains(sectionColumns, s.Kind) {
				return nil, fmt.Errorf("%s:%d: question %q: a %s section has no column", path, s.Line, q.Name, s.Kind)
			}
		}
		if m := q.First("meta"); m != nil {
			var ks []string
			for k := range sheet.ParseMeta(m.Text) {
				if !slices.Contains(keys, k) {
					ks = append(ks, k)
				}
			}
			sort.Strings(ks)
			keys = append(keys, ks...)
		}
	}
	return keys, nil
}

// writeSheet fills the book: the Questions sheet (a row per question, a
// column per section and meta key), the Sheet sheet (the header's
// sections) and, when src is not nil, the source.
func (b *book) writeSheet(doc *sheet.Doc, head *sheet.Block, questions []*sheet.Block, keys []string, src []byte) error {
	if err := b.f.SetSheetName("Sheet1", questionsSheet); err != nil {
		return err
	}
	header := append(append([]string{"name"}, sectionColumns...), notesColumn, metaColumn)
	for _, k := range keys {
		if isFixed(k) || strings.HasPrefix(k, metaPrefix) {
			k = metaPrefix + k
		}
		header = append(header, k)
	}
	widths := []float64{24, 60, 20, 30, 30, 20, 30, 30}
	if err := b.table(questionsSheet, header, widths, len(questions)); err != nil {
		return err
	}
	put := func(sh string, col, row int, what, text string) error {
		if _, cut := cutCell(text); cut {
			return fmt.Errorf("%s: %s is longer than a cell holds (%d characters)", doc.Path, what, maxCell)
		}
		return b.setText(sh, col, row, text)
	}
	for i, q := range questions {
		for j, text := range questionRow(header, q) {
			what := "a name"
			if j > 0 {
				what = fmt.Sprintf("question %q's %s", q.Name, header[j])
			}
			if text != "" {
				if err := put(questionsSheet, j, i+2, what, text); err != nil {
					return err
				}
			}
		}
	}
	var headRows [][]string // section, text
	if head != nil {
		headRows = sheetRows(head)[1:]
	}
	if err := b.table(sheetSheet, sheetHeader, []float64{14, 100}, len(headRows)); err != nil {
		return err
	}
	for i, r := range headRows {
		if err := b.setText(sheetSheet, 0, 2+i, r[0]); err != nil {
			return err
		}
		if err := put(sheetSheet, 1, 2+i, "the sheet's "+r[0], r[1]); err != nil {
			return err
		}
	}
	if src != nil {
		return b.source(doc, src)
	}
	return nil
}

// sheetHeader is the Sheet sheet's header row.
var sheetHeader = []string{"section", "text"}

// questionRow is the cells of a question's row under header: its name,
// its sections' texts, its notes, "yes" when it has a meta section, its
// meta values ("" where it has none).
func questionRow(header []string, q *sheet.Block) []string {
	var meta map[string]string
	if m := q.First("meta"); m != nil {
		meta = sheet.ParseMeta(m.Text)
	}
	row := make([]string, len(header))
	for j, h := range header {
		switch {
		case h == "name":
			row[j] = q.Name
		case h == notesColumn:
			row[j] = q.Notes
		case h == metaColumn:
			if meta != nil {
				row[j] = "yes"
			}
		case slices.Contains(sectionColumns, h):
			if s := q.First(h); s != nil {
				row[j] = s.Text
			}
		default:
			row[j] = meta[strings.TrimPrefix(h, metaPrefix)]
		}
	}
	return row
}

// sheetRows is the Sheet sheet's rows of a sheet header, its header row
// first: the name, the notes, each section.
func sheetRows(head *sheet.Block) [][]string {
	rows := [][]string{sheetHeader, {"name", head.Name}}
	if head.Notes != "" {
		rows = append(rows, []string{notesColumn, head.Notes})
	}
	for _, s := range head.Sections {
		rows = append(rows, []string{s.Kind, s.Text})
	}
	return rows
}

// source writes the hidden Source sheet: the file's sha256, the text
// before the first header, then each block's bytes (its header line to the
// next header), base64 in cells of at most sourceChunk characters.
func (b *book) source(doc *sheet.Doc, src []byte) error {
	lines := rawLines(src)
	// Line n of the parser (1-based) starts at lines[n-1].
	at := func(line int) int {
		if line-1 < len(lines) {
			return lines[line-1]
		}
		return len(src)
	}
	sum := sha256.Sum256(src)
	rows := [][]string{{sourceSum, hex.EncodeToString(sum[:])}}
	if len(doc.Blocks) > 0 {
		rows = append(rows, append([]string{sourcePreamble}, chunks(src[:at(doc.Blocks[0].Line)])...))
	}
	for i, blk := range doc.Blocks {
		end := len(src)
		if i+1 < len(doc.Blocks) {
			end = at(doc.Blocks[i+1].Line)
		}
		rows = append(rows, append([]string{sourceBlock}, chunks(src[at(blk.Line):end])...))
	}
	if _, err := b.f.NewSheet(sourceSheet); err != nil {
		return err
	}
	for r, row := range rows {
		for c, v := range row {
			if err := b.f.SetCellStr(sourceSheet, cell(c, r+1), v); err != nil {
				return err
			}
		}
	}
	// Very hidden: Excel's Unhide does not list it, so nobody edits it
	// by mistake.
	return b.f.SetSheetVisible(sourceSheet, false, true)
}

// What a Source sheet row holds, by its first cell.
const (
	sourceSum      = "sha256"
	sourcePreamble = "preamble"
	sourceBlock    = "block"
	sourceChunk    = 32000 // base64 characters a cell of the Source sheet holds
)

// rawLines returns the byte offset of each line of data, lines split as the
// sheet parser splits them ("\r\n", "\n" or "\r" ends a line).
func rawLines(data []byte) []int {
	starts := []int{0}
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '\r':
			if i+1 < len(data) && data[i+1] == '\n' {
				i++
			}
			fallthrough
		case '\n':
			if i+1 < len(data) {
				starts = append(starts, i+1)
			}
		}
	}
	return starts
}

// chunks is data in base64, cut into cells.
func chunks(data []byte) []string {
	enc := base64.StdEncoding.EncodeToString(data)
	var out []string
	for len(enc) > sourceChunk {
		out = append(out, enc[:sourceChunk])
		enc = enc[sourceChunk:]
	}
	return append(out, enc)
}

// rowKey is the key of a question row: a digest of the header and the row.
func rowKey(header, row []string) string { return cellsKey("q:", header, row) }

// sheetKey is the key of the Sheet sheet: a digest of its rows.
func sheetKey(rows [][]string) string { return cellsKey("s:", rows...) }

// cellsKey is a digest of rows of cells as a workbook holds them (each as
// cutCell writes it; trailing empty cells left out, as a reader leaves
// them), after prefix.
func cellsKey(prefix string, rows ...[]string) string {
	h := sha256.New()
	for _, r := range rows {
		for len(r) > 0 && r[len(r)-1] == "" {
			r = r[:len(r)-1]
		}
		for _, c := range r {
			c, _ = cutCell(c)
			fmt.Fprintf(h, "%d:%s", len(c), c)
		}
		h.Write([]byte{0})
	}
	return prefix + hex.EncodeToString(h.Sum(nil))
}

// WriteXLSX writes the question workbook of doc, parsed from src (the
// sheet file's bytes), to w.
func WriteXLSX(w io.Writer, doc *sheet.Doc, src []byte) error {
	f, err := toXLSX(doc, src)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteTo(w)
	return err
}

// Table is a question table read back as a sheet.
type Table struct {
	Doc *sheet.Doc
	// Markdown is the sheet's text: for a workbook convert xlsx wrote, the
	// exported bytes of every block whose cells are unchanged and the
	// others formatted; else the sheet formatted (sheet.Format).
	Markdown []byte
	// SourceSum is the sha256 (hex) of the sheet file the workbook was
	// exported from; "" for a table made elsewhere.
	SourceSum string
}

// ReadTable reads a question table, CSV or xlsx by its extension, as a
// sheet. Errors name the file, the row and the column.
func ReadTable(path string) (*Table, error) {
	rows, head, src, where, err := readRows(path)
	if err != nil {
		return nil, err
	}
	doc, keys, err := fromRows(where, rows, head)
	if err != nil {
		return nil, err
	}
	t := &Table{Doc: doc}
	kept, err := readSource(where, src, rows[0])
	if err != nil {
		return nil, err
	}
	t.SourceSum = kept.sum
	var out bytes.Buffer
	out.Write(kept.preamble)
	for i, b := range doc.Blocks {
		// A kept block that does not end its last line can only stay last.
		if raw, ok := kept.take(keys[i]); ok && (bytes.HasSuffix(raw, []byte("\n")) || i == len(doc.Blocks)-1) {
			out.Write(raw)
			continue
		}
		md, err := sheet.Format(&sheet.Doc{Blocks: []sheet.Block{b}}, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		out.Write(md)
	}
	t.Markdown = out.Bytes()
	return t, nil
}

// kept is what a Source sheet holds: the exported file's sum, its text
// before the first header, and each block's bytes by the key of the cells
// it gives (a list, for blocks whose cells are alike).
type kept struct {
	sum      string
	preamble []byte
	blocks   map[string][][]byte
}

// take returns, and removes, the next kept block of a key.
func (k *kept) take(key string) ([]byte, bool) {
	list := k.blocks[key]
	if len(list) == 0 {
		return nil, false
	}
	k.blocks[key] = list[1:]
	return list[0], true
}

// readSource reads the Source sheet's rows (none: nothing kept). Each
// block is keyed by the cells it gives under header, computed here from
// its bytes, not taken from the workbook: a block is only ever used for a
// row that shows exactly what it holds, so a workbook cannot carry hidden
// text that differs from its cells.
func readSource(where string, rows [][]string, header []string) (*kept, error) {
	k := &kept{blocks: map[string][][]byte{}}
	for i, r := range rows {
		if len(r) < 2 {
			continue
		}
		if r[0] == sourceSum {
			k.sum = r[1]
			continue
		}
		data, err := base64.StdEncoding.DecodeString(strings.Join(r[1:], ""))
		if err != nil {
			return nil, fmt.Errorf("%s: %s row %d: %w", where, sourceSheet, i+1, err)
		}
		switch r[0] {
		case sourcePreamble:
			k.preamble = data
		case sourceBlock:
			doc, err := sheet.Parse(where, data, nil)
			if err != nil || len(doc.Blocks) != 1 {
				continue // not one block: its row is formatted from the cells
			}
			b := &doc.Blocks[0]
			key := sheetKey(sheetRows(b))
			if b.Kind == sheet.QuestionKind {
				key = rowKey(header, questionRow(header, b))
			}
			k.blocks[key] = append(k.blocks[key], data)
		}
	}
	return k, nil
}

// readRows reads a table's rows: the questions (the header first), the
// Sheet sheet's and the Source sheet's (nil when absent), and the name of
// the table for errors.
func readRows(path string) (rows, head, src [][]string, where string, err error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		f, err := readfile.Open(path)
		if err != nil {
			return nil, nil, nil, "", err
		}
		defer f.Close()
		r := csv.NewReader(f)
		r.FieldsPerRecord = -1
		for {
			rec, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, nil, nil, "", fmt.Errorf("%s: %w", path, err)
			}
			rows = append(rows, rec)
		}
		return rows, nil, nil, path, nil
	case ".xlsx", ".xlsm":
		fh, err := readfile.Open(path)
		if err != nil {
			return nil, nil, nil, "", err
		}
		defer fh.Close()
		f, err := excelize.OpenReader(fh)
		if err != nil {
			return nil, nil, nil, "", fmt.Errorf("%s: %w", path, err)
		}
		defer f.Close()
		name := questionsSheet
		if idx, _ := f.GetSheetIndex(name); idx < 0 {
			name = f.GetSheetList()[0] // a table made elsewhere: its first sheet
		}
		if rows, err = f.GetRows(name); err != nil {
			return nil, nil, nil, "", fmt.Errorf("%s: %w", path, err)
		}
		for _, extra := range []struct {
			name string
			rows *[][]string
		}{{sheetSheet, &head}, {sourceSheet, &src}} {
			if idx, _ := f.GetSheetIndex(extra.name); idx >= 0 {
				if *extra.rows, err = f.GetRows(extra.name); err != nil {
					return nil, nil, nil, "", fmt.Errorf("%s: %w", path, err)
				}
			}
		}
		return rows, head, src, path + ": " + name, nil
	}
	return nil, nil, nil, "", fmt.Errorf("%s: a question table is .csv or .xlsx", path)
}

// fromRows builds a sheet from a question table's rows (the header first)
// and the Sheet sheet's rows (section, text), if any, with the key of each
// block's cells (see rowKey, sheetKey). where names the table in errors.
func fromRows(where string, rows, head [][]string) (*sheet.Doc, []string, error) {
	if len(rows) == 0 {
		return nil, nil, fmt.Errorf("%s: no header row", where)
	}
	header := rows[0]
	col, err := headerColumns(where, header)
	if err != nil {
		return nil, nil, err
	}
	doc := &sheet.Doc{Path: where}
	var keys []string
	if len(head) > 1 {
		b, err := sheetBlock(where, head)
		if err != nil {
			return nil, nil, err
		}
		doc.Blocks = append(doc.Blocks, b)
		keys = append(keys, sheetKey(head))
	}
	names := map[string]int{}
	for ri, r := range rows[1:] {
		rowNo := ri + 2
		if slices.IndexFunc(r, func(s string) bool { return s != "" }) < 0 {
			continue // an empty row
		}
		q, err := questionBlock(where, header, col, r, rowNo)
		if err != nil {
			return nil, nil, err
		}
		if first, dup := names[q.Name]; dup {
			// LIME runs both; the sheet parser warns, and so does this.
			doc.Warnings = append(doc.Warnings, sheet.Diag{Path: where, Line: rowNo,
				Msg: fmt.Sprintf("row %d, column %s (name): %q is also the name of row %d", rowNo, colName(col["name"]), q.Name, first)})
		} else {
			names[q.Name] = rowNo
		}
		doc.Blocks = append(doc.Blocks, q)
		keys = append(keys, rowKey(header, r))
	}
	return doc, keys, nil
}

// headerColumns is the column of each name in the header row, which must
// name each once and have a name and a question column.
func headerColumns(where string, header []string) (map[string]int, error) {
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
	return col, nil
}

// sheetBlock is the sheet header the Sheet sheet's rows (after its
// header row) make: its name, notes and sections.
func sheetBlock(where string, head [][]string) (sheet.Block, error) {
	b := sheet.Block{Kind: sheet.SheetKind}
	for i, r := range head[1:] {
		if len(r) == 0 || r[0] == "" {
			continue
		}
		text := ""
		if len(r) > 1 {
			text = r[1]
		}
		switch r[0] {
		case "name":
			b.Name = text
			continue
		case notesColumn:
			b.Notes = text
			continue
		}
		if r[0] != "meta" && !slices.Contains(sheetRowKinds, r[0]) {
			return b, fmt.Errorf("%s: Sheet row %d: %q is not a sheet section", where, i+2, r[0])
		}
		b.Sections = append(b.Sections, sheet.Section{Kind: r[0], Text: text})
	}
	if b.Name == "" {
		return b, fmt.Errorf("%s: Sheet: no name row", where)
	}
	return b, nil
}

// questionBlock is the question a table row (not empty) makes: its name,
// notes, meta (the meta column and every column that is not a section)
// and sections.
func questionBlock(where string, header []string, col map[string]int, r []string, rowNo int) (sheet.Block, error) {
	cell := func(name string) (string, bool) {
		i, ok := col[name]
		if !ok || i >= len(r) {
			return "", false
		}
		return r[i], r[i] != ""
	}
	name, _ := cell("name")
	name = strings.TrimSpace(name)
	if name == "" {
		return sheet.Block{}, fmt.Errorf("%s: row %d, column %s (name): empty", where, rowNo, colName(col["name"]))
	}
	if strings.ContainsAny(name, "\r\n") {
		return sheet.Block{}, fmt.Errorf("%s: row %d, column %s (name): a name is one line", where, rowNo, colName(col["name"]))
	}
	q := sheet.Block{Kind: sheet.QuestionKind, Name: name}
	q.Notes, _ = cell(notesColumn)
	var meta strings.Builder
	for i, h := range header {
		h = strings.TrimSpace(h)
		if h == "" || isFixed(h) || i >= len(r) || r[i] == "" {
			continue
		}
		if strings.ContainsAny(r[i], "\r\n") {
			return sheet.Block{}, fmt.Errorf("%s: row %d, column %s (%s): a meta value is one line", where, rowNo, colName(i), h)
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
		return sheet.Block{}, fmt.Errorf("%s: row %d, column %s (question): empty", where, rowNo, colName(col["question"]))
	}
	return q, nil
}

// colName is a column's spreadsheet letter.
func colName(i int) string {
	n, _ := excelize.ColumnNumberToName(i + 1)
	return n
}
