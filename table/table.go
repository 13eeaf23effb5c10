// Package table reads the data tables of benchmark questions (.csv, .tsv,
// .parquet, JSON Lines) and renders them as a model sees them: pandas'
// DataFrame.to_string(index=False) (DSBench's rendering, printed by package
// pandastext), CSV or a markdown table, optionally only the first N rows.
//
// A parquet table is typed the way pyarrow's Table.to_pandas() (pandas
// 1.5.3, the pandas DataBench's baseline used) types it, because that is
// the DataFrame the model's code runs on:
//
//	int8..int64, uint8..uint64  same numpy dtype; float64 with NaN if the column has a null
//	float, double               float32, float64; null is NaN
//	boolean                     bool; object of True/False/None if the column has a null
//	string (UTF8, ENUM, JSON)   object of str; null is None
//	timestamp, no zone          datetime64[ns]; null is NaT
//	timestamp, UTC-adjusted     datetime64[ns, tz], tz from pandas' metadata, else UTC
//	date                        object of datetime.date; null is None
//	list<T>                     object of numpy arrays (T by the rules above, over all
//	                            elements of the column); null is None
//
// Debian 12 has no pyarrow, so Python cannot read parquet there:
// WriteHandover writes a table as JSON that LoaderPy (a small Python module)
// turns into exactly that DataFrame with pandas 1.5.3 and numpy alone.
//
// Text tables are kept as text: their pandas rendering applies read_csv's
// inference (numbers, True/False, NA strings) through package pandastext.
//
// Read gives a Table, a Column per column, each of a Type (String, Int,
// Float, Bool, Timestamp, Date, List); Render prints it in a Format
// (Pandas, CSV, Markdown). A table past Options.MaxValues fails with ErrTooLarge, a file
// or column type this package does not read with ErrUnsupported.
// WriteHandoverDir returns a Handover for each table it hands to Python.
package table

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/evalmd/evalmd/internal/pandastext"
	"github.com/evalmd/evalmd/internal/readfile"
)

// Type is a column's type, as pyarrow names it.
type Type uint8

// Column types.
const (
	String    Type = iota // str (text tables hold every column as String)
	Int                   // a signed or unsigned integer of Bits bits
	Float                 // float32 (Bits 32) or float64
	Bool                  // bool
	Timestamp             // a point in time; Zone names its zone, "" for none
	Date                  // a calendar date
	List                  // a list of Elem
)

func (t Type) String() string {
	return [...]string{"string", "int", "float", "bool", "timestamp", "date", "list"}[t]
}

// A Column is one column of a table. Exactly one value slice is used, by
// Type: Ints (Int, Bool as 0/1, Timestamp as nanoseconds since the Unix
// epoch, Date as days since the epoch), Uints (uint64 Int), Floats,
// Strs, or Offsets into Elem (List: row i holds Elem's values
// Offsets[i]..Offsets[i+1]). Null marks missing values (nil: none).
type Column struct {
	Name     string
	Type     Type
	Bits     int    // Int, Float: width in bits
	Unsigned bool   // Int: unsigned
	Zone     string // Timestamp: the zone's IANA name or "+HH:MM"; "" is a naive timestamp
	Ints     []int64
	Uints    []uint64
	Floats   []float64
	Strs     []string
	Offsets  []int
	Elem     *Column
	Null     []bool
}

// Len is the number of values in c.
func (c *Column) Len() int {
	switch {
	case c.Type == List:
		if len(c.Offsets) == 0 {
			return 0
		}
		return len(c.Offsets) - 1
	case c.Type == String:
		return len(c.Strs)
	case c.Type == Float:
		return len(c.Floats)
	case c.isUint64():
		return len(c.Uints)
	}
	return len(c.Ints)
}

// isUint64 says the values are in Uints.
func (c *Column) isUint64() bool { return c.Type == Int && c.Unsigned && c.Bits == 64 }

// isNull says whether row i is missing.
func (c *Column) isNull(i int) bool { return c.Null != nil && c.Null[i] }

