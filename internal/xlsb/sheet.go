package xlsb

import (
	"fmt"
)

// Excel's sheet size; a row, column or dimension past it is corrupt input.
const (
	maxRows = 1 << 20
	maxCols = 1 << 14
)

// placed is a cell with its position.
type placed struct {
	row, col int
	cell     Cell
}

// sheetData is what one worksheet part holds.
type sheetData struct {
	dimRows, dimCols int
	cells            []placed
	maxRow, maxCol   int // largest indexes holding a cell; -1 when none
}

// parseSheet reads a worksheet part. It reads records the way pyxlsb
// does: the dimension is the last BrtWsDim before the cell table, the cells
// are those between the first BrtBeginSheetData and BrtEndSheetData (or
// the whole part when it has no BrtBeginSheetData). With dimOnly it stops
// at the start of the cell table.
func parseSheet(data []byte, sst, fmts []string, dimOnly bool) (*sheetData, error) {
	sd := &sheetData{maxRow: -1, maxCol: -1}
	row := -1 // current row (from the last BrtRowHdr)
	inData := false
	rr := recordReader{buf: data}
	for {
		rec, ok, err := rr.next()
		if err != nil {
			return nil, err
		}
		if !ok || rec.typ == brtEndSheetData {
			return sd, nil
		}
		wrap := func(err error) error {
			return fmt.Errorf("record %d at offset %d: %w", rec.typ, rec.off, err)
		}
		switch {
		case rec.typ == brtWsDim:
			if inData {
				continue
			}
			p := payload{b: rec.data}
			p.u32("BrtWsDim rwFirst")
			rwLast := p.u32("BrtWsDim rwLast")
			p.u32("BrtWsDim colFirst")
			colLast := p.u32("BrtWsDim colLast")
			if p.err != nil {
				return nil, wrap(p.err)
			}
			if rwLast >= maxRows || colLast >= maxCols {
				return nil, wrap(fmt.Errorf("dimension to row %d, column %d is past Excel's %d x %d: %w", uint64(rwLast)+1, uint64(colLast)+1, maxRows, maxCols, ErrLimit))
			}
			sd.dimRows, sd.dimCols = int(rwLast)+1, int(colLast)+1
		case rec.typ == brtBeginSheetData:
			if dimOnly {
				return sd, nil
			}
			if !inData {
				// Nothing before the cell table is a cell.
				inData = true
				row, sd.cells, sd.maxRow, sd.maxCol = -1, sd.cells[:0], -1, -1
			}
		case rec.typ == brtRowHdr:
			p := payload{b: rec.data}
			r := p.u32("BrtRowHdr rw")
			if p.err != nil {
				return nil, wrap(p.err)
			}
			if r >= maxRows {
				return nil, wrap(fmt.Errorf("row %d is past Excel's %d rows", uint64(r)+1, maxRows))
			}
			row = int(r)
		case rec.typ >= brtCellBlank && rec.typ <= brtFmlaError:
			if dimOnly {
				continue
			}
			if row < 0 {
				return nil, wrap(fmt.Errorf("cell record before any row header (BrtRowHdr)"))
			}
			col, c, err := parseCell(rec, sst, fmts)
			if err != nil {
				return nil, wrap(err)
			}
			// Cell records are at least 10 bytes, so a part at
			// MaxPartSize could hold far more of them than a grid
			// can: bound the list before it outgrows memory.
			if len(sd.cells) >= MaxCells {
				return nil, wrap(fmt.Errorf("more than %d cell records: %w", MaxCells, ErrLimit))
			}
			sd.cells = append(sd.cells, placed{row: row, col: col, cell: c})
			sd.maxRow = max(sd.maxRow, row)
			sd.maxCol = max(sd.maxCol, col)
		}
	}
}

// parseCell reads one cell record. Every cell starts with the Cell
// structure: column (4 bytes), then iStyleRef (24 bits) and flags (8 bits).
func parseCell(rec record, sst, fmts []string) (int, Cell, error) {
	p := payload{b: rec.data}
	col := p.u32("cell column")
	style := p.u32("cell style") & 0xFFFFFF
	if p.err != nil {
		return 0, Cell{}, p.err
	}
	if col >= maxCols {
		return 0, Cell{}, fmt.Errorf("column %d is past Excel's %d columns", uint64(col)+1, maxCols)
	}
	c := Cell{NumFmt: general}
	if int(style) < len(fmts) {
		c.NumFmt = fmts[style]
	}
	switch rec.typ {
	case brtCellBlank:
		c.Kind = Empty
	case brtCellRk:
		c.Kind, c.Num = Number, rkNumber(p.u32("BrtCellRk value"))
	case brtCellReal, brtFmlaNum:
		c.Kind, c.Num = Number, p.f64("Xnum value")
	case brtCellError, brtFmlaError:
		c.Kind, c.Err = Error, p.u8("error code")
	case brtCellBool, brtFmlaBool:
		// pyxlsb compares the byte with 1; the spec allows only 0 and 1.
		c.Kind, c.Bool = Bool, p.u8("bool value") == 1
	case brtCellSt, brtFmlaString:
		c.Kind, c.Str = String, p.wideString("string value")
	case brtCellIsst:
		i := p.u32("shared string index")
		if p.err != nil {
			break
		}
		if uint64(i) >= uint64(len(sst)) {
			return 0, Cell{}, fmt.Errorf("shared string index %d past the table's %d strings", i, len(sst))
		}
		c.Kind, c.Str = String, sst[i]
	}
	// Formula records carry flags and the formula after the value; only
	// the cached value is needed, so the rest is not read.
	if p.err != nil {
		return 0, Cell{}, p.err
	}
	return int(col), c, nil
}

// grid lays the cells out as the package documentation describes.
func (sd *sheetData) grid() ([][]Cell, error) {
	if sd.maxRow < 0 {
		return nil, nil
	}
	nr, nc := sd.maxRow+1, sd.maxCol+1
	if nr*nc > MaxCells {
		return nil, fmt.Errorf("cells span %d rows x %d columns, more than %d cells: %w", nr, nc, MaxCells, ErrLimit)
	}
	// One backing array keeps the grid to a single allocation.
	all := make([]Cell, nr*nc)
	rows := make([][]Cell, nr)
	for r := range rows {
		rows[r] = all[r*nc : (r+1)*nc : (r+1)*nc]
	}
	for _, p := range sd.cells {
		rows[p.row][p.col] = p.cell
	}
	return rows, nil
}
