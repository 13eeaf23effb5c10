package table

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
)

// readParquet reads a parquet table of size bytes from r; name labels
// errors. Every top-level field must be a primitive column or a LIST of
// primitives (see the package comment for the types read).
func readParquet(ctx context.Context, r io.ReaderAt, size int64, name string, opt Options) (t *Table, err error) {
	defer func() {
		// parquet-go panics on some malformed files; a bad input is an
		// error, never a crash.
		if p := recover(); p != nil {
			t, err = nil, fmt.Errorf("table %s: corrupt parquet file: %v", name, p)
		}
	}()
	if err := checkFooter(r, size); err != nil {
		return nil, fmt.Errorf("table %s: %w", name, err)
	}
	f, err := parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", name, err)
	}
	meta := pandasMeta(f)
	max := opt.maxValues()
	if n := f.NumRows(); n < 0 || n > max {
		return nil, fmt.Errorf("table %s: %d rows: %w", name, n, ErrTooLarge)
	}
	if err := checkPages(r, size, f, max); err != nil {
		return nil, fmt.Errorf("table %s: %w", name, err)
	}
	t = &Table{Name: name, Rows: int(f.NumRows())}
	var readers []*leafReader
	for _, col := range f.Root().Columns() {
		lr, err := newLeafReader(col, meta)
		if err != nil {
			return nil, fmt.Errorf("table %s: column %q: %w", name, col.Name(), err)
		}
		readers = append(readers, lr)
	}
	var values int64
	buf := make([]parquet.Value, 1024)
	for _, rg := range f.RowGroups() {
		chunks := rg.ColumnChunks()
		for _, lr := range readers {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if lr.leaf >= len(chunks) {
				return nil, fmt.Errorf("table %s: row group without column %q", name, lr.col.Name)
			}
			if err := lr.readChunk(chunks[lr.leaf], buf, &values, max); err != nil {
				return nil, fmt.Errorf("table %s: column %q: %w", name, lr.col.Name, err)
			}
		}
	}
	if r := meta.rangeIndex(); r != nil && (r[0] != 0 || r[2] != 1 || r[1] != int64(t.Rows)) {
		if (r[1]-r[0]+r[2]-sign(r[2]))/r[2] == int64(t.Rows) {
			t.Range = r
		}
	}
	for _, lr := range readers {
		if n := lr.col.Len(); n != t.Rows {
			return nil, fmt.Errorf("table %s: column %q has %d rows, the file says %d", name, lr.col.Name, n, t.Rows)
		}
		if !lr.col.hasNull() {
			lr.col.Null = nil
		}
		if lr.col.Elem != nil && !lr.col.Elem.hasNull() {
			lr.col.Elem.Null = nil
		}
		if name, ok := meta.index(lr.col.Name); ok && t.Index == nil {
			t.Index, t.IndexName = lr.col, name
			continue
		}
		t.Columns = append(t.Columns, lr.col)
	}
	return t, nil
}

// pandasInfo is the part of the "pandas" key-value metadata pyarrow
// applies in to_pandas: index columns and time zones.
type pandasInfo struct {
	IndexColumns []json.RawMessage `json:"index_columns"`
	Columns      []struct {
		Name      any    `json:"name"`
		FieldName string `json:"field_name"`
		Metadata  *struct {
			Timezone string `json:"timezone"`
		} `json:"metadata"`
	} `json:"columns"`
}

func pandasMeta(f *parquet.File) *pandasInfo {
	s, ok := f.Lookup("pandas")
	if !ok {
		return nil
	}
	var p pandasInfo
	if json.Unmarshal([]byte(s), &p) != nil {
		return nil
	}
	return &p
}

