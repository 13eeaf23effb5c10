package pandastext

import (
	"bytes"
	"math"
	"strings"

	"github.com/evalmd/evalmd/internal/py"
)

// writeCSV writes to_csv(index=False) of fr: Python's csv writer with
// QUOTE_MINIMAL and "\n" line ends (a field is quoted when it holds a
// comma, a double quote or "\n"; a row of one empty field is written
// ""), missing values as empty fields, floats as repr, datetimes as
// to_string prints them.
func writeCSV(b *bytes.Buffer, fr frame) {
	labels := make([]string, len(fr.labels))
	for j, l := range fr.labels {
		if l.k != kFloat || !math.IsNaN(l.flt()) { // a NaN label is written empty
			labels[j] = l.String()
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
			out[i] = v.String()
		}
	}
	return out
}
