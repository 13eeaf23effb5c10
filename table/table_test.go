package table

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var csvCases = []struct{ name, text string }{
	{"ints", "a,b\n1,2\n3,4\n"},
	{"mixed", "id,score,name,flag\n1,2.5,x,True\n2,,\"y, z\",False\n3,1e7,NA,true\n"},
	{"dups and blanks", "x,x,\n1,,a\n\n2,3,b\n"},
	{"short rows", "a,b,c\n1\n2,3\n"},
	{"big floats", "v\n123456789.123\n0.000001\n1\n"},
	{"empty", "a,b\n"},
	{"quotes and newlines", "q,n\n\"line\nbreak\",1\n\"tab\there\",2\n"},
	{"typed past the head", "f,o,n,b\n1,1,1,True\n2,2,2,False\n2.5,x,,maybe\n"},
}

// TestCSVPandas compares the rendering of text tables, whole and their
// first two rows, with pandas' read_csv(...).to_string(index=False) and
// read_csv(...).head(2).to_string(index=False).
func TestCSVPandas(t *testing.T) {
	py := python(t)
	dir := t.TempDir()
	var paths []string
	for i, c := range csvCases {
		p := filepath.Join(dir, "t"+string(rune('a'+i))+".csv")
		if err := os.WriteFile(p, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	script := `
import json, sys
import pandas as pd
print(json.dumps([[pd.read_csv(p).to_string(index=False), pd.read_csv(p).head(2).to_string(index=False)] for p in sys.argv[1:]]))
`
	out, err := exec.Command(py, append([]string{"-c", script}, paths...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("pandas: %v\n%s", err, out)
	}
	var want [][2]string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	for i, c := range csvCases {
		tb, err := Read(t.Context(), paths[i], Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for k, h := range []*Table{tb, tb.Head(2)} {
			got, err := h.String(Pandas)
			if err != nil {
				t.Fatal(err)
			}
			if got != want[i][k] {
				t.Errorf("%s (%d rows):\n%s\n--- pandas:\n%s", c.name, h.Rows, got, want[i][k])
			}
		}
	}
}

func TestFormats(t *testing.T) {
	tb, err := readCSV(t.Context(), strings.NewReader("a,b\n1,\"x|y\"\n2,\"p\nq\"\n3,z\n"), "t.csv", ',', Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := tb.Head(2)
	for _, tc := range []struct {
		f    Format
		want string
	}{
		{Pandas, " a    b\n 1  x|y\n 2 p\\nq"},
		{CSV, "a,b\n1,x|y\n2,\"p\nq\"\n"},
		{Markdown, "| a | b |\n| --- | --- |\n| 1 | x\\|y |\n| 2 | p<br>q |\n"},
	} {
		got, err := h.String(tc.f)
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.f, got, err, tc.want)
		}
	}
	if tb.Head(-1) != tb || tb.Head(10) != tb || tb.Head(0).Rows != 0 {
		t.Error("Head: all rows for n < 0 or n >= Rows, none for 0")
	}
	if _, err := ParseFormat("html"); err == nil {
		t.Error("ParseFormat(html): no error")
	}
	if f, err := ParseFormat(""); f != Pandas || err != nil {
		t.Errorf("ParseFormat(\"\") = %q, %v", f, err)
	}
}

func TestParquetFormats(t *testing.T) {
	tb := readSample(t)
	got, err := tb.Head(1).String(CSV)
	if err != nil {
		t.Fatal(err)
	}
	want := "i64,i32,i8,u16,ni,f64,f32,nf,b,nb,s,ns,ts,tz,ny,d,l,lo,ls,lf\n" +
		"1,-5,7,65535,3.0,1.5,0.10000000149011612,2.25,True,True,a b,x,2020-01-02 03:04:05.000006," +
		"2020-01-02 03:04:05.000006500+00:00,2020-01-01 22:04:05-05:00,2020-01-02,\"[1, 2]\",\"[1.0, nan]\",\"[p, q\nr]\",\"[0.5, 1e+20]\"\n"
	if got != want {
		t.Errorf("csv:\n%q\nwant\n%q", got, want)
	}
}

func TestJSONLines(t *testing.T) {
	in := `{"a": 1, "b": "x", "c": true, "d": 1.5}

{"a": 2, "c": false, "d": 2, "e": [1]}
{"a": null, "b": "y", "c": null, "d": null, "e": {"k": 1}}
`
	tb, err := readJSONLines(t.Context(), strings.NewReader(in), "t.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, c := range tb.Columns {
		types = append(types, c.Name+":"+c.Type.String())
	}
	if got := strings.Join(types, " "); got != "a:int b:string c:bool d:float e:string" || tb.Rows != 3 {
		t.Errorf("columns %s rows %d", got, tb.Rows)
	}
	got, err := tb.String(Pandas)
	want := "  a    b     c   d        e\n1.0    x  True 1.5     None\n2.0 None False 2.0      [1]\nNaN    y  None NaN {\"k\": 1}"
	if err != nil || got != want {
		t.Errorf("pandas:\n%s\nwant\n%s", got, want)
	}
}

func TestErrors(t *testing.T) {
	ctx := t.Context()
	for _, tc := range []struct {
		name, text, want string
	}{
		{"long row", "a,b\n1,2\n1,2,3\n", "t.csv:3: 3 fields, the header has 2"},
		{"bad quote", "a\n\"x\n", "t.csv"},
		{"not utf8", "a\n\xff\n", "t.csv:2: text is not UTF-8"},
	} {
		_, err := readCSV(ctx, strings.NewReader(tc.text), "t.csv", ',', Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := readCSV(ctx, strings.NewReader("a,b\n1,2\n3,4\n"), "t.csv", ',', Options{MaxValues: 3}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("MaxValues: %v", err)
	}
	for _, text := range []string{"{\"a\":1}\n[1]\n", "{\"a\":1} x\n", "{\"a\":1,\"a\":2}\n"} {
		if _, err := readJSONLines(ctx, strings.NewReader(text), "t.jsonl", Options{}); err == nil || !strings.Contains(err.Error(), "t.jsonl:") {
			t.Errorf("%q: %v", text, err)
		}
	}
	if _, err := readParquet(ctx, strings.NewReader("PAR1 not really PAR1"), 20, "x.parquet", Options{}); err == nil || !strings.Contains(err.Error(), "x.parquet") {
		t.Errorf("corrupt parquet: %v", err)
	}
	type inner struct{ A int64 }
	type nested struct {
		S inner `parquet:"s"`
	}
	data := writeParquet(t, []nested{{}})
	if _, err := readParquet(ctx, bytes.NewReader(data), int64(len(data)), "n.parquet", Options{}); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), `column "s"`) {
		t.Errorf("struct column: %v", err)
	}
	type bin struct {
		B []byte `parquet:"b"`
	}
	data = writeParquet(t, []bin{{B: []byte{1}}})
	if _, err := readParquet(ctx, bytes.NewReader(data), int64(len(data)), "b.parquet", Options{}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("binary column: %v", err)
	}
	data = writeParquet(t, sampleRows())
	if _, err := readParquet(ctx, bytes.NewReader(data), int64(len(data)), "s.parquet", Options{MaxValues: 10}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("MaxValues: %v", err)
	}
	if _, err := Read(ctx, "x.xls", Options{}); err == nil {
		t.Error("Read of a missing .xls: no error")
	}
	if err := WriteHandover(&bytes.Buffer{}, &Table{Name: "t.csv", Text: true}); err == nil {
		t.Error("WriteHandover of a text table: no error")
	}
}
