package xlsb

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"maps"
	"math"
	"slices"
	"testing"
	"unicode/utf16"
)

// This file holds an independent encoder for BIFF12 records and a builder
// for tiny in-memory .xlsb packages, so tests control every byte.

// varint encodes v in 7-bit groups, low group first, continuation bit set on
// all but the last byte.
func varint(v int) []byte {
	var out []byte
	for {
		b := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(out, b)
		}
		out = append(out, b|0x80)
	}
}

// rec encodes one record from its type and payload pieces.
func rec(typ int, parts ...[]byte) []byte {
	var body []byte
	for _, p := range parts {
		body = append(body, p...)
	}
	out := append(varint(typ), varint(len(body))...)
	return append(out, body...)
}

func le16(v uint16) []byte { return binary.LittleEndian.AppendUint16(nil, v) }
func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func le64f(f float64) []byte {
	return binary.LittleEndian.AppendUint64(nil, math.Float64bits(f))
}

// wstr encodes an XLWideString.
func wstr(s string) []byte {
	u := utf16.Encode([]rune(s))
	out := le32(uint32(len(u)))
	for _, c := range u {
		out = binary.LittleEndian.AppendUint16(out, c)
	}
	return out
}

// cellHdr encodes the Cell structure that starts every cell record.
func cellHdr(col, style uint32) []byte {
	return append(le32(col), le32(style&0xFFFFFF)...)
}

// fmlaTail is what follows a formula cell's value: grbitFlags, then an
// empty CellParsedFormula (cce = 0, cb = 0).
func fmlaTail() []byte {
	return append(append(le16(0), le32(0)...), le32(0)...)
}

func rowHdr(r uint32) []byte {
	// rw, ixfe, miyRw, flags...: only rw matters to the reader, the rest
	// is padding of a realistic length.
	return rec(brtRowHdr, le32(r), le32(0), le16(300), []byte{0, 0, 0}, le32(0))
}

func wsDim(r1, r2, c1, c2 uint32) []byte {
	return rec(brtWsDim, le32(r1), le32(r2), le32(c1), le32(c2))
}