// index says whether field is the index column pandas stored, and the
// index's name ("" for None, as for "__index_level_0__").
func (p *pandasInfo) index(field string) (string, bool) {
	if p == nil || len(p.IndexColumns) != 1 {
		return "", false
	}
	var s string
	if json.Unmarshal(p.IndexColumns[0], &s) != nil || s != field {
		return "", false
	}
	for _, c := range p.Columns {
		if c.FieldName == field {
			name, _ := c.Name.(string)
			return name, true
		}
	}
	return "", true
}

// rangeIndex is the RangeIndex pandas stored, if any.
func (p *pandasInfo) rangeIndex() *[3]int64 {
	if p == nil || len(p.IndexColumns) != 1 {
		return nil
	}
	var r struct {
		Kind              string
		Start, Stop, Step int64
	}
	if json.Unmarshal(p.IndexColumns[0], &r) != nil || r.Kind != "range" || r.Step == 0 {
		return nil
	}
	return &[3]int64{r.Start, r.Stop, r.Step}
}

// zone is the time zone pandas recorded for field, if any.
func (p *pandasInfo) zone(field string) string {
	if p == nil {
		return ""
	}
	for _, c := range p.Columns {
		if c.FieldName == field && c.Metadata != nil {
			return c.Metadata.Timezone
		}
	}
	return ""
}

// leafReader fills one column from the leaf column chunks of each row
// group.
type leafReader struct {
	col  *Column
	dst  *Column // col, or col.Elem for a list
	leaf int     // leaf column index
	kind parquet.Kind
	unit int64 // Timestamp: nanoseconds per stored unit; 0 for INT96
	// allNull: pyarrow's null type, every value None.
	allNull bool
	// levels: a list's definition levels for a null list (nullDef, -1 if
	// the list is required), an empty list (emptyDef), a null element
	// (nullElemDef, -1 if elements are required); maxDef for a value.
	nullDef, emptyDef, nullElemDef, maxDef int
}

func newLeafReader(col *parquet.Column, meta *pandasInfo) (*leafReader, error) {
	lr := &leafReader{col: &Column{Name: col.Name()}}
	lr.dst = lr.col
	leaf := col
	if !col.Leaf() {
		lt := col.Type().LogicalType()
		if lt == nil || !isList(lt) || col.Repeated() {
			return nil, fmt.Errorf("a nested field (struct or map): %w", ErrUnsupported)
		}
		kids := col.Columns()
		if len(kids) != 1 || !kids[0].Repeated() || kids[0].Leaf() || len(kids[0].Columns()) != 1 || !kids[0].Columns()[0].Leaf() {
			return nil, fmt.Errorf("a list that is not a list of values: %w", ErrUnsupported)
		}
		leaf = kids[0].Columns()[0]
		if leaf.Repeated() {
			return nil, fmt.Errorf("a list of lists: %w", ErrUnsupported)
		}
		lr.col.Type = List
		lr.col.Offsets = []int{0}
		lr.dst = &Column{Name: leaf.Name()}
		lr.col.Elem = lr.dst
		d := 0
		lr.nullDef = -1
		if col.Optional() {
			lr.nullDef = 0
			d++
		}
		lr.emptyDef = d
		d++ // the repeated group
		lr.nullElemDef = -1
		if leaf.Optional() {
			lr.nullElemDef = d
			d++
		}
		lr.maxDef = d
		if d != leaf.MaxDefinitionLevel() || leaf.MaxRepetitionLevel() != 1 {
			return nil, fmt.Errorf("unexpected list levels: %w", ErrUnsupported)
		}
	} else {
		if col.Repeated() {
			return nil, fmt.Errorf("a repeated field: %w", ErrUnsupported)
		}
		lr.maxDef = leaf.MaxDefinitionLevel()
	}
	lr.leaf = leaf.Index()
	if err := lr.setType(leaf.Type(), meta); err != nil {
		return nil, err
	}
	return lr, nil
}

func isList(lt *format.LogicalType) bool {
	_, ok := lt.Value.(*format.ListType)
	return ok
}

