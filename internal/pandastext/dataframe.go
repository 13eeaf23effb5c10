package pandastext

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// This file is the Frame other packages build and print: from a sheet's
// cells (FromRows), from text cells as pandas' read_csv infers them
// (TextFrame), or column by column with the dtypes pandas would hold,
// printed with the same to_string(index=False) code for all of them.

// A Frame is a DataFrame to print. The zero value has no columns.
type Frame struct {
	fr  frame
	err error
}

// List is a numpy array (or Python list) of elems as pandas prints an
// element of an object column: "[e1, e2]", each element by str(), at most
// 100 shown (display.max_seq_items) followed by ", ...".
func List(elems []Value) Value {
	var b strings.Builder
	b.WriteByte('[')
	for i, e := range elems {
		if i == 100 {
			b.WriteString(", ...")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e.String())
	}
	b.WriteByte(']')
	return Text(b.String())
}

func (f *Frame) add(name string, n int, c column) {
	if f.err != nil {
		return
	}
	if len(f.fr.cols) > 0 && n != f.fr.nrows {
		f.err = fmt.Errorf("pandastext: column %q has %d rows, the frame %d", name, n, f.fr.nrows)
		return
	}
	f.fr.nrows = n
	f.fr.labels = append(f.fr.labels, Str(name))
	f.fr.cols = append(f.fr.cols, c)
}

// AddInt64 adds an int64 (or any other integer dtype) column.
func (f *Frame) AddInt64(name string, v []int64) {
	f.add(name, len(v), column{dt: dtInt64, ints: v})
}

// AddFloat64 adds a float64 (or float32) column; NaN is pandas' missing
// value.
func (f *Frame) AddFloat64(name string, v []float64) {
	f.add(name, len(v), column{dt: dtFloat64, floats: v})
}

// AddBool adds a bool column.
func (f *Frame) AddBool(name string, v []bool) {
	ints := make([]int64, len(v))
	for i, b := range v {
		if b {
			ints[i] = 1
		}
	}
	f.add(name, len(v), column{dt: dtBool, ints: ints})
}

// usFromTime is t's wall clock in microseconds since 0001-01-01.
func usFromTime(t time.Time) int64 {
	y, m, d := t.Date()
	h, mi, s := t.Clock()
	return daysFromCivil(y, int(m), d)*usPerDay + int64((h*60+mi)*60+s)*usPerSec + int64(t.Nanosecond()/1000)
}

// AddDatetime adds a datetime64[ns] column (no zone): each time's wall
// clock, to the microsecond; nat marks NaT (nil: none).
func (f *Frame) AddDatetime(name string, t []time.Time, nat []bool) {
	c := column{dt: dtDatetime, ints: make([]int64, len(t)), nat: make([]bool, len(t))}
	for i, x := range t {
		if nat != nil && nat[i] {
			c.nat[i] = true
			continue
		}
		c.ints[i] = usFromTime(x)
	}
	f.add(name, len(t), c)
}

// AddDatetimeTZ adds a datetime64[ns, tz] column: each time in its own
// location, printed as str(pd.Timestamp) ("2020-01-01 00:00:00+00:00",
// with .ffffff or .fffffffff when there is a fraction); nat marks NaT.
func (f *Frame) AddDatetimeTZ(name string, t []time.Time, nat []bool) {
	objs := make([]Value, len(t))
	for i, x := range t {
		if nat != nil && nat[i] {
			objs[i] = Value{k: kText, s: "NaT"}
			continue
		}
		objs[i] = Value{k: kText, s: TimestampString(x, true)}
	}
	f.add(name, len(t), column{dt: dtObject, objs: objs})
}