func concat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// zipBytes builds a zip holding the parts, in name order.
func zipBytes(parts map[string][]byte) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range slices.Sorted(maps.Keys(parts)) {
		w, err := zw.Create(n)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(parts[n]); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// zipParts is zipBytes for tests.
func zipParts(t testing.TB, parts map[string][]byte) []byte {
	t.Helper()
	z, err := zipBytes(parts)
	if err != nil {
		t.Fatal(err)
	}
	return z
}

const (
	relWorksheet  = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet"
	relChartsheet = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/chartsheet"
	relSST        = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings"
	relStyles     = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles"
	relOfficeDoc  = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
)

// fixtureSheet1 is the cell table of sheet "Data" in the fixture: every
// cell record type, every RK form, a row gap, a blank cell widening the
// extent, records the reader must skip, and records after the end of the
// cell table that it must ignore.
func fixtureSheet1() []byte {
	return concat(
		rec(129), // BrtBeginSheet
		wsDim(0, 4, 0, 5),
		rec(145), // BrtBeginSheetData
		rowHdr(0),
		rec(brtCellRk, cellHdr(0, 0), le32(5<<2|2)),      // int 5
		rec(brtCellRk, cellHdr(1, 0), le32(12345<<2|3)),  // int 12345 / 100
		rec(brtCellRk, cellHdr(2, 0), le32(0x3FF80000)),  // double 1.5
		rec(brtCellRk, cellHdr(3, 0), le32(0x3FF80001)),  // double 1.5 / 100
		rec(brtCellReal, cellHdr(4, 1), le64f(-2.25e10)), // style 1: custom date format
		rec(1024, []byte{1, 2, 3}),                       // unknown record: skipped
		rowHdr(1),
		rec(brtCellError, cellHdr(0, 0), []byte{0x07}),
		rec(brtCellBool, cellHdr(1, 0), []byte{1}),
		rec(brtCellBool, cellHdr(2, 0), []byte{0}),
		rec(brtCellSt, cellHdr(3, 0), wstr("inline ☃")),
		rec(brtCellIsst, cellHdr(4, 0), le32(1)),
		rowHdr(3),
		rec(brtFmlaString, cellHdr(0, 0), wstr("f-str"), fmlaTail()),
		rec(brtFmlaNum, cellHdr(1, 2), le64f(3.25), fmlaTail()), // style 2: built-in 14
		rec(brtFmlaBool, cellHdr(2, 0), []byte{1}, fmlaTail()),
		rec(brtFmlaError, cellHdr(3, 0), []byte{0x2A}, fmlaTail()),
		rec(brtCellBlank, cellHdr(5, 4)), // style 4: built-in 10
		rowHdr(4),
		rec(brtCellRString, cellHdr(0, 0), []byte{0}, wstr("rich")), // ignored, as pyxlsb does
		rec(146), // BrtEndSheetData
		rowHdr(9),
		rec(brtCellRk, cellHdr(9, 0), le32(1<<2|2)), // after the cell table: ignored
		rec(130), // BrtEndSheet
	)
}

// fixtureParts is a small but complete .xlsb: three sheets (one hidden,
// one a chartsheet), a bundle record after the sheet list that must be
// ignored, shared strings with a rich-text item, and styles with custom
// and built-in number formats.
func fixtureParts() map[string][]byte {
	workbook := concat(
		rec(131), // BrtBeginBook
		rec(143), // BrtBeginBundleShs
		rec(brtBundleSh, le32(0), le32(1), wstr("rId1"), wstr("Data")),
		rec(brtBundleSh, le32(1), le32(3), wstr("rId3"), wstr("Hidden")),
		rec(brtBundleSh, le32(0), le32(2), wstr("rId2"), wstr("Chart1")),
		rec(brtEndBundleShs),
		rec(brtBundleSh, le32(0), le32(9), wstr("rId1"), wstr("NotASheet")),
		rec(132), // BrtEndBook
	)
	xf := func(ifmt uint16) []byte {
		return rec(brtXF, le16(0xFFFF), le16(ifmt), make([]byte, 12))
	}
	styles := concat(
		rec(278),          // BrtBeginStyleSheet
		rec(615, le32(1)), // BrtBeginFmts
		rec(brtFmt, le16(164), wstr("yyyy-mm-dd")), // custom format
		rec(616),                                   // BrtEndFmts
		rec(brtBeginCellStyleXFs, le32(1)), xf(10), // style XFs: not indexed by cells
		rec(brtEndCellStyleXFs),
		rec(brtBeginCellXFs, le32(5)),
		xf(0), xf(164), xf(14), xf(200), xf(10),
		rec(brtEndCellXFs),
		rec(279), // BrtEndStyleSheet
	)
	sst := concat(
		rec(159, le32(2), le32(2)), // BrtBeginSst
		rec(brtSSTItem, []byte{0}, wstr("alpha")),
		// fRichStr set: formatting runs follow the string and are skipped.
		rec(brtSSTItem, []byte{1}, wstr("β-😀"), le32(1), le16(0), le16(0)),
		rec(160), // BrtEndSst
	)
	return map[string][]byte{
		"[Content_Types].xml": []byte(`<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`),
		"_rels/.rels": []byte(`<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="` + relOfficeDoc + `" Target="xl/workbook.bin"/></Relationships>`),
		"xl/_rels/workbook.bin.rels": []byte(`<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="` + relWorksheet + `" Target="worksheets/sheet1.bin"/>` +
			`<Relationship Id="rId2" Type="` + relChartsheet + `" Target="chartsheets/sheet1.bin"/>` +
			`<Relationship Id="rId3" Type="` + relWorksheet + `" Target="/xl/worksheets/sheet2.bin"/>` +
			`<Relationship Id="rId4" Type="` + relSST + `" Target="sharedStrings.bin"/>` +
			`<Relationship Id="rId5" Type="` + relStyles + `" Target="styles.bin"/>` +
			`</Relationships>`),
		"xl/workbook.bin":           workbook,
		"xl/styles.bin":             styles,
		"xl/sharedStrings.bin":      sst,
		"xl/worksheets/sheet1.bin":  fixtureSheet1(),
		"xl/worksheets/sheet2.bin":  concat(rec(129), wsDim(0, 0, 0, 0), rec(145), rec(146), rec(130)),
		"xl/chartsheets/sheet1.bin": concat(rec(433), rec(434)),
	}
}

// withParts returns the fixture with some parts replaced (nil deletes).
func withParts(over map[string][]byte) map[string][]byte {
	p := fixtureParts()
	for k, v := range over {
		if v == nil {
			delete(p, k)
		} else {
			p[k] = v
		}
	}
	return p
}

func openParts(t testing.TB, parts map[string][]byte) (*Workbook, error) {
	t.Helper()
	z := zipParts(t, parts)
	return OpenReader(bytes.NewReader(z), int64(len(z)))
}