// setType decides the column type from the leaf's physical and logical
// types, as pyarrow maps them.
func (lr *leafReader) setType(typ parquet.Type, meta *pandasInfo) error {
	c := lr.dst
	lr.kind = typ.Kind()
	var lv format.LogicalTypeValue
	if lt := typ.LogicalType(); lt != nil {
		lv = lt.Value
	}
	var ct deprecated.ConvertedType = -1
	if p := typ.ConvertedType(); p != nil {
		ct = *p
	}
	if _, ok := lv.(*format.NullType); ok {
		// pyarrow's null type (pandas' all-None object column).
		c.Type, lr.allNull = String, true
		return nil
	}
	switch lr.kind {
	case parquet.Boolean:
		c.Type = Bool
	case parquet.Int32, parquet.Int64:
		if err := lr.setIntType(typ, lv, ct, meta); err != nil {
			return err
		}
	case parquet.Int96:
		c.Type = Timestamp
	case parquet.Float:
		c.Type, c.Bits = Float, 32
	case parquet.Double:
		c.Type, c.Bits = Float, 64
	case parquet.ByteArray, parquet.FixedLenByteArray:
		switch lv.(type) {
		case *format.StringType, *format.EnumType, *format.JsonType:
			c.Type = String
		case nil:
			if ct != deprecated.UTF8 && ct != deprecated.Enum && ct != deprecated.Json {
				return unsupportedType(typ, "binary data")
			}
			c.Type = String
		default:
			return unsupportedType(typ, "bytes annotated "+lv.String())
		}
	default:
		return unsupportedType(typ, "a column")
	}
	return nil
}

// setIntType decides the type of an Int32 or Int64 column from its
// logical type (lv) or, in files without one, its converted type (ct; -1
// for none).
func (lr *leafReader) setIntType(typ parquet.Type, lv format.LogicalTypeValue, ct deprecated.ConvertedType, meta *pandasInfo) error {
	c := lr.dst
	c.Type, c.Bits = Int, 32
	if lr.kind == parquet.Int64 {
		c.Bits = 64
	}
	switch v := lv.(type) {
	case *format.IntType:
		c.Bits, c.Unsigned = int(v.BitWidth), !v.IsSigned
	case *format.DateType:
		c.Type = Date
	case *format.TimestampType:
		c.Type = Timestamp
		lr.unit = int64(v.Unit.Value.Duration())
		if v.IsAdjustedToUTC {
			c.Zone = "UTC"
			if z := meta.zone(lr.col.Name); z != "" {
				c.Zone = z
				if _, err := c.location(); err != nil {
					return err
				}
			}
		}
	case nil:
		switch ct {
		case -1:
		case deprecated.Int8, deprecated.Int16, deprecated.Int32, deprecated.Int64:
			c.Bits = 8 << (ct - deprecated.Int8)
		case deprecated.Uint8, deprecated.Uint16, deprecated.Uint32, deprecated.Uint64:
			c.Bits, c.Unsigned = 8<<(ct-deprecated.Uint8), true
		case deprecated.Date:
			c.Type = Date
		case deprecated.TimestampMillis, deprecated.TimestampMicros:
			c.Type, c.Zone, lr.unit = Timestamp, "UTC", 1_000_000
			if ct == deprecated.TimestampMicros {
				lr.unit = 1000
			}
		default:
			return unsupportedType(typ, fmt.Sprintf("an integer with converted type %d", ct))
		}
	default:
		return unsupportedType(typ, "an integer annotated "+lv.String())
	}
	if c.Type == Int && c.Unsigned && c.Bits == 64 {
		c.Uints = []uint64{}
	}
	return nil
}

// unsupportedType is the error of a column of typ that no table type holds.
func unsupportedType(typ parquet.Type, what string) error {
	return fmt.Errorf("%s (%s): %w", what, typ, ErrUnsupported)
}

var errLevels = errors.New("bad repetition or definition levels")