// hasNull says whether any value is missing.
func (c *Column) hasNull() bool {
	for _, n := range c.Null {
		if n {
			return true
		}
	}
	return false
}

// A Table is a read table: named columns of equal length.
type Table struct {
	// Name is the file the table came from, for errors.
	Name    string
	Columns []*Column
	// Rows is the number of rows.
	Rows int
	// Text says the table came from a text file (CSV, TSV): every column
	// is String, and pandas' rendering infers types as read_csv does.
	Text bool
	// Index is the pandas index pyarrow restores from the file's pandas
	// metadata (a column named like "__index_level_0__"), or nil for a
	// RangeIndex.
	Index *Column
	// IndexName is the pandas name of Index ("" for None).
	IndexName string
	// Range is the RangeIndex pandas' metadata records (start, stop,
	// step), when it is not the default 0..Rows.
	Range *[3]int64
	// nullCols records, for a table cut by Head, the columns whose full
	// version had a null, which decides their pandas dtype.
	nullCols map[*Column]bool
	// whole is, for a text table cut by Head, the whole table: read_csv
	// types a column by all its rows.
	whole *Table
}

// Options bound the work on untrusted files. The zero value allows 50
// million values.
type Options struct {
	// MaxValues bounds the values read (cells, list elements included);
	// past it Read fails with ErrTooLarge.
	MaxValues int64
}

func (o Options) maxValues() int64 {
	if o.MaxValues <= 0 {
		return 50_000_000
	}
	return o.MaxValues
}

// ErrTooLarge is wrapped by errors for tables past Options.MaxValues.
var ErrTooLarge = errors.New("table too large")

// ErrUnsupported is wrapped by errors for files or column types this
// package does not read.
var ErrUnsupported = errors.New("unsupported table")

// Read reads the table at path, by its extension: .csv, .tsv, .parquet,
// .jsonl or .json (JSON Lines).
func Read(ctx context.Context, path string, opt Options) (*Table, error) {
	f, err := readfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("table: %w", err)
	}
	defer f.Close()
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		return readCSV(ctx, f, path, ',', opt)
	case ".tsv":
		return readCSV(ctx, f, path, '\t', opt)
	case ".jsonl", ".json":
		return readJSONLines(ctx, f, path, opt)
	case ".parquet":
		st, err := f.Stat()
		if err != nil {
			return nil, fmt.Errorf("table: %w", err)
		}
		return readParquet(ctx, f, st.Size(), path, opt)
	}
	return nil, fmt.Errorf("table %s: not .csv, .tsv, .parquet, .jsonl or .json: %w", path, ErrUnsupported)
}

// Head returns the first n rows of t (all of them when n < 0 or n >=
// t.Rows). Column types are kept as the whole table's: pandas' head(n) of
// an int column with a null after row n still prints floats.
func (t *Table) Head(n int) *Table {
	if n < 0 || n >= t.Rows {
		return t
	}
	h := &Table{Name: t.Name, Rows: n, Text: t.Text, nullCols: map[*Column]bool{}, whole: t}
	if t.whole != nil {
		h.whole = t.whole
	}
	for _, c := range t.Columns {
		hc := c.head(n)
		if t.hadNull(c) {
			h.nullCols[hc] = true
		}
		h.Columns = append(h.Columns, hc)
	}
	if t.Index != nil {
		h.Index, h.IndexName = t.Index.head(n), t.IndexName
	}
	if t.Range != nil {
		r := *t.Range
		r[1] = r[0] + int64(n)*r[2]
		h.Range = &r
	}
	return h
}

// hadNull says whether c (a column of t) had a null in the table it was
// cut from.
func (t *Table) hadNull(c *Column) bool { return t.nullCols[c] || c.hasNull() }

func (c *Column) head(n int) *Column {
	h := *c
	if c.Null != nil {
		h.Null = c.Null[:n]
	}
	switch {
	case c.Type == List:
		h.Offsets = c.Offsets[:n+1]
	case c.Type == String:
		h.Strs = c.Strs[:n]
	case c.Type == Float:
		h.Floats = c.Floats[:n]
	case c.isUint64():
		h.Uints = c.Uints[:n]
	default:
		h.Ints = c.Ints[:n]
	}
	return &h
}

