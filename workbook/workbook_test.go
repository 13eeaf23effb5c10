package workbook

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/shared"
)

func TestFromExcel(t *testing.T) {
	for _, tc := range fromExcelCases {
		got, ok := fromExcel(tc.serial, tc.mac, false)
		if tc.want == E {
			if ok {
				t.Errorf("fromExcel(%v, mac=%v) = %s, want overflow", tc.serial, tc.mac, got.String())
			}
			continue
		}
		if !ok || got != tc.want {
			t.Errorf("fromExcel(%v, mac=%v) = %s (ok=%v), want %s", tc.serial, tc.mac, got.String(), ok, tc.want.String())
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
