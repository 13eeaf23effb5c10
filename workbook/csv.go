package workbook

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/evalmd/evalmd/internal/py"
	"github.com/evalmd/evalmd/internal/readfile"
)

// CSV calls fn with each sheet of the workbook at path, in the order
// pandas lists them, and the sheet as CSV: DataFrame.to_csv(index=False)
// of pandas 1.5.3 applied to the frame pd.read_excel builds (the frame
// whose to_string Render prints), so pd.read_csv of the text gives that
// frame back as closely as CSV can. It lets code read a workbook pandas
// cannot open itself (.xlsb without pyxlsb). fn gets one sheet at a time;
// its error stops the walk.
func CSV(ctx context.Context, path string, opts Options, fn func(sheet string, csv []byte) error) error {
	opts = opts.withDefaults()
	f, err := readfile.Open(path)
	if err != nil {
		return fmt.Errorf("workbook: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("workbook: %w", err)
	}
	src, err := openSource(path, f, st.Size(), opts)
	if err != nil {
		return err
	}
	defer src.close()
	for _, sheet := range src.sheetNames() {
		if err := ctx.Err(); err != nil {
			return err
		}
		rows, err := src.rows(ctx, sheet)
		if err != nil {
			return err
		}
		width := 0
		for _, r := range rows {
			width = max(width, len(r))
		}
		if int64(width)*int64(len(rows)) > opts.MaxCells {
			return fmt.Errorf("%s: sheet %q: %d rows x %d columns is more than %d cells: %w", path, sheet, len(rows), width, opts.MaxCells, ErrTooLarge)
		}
		var b bytes.Buffer
		if fr, ok := buildFrame(rows); ok {
			writeCSV(&b, fr)
		} else {
			b.WriteByte('\n') // DataFrame().to_csv(index=False)
		}
		if err := fn(sheet, b.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// writeCSV writes to_csv(index=False) of fr: Python's csv writer with
// QUOTE_MINIMAL and "\n" line ends (a field is quoted when it holds a
// comma, a double quote or "\n"; a row of one empty field is written
// ""), missing values as empty fields, floats as repr, datetimes as
// to_string prints them.
func writeCSV(b *bytes.Buffer, fr frame) {
	labels := make([]string, len(fr.labels))
	for j, l := range fr.labels {
		if l.k != kFloat || !math.IsNaN(l.flt()) { // a NaN label is written empty
			labels[j] = l.pyStr()
		}
	}
	writeCSVRow(b, labels)
	cols := make([][]string, len(fr.cols))
	for j, c := range fr.cols {
		cols[j] = csvColumn(c)
	}
	row := make([]string, len(cols))
	for i := 0; i < fr.nrows; i++ {
		for j := range cols {
			row[j] = cols[j][i]
		}
		writeCSVRow(b, row)
	}
}

func writeCSVRow(b *bytes.Buffer, fields []string) {
	if len(fields) == 1 && fields[0] == "" {
		b.WriteString("\"\"\n")
		return
	}
	for j, f := range fields {
		if j > 0 {
			b.WriteByte(',')
		}
		if strings.ContainsAny(f, ",\"\n") {
			b.WriteByte('"')
			b.WriteString(strings.ReplaceAll(f, `"`, `""`))
			b.WriteByte('"')
		} else {
			b.WriteString(f)
		}
	}
	b.WriteByte('\n')
}

// csvColumn is one column's fields as to_csv writes them.
func csvColumn(c column) []string {
	switch c.dt {
	case dtInt64, dtBool:
		return formatColumn(c) // to_csv writes these as the frame's text does
	case dtFloat64:
		out := make([]string, len(c.floats))
		for i, v := range c.floats {
			if !math.IsNaN(v) {
				out[i] = py.Repr(v)
			}
		}
		return out
	case dtDatetime, dtTimedelta:
		out := formatColumn(c) // as the frame's text, but a NaT is an empty field
		for i := range out {
			if c.nat[i] {
				out[i] = ""
			}
		}
		return out
	}
	out := make([]string, len(c.objs))
	for i, v := range c.objs {
		switch {
		case v.k == kEmpty || v.k == kNone || v.k == kFloat && math.IsNaN(v.flt()):
		default:
			out[i] = v.pyStr()
		}
	}
	return out
}
