package table

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/evalmd/evalmd/internal/testkit/shared"
)

// row covers every type DataBench's parquet files use, nulls included, as
// pandas (through pyarrow) writes them.
type row struct {
	Index int64     `parquet:"__index_level_0__"`
	I64   int64     `parquet:"i64"`
	I32   int32     `parquet:"i32"`
	I8    int8      `parquet:"i8"`
	U16   uint16    `parquet:"u16"`
	NI    *int64    `parquet:"ni,optional"`
	F64   float64   `parquet:"f64"`
	F32   float32   `parquet:"f32"`
	NF    *float64  `parquet:"nf,optional"`
	B     bool      `parquet:"b"`
	NB    *bool     `parquet:"nb,optional"`
	S     string    `parquet:"s"`
	NS    *string   `parquet:"ns,optional"`
	TS    *int64    `parquet:"ts,optional,timestamp(microsecond:local)"`
	TZ    *int64    `parquet:"tz,optional,timestamp(nanosecond:utc)"`
	NY    int64     `parquet:"ny,timestamp(millisecond:utc)"`
	D     *int32    `parquet:"d,optional,date"`
	L     []int64   `parquet:"l,list"`
	LO    []*int64  `parquet:"lo,optional,list"`
	LS    []string  `parquet:"ls,list"`
	LF    []float64 `parquet:"lf,list"`
}

// pandasMetaJSON is the part of pandas' metadata the reader uses: the
// index column and the zone of "ny".
const pandasMetaJSON = `{"index_columns": ["__index_level_0__"], "columns": [
 {"name": "ny", "field_name": "ny", "metadata": {"timezone": "America/New_York"}},
 {"name": null, "field_name": "__index_level_0__", "metadata": null}]}`

func ptr[T any](v T) *T { return &v }

func sampleRows() []row {
	ts := time.Date(2020, 1, 2, 3, 4, 5, 6000, time.UTC)
	return []row{
		{Index: 10, I64: 1, I32: -5, I8: 7, U16: 65535, NI: ptr[int64](3), F64: 1.5, F32: 0.1, NF: ptr(2.25),
			B: true, NB: ptr(true), S: "a b", NS: ptr("x"), TS: ptr(ts.UnixMicro()), TZ: ptr(ts.UnixNano() + 500),
			NY: ts.UnixMilli(), D: ptr[int32](18263), L: []int64{1, 2}, LO: []*int64{ptr[int64](1), nil},
			LS: []string{"p", "q\nr"}, LF: []float64{0.5, 1e20}},
		{Index: 20, I64: -9000000000, I32: 0, I8: -128, U16: 0, F64: 1e-7, F32: 3.5, NF: nil,
			B: false, NB: nil, S: "", NS: nil, TS: nil, TZ: nil, NY: 0, D: nil,
			L: nil, LO: nil, LS: []string{}, LF: nil},
		{Index: 30, I64: 42, I32: 2147483647, I8: 1, U16: 9, NI: ptr[int64](-1), F64: -2, F32: -0.5, NF: ptr(0.0),
			B: true, NB: ptr(false), S: "ü|z", NS: ptr(""), TS: ptr(int64(0)), TZ: ptr(int64(0)),
			NY: ts.Add(180 * 24 * time.Hour).UnixMilli(), D: ptr[int32](-1), L: []int64{}, LO: []*int64{},
			LS: []string{"s"}, LF: []float64{-3}},
	}
}

