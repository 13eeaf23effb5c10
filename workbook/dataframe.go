package workbook

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"
)

// This file opens the DataFrame printer to other readers (package table):
// a Frame is built column by column with the dtypes pandas would hold, or
// from text cells as pandas' read_csv infers them, and printed with the
// same to_string(index=False) code as a workbook sheet.

// A Frame is a DataFrame to print. The zero value has no columns.
type Frame struct {
	fr  frame
	err error
}

// A Value is one element of an object column, as the Python object pandas
// holds there.
type Value struct{ v value }

// None is Python's None (pyarrow's null in an object column); it prints
// "None".
func None() Value { return Value{value{k: kNone}} }

// Str is a Python str.
func Str(s string) Value { return Value{strVal(s)} }

// Int is a Python (or numpy) int.
func Int(i int64) Value { return Value{intVal(i)} }

// Float is a Python (or numpy float64) float; NaN prints "NaN" in a column.
func Float(f float64) Value { return Value{floatVal(f)} }

// Bool is a Python bool.
func Bool(b bool) Value { return Value{boolVal(b)} }

// Date is a datetime.date.
func Date(y int, m time.Month, d int) Value {
	return Value{value{k: kDate, i: daysFromCivil(y, int(m), d) * usPerDay}}
}

// Text is a value whose str() is s, for objects this package does not
// model (a timestamp with a zone, an array already printed).
func Text(s string) Value { return Value{value{k: kText, s: s}} }

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

// String is str(v) in Python; a float is repr(float).
func (v Value) String() string { return v.v.pyStr() }

func (f *Frame) add(name string, n int, c column) {
	if f.err != nil {
		return
	}
	if len(f.fr.cols) > 0 && n != f.fr.nrows {
		f.err = fmt.Errorf("workbook: column %q has %d rows, the frame %d", name, n, f.fr.nrows)
		return
	}
	f.fr.nrows = n
	f.fr.labels = append(f.fr.labels, strVal(name))
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
	objs := make([]value, len(t))
	for i, x := range t {
		if nat != nil && nat[i] {
			objs[i] = value{k: kText, s: "NaT"}
			continue
		}
		objs[i] = value{k: kText, s: TimestampString(x, true)}
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
	objs := make([]value, len(v))
	for i, x := range v {
		objs[i] = x.v
	}
	f.add(name, len(v), column{dt: dtObject, objs: objs})
}

// TextFrame is the DataFrame pandas' read_csv builds from a header and
// rows of text cells with its defaults: "" and the other default NA
// strings are NaN, numbers and True/False columns are typed, duplicate
// names are mangled ("x", "x.1") and empty names are "Unnamed: N". Rows
// may be shorter than the header (NaN-padded); the caller refuses longer
// ones, as read_csv does.
func TextFrame(header []string, rows [][]string) Frame {
	vals := make([][]value, 0, len(rows)+1)
	conv := func(r []string) []value {
		out := make([]value, len(r))
		for j, s := range r {
			out[j] = strVal(s)
		}
		return out
	}
	vals = append(vals, conv(header))
	for _, r := range rows {
		vals = append(vals, conv(r))
	}
	fr, ok := buildFrame(vals)
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
	if f.err != nil {
		return 0, f.err
	}
	cw := &countWriter{w: w}
	b := bufio.NewWriterSize(cw, 64<<10)
	if len(f.fr.cols) == 0 {
		b.WriteString("Empty DataFrame\nColumns: []\nIndex: []")
	} else {
		writeFrame(b, f.fr)
		f.fr = frame{} // writeFrame consumed the columns
		f.err = fmt.Errorf("workbook: frame already written")
	}
	err := b.Flush()
	return cw.n, err
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