// Format is a rendering of a table.
type Format string

// Formats.
const (
	Pandas   Format = "pandas"   // DataFrame.to_string(index=False)
	CSV      Format = "csv"      // RFC 4180 CSV with a header row
	Markdown Format = "markdown" // a GitHub markdown table
)

// ParseFormat checks a format name; "" is Pandas.
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case "":
		return Pandas, nil
	case Pandas, CSV, Markdown:
		return Format(s), nil
	}
	return "", fmt.Errorf("table format %q: want pandas, csv or markdown", s)
}

// Render writes t in format f.
func (t *Table) Render(w io.Writer, f Format) error {
	var err error
	switch f {
	case Pandas, "":
		fr, ferr := t.frame()
		if ferr != nil {
			return ferr
		}
		_, err = fr.WriteTo(w)
	case CSV:
		err = t.writeCSV(w)
	case Markdown:
		err = t.writeMarkdown(w)
	default:
		_, err = ParseFormat(string(f))
	}
	if err != nil {
		return fmt.Errorf("table %s: %w", t.Name, err)
	}
	return nil
}

// String renders t in format f.
func (t *Table) String(f Format) (string, error) {
	var b strings.Builder
	err := t.Render(&b, f)
	return b.String(), err
}

// frame is the DataFrame pandas holds for t, ready to print.
func (t *Table) frame() (*pandastext.Frame, error) {
	if t.Text {
		src := t
		if t.whole != nil {
			src = t.whole
		}
		header := make([]string, len(src.Columns))
		rows := make([][]string, src.Rows)
		for j, c := range src.Columns {
			header[j] = c.Name
		}
		for i := range rows {
			r := make([]string, len(src.Columns))
			for j, c := range src.Columns {
				r[j] = c.Strs[i]
			}
			rows[i] = r
		}
		fr := pandastext.TextFrame(header, rows)
		fr.Head(t.Rows)
		return &fr, nil
	}
	fr := &pandastext.Frame{}
	for _, c := range t.Columns {
		if err := addColumn(fr, c, t.hadNull(c)); err != nil {
			return nil, fmt.Errorf("table %s: column %q: %w", t.Name, c.Name, err)
		}
	}
	return fr, nil
}

// addColumn adds c to fr with the dtype to_pandas gives it.
func addColumn(fr *pandastext.Frame, c *Column, hadNull bool) error {
	n := c.Len()
	switch c.Type {
	case Int:
		if hadNull {
			fs := make([]float64, n)
			for i := range fs {
				fs[i] = c.float(i)
			}
			fr.AddFloat64(c.Name, fs)
			return nil
		}
		if c.isUint64() {
			ints := make([]int64, n)
			for i, u := range c.Uints {
				if u > 1<<63-1 {
					// A uint64 past int64 prints as itself; keep its text.
					return objectColumn(fr, c)
				}
				ints[i] = int64(u)
			}
			fr.AddInt64(c.Name, ints)
			return nil
		}
		fr.AddInt64(c.Name, c.Ints)
	case Float:
		fs := make([]float64, n)
		for i := range fs {
			fs[i] = c.float(i)
		}
		fr.AddFloat64(c.Name, fs)
	case Bool:
		if hadNull {
			return objectColumn(fr, c)
		}
		bs := make([]bool, n)
		for i, v := range c.Ints {
			bs[i] = v != 0
		}
		fr.AddBool(c.Name, bs)
	case Timestamp:
		ts := make([]time.Time, n)
		loc, err := c.location()
		if err != nil {
			return err
		}
		for i, v := range c.Ints {
			ts[i] = time.Unix(0, v).In(loc)
		}
		if c.Zone == "" {
			fr.AddDatetime(c.Name, ts, c.Null)
		} else {
			fr.AddDatetimeTZ(c.Name, ts, c.Null)
		}
	default:
		return objectColumn(fr, c)
	}
	return nil
}

