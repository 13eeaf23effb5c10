package workbook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/evalmd/evalmd/internal/pandastext"
)

// This file reads a worksheet's rows as openpyxl's read-only reader hands
// them to pandas: cells placed by their references, typed by t and the
// cell format, and each row trimmed of trailing empty cells.

// splitRef parses an A1 reference into its 1-based row and column.
func splitRef(ref string) (row, col int, ok bool) {
	i := 0
	for i < len(ref) && ref[i] >= 'A' && ref[i] <= 'Z' || i < len(ref) && ref[i] >= 'a' && ref[i] <= 'z' {
		c := ref[i]
		if c >= 'a' {
			c -= 'a' - 'A'
		}
		col = col*26 + int(c-'A') + 1
		i++
		if i > 3 {
			return 0, 0, false
		}
	}
	if i == 0 {
		return 0, 0, false
	}
	i2 := i
	for i2 < len(ref) && ref[i2] == '$' {
		i2++
	}
	r, err := strconv.Atoi(ref[i2:])
	if err != nil || r < 1 {
		return 0, 0, false
	}
	return r, col, true
}

// readSheet returns the sheet's rows as pandas' OpenpyxlReader
// get_sheet_data does: from row 1 and column 1, each row trimmed of
// trailing empty cells, trailing empty rows dropped.
func (b *xlsxBook) readSheet(ctx context.Context, sh xlsxSheet) ([][]pandastext.Value, error) {
	rc, err := b.open(sh.part)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	s := newXScan(rc)
	var rows [][]pandastext.Value
	lastData := -1
	counter := 1 // next row index openpyxl's reader will yield
	rowCounter := 0
	cells := 0
	var rowCells []placedCell
	for s.next() {
		if s.end || !s.is("row") {
			continue
		}
		if len(rows)%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if rowCounter, err = rowNumber(s, rowCounter); err != nil {
			return nil, fmt.Errorf("%s: sheet %q: %w", b.file, sh.name, err)
		}
		if rowCells, err = b.readRow(s, rowCells[:0]); err != nil {
			return nil, fmt.Errorf("%s: sheet %q row %d: %w", b.file, sh.name, rowCounter, err)
		}
		idx := rowCounter
		if idx < counter {
			continue // openpyxl drops a row that repeats or goes back
		}
		for counter < idx {
			rows = append(rows, nil)
			counter++
		}
		counter++
		row := trimmedRow(rowCells)
		if len(row) > 0 {
			cells += len(row)
			if int64(cells) > b.opts.MaxCells {
				return nil, fmt.Errorf("%s: sheet %q: more than %d cells: %w", b.file, sh.name, b.opts.MaxCells, ErrTooLarge)
			}
			lastData = len(rows)
		}
		rows = append(rows, row)
	}
	if err := s.Err(); err != nil {
		return nil, fmt.Errorf("%s: sheet %q (%s): %w", b.file, sh.name, sh.part, err)
	}
	rows = rows[:lastData+1]
	return rows, nil
}

// placedCell is a cell read and the column it goes in.
type placedCell struct {
	col int
	v   pandastext.Value
}

// rowNumber is the number of the <row> element just read: its r
// attribute, else the one after prev.
func rowNumber(s *xscan, prev int) (int, error) {
	n := prev + 1
	if v, ok := s.attr("r"); ok {
		var err error
		n, err = strconv.Atoi(v)
		if err != nil {
			f, ferr := strconv.ParseFloat(v, 64)
			if ferr != nil || f != math.Trunc(f) {
				return 0, fmt.Errorf("row number %q is not valid", v)
			}
			n = int(f)
		}
	}
	if n > 1<<21 {
		return 0, fmt.Errorf("row %d is past the sheet size limit: %w", n, ErrTooLarge)
	}
	return n, nil
}