// writeParquet writes rows (any struct slice) as a parquet file.
func writeParquet[T any](t testing.TB, rows []T, opts ...parquet.WriterOption) []byte {
	t.Helper()
	var b bytes.Buffer
	w := parquet.NewGenericWriter[T](&b, opts...)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func readSample(t *testing.T) *Table {
	t.Helper()
	data := writeParquet(t, sampleRows(), parquet.KeyValueMetadata("pandas", pandasMetaJSON))
	tb, err := readParquet(t.Context(), bytes.NewReader(data), int64(len(data)), "sample.parquet", Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// expect is what to_pandas gives for one column, written by hand from
// pyarrow's documented conversion rules: the dtype and repr(tolist()).
var expect = []struct{ name, dtype, values string }{
	{"i64", "int64", "[1, -9000000000, 42]"},
	{"i32", "int32", "[-5, 0, 2147483647]"},
	{"i8", "int8", "[7, -128, 1]"},
	{"u16", "uint16", "[65535, 0, 9]"},
	{"ni", "float64", "[3.0, nan, -1.0]"}, // nullable int -> float64
	{"f64", "float64", "[1.5, 1e-07, -2.0]"},
	{"f32", "float32", "[0.10000000149011612, 3.5, -0.5]"},
	{"nf", "float64", "[2.25, nan, 0.0]"},
	{"b", "bool", "[True, False, True]"},
	{"nb", "object", "[True, None, False]"}, // nullable bool -> object
	{"s", "object", "['a b', '', 'ü|z']"},
	{"ns", "object", "['x', None, '']"},
	{"ts", "datetime64[ns]", "[Timestamp('2020-01-02 03:04:05.000006'), NaT, Timestamp('1970-01-01 00:00:00')]"},
	{"tz", "datetime64[ns, UTC]", "[Timestamp('2020-01-02 03:04:05.000006500+0000', tz='UTC'), NaT, Timestamp('1970-01-01 00:00:00+0000', tz='UTC')]"},
	{"ny", "datetime64[ns, America/New_York]", "[Timestamp('2020-01-01 22:04:05-0500', tz='America/New_York'), Timestamp('1969-12-31 19:00:00-0500', tz='America/New_York'), Timestamp('2020-06-29 23:04:05-0400', tz='America/New_York')]"},
	{"d", "object", "[datetime.date(2020, 1, 2), None, datetime.date(1969, 12, 31)]"},
	{"l", "object", "[array([1, 2]), array([], dtype=int64), array([], dtype=int64)]"},
	{"lo", "object", "[array([ 1., nan]), None, array([], dtype=float64)]"}, // list with a null element -> float
	{"ls", "object", "[array(['p', 'q\\nr'], dtype=object), array([], dtype=object), array(['s'], dtype=object)]"},
	{"lf", "object", "[array([5.e-01, 1.e+20]), array([], dtype=float64), array([-3.])]"},
}

func TestParquetTypes(t *testing.T) {
	tb := readSample(t)
	if tb.Rows != 3 || len(tb.Columns) != len(expect) {
		t.Fatalf("rows %d columns %d (%s), want 3 and %d", tb.Rows, len(tb.Columns), names(tb), len(expect))
	}
	if tb.Index == nil || tb.Index.Ints[2] != 30 || tb.IndexName != "" {
		t.Errorf("index %+v name %q, want __index_level_0__ as an unnamed index", tb.Index, tb.IndexName)
	}
	want := map[string]struct {
		typ  Type
		zone string
		null bool
	}{
		"i64": {Int, "", false}, "ni": {Int, "", true}, "nb": {Bool, "", true}, "ts": {Timestamp, "", true},
		"tz": {Timestamp, "UTC", true}, "ny": {Timestamp, "America/New_York", false}, "d": {Date, "", true},
		"lo": {List, "", true}, "ls": {List, "", false}, "s": {String, "", false},
	}
	for _, c := range tb.Columns {
		w, ok := want[c.Name]
		if !ok {
			continue
		}
		if c.Type != w.typ || c.Zone != w.zone || c.hasNull() != w.null {
			t.Errorf("column %s: type %s zone %q null %v, want %s %q %v", c.Name, c.Type, c.Zone, c.hasNull(), w.typ, w.zone, w.null)
		}
	}
	lo := tb.Columns[17]
	if lo.Name != "lo" || !lo.Elem.isNull(1) || lo.Elem.Ints[0] != 1 || lo.Offsets[1] != 2 || lo.Offsets[3] != 2 {
		t.Errorf("list lo: offsets %v elem %+v", lo.Offsets, lo.Elem)
	}
}

func names(tb *Table) string {
	var s []string
	for _, c := range tb.Columns {
		s = append(s, c.Name)
	}
	return strings.Join(s, ",")
}

// python returns Debian's Python with pandas; without it the test skips
// naming the package, or fails under EVALMD_REQUIRE_SHARED=1 (CI).
func python(t *testing.T) string {
	t.Helper()
	const py = "/usr/bin/python3"
	if out, err := exec.Command(py, "-c", "import pandas").CombinedOutput(); err != nil {
		shared.Missing(t, fmt.Sprintf("needs %s with pandas (apt-get install -y python3-pandas): %v %s", py, err, bytes.TrimSpace(out)))
	}
	return py
}

// TestHandoverPandas loads the hand-over with Debian's pandas and checks
// every column's dtype and values against the hand-written expectations,
// and that pandas' own to_string equals the Go rendering.
func TestHandoverPandas(t *testing.T) {
	py := python(t)
	tb := readSample(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "evalmd_table.py"), []byte(LoaderPy), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, head := range []int{-1, 1} {
		h := tb.Head(head)
		var buf bytes.Buffer
		if err := WriteHandover(&buf, h); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "t"+HandoverSuffix)
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		script := `
import json, sys, datetime
import numpy as np
from numpy import array
from evalmd_table import load
df = load(sys.argv[1])
out = {"columns": {c: [str(df[c].dtype), repr(df[c].tolist())] for c in df.columns},
       "index": [repr(df.index.tolist()), repr(df.index.name)],
       "text": df.to_string(index=False)}
print(json.dumps(out))
`
		cmd := exec.Command(py, "-c", script, path)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("loader: %v\n%s", err, out)
		}
		var got struct {
			Columns map[string][2]string
			Index   [2]string
			Text    string
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if head < 0 {
			for _, e := range expect {
				g := got.Columns[e.name]
				if g[0] != e.dtype || g[1] != e.values {
					t.Errorf("column %s: pandas has %s %s\n                want %s %s", e.name, g[0], g[1], e.dtype, e.values)
				}
			}
			if got.Index != [2]string{"[10, 20, 30]", "None"} {
				t.Errorf("index %v", got.Index)
			}
		} else if g := got.Columns["ni"]; g[0] != "float64" || g[1] != "[3.0]" {
			// head(1) of a nullable int column keeps the whole column's dtype.
			t.Errorf("head(1) ni: %v", g)
		}
		text, err := h.String(Pandas)
		if err != nil {
			t.Fatal(err)
		}
		if text != got.Text {
			t.Errorf("head %d: Go rendering differs from pandas' to_string:\n%s\n--- pandas:\n%s", head, text, got.Text)
		}
	}
}

// TestHandoverDir hands a question's files over into a folder and reads
// them in Python the ways sandboxed code does: pd.read_parquet after
// install(), load() of a CSV, load() of the hand-over file itself.
func TestHandoverDir(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	pq := filepath.Join(src, "all.parquet")
	data := writeParquet(t, sampleRows(), parquet.KeyValueMetadata("pandas", pandasMetaJSON))
	if err := os.WriteFile(pq, data, 0o644); err != nil {
		t.Fatal(err)
	}
	csvPath := filepath.Join(src, "t.csv")
	if err := os.WriteFile(csvPath, []byte("a,b\n1,x\n2,y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hs, err := WriteHandoverDir(t.Context(), dir, []string{pq, csvPath}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Handover{{pq, "all.parquet", filepath.Join(dir, "all.parquet"+HandoverSuffix)}, {csvPath, "t.csv", ""}}
	if len(hs) != 2 || hs[0] != want[0] || hs[1] != want[1] {
		t.Fatalf("handovers %+v, want %+v", hs, want)
	}
	if got, err := os.ReadFile(filepath.Join(dir, loaderModule)); err != nil || string(got) != LoaderPy {
		t.Fatalf("loader not written: %v", err)
	}
	// A second question's hand-over into the same folder replaces the first.
	if _, err := WriteHandoverDir(t.Context(), dir, []string{pq}, Options{}); err != nil {
		t.Fatalf("second hand-over into the same folder: %v", err)
	}

	py := python(t)
	script := `
import json, sys
import pandas as pd
sys.path.insert(0, sys.argv[1])
import evalmd_table
evalmd_table.install(handover_dir=sys.argv[1])
df = pd.read_parquet(sys.argv[2])
sub = pd.read_parquet(sys.argv[2], columns=["ny", "d"])
direct = evalmd_table.load(sys.argv[3])
csv = evalmd_table.load(sys.argv[4])
print(json.dumps({"dtypes": {c: str(t) for c, t in df.dtypes.items()},
                  "sub": list(sub.columns), "same": bool(direct.equals(df)),
                  "csv": [str(t) for t in csv.dtypes]}))
`
	out, err := exec.Command(py, "-c", script, dir, pq, hs[0].File, csvPath).CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	var got struct {
		Dtypes map[string]string
		Sub    []string
		Same   bool
		CSV    []string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, e := range expect {
		if got.Dtypes[e.name] != e.dtype {
			t.Errorf("pd.read_parquet column %s: dtype %s, want %s", e.name, got.Dtypes[e.name], e.dtype)
		}
	}
	if strings.Join(got.Sub, ",") != "ny,d" || !got.Same || strings.Join(got.CSV, ",") != "int64,object" {
		t.Errorf("columns= %v, load(hand-over) equals read_parquet %v, csv dtypes %v", got.Sub, got.Same, got.CSV)
	}
}

func TestHandoverDirErrors(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	a := filepath.Join(src, "a", "x.parquet")
	b := filepath.Join(src, "b", "x.parquet")
	bad := filepath.Join(src, "bad.parquet")
	data := writeParquet(t, sampleRows())
	for _, p := range []string{a, b} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(bad, []byte("PAR1 not parquet PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		paths []string
		want  string
	}{
		{[]string{a, b}, "have the same name"},
		{[]string{bad}, "bad.parquet"},
		{[]string{filepath.Join(src, "missing.parquet")}, "missing.parquet"},
	} {
		if _, err := WriteHandoverDir(t.Context(), dir, tc.paths, Options{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error with %q", tc.paths, err, tc.want)
		}
	}
	// A file in the folder that evalmd did not write is kept.
	if err := os.WriteFile(filepath.Join(dir, "x.parquet"+HandoverSuffix), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteHandoverDir(t.Context(), dir, []string{a}, Options{}); err == nil {
		t.Error("wrote over a file evalmd did not write")
	}
}
