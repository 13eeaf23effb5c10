// Package xlsb reads cell values from MS-XLSB (.xlsb) workbooks, the binary
// Excel format, with the standard library only. It exists so DSBench
// workbooks can be rendered the way pandas renders them through pyxlsb; the
// behaviours that rendering depends on are spelled out here.
//
// # Sheets
//
// Sheets lists every sheet of xl/workbook.bin (BrtBundleSh records) in
// workbook order, hidden and very hidden ones and chartsheets included, as
// pyxlsb (and so pandas) lists them. A chartsheet has Chart set and no cells.
//
// # Row layout
//
// Rows returns a rectangular grid anchored at A1: rows[r][c] is the cell in
// row r, column c (both 0-based). There is one row for each index from 0 to
// the largest row index holding a cell record, and every row, including
// rows with no cells at all, has exactly one cell for each column index from
// 0 to the largest column index holding a cell record. Positions without a
// cell record are Cell{Kind: Empty} with NumFmt "". A blank cell record
// (BrtCellBlank, a formatted empty cell) is Empty too but keeps its NumFmt
// and counts toward the extent. A sheet without cells gives no rows.
//
// Neither trailing empty rows nor trailing empty columns are trimmed beyond
// that extent, so a caller can apply its own rule. pandas 1.5's pyxlsb
// reader, for instance, reads rows sparsely, turns every missing or blank
// cell into "" (so a String cell holding "" is indistinguishable from an
// Empty one), drops trailing "" cells of each row and trailing rows with no
// value, then pads every row to the widest: the data it parses is this grid
// cut to the last row and the last column that hold a value that is neither
// Empty nor "".
//
// Dimension returns the sheet's BrtWsDim range. pyxlsb sizes each row to the
// dimension's last column + 1 and fails (IndexError) on a cell beyond it;
// this package instead widens the grid to include such a cell, and a caller
// that wants pyxlsb's failure can compare against Dimension.
//
// # Values
//
// Values are the cached ones Excel stored, formulas included; formulas are
// not evaluated. Dates are numbers (Excel serials) with a date NumFmt;
// pyxlsb returns them as serial floats too. Error cells keep their code in
// Err (0x07 is #DIV/0!); pyxlsb prints them as hex(code), e.g. "0x7".
// Following pyxlsb, a bool byte other than 1 reads as false, and an inline
// rich-text cell (BrtCellRString, which Excel rarely writes; it uses the
// shared string table instead) reads as Empty because pyxlsb ignores that
// record.
//
// # Limits
//
// Every length read from the file is checked before use; corrupt input is
// an error naming the file, the part and the record's byte offset. Parts
// that inflate past MaxPartSize or MaxRatio, dimensions past Excel's
// 1048576 x 16384, and grids past MaxCells are refused with an error
// wrapping ErrLimit.
package xlsb

import (
	"archive/zip"
	"fmt"
	"io"
	"strings"
)

// Kind is the type of a cell's value.
type Kind uint8

// The kinds of cell value.
const (
	// Empty is a position with no value (no cell record, or a blank one).
	Empty Kind = iota
	// Number is a numeric value in Num (dates included).
	Number
	// String is a text value in Str.
	String
	// Bool is a boolean value in Bool.
	Bool
	// Error is an error value whose code is in Err.
	Error
)