func objectColumn(fr *pandastext.Frame, c *Column) error {
	vals := make([]pandastext.Value, c.Len())
	elemNull := c.Type == List && c.Elem.hasNull()
	for i := range vals {
		v, err := c.pyValue(i, elemNull)
		if err != nil {
			return err
		}
		vals[i] = v
	}
	fr.AddObject(c.Name, vals)
	return nil
}

// float is value i as a float64: NaN when null.
func (c *Column) float(i int) float64 {
	switch {
	case c.isNull(i):
		return nan
	case c.Type == Float:
		return c.Floats[i]
	case c.isUint64():
		return float64(c.Uints[i])
	}
	return float64(c.Ints[i])
}

// pyValue is value i as the Python object an object column of to_pandas
// holds; inList says the value is a list element whose column (all of
// the list's elements) has a null, which makes integers floats.
func (c *Column) pyValue(i int, inList bool) (pandastext.Value, error) {
	if c.isNull(i) {
		switch c.Type {
		case Int, Float:
			return pandastext.Float(nan), nil
		case Timestamp:
			return pandastext.Text("NaT"), nil
		}
		return pandastext.None(), nil
	}
	switch c.Type {
	case String:
		return pandastext.Str(c.Strs[i]), nil
	case Int:
		if inList {
			return pandastext.Float(c.float(i)), nil
		}
		if c.isUint64() {
			return pandastext.Text(fmt.Sprint(c.Uints[i])), nil
		}
		return pandastext.Int(c.Ints[i]), nil
	case Float:
		return pandastext.Float(c.Floats[i]), nil
	case Bool:
		return pandastext.Bool(c.Ints[i] != 0), nil
	case Date:
		y, m, d := time.Unix(c.Ints[i]*86400, 0).UTC().Date()
		return pandastext.Date(y, m, d), nil
	case List:
		if c.Elem.Type == Timestamp || c.Elem.Type == List {
			// numpy prints these elements its own way ("2020-01-01T00:00:00.000000000").
			return pandastext.Value{}, fmt.Errorf("list of %s: %w", c.Elem.Type, ErrUnsupported)
		}
		// Elements print by str(): numpy's float64 is Python's repr ("nan"
		// for NaN), and an int list with a null is a float64 array.
		inner := c.Elem.hasNull()
		elems := make([]pandastext.Value, 0, c.Offsets[i+1]-c.Offsets[i])
		for k := c.Offsets[i]; k < c.Offsets[i+1]; k++ {
			e, err := c.Elem.pyValue(k, inner)
			if err != nil {
				return pandastext.Value{}, err
			}
			elems = append(elems, e)
		}
		return pandastext.List(elems), nil
	case Timestamp:
		loc, err := c.location()
		if err != nil {
			return pandastext.Value{}, err
		}
		return pandastext.Text(pandastext.TimestampString(time.Unix(0, c.Ints[i]).In(loc), c.Zone != "")), nil
	}
	return pandastext.Value{}, fmt.Errorf("type %s: %w", c.Type, ErrUnsupported)
}

// location is the zone of a Timestamp column (UTC for a naive one, whose
// values are wall-clock times).
func (c *Column) location() (*time.Location, error) {
	switch {
	case c.Zone == "" || c.Zone == "UTC":
		return time.UTC, nil
	case len(c.Zone) == 6 && (c.Zone[0] == '+' || c.Zone[0] == '-') && c.Zone[3] == ':':
		var h, m int
		if _, err := fmt.Sscanf(c.Zone[1:], "%02d:%02d", &h, &m); err != nil {
			return nil, fmt.Errorf("time zone %q: %w", c.Zone, err)
		}
		off := h*3600 + m*60
		if c.Zone[0] == '-' {
			off = -off
		}
		return time.FixedZone(c.Zone, off), nil
	}
	loc, err := time.LoadLocation(c.Zone)
	if err != nil {
		return nil, fmt.Errorf("time zone %q: %w", c.Zone, err)
	}
	return loc, nil
}
