package table

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/evalmd/evalmd/internal/outfile"
)

// LoaderPy is the source of the Python module loaderModule. Its
// load(path, handover_dir=None) returns the DataFrame of a table: from the
// hand-over file path+HandoverSuffix (in handover_dir, default path's
// folder) when there is one, the DataFrame pyarrow's to_pandas() gives for
// the parquet table, built with pandas 1.5.3 and numpy alone; else with
// pandas' own reader. Its install(handover_dir=None) makes
// pd.read_parquet(path) do the same for tables with a hand-over.
//
//go:embed load_table.py
var LoaderPy string

// loaderModule is the file name LoaderPy is written under, so Python
// imports it as evalmd_table.
const loaderModule = "evalmd_table.py"

// HandoverSuffix is added to a table's base name to name its hand-over
// file: all.parquet's is all.parquet.evalmd.json.
const HandoverSuffix = ".evalmd.json"

// A Handover is one table of WriteHandoverDir.
type Handover struct {
	// Source is the table file, as given.
	Source string
	// Name is its base name, the name the question's files give it.
	Name string
	// File is the hand-over written (dir/Name+HandoverSuffix), or "" for
	// a table pandas reads itself from Source (.csv, .tsv, .jsonl, .json).
	File string
}

// NeedsHandover says whether Python needs a hand-over to read the table
// at path: a parquet file (pandas reads it only through pyarrow).
func NeedsHandover(path string) bool {
	return strings.EqualFold(filepath.Ext(path), ".parquet")
}

// WriteHandoverDir writes into dir (which must exist) loaderModule and,
// for every file in paths that NeedsHandover, its hand-over file
// base+HandoverSuffix; it returns one Handover for each path, in order.
// Paths that need none are listed with File "" and not read. Two paths with
// the same base name that both need a hand-over are an error, as is a
// table that cannot be read (the error names it). Files are written
// atomically through internal/outfile and never over one of paths.
func WriteHandoverDir(ctx context.Context, dir string, paths []string, opt Options) ([]Handover, error) {
	wopt := outfile.Options{Inputs: paths}
	if err := outfile.Write(filepath.Join(dir, loaderModule), []byte(LoaderPy), wopt); err != nil {
		return nil, fmt.Errorf("table hand-over: %w", err)
	}
	out := make([]Handover, 0, len(paths))
	seen := map[string]string{}
	for _, p := range paths {
		h := Handover{Source: p, Name: filepath.Base(p)}
		if NeedsHandover(p) {
			if other, ok := seen[h.Name]; ok {
				return nil, fmt.Errorf("table hand-over: %s and %s have the same name", other, p)
			}
			seen[h.Name] = p
			t, err := Read(ctx, p, opt)
			if err != nil {
				return nil, err
			}
			h.File = filepath.Join(dir, h.Name+HandoverSuffix)
			if err := outfile.WriteFunc(h.File, wopt, func(w io.Writer) error { return WriteHandover(w, t) }); err != nil {
				return nil, fmt.Errorf("table hand-over: %w", err)
			}
		}
		out = append(out, h)
	}
	return out, nil
}

// handoverVersion is the "evalmd_table" field of a hand-over file.
const handoverVersion = 1

// WriteHandover writes t as the JSON document LoaderPy reads:
//
//	{"evalmd_table": 1, "rows": N, "index": COL|{"range": [start, stop, step], "name": S}|null,
//	 "columns": [COL, ...]}
//	COL = {"name": S, "type": "int|float|bool|string|timestamp|date|list", "dtype": "int64|...",
//	       "zone": S|null, "has_null": B, "values": [...], "elem": COL (list)}
//
// Values are JSON numbers, strings, booleans or null; floats that JSON
// cannot hold are the strings "nan", "inf" and "-inf"; timestamps are
// nanoseconds and dates days since the Unix epoch; a list's values are
// arrays of its element's values, and its elem COL carries the element
// type with has_null over all elements. A text table (CSV, TSV) needs no
// hand-over, pandas reads it itself, and is refused.
func WriteHandover(w io.Writer, t *Table) error {
	if t.Text {
		return fmt.Errorf("table %s: a text table needs no hand-over (pd.read_csv reads it)", t.Name)
	}
	doc := map[string]any{"evalmd_table": handoverVersion, "rows": t.Rows}
	var err error
	switch {
	case t.Index != nil:
		ix, e := t.handoverColumn(t.Index)
		err = e
		if t.IndexName == "" {
			ix["name"] = nil
		} else {
			ix["name"] = t.IndexName
		}
		doc["index"] = ix
	case t.Range != nil:
		doc["index"] = map[string]any{"range": t.Range[:], "name": nil}
	default:
		doc["index"] = nil
	}
	if err != nil {
		return err
	}
	cols := make([]any, 0, len(t.Columns))
	for _, c := range t.Columns {
		hc, err := t.handoverColumn(c)
		if err != nil {
			return err
		}
		cols = append(cols, hc)
	}
	doc["columns"] = cols
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("table %s: hand-over: %w", t.Name, err)
	}
	return nil
}

func (t *Table) handoverColumn(c *Column) (map[string]any, error) {
	hc := describe(c, t.hadNull(c))
	vals := make([]any, c.Len())
	for i := range vals {
		vals[i] = c.jsonValue(i)
	}
	hc["values"] = vals
	if c.Type == List {
		if c.Elem.Type == List || c.Elem.Type == Timestamp {
			return nil, fmt.Errorf("table %s: column %q: list of %s: %w", t.Name, c.Name, c.Elem.Type, ErrUnsupported)
		}
		hc["elem"] = describe(c.Elem, c.Elem.hasNull())
	}
	return hc, nil
}

// describe is a column's type in the hand-over: its kind and the numpy
// dtype it has before pyarrow's null rules.
func describe(c *Column, hasNull bool) map[string]any {
	dtype := "object"
	switch c.Type {
	case Int:
		dtype = "int" + strconv.Itoa(c.Bits)
		if c.Unsigned {
			dtype = "u" + dtype
		}
	case Float:
		dtype = "float" + strconv.Itoa(c.Bits)
	case Bool:
		dtype = "bool"
	case Timestamp:
		dtype = "datetime64[ns]"
	}
	var zone any
	if c.Zone != "" {
		zone = c.Zone
	}
	return map[string]any{"name": c.Name, "type": c.Type.String(), "dtype": dtype, "zone": zone, "has_null": hasNull}
}

// jsonValue is value i in the hand-over's JSON.
func (c *Column) jsonValue(i int) any {
	if c.isNull(i) {
		return nil
	}
	switch c.Type {
	case String:
		return c.Strs[i]
	case Float:
		f := c.Floats[i]
		switch {
		case math.IsNaN(f):
			return "nan"
		case math.IsInf(f, 1):
			return "inf"
		case math.IsInf(f, -1):
			return "-inf"
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
	case Int:
		if c.isUint64() {
			return c.Uints[i]
		}
		return c.Ints[i]
	case Bool:
		return c.Ints[i] != 0
	case List:
		out := make([]any, 0, c.Offsets[i+1]-c.Offsets[i])
		for k := c.Offsets[i]; k < c.Offsets[i+1]; k++ {
			out = append(out, c.Elem.jsonValue(k))
		}
		return out
	}
	return c.Ints[i] // Timestamp, Date
}
