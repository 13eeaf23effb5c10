package workbook

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/evalmd/evalmd/internal/pandastext"
	"github.com/evalmd/evalmd/internal/xlsb"
)

// xlsbBook adapts package xlsb to what pandas' PyxlsbReader hands the
// parser: chartsheets listed, dates left as serial numbers, whole floats as
// ints, error cells as Python's hex() of the error code ("0x7").
type xlsbBook struct {
	file   string
	wb     *xlsb.Workbook
	sheets []xlsb.Sheet
	opts   Options
}

func openXLSB(name string, r io.ReaderAt, size int64, opts Options) (source, error) {
	wb, err := xlsb.OpenReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &xlsbBook{file: name, wb: wb, sheets: wb.Sheets(), opts: opts}, nil
}

func (b *xlsbBook) sheetNames() []string {
	names := make([]string, len(b.sheets))
	for i, s := range b.sheets {
		names[i] = s.Name
	}
	return names
}

func (b *xlsbBook) rows(ctx context.Context, name string) ([][]pandastext.Value, error) {
	for _, s := range b.sheets {
		if s.Name == name && s.Chart {
			return nil, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	grid, err := b.wb.Rows(name)
	if err != nil {
		return nil, fmt.Errorf("%s: sheet %q: %w", b.file, name, err)
	}
	rows := make([][]pandastext.Value, len(grid))
	last := -1
	for i, r := range grid {
		width := 0
		for j, c := range r {
			if !xlsbEmpty(c) {
				width = j + 1
			}
		}
		if width == 0 {
			continue
		}
		row := make([]pandastext.Value, width)
		for j := 0; j < width; j++ {
			row[j] = xlsbValue(r[j])
		}
		rows[i] = row
		last = i
	}
	return rows[:last+1], nil
}

func xlsbEmpty(c xlsb.Cell) bool {
	return c.Kind == xlsb.Empty || (c.Kind == xlsb.String && c.Str == "")
}

// xlsbValue is pandas' PyxlsbReader._convert_cell of the value pyxlsb gives.
func xlsbValue(c xlsb.Cell) pandastext.Value {
	switch c.Kind {
	case xlsb.Number:
		f := c.Num
		if !math.IsInf(f, 0) && !math.IsNaN(f) && f == math.Trunc(f) {
			return pandastext.Whole(f)
		}
		return pandastext.Float(f)
	case xlsb.String:
		return pandastext.Str(c.Str)
	case xlsb.Bool:
		return pandastext.Bool(c.Bool)
	case xlsb.Error:
		return pandastext.Str(fmt.Sprintf("0x%x", c.Err))
	}
	return pandastext.Value{}
}

func (b *xlsbBook) close() error { return b.wb.Close() }