// readChunk appends the values of one column chunk.
func (lr *leafReader) readChunk(chunk parquet.ColumnChunk, buf []parquet.Value, values *int64, max int64) error {
	pages := chunk.Pages()
	defer pages.Close()
	for {
		p, err := pages.ReadPage()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		vr := p.Values()
		for {
			n, err := vr.ReadValues(buf)
			if *values += int64(n); *values > max {
				parquet.Release(p)
				return fmt.Errorf("more than %d values: %w", max, ErrTooLarge)
			}
			for _, v := range buf[:n] {
				if err := lr.add(v); err != nil {
					parquet.Release(p)
					return err
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				parquet.Release(p)
				return err
			}
		}
		parquet.Release(p)
	}
}

// add appends one leaf value (with its levels) to the column.
func (lr *leafReader) add(v parquet.Value) error {
	if lr.col.Type != List {
		if v.RepetitionLevel() != 0 {
			return errLevels
		}
		return lr.appendValue(v, v.IsNull())
	}
	c := lr.col
	def := v.DefinitionLevel()
	if v.RepetitionLevel() == 0 {
		// A new row: a null list, an empty one, or the first element.
		c.Null = append(c.Null, def == lr.nullDef)
		c.Offsets = append(c.Offsets, c.Offsets[len(c.Offsets)-1])
		if def <= lr.emptyDef {
			return nil
		}
	} else if len(c.Null) == 0 || def <= lr.emptyDef {
		return errLevels
	}
	if def != lr.maxDef && def != lr.nullElemDef {
		return errLevels
	}
	c.Offsets[len(c.Offsets)-1]++
	return lr.appendValue(v, def != lr.maxDef)
}

// appendValue appends v, or a null, to the destination column.
func (lr *leafReader) appendValue(v parquet.Value, null bool) error {
	c := lr.dst
	null = null || lr.allNull
	c.Null = append(c.Null, null)
	switch c.Type {
	case String:
		s := ""
		if !null {
			s = string(v.ByteArray())
		}
		c.Strs = append(c.Strs, s)
	case Float:
		f := 0.0
		if !null {
			if lr.kind == parquet.Float {
				f = float64(v.Float())
			} else {
				f = v.Double()
			}
		}
		c.Floats = append(c.Floats, f)
	case Int:
		if c.Unsigned && c.Bits == 64 {
			var u uint64
			if !null {
				u = v.Uint64()
			}
			c.Uints = append(c.Uints, u)
			return nil
		}
		var i int64
		if !null {
			switch {
			case lr.kind == parquet.Int32 && c.Unsigned:
				i = int64(v.Uint32())
			case lr.kind == parquet.Int32:
				i = int64(v.Int32())
			default:
				i = v.Int64()
			}
		}
		c.Ints = append(c.Ints, i)
	default:
		var i int64
		if !null {
			switch {
			case c.Type == Bool:
				if v.Boolean() {
					i = 1
				}
			case lr.kind == parquet.Int96:
				i = int96Nanos(v.Int96())
			case lr.kind == parquet.Int32:
				i = int64(v.Int32())
			default:
				i = v.Int64()
			}
			if c.Type == Timestamp && lr.unit > 1 {
				if i > math.MaxInt64/lr.unit || i < math.MinInt64/lr.unit {
					// pyarrow refuses the cast to nanoseconds as well.
					return fmt.Errorf("timestamp %d x %dns is outside datetime64[ns]", i, lr.unit)
				}
				i *= lr.unit
			}
		}
		c.Ints = append(c.Ints, i)
	}
	return nil
}

// int96Nanos is a legacy INT96 timestamp (nanoseconds of the day, then the
// Julian day) as nanoseconds since the Unix epoch.
func int96Nanos(x deprecated.Int96) int64 {
	nanos := int64(x[0]) | int64(x[1])<<32
	const unixJulianDay = 2440588
	return (int64(x[2])-unixJulianDay)*86400e9 + nanos
}

func sign(x int64) int64 {
	if x < 0 {
		return -1
	}
	return 1
}