// TimestampString is str(pd.Timestamp) of t: "YYYY-MM-DD HH:MM:SS", then
// ".ffffff" when there are microseconds or ".fffffffff" when there are
// nanoseconds, then the UTC offset "+HH:MM" when zoned.
func TimestampString(t time.Time, zoned bool) string {
	s := pyDateTime(usFromTime(t) - int64(t.Nanosecond()/1000))
	if ns := t.Nanosecond(); ns%1000 != 0 {
		s += "." + pad(ns, 9)
	} else if ns != 0 {
		s += "." + pad(ns/1000, 6)
	}
	if !zoned {
		return s
	}
	_, off := t.Zone()
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	s += sign + pad(off/3600, 2) + ":" + pad(off/60%60, 2)
	if off%60 != 0 {
		s += ":" + pad(off%60, 2)
	}
	return s
}

// AddObject adds an object column.
func (f *Frame) AddObject(name string, v []Value) {
	objs := make([]Value, len(v))
	copy(objs, v)
	f.add(name, len(v), column{dt: dtObject, objs: objs})
}

// TextFrame is the DataFrame pandas' read_csv builds from a header and
// rows of text cells with its defaults: "" and the other default NA
// strings are NaN, numbers and True/False columns are typed, duplicate
// names are mangled ("x", "x.1") and empty names are "Unnamed: N". Rows
// may be shorter than the header (NaN-padded); the caller refuses longer
// ones, as read_csv does.
func TextFrame(header []string, rows [][]string) Frame {
	vals := make([][]Value, 0, len(rows)+1)
	conv := func(r []string) []Value {
		out := make([]Value, len(r))
		for j, s := range r {
			out[j] = Str(s)
		}
		return out
	}
	vals = append(vals, conv(header))
	for _, r := range rows {
		vals = append(vals, conv(r))
	}
	return FromRows(vals)
}

// FromRows is the DataFrame read_excel builds from a sheet's rows as its
// engine's get_sheet_data returns them (each row trimmed of trailing empty
// cells, trailing empty rows dropped), the first row naming the columns;
// see buildFrame. No rows at all give pandas' bare DataFrame(), which has
// no columns.
func FromRows(rows [][]Value) Frame {
	fr, ok := buildFrame(rows)
	if !ok {
		return Frame{}
	}
	return Frame{fr: fr}
}

// Head keeps the first n rows (all when n < 0 or n >= Len), keeping each
// column's dtype: pandas' df.head(n) of a column typed by all its rows.
func (f *Frame) Head(n int) {
	if n < 0 || n >= f.fr.nrows {
		return
	}
	for i := range f.fr.cols {
		c := &f.fr.cols[i]
		if c.ints != nil {
			c.ints = c.ints[:n]
		}
		if c.floats != nil {
			c.floats = c.floats[:n]
		}
		if c.objs != nil {
			c.objs = c.objs[:n]
		}
		if c.nat != nil {
			c.nat = c.nat[:n]
		}
	}
	f.fr.nrows = n
}

// WriteTo writes DataFrame.to_string(index=False) of f to w.
func (f *Frame) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	b := bufio.NewWriterSize(cw, 64<<10)
	if err := f.Print(b); err != nil {
		return 0, err
	}
	err := b.Flush()
	return cw.n, err
}

// errWritten is the error of a frame printed already: printing consumes
// its columns.
var errWritten = errors.New("pandastext: frame already written")

// Print writes DataFrame.to_string(index=False) of f to b, for a caller
// that buffers more than one frame's text in one writer: an error writing
// stays in b, whose Flush reports it. The error returned is the frame's
// own (a column of the wrong length, a frame already written).
func (f *Frame) Print(b *bufio.Writer) error {
	if f.err != nil {
		return f.err
	}
	if len(f.fr.cols) == 0 {
		b.WriteString("Empty DataFrame\nColumns: []\nIndex: []")
		return nil
	}
	writeFrame(b, f.fr)
	f.fr = frame{} // writeFrame consumed the columns
	f.err = errWritten
	return nil
}

// CSV is DataFrame.to_csv(index=False) of f (see writeCSV); a frame
// without columns gives "\n", as DataFrame().to_csv(index=False) does.
func (f *Frame) CSV() ([]byte, error) {
	if f.err != nil {
		return nil, f.err
	}
	var b bytes.Buffer
	writeCSV(&b, f.fr)
	return b.Bytes(), nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
