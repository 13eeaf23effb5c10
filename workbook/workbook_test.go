package workbook

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/py"
	"github.com/evalmd/evalmd/internal/testkit/shared"
)

func TestFrames(t *testing.T) {
	for _, tc := range frameCases {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			bw := bufio.NewWriter(&b)
			if err := renderSheet(bw, tc.rows, Options{}.withDefaults()); err != nil {
				t.Fatal(err)
			}
			bw.Flush()
			if got := b.String(); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestFromExcel(t *testing.T) {
	for _, tc := range fromExcelCases {
		got, ok := fromExcel(tc.serial, tc.mac, false)
		if tc.want.k == kEmpty {
			if ok {
				t.Errorf("fromExcel(%v, mac=%v) = %s, want overflow", tc.serial, tc.mac, got.pyStr())
			}
			continue
		}
		if !ok || got != tc.want {
			t.Errorf("fromExcel(%v, mac=%v) = %s (ok=%v), want %s", tc.serial, tc.mac, got.pyStr(), ok, tc.want.pyStr())
		}
	}
}

func TestIsDateFormat(t *testing.T) {
	for _, tc := range dateFormatCases {
		if got := isDateFormat(tc.format); got != tc.want {
			t.Errorf("isDateFormat(%q) = %v, want %v", tc.format, got, tc.want)
		}
	}
}

// pointThree is 0.1+0.2 computed at run time (constants would be exact).
func pointThree() float64 {
	a, b := 0.1, 0.2
	return a + b
}

func TestPyRepr(t *testing.T) {
	// Python 3.11 repr() of each value.
	cases := []struct {
		f    float64
		want string
	}{
		{0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {1, "1.0"}, {-2.5, "-2.5"},
		{pointThree(), "0.30000000000000004"}, {1e-4, "0.0001"}, {1e-5, "1e-05"},
		{1.5e-7, "1.5e-07"}, {1e15, "1000000000000000.0"}, {1e16, "1e+16"},
		{1.2345e22, "1.2345e+22"}, {123456789.125, "123456789.125"},
		{math.Inf(1), "inf"}, {math.NaN(), "nan"},
	}
	for _, c := range cases {
		if got := py.Repr(c.f); got != c.want {
			t.Errorf("py.Repr(%v) = %q, want %q", c.f, got, c.want)
		}
	}
}

func TestParseNumber(t *testing.T) {
	cases := []struct {
		s     string
		f     float64
		isInt bool
		ok    bool
	}{
		{"1", 1, true, true}, {" 2 ", 2, true, true}, {"+3", 3, true, true},
		{"-4.5", -4.5, false, true}, {"1e3", 1000, false, true}, {".5", 0.5, false, true},
		{"5.", 5, false, true}, {"inf", math.Inf(1), false, true}, {"-Infinity", math.Inf(-1), false, true},
		{"abc", 0, false, false}, {"1,000", 0, false, false}, {"0x7", 0, false, false},
		{"", 0, false, false}, {".", 0, false, false}, {"1e", 0, false, false},
		{"99999999999999999999", 0, false, false}, {"1e400", 0, false, false},
		{"1e-400", 0, false, true}, {"1_000", 0, false, false}, {"INF", math.Inf(1), false, true},
	}
	for _, c := range cases {
		f, isInt, _, ok := parseNumber(c.s)
		if ok != c.ok || (ok && (f != c.f || isInt != c.isInt)) {
			t.Errorf("parseNumber(%q) = %v, %v, %v; want %v, %v, %v", c.s, f, isInt, ok, c.f, c.isInt, c.ok)
		}
	}
}

// zipFile builds a zip archive from name/content pairs.
func zipFile(t testing.TB, parts map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, content := range parts {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// minimalXLSX is a one-sheet workbook whose sheet XML is sheet.
func minimalXLSX(t testing.TB, sheet string) []byte {
	return zipFile(t, map[string]string{
		"[Content_Types].xml":        `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>`,
		"xl/workbook.xml":            `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels": `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
		"xl/worksheets/sheet1.xml":   sheet,
	})
}

func renderBytes(data []byte, opts Options) (string, error) {
	var b strings.Builder
	err := RenderReader(context.Background(), &b, "test.xlsx", bytes.NewReader(data), int64(len(data)), opts)
	return b.String(), err
}

func TestRenderXML(t *testing.T) {
	// Cells without r attributes follow openpyxl's counters; inline strings,
	// t="str" and t="d" cells, error cells as NaN, rich text without the
	// phonetic run. Expected text from pandas 1.5.3 on the same XML.
	sheet := `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` +
		`<row><c t="inlineStr"><is><t>name</t></is></c><c t="inlineStr"><is><r><t>va</t></r><r><t>l</t></r><rPh sb="0" eb="1"><t>x</t></rPh></is></c></row>` +
		`<row><c t="str"><v>a</v></c><c><v>1.0</v></c></row>` +
		`<row r="4"><c r="A4" t="d"><v>2020-01-02T03:04:05</v></c><c r="B4" t="e"><v>#DIV/0!</v></c></row>` +
		`</sheetData></worksheet>`
	got, err := renderBytes(minimalXLSX(t, sheet), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "Sheet name: S\n" +
		"               name  val\n" +
		"                  a  1.0\n" +
		"                NaN  NaN\n" +
		"2020-01-02 03:04:05  NaN\n\n"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cfb := append([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, make([]byte, 512)...)
	bigRow := `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` +
		strings.Repeat(`<row><c t="inlineStr"><is><t>aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa</t></is></c></row>`, 20000) +
		`</sheetData></worksheet>`
	wide := `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` +
		`<row r="1"><c r="ZZ1"><v>1</v></c></row><row r="500"><c r="A500"><v>1</v></c></row></sheetData></worksheet>`
	cases := []struct {
		name string
		data []byte
		opts Options
		want error
		text string
	}{
		{"legacy.xls", cfb, Options{}, ErrUnsupported, "CFB"},
		{"plain.txt", []byte("just some text"), Options{}, ErrUnsupported, "not a zip"},
		{"other.zip", zipFile(t, map[string]string{"a.txt": "x"}), Options{}, ErrUnsupported, "without xl/workbook"},
		{"bomb.xlsx", minimalXLSX(t, bigRow), Options{MaxUncompressed: 100_000}, ErrTooLarge, "bytes"},
		{"wide.xlsx", minimalXLSX(t, wide), Options{MaxCells: 10_000}, ErrTooLarge, "cells"},
		{"corrupt.xlsx", append([]byte("PK\x03\x04"), bytes.Repeat([]byte{1}, 100)...), Options{}, nil, "corrupt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := write(c.name, c.data)
			var b strings.Builder
			err := RenderTo(context.Background(), &b, p, c.opts)
			if err == nil {
				t.Fatalf("no error; output %q", b.String())
			}
			if c.want != nil && !errors.Is(err, c.want) {
				t.Errorf("error %v does not wrap %v", err, c.want)
			}
			if !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), c.text) {
				t.Errorf("error %q should name the file and say %q", err, c.text)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

func TestCancel(t *testing.T) {
	p := shared.Path(t, "corpora", "workbooks", "files", "bug62181.xlsx")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := RenderTo(ctx, &strings.Builder{}, p, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// BenchmarkRender renders a few corpus workbooks of different shapes.
func BenchmarkRender(b *testing.B) {
	for _, name := range []string{"bug62181.xlsx", "57181.xlsm", "formula_stress_test.xlsx", "62815.xlsb"} {
		p := shared.Path(b, "corpora", "workbooks", "files", name)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Render(b.Context(), p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzParseNumber checks that pandas' number parsing never panics and that
// what it accepts round-trips through strconv.
func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"1", " 2.5 ", "-1e-3", "inf", "abc", ".", "1e", "+.5e+2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, isInt, iv, ok := parseNumber(s)
		if ok && isInt && float64(iv) != v && !math.IsInf(v, 0) {
			if math.Abs(float64(iv)-v) > math.Abs(v)*1e-15 {
				t.Errorf("parseNumber(%q): int %d and float %v disagree", s, iv, v)
			}
		}
	})
}

// FuzzIsDateFormat checks the number-format classifier on arbitrary codes.
func FuzzIsDateFormat(f *testing.F) {
	for _, c := range dateFormatCases {
		f.Add(c.format)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = isDateFormat(s)
		_ = stripFormat(s)
	})
}

// FuzzRender feeds arbitrary bytes, and sheet XML inside a valid package,
// to the reader: malformed input must give an error, never a panic.
func FuzzRender(f *testing.F) {
	f.Add([]byte("PK\x03\x04"), `<worksheet><sheetData><row><c><v>1</v></c></row></sheetData></worksheet>`)
	f.Add([]byte{}, `<worksheet><sheetData><row r="2"><c r="B2" t="s"><v>0</v></c><c t="inlineStr"><is><t>x</t></is></c></row></sheetData></worksheet>`)
	f.Add([]byte{}, `<worksheet><sheetData><row r="x"><c r="1A"/></row><row><c t="b"><v>z</v></c><c t="d"><v>2020-13-45</v></c></row></sheetData></worksheet>`)
	f.Fuzz(func(t *testing.T, raw []byte, sheet string) {
		opts := Options{MaxUncompressed: 1 << 20, MaxCells: 100_000}
		_, _ = renderBytes(raw, opts)
		_, _ = renderBytes(minimalXLSX(t, sheet), opts)
	})
}