// String returns the kind's name, for test output and debugging.
func (k Kind) String() string {
	switch k {
	case Empty:
		return "Empty"
	case Number:
		return "Number"
	case String:
		return "String"
	case Bool:
		return "Bool"
	case Error:
		return "Error"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Cell is one cell's value. Only the field matching Kind is meaningful.
type Cell struct {
	Kind Kind
	Num  float64
	Str  string
	Bool bool
	// Err is the BErr code of an Error cell: 0x00 #NULL!, 0x07 #DIV/0!,
	// 0x0F #VALUE!, 0x17 #REF!, 0x1D #NAME?, 0x24 #NUM!, 0x2A #N/A,
	// 0x2B #GETTING_DATA.
	Err byte
	// NumFmt is the number format code of the cell's style ("General",
	// "0.00", "yyyy-mm-dd", ...), built-in format ids mapped to their
	// codes; "" for a position with no cell record.
	NumFmt string
}

// Sheet names one sheet of the workbook.
type Sheet struct {
	// Name is the sheet's tab name.
	Name string
	// Chart is set for a chartsheet, which has no cells.
	Chart bool
}

// Workbook is an open .xlsb file. Sheets, Rows and Dimension only read
// from it and may run concurrently; Close must come after them.
type Workbook struct {
	name   string // file name for error messages
	closer io.Closer
	pkg    *pkg
	wbPart string // the workbook part, usually xl/workbook.bin
	sheets []sheetEntry
	sst    []string // shared strings, by index
	fmts   []string // number format code, by cell format (iStyleRef)
}

type sheetEntry struct {
	Sheet
	part string // zip part name; "" when the relationship is missing
	rel  string // relationship id, for the error when part is ""
}

// OpenReader reads a .xlsb from r, which holds size bytes. r must stay
// readable until the last call on the Workbook; Close does not close it.
func OpenReader(r io.ReaderAt, size int64) (*Workbook, error) {
	return open("", r, size)
}

// Close releases the file opened by Open. It is safe to call more than once.
func (w *Workbook) Close() error {
	if w.closer == nil {
		return nil
	}
	c := w.closer
	w.closer = nil
	return c.Close()
}

// Sheets returns the workbook's sheets in workbook order, chartsheets
// included.
func (w *Workbook) Sheets() []Sheet {
	out := make([]Sheet, len(w.sheets))
	for i, s := range w.sheets {
		out[i] = s.Sheet
	}
	return out
}

// Rows returns the cells of the named sheet as a dense grid anchored at A1;
// the package documentation describes the layout. A chartsheet gives no
// rows and no error.
func (w *Workbook) Rows(name string) ([][]Cell, error) {
	e, err := w.sheet(name)
	if err != nil || e.Chart {
		return nil, err
	}
	data, err := w.pkg.read(e.part)
	if err != nil {
		return nil, w.wrap("", err)
	}
	sd, err := parseSheet(data, w.sst, w.fmts, false)
	if err != nil {
		return nil, w.wrap(e.part, err)
	}
	rows, err := sd.grid()
	if err != nil {
		return nil, w.wrap(e.part, err)
	}
	return rows, nil
}

// Dimension returns the used range the named sheet records (BrtWsDim) as
// the number of rows and columns counted from A1: its last row index + 1
// and last column index + 1. It is (0, 0) for a chartsheet or a sheet
// without the record.
func (w *Workbook) Dimension(name string) (rows, cols int, err error) {
	e, err := w.sheet(name)
	if err != nil || e.Chart {
		return 0, 0, err
	}
	data, err := w.pkg.read(e.part)
	if err != nil {
		return 0, 0, w.wrap("", err)
	}
	sd, err := parseSheet(data, w.sst, w.fmts, true)
	if err != nil {
		return 0, 0, w.wrap(e.part, err)
	}
	return sd.dimRows, sd.dimCols, nil
}

func (w *Workbook) sheet(name string) (sheetEntry, error) {
	for _, e := range w.sheets {
		if e.Name != name {
			continue
		}
		if e.part == "" && !e.Chart {
			return e, w.wrap(w.wbPart, fmt.Errorf("sheet %q: relationship %q not found", name, e.rel))
		}
		return e, nil
	}
	return sheetEntry{}, w.wrap("", fmt.Errorf("no sheet named %q", name))
}

// wrap prefixes err with the package, the file name (when known) and the
// part (when given).
func (w *Workbook) wrap(part string, err error) error {
	var b strings.Builder
	b.WriteString("xlsb: ")
	if w.name != "" {
		b.WriteString(w.name)
		b.WriteString(": ")
	}
	if part != "" {
		b.WriteString("part ")
		b.WriteString(part)
		b.WriteString(": ")
	}
	return fmt.Errorf("%s%w", b.String(), err)
}

// Well-known part names, used when the package relationships do not name
// the parts (pyxlsb uses these names unconditionally).
const (
	defaultWorkbookPart = "xl/workbook.bin"
	defaultSSTPart      = "xl/sharedStrings.bin"
	defaultStylesPart   = "xl/styles.bin"
)

// readPart parses an optional part: the one a relationship named, else the
// default name if present. A workbook without it gets the zero value
// (no shared strings, every cell "General").
func readPart[T any](w *Workbook, part, fallback string, parse func([]byte) (T, error)) (T, error) {
	var zero T
	if part == "" && w.pkg.has(fallback) {
		part = fallback
	}
	if part == "" {
		return zero, nil
	}
	data, err := w.pkg.read(part)
	if err != nil {
		return zero, w.wrap("", err)
	}
	v, err := parse(data)
	if err != nil {
		return zero, w.wrap(part, err)
	}
	return v, nil
}

func open(name string, r io.ReaderAt, size int64) (*Workbook, error) {
	w := &Workbook{name: name}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, w.wrap("", fmt.Errorf("not a zip package: %w", err))
	}
	w.pkg = newPkg(zr)

	wbPart := defaultWorkbookPart
	rootRels, err := w.pkg.relsOf("")
	if err != nil {
		return nil, w.wrap("", err)
	}
	for _, r := range rootRels {
		if relType(r.typ, "officeDocument") && !r.external {
			wbPart = r.target
			break
		}
	}
	if !w.pkg.has(wbPart) {
		return nil, w.wrap("", fmt.Errorf("no workbook part %s: not an .xlsb workbook", wbPart))
	}
	if !strings.HasSuffix(strings.ToLower(wbPart), ".bin") {
		return nil, w.wrap("", fmt.Errorf("workbook part %s is not binary: not an .xlsb workbook", wbPart))
	}
	w.wbPart = wbPart
	wbData, err := w.pkg.read(wbPart)
	if err != nil {
		return nil, w.wrap("", err)
	}
	bundles, err := parseWorkbook(wbData)
	if err != nil {
		return nil, w.wrap(wbPart, err)
	}
	rels, err := w.pkg.relsOf(wbPart)
	if err != nil {
		return nil, w.wrap("", err)
	}
	byID := make(map[string]rel, len(rels))
	var sstPart, stylesPart string
	for _, r := range rels {
		if r.external {
			continue
		}
		byID[r.id] = r
		switch {
		case relType(r.typ, "sharedStrings"):
			sstPart = r.target
		case relType(r.typ, "styles"):
			stylesPart = r.target
		}
	}
	for _, b := range bundles {
		e := sheetEntry{Sheet: Sheet{Name: b.name}, rel: b.relID}
		if r, ok := byID[b.relID]; ok {
			e.part = r.target
			e.Chart = relType(r.typ, "chartsheet") || strings.Contains(strings.ToLower(r.target), "chartsheets/")
		}
		w.sheets = append(w.sheets, e)
	}

	if w.sst, err = readPart(w, sstPart, defaultSSTPart, parseSST); err != nil {
		return nil, err
	}
	if w.fmts, err = readPart(w, stylesPart, defaultStylesPart, parseStyles); err != nil {
		return nil, err
	}
	return w, nil
}

// bundle is one BrtBundleSh: a sheet's name and relationship id.
type bundle struct {
	name, relID string
}

// parseWorkbook reads the sheet list of xl/workbook.bin.
func parseWorkbook(data []byte) ([]bundle, error) {
	var out []bundle
	rr := recordReader{buf: data}
	for {
		rec, ok, err := rr.next()
		if err != nil {
			return nil, err
		}
		if !ok || rec.typ == brtEndBundleShs {
			break
		}
		if rec.typ != brtBundleSh {
			continue
		}
		// BrtBundleSh: hsState (4), iTabID (4), strRelID
		// (XLNullableWideString), strName (XLWideString).
		p := payload{b: rec.data}
		p.u32("BrtBundleSh hsState")
		p.u32("BrtBundleSh iTabID")
		relID, _ := p.nullableWideString("BrtBundleSh strRelID")
		name := p.wideString("BrtBundleSh strName")
		if p.err != nil {
			return nil, fmt.Errorf("record %d at offset %d: %w", rec.typ, rec.off, p.err)
		}
		out = append(out, bundle{name: name, relID: relID})
	}
	return out, nil
}

// parseSST reads the shared string table: one BrtSSTItem per string, whose
// RichStr payload is a flags byte then the XLWideString (formatting runs
// and phonetic text after it are not needed for values).
func parseSST(data []byte) ([]string, error) {
	var out []string
	rr := recordReader{buf: data}
	for {
		rec, ok, err := rr.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return out, nil
		}
		if rec.typ != brtSSTItem {
			continue
		}
		p := payload{b: rec.data}
		p.u8("BrtSSTItem flags")
		s := p.wideString("BrtSSTItem string")
		if p.err != nil {
			return nil, fmt.Errorf("record %d (string %d) at offset %d: %w", rec.typ, len(out), rec.off, p.err)
		}
		out = append(out, s)
	}
}