// readRow appends the cells of the <row> element just read to cells.
func (b *xlsxBook) readRow(s *xscan, cells []placedCell) ([]placedCell, error) {
	if s.selfClose {
		return cells, nil
	}
	colCounter := 0
	for s.next() {
		if s.end {
			if s.is("row") {
				return cells, nil
			}
			continue
		}
		if !s.is("c") {
			if !s.skipElement() {
				break
			}
			continue
		}
		col, v, err := b.readCell(s, &colCounter)
		if err != nil {
			return nil, err
		}
		cells = append(cells, placedCell{col, v})
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	return nil, io.ErrUnexpectedEOF
}

// trimmedRow places a row's cells in their columns, trailing empty cells
// trimmed (sized by the last non-empty cell up to the last cell's column);
// nil for a row with none.
func trimmedRow(cells []placedCell) []pandastext.Value {
	if len(cells) == 0 {
		return nil
	}
	maxCol := cells[len(cells)-1].col
	width := 0
	for _, c := range cells {
		if c.col >= 1 && c.col <= maxCol && !c.v.IsEmpty() && c.col > width {
			width = c.col
		}
	}
	if width == 0 {
		return nil
	}
	row := make([]pandastext.Value, width)
	for _, c := range cells {
		if c.col >= 1 && c.col <= width {
			row[c.col-1] = c.v
		}
	}
	return row
}

// readCell parses one <c> element (the start tag just read) into the
// value openpyxl gives pandas.
func (b *xlsxBook) readCell(s *xscan, colCounter *int) (int, pandastext.Value, error) {
	ref, _ := s.attr("r")
	typ, _ := s.attr("t")
	style, _ := s.attr("s")
	if typ == "" {
		typ = "n"
	}
	col := 0
	if ref != "" {
		_, c, ok := splitRef(ref)
		if !ok {
			return 0, pandastext.Value{}, fmt.Errorf("cell reference %q is not valid", ref)
		}
		col = c
		*colCounter = c
	} else {
		*colCounter++
		col = *colCounter
	}
	body, err := readCellBody(s)
	if err != nil {
		return 0, pandastext.Value{}, err
	}
	if typ == "inlineStr" {
		if body.hasInline {
			return col, pandastext.Str(body.inline), nil
		}
		return col, pandastext.Value{}, nil
	}
	if body.text == "" {
		return col, pandastext.Value{}, nil // findtext(...) or None
	}
	v, err := b.cellValue(typ, body.text, style)
	if err != nil {
		return 0, pandastext.Value{}, fmt.Errorf("cell %s: %w", ref, err)
	}
	return col, v, nil
}

// cellBody is what a <c> element holds: its first <v>'s text and its
// first <is>'s (an inline string).
type cellBody struct {
	text      string
	inline    string
	hasInline bool
}

// readCellBody reads the children of the <c> element just read, up to
// its end tag.
func readCellBody(s *xscan) (cellBody, error) {
	var c cellBody
	if s.selfClose {
		return c, nil
	}
	hasV := false
	depth := 1
	for depth > 0 {
		if !s.next() {
			if err := s.Err(); err != nil {
				return c, err
			}
			return c, io.ErrUnexpectedEOF
		}
		if s.end {
			depth--
			continue
		}
		switch {
		case depth == 1 && s.is("v") && !hasV:
			hasV = true
			if !s.selfClose {
				t, err := s.text(nil)
				if err != nil {
					return c, err
				}
				c.text = string(t)
				depth++
			}
		case depth == 1 && s.is("is") && !c.hasInline:
			str, err := readRichText(s)
			if err != nil {
				return c, err
			}
			c.inline, c.hasInline = str, true
		case !s.selfClose:
			depth++
		}
	}
	return c, nil
}

// cellValue is the value of a cell of type typ whose <v> holds text (not
// empty), in cell format style.
func (b *xlsxBook) cellValue(typ, text, style string) (pandastext.Value, error) {
	switch typ {
	case "n":
		return b.numberCell(text, style)
	case "s":
		i, err := strconv.Atoi(strings.TrimSpace(text))
		if err != nil || i < 0 || i >= len(b.shared) {
			return pandastext.Value{}, fmt.Errorf("shared string index %q out of range", text)
		}
		return pandastext.Str(b.shared[i]), nil
	case "b":
		i, err := strconv.Atoi(strings.TrimSpace(text))
		if err != nil {
			return pandastext.Value{}, fmt.Errorf("boolean %q is not valid", text)
		}
		return pandastext.Bool(i != 0), nil
	case "e":
		return pandastext.Float(math.NaN()), nil
	case "str":
		return pandastext.Str(text), nil
	case "d":
		v, ok := parseISO(text)
		if !ok {
			return pandastext.Value{}, nil
		}
		return v, nil
	}
	// Unknown types keep the raw text, as openpyxl does.
	return pandastext.Str(text), nil
}

// numberCell is a number cell's value: a date when its cell format is
// one, a whole float as an int.
func (b *xlsxBook) numberCell(text, style string) (pandastext.Value, error) {
	f, i, isInt, err := castNumber(text)
	if err != nil {
		return pandastext.Value{}, err
	}
	sid := 0 // a cell without s uses cell format 0
	if style != "" {
		sid, _ = strconv.Atoi(style)
	}
	if b.dateXF[sid] {
		if isInt {
			f = float64(i)
		}
		// openpyxl 3.0.9's reader gives elapsed-time formats
		// ([h]:mm) datetimes too, not timedeltas.
		dv, ok := fromExcel(f, b.mac, false)
		if !ok {
			return pandastext.Float(math.NaN()), nil // openpyxl's "#VALUE!" error cell
		}
		return dv, nil
	}
	if isInt {
		return pandastext.Int(i), nil
	}
	// pandas' _convert_cell: a whole float is returned as int.
	if f == math.Trunc(f) && !math.IsInf(f, 0) {
		return pandastext.Whole(f), nil
	}
	return pandastext.Float(f), nil
}

// castNumber is openpyxl's _cast_number: float if the text has '.', 'e' or
// 'E', else int. isInt says whether the number is i or f.
func castNumber(s string) (f float64, i int64, isInt bool, err error) {
	if strings.ContainsAny(s, ".eE") {
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, 0, false, fmt.Errorf("number %q is not valid", s)
		}
		return f, 0, false, nil
	}
	t := strings.TrimSpace(s)
	i, err = strconv.ParseInt(strings.TrimPrefix(t, "+"), 10, 64)
	if err != nil {
		// Python ints are unbounded; past int64 keep the nearest float.
		f, ferr := strconv.ParseFloat(t, 64)
		if ferr != nil {
			return 0, 0, false, fmt.Errorf("number %q is not valid", s)
		}
		return f, 0, false, nil
	}
	return 0, i, true, nil
}

// parseISO is openpyxl's from_ISO8601 for t="d" cells: a date, a time or
// both, with up to millisecond fractions.
func parseISO(s string) (pandastext.Value, bool) {
	var y, mo, d, h, mi, sec, us int
	hasDate, hasTime := false, false
	p := s
	num := func(n int) (int, bool) {
		if len(p) < n {
			return 0, false
		}
		v, err := strconv.Atoi(p[:n])
		if err != nil {
			return 0, false
		}
		p = p[n:]
		return v, true
	}
	if len(p) >= 10 && p[4] == '-' && p[7] == '-' {
		var ok1, ok2, ok3 bool
		y, ok1 = num(4)
		p = p[1:]
		mo, ok2 = num(2)
		p = p[1:]
		d, ok3 = num(2)
		if !ok1 || !ok2 || !ok3 {
			return pandastext.Value{}, false
		}
		hasDate = true
	}
	p = strings.TrimPrefix(p, "T")
	if len(p) >= 5 && p[2] == ':' {
		var ok1, ok2 bool
		h, ok1 = num(2)
		p = p[1:]
		mi, ok2 = num(2)
		if !ok1 || !ok2 {
			return pandastext.Value{}, false
		}
		if len(p) >= 3 && p[0] == ':' {
			p = p[1:]
			var ok bool
			if sec, ok = num(2); !ok {
				return pandastext.Value{}, false
			}
			if len(p) > 1 && p[0] == '.' {
				p = p[1:]
				n := 0
				for n < len(p) && n < 3 && p[n] >= '0' && p[n] <= '9' {
					n++
				}
				f, _ := strconv.ParseFloat("0."+p[:n], 64)
				us = int(f * 1e6)
				p = p[n:]
			}
		}
		hasTime = true
	}
	if !hasDate && !hasTime {
		return pandastext.Value{}, false
	}
	tod := int64(h)*3600*usPerSec + int64(mi)*60*usPerSec + int64(sec)*usPerSec + int64(us)
	if !hasDate {
		return pandastext.Time(tod), true
	}
	if mo < 1 || mo > 12 || d < 1 || d > 31 || y < 1 {
		return pandastext.Value{}, false
	}
	if !hasTime {
		return pandastext.Date(y, time.Month(mo), d), true
	}
	return pandastext.DateTime(pandastext.Days(y, mo, d)*usPerDay + tod), true
}
