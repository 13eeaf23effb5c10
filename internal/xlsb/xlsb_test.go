package xlsb

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestRecordReader(t *testing.T) {
	tests := []struct {
		name    string
		in      []byte
		want    []record // typ and data only
		wantErr string
	}{
		{name: "empty part", in: nil},
		{name: "one-byte type and size", in: []byte{0x07, 0x02, 0xAA, 0xBB},
			want: []record{{typ: 7, data: []byte{0xAA, 0xBB}}}},
		{name: "two-byte type", in: append([]byte{0x94, 0x01, 0x00}, rec(146)...), // 0x94 0x01 = 148
			want: []record{{typ: 148, data: []byte{}}, {typ: 146, data: []byte{}}}},
		{name: "two-byte size", in: append([]byte{0x05, 0x81, 0x01}, make([]byte, 129)...),
			want: []record{{typ: 5, data: make([]byte, 129)}}},
		{name: "encoder round trip", in: concat(rec(617, le32(3)), rec(0x3FFF, make([]byte, 300))),
			want: []record{{typ: 617, data: le32(3)}, {typ: 0x3FFF, data: make([]byte, 300)}}},
		{name: "type longer than two bytes", in: []byte{0x80, 0x80, 0x01, 0x00}, wantErr: "record type at offset 0: longer than 2 bytes"},
		{name: "size longer than four bytes", in: []byte{0x01, 0x80, 0x80, 0x80, 0x80, 0x01}, wantErr: "size: longer than 4 bytes"},
		{name: "header cut short", in: []byte{0x01, 0x00, 0x85}, wantErr: "record type at offset 2: cut short"},
		{name: "size cut short", in: []byte{0x01, 0x85}, wantErr: "record 1 at offset 0: size: cut short"},
		{name: "payload past end", in: concat(rec(1), []byte{0x02, 0x05, 1, 2}), wantErr: "record 2 at offset 2: payload of 5 bytes runs past the end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rr := recordReader{buf: tt.in}
			var got []record
			var err error
			for {
				var r record
				var ok bool
				r, ok, err = rr.next()
				if err != nil || !ok {
					break
				}
				got = append(got, record{typ: r.typ, data: r.data})
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d records, want %d", len(got), len(tt.want))
			}
			for i := range got {
				if got[i].typ != tt.want[i].typ || !bytes.Equal(got[i].data, tt.want[i].data) {
					t.Errorf("record %d: got type %d len %d, want type %d len %d", i, got[i].typ, len(got[i].data), tt.want[i].typ, len(tt.want[i].data))
				}
			}
		})
	}
}

func TestRKNumber(t *testing.T) {
	neg := func(v int32) uint32 { return uint32(v << 2) }
	tests := []struct {
		name string
		raw  uint32
		want float64
	}{
		{"int", 5<<2 | 2, 5},
		{"int zero", 2, 0},
		{"negative int", neg(-7) | 2, -7},
		{"largest int", 536870911<<2 | 2, 536870911},
		{"smallest int", neg(-536870912) | 2, -536870912},
		{"int x100", 12345<<2 | 3, 123.45},
		{"negative int x100", neg(-1) | 3, -0.01},
		{"double", 0x3FF80000, 1.5},
		{"double x100", 0x3FF80001, 0.015},
		{"negative double", 0xC0240000, -10},
		{"double keeps low bits zero", 0x40934A44, math.Float64frombits(0x40934A4400000000)},
	}
	for _, tt := range tests {
		if got := rkNumber(tt.raw); got != tt.want {
			t.Errorf("%s: rkNumber(%#x) = %v, want %v", tt.name, tt.raw, got, tt.want)
		}
	}
}

func TestFixtureWorkbook(t *testing.T) {
	w, err := openParts(t, fixtureParts())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	wantSheets := []Sheet{{"Data", false}, {"Hidden", false}, {"Chart1", true}}
	if got := w.Sheets(); !reflect.DeepEqual(got, wantSheets) {
		t.Errorf("Sheets() = %v, want %v", got, wantSheets)
	}

	num := func(v float64, f string) Cell { return Cell{Kind: Number, Num: v, NumFmt: f} }
	str := func(s string) Cell { return Cell{Kind: String, Str: s, NumFmt: "General"} }
	bl := func(b bool) Cell { return Cell{Kind: Bool, Bool: b, NumFmt: "General"} }
	er := func(e byte) Cell { return Cell{Kind: Error, Err: e, NumFmt: "General"} }
	var none Cell
	want := [][]Cell{
		{num(5, "General"), num(123.45, "General"), num(1.5, "General"), num(0.015, "General"), num(-2.25e10, "yyyy-mm-dd"), none},
		{er(0x07), bl(true), bl(false), str("inline ☃"), str("β-😀"), none},
		{none, none, none, none, none, none},
		{str("f-str"), num(3.25, "mm-dd-yy"), bl(true), er(0x2A), none, {Kind: Empty, NumFmt: "0.00%"}},
	}
	rows, err := w.Rows("Data")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(want) {
		t.Fatalf("Rows: %d rows, want %d", len(rows), len(want))
	}
	for r := range want {
		if len(rows[r]) != len(want[r]) {
			t.Errorf("row %d: %d cells, want %d", r, len(rows[r]), len(want[r]))
			continue
		}
		for c := range want[r] {
			if rows[r][c] != want[r][c] {
				t.Errorf("cell (%d,%d) = %+v, want %+v", r, c, rows[r][c], want[r][c])
			}
		}
	}
	if r, c, err := w.Dimension("Data"); err != nil || r != 5 || c != 6 {
		t.Errorf("Dimension(Data) = %d, %d, %v; want 5, 6, nil", r, c, err)
	}

	if rows, err := w.Rows("Hidden"); err != nil || len(rows) != 0 {
		t.Errorf("Rows(Hidden) = %v, %v; want no rows", rows, err)
	}
	if r, c, err := w.Dimension("Hidden"); err != nil || r != 1 || c != 1 {
		t.Errorf("Dimension(Hidden) = %d, %d, %v; want 1, 1, nil", r, c, err)
	}
	if rows, err := w.Rows("Chart1"); err != nil || rows != nil {
		t.Errorf("Rows(Chart1) = %v, %v; want nil, nil", rows, err)
	}
	if _, err := w.Rows("NotASheet"); err == nil || !strings.Contains(err.Error(), `no sheet named "NotASheet"`) {
		t.Errorf("Rows(NotASheet) error = %v", err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestDefaultParts checks a package without relationship parts: the
// workbook, shared strings and styles are found at their usual names,
// which is all pyxlsb looks at.
func TestDefaultParts(t *testing.T) {
	w, err := openParts(t, withParts(map[string][]byte{"_rels/.rels": nil, "xl/_rels/workbook.bin.rels": nil}))
	if err != nil {
		t.Fatal(err)
	}
	got := w.Sheets()
	if len(got) != 3 || got[2].Chart {
		t.Errorf("Sheets() = %v, want 3 sheets, no chart known without rels", got)
	}
	if _, err := w.Rows("Data"); err == nil || !strings.Contains(err.Error(), `relationship "rId1" not found`) {
		t.Errorf("Rows without rels: error %v", err)
	}
}

func TestOpenFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fixture.xlsb")
	if err := os.WriteFile(path, zipParts(t, fixtureParts()), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := openFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if rows, err := w.Rows("Data"); err != nil || len(rows) != 4 {
		t.Errorf("Rows(Data) from file: %d rows, %v", len(rows), err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := openFile(filepath.Join(t.TempDir(), "missing.xlsb")); err == nil {
		t.Error("Open of a missing file succeeded")
	}
	// A corrupt file names itself.
	bad := filepath.Join(t.TempDir(), "bad.xlsb")
	p := withParts(map[string][]byte{"xl/worksheets/sheet1.bin": concat(rowHdr(0), rec(brtCellIsst, cellHdr(0, 0), le32(99)))})
	if err := os.WriteFile(bad, zipParts(t, p), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err = openFile(bad)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	_, err = w.Rows("Data")
	for _, s := range []string{bad, "part xl/worksheets/sheet1.bin", "offset 19", "shared string index 99"} {
		if err == nil || !strings.Contains(err.Error(), s) {
			t.Errorf("error %v does not name %q", err, s)
		}
	}
}

// rawZip builds a zip whose single part's header claims an uncompressed
// size of claim bytes while its data deflates to data.
func rawZip(t *testing.T, name string, data []byte, claim uint64) []byte {
	t.Helper()
	var comp bytes.Buffer
	fw, err := flate.NewWriter(&comp, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(data)
	fw.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Deflate,
		CompressedSize64: uint64(comp.Len()), UncompressedSize64: claim})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(comp.Bytes())
	zw.Close()
	return buf.Bytes()
}

func TestLimits(t *testing.T) {
	zeros := make([]byte, 32<<20)
	tests := []struct {
		name string
		zip  []byte
	}{
		// Honest header, but the part inflates over MaxRatio times.
		{"inflates past its ratio", zipParts(t, map[string][]byte{"xl/workbook.bin": zeros})},
		// A header that understates the size is caught by archive/zip
		// itself, so the claim is the only size that needs checking.
		{"claims past its ratio", rawZip(t, "xl/workbook.bin", []byte{0}, ratioFloor+1)},
		// The header itself claims too much.
		{"claims past MaxPartSize", rawZip(t, "xl/workbook.bin", []byte{0}, MaxPartSize+1)},
	}
	for _, tt := range tests {
		_, err := OpenReader(bytes.NewReader(tt.zip), int64(len(tt.zip)))
		if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "part xl/workbook.bin") {
			t.Errorf("%s: error %v, want ErrLimit naming the part", tt.name, err)
		}
	}
	// A header that understates the size: the reader trusts the claim
	// for its limits, so the data must not be allowed to run past it.
	for _, claim := range []uint64{0, 100, 1 << 20} {
		z := rawZip(t, "xl/workbook.bin", zeros[:2<<20], claim)
		_, err := OpenReader(bytes.NewReader(z), int64(len(z)))
		if err == nil || !strings.Contains(err.Error(), "part xl/workbook.bin: inflating") {
			t.Errorf("understated size %d: error %v, want an inflating error", claim, err)
		}
	}
	if got := partLimit(10); got != ratioFloor {
		t.Errorf("partLimit(10) = %d, want the floor %d", got, ratioFloor)
	}
	if got := partLimit(1 << 20); got != MaxPartSize {
		t.Errorf("partLimit(1 MiB) = %d, want %d", got, MaxPartSize)
	}
	if got := partLimit(4096); got != 4096*MaxRatio {
		t.Errorf("partLimit(4096) = %d, want %d", got, 4096*MaxRatio)
	}
}

func TestCorruptSheets(t *testing.T) {
	sheet := func(parts ...[]byte) map[string][]byte {
		return withParts(map[string][]byte{"xl/worksheets/sheet1.bin": concat(parts...)})
	}
	tests := []struct {
		name    string
		parts   map[string][]byte
		limit   bool   // error wraps ErrLimit
		wantErr string // part of the message
	}{
		{"truncated record", sheet(rowHdr(0), rec(brtCellRk, cellHdr(0, 0), le32(2))[:8]),
			false, "part xl/worksheets/sheet1.bin: record 2 at offset 19: payload"},
		{"short cell", sheet(rowHdr(0), rec(brtCellReal, cellHdr(0, 0), []byte{1, 2})),
			false, "record 5 at offset 19: Xnum value needs 8 bytes"},
		{"short cell header", sheet(rowHdr(0), rec(brtCellBool, le32(0))),
			false, "cell style needs 4 bytes"},
		{"string longer than record", sheet(rowHdr(0), rec(brtCellSt, cellHdr(0, 0), le32(1<<30), []byte{0, 0})),
			false, "string value of 1073741824 characters"},
		{"shared string out of range", sheet(rowHdr(0), rec(brtCellIsst, cellHdr(0, 0), le32(2))),
			false, "shared string index 2 past the table's 2 strings"},
		{"cell before row", sheet(rec(brtCellRk, cellHdr(0, 0), le32(2))),
			false, "record 2 at offset 0: cell record before any row header"},
		{"row past Excel", sheet(rowHdr(1 << 20)), false, "row 1048577 is past"},
		{"column past Excel", sheet(rowHdr(0), rec(brtCellRk, cellHdr(1<<14, 0), le32(2))),
			false, "column 16385 is past"},
		{"absurd dimension", sheet(wsDim(0, 0xFFFFFFFF, 0, 3)), true, "dimension to row 4294967296"},
		{"grid past MaxCells", sheet(rowHdr(0), rec(brtCellRk, cellHdr(0, 0), le32(2)),
			rowHdr(1<<20-1), rec(brtCellRk, cellHdr(1<<14-1, 0), le32(2))), true, fmt.Sprintf("more than %d cells", MaxCells)},
		{"sheet part missing", withParts(map[string][]byte{"xl/worksheets/sheet1.bin": nil}),
			false, "part xl/worksheets/sheet1.bin: missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := openParts(t, tt.parts)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			_, err = w.Rows("Data")
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Rows error %v, want one containing %q", err, tt.wantErr)
			}
			if errors.Is(err, ErrLimit) != tt.limit {
				t.Errorf("errors.Is(err, ErrLimit) = %v, want %v", !tt.limit, tt.limit)
			}
		})
	}
}

func TestCorruptPackages(t *testing.T) {
	tests := []struct {
		name    string
		zip     func(t *testing.T) []byte
		wantErr string
	}{
		{"not a zip", func(*testing.T) []byte { return []byte("PK not really") }, "not a zip package"},
		{"no workbook part", func(t *testing.T) []byte {
			return zipParts(t, map[string][]byte{"hello.txt": []byte("hi")})
		}, "no workbook part xl/workbook.bin"},
		{"xlsx, not xlsb", func(t *testing.T) []byte {
			return zipParts(t, map[string][]byte{"_rels/.rels": []byte(`<Relationships><Relationship Id="r" Type="` + relOfficeDoc + `" Target="xl/workbook.xml"/></Relationships>`),
				"xl/workbook.xml": []byte("<workbook/>")})
		}, "workbook part xl/workbook.xml is not binary"},
		{"bad rels xml", func(t *testing.T) []byte {
			return zipParts(t, withParts(map[string][]byte{"xl/_rels/workbook.bin.rels": []byte("<Relationships><")}))
		}, "part xl/_rels/workbook.bin.rels"},
		{"truncated workbook", func(t *testing.T) []byte {
			wb := fixtureParts()["xl/workbook.bin"]
			return zipParts(t, withParts(map[string][]byte{"xl/workbook.bin": wb[:16]}))
		}, "part xl/workbook.bin: record 156 at offset 6: payload"},
		{"short bundle", func(t *testing.T) []byte {
			return zipParts(t, withParts(map[string][]byte{"xl/workbook.bin": rec(brtBundleSh, le32(0), le32(1), wstr("rId1"), le32(5))}))
		}, "part xl/workbook.bin: record 156 at offset 0: BrtBundleSh strName of 5 characters"},
		{"short shared string", func(t *testing.T) []byte {
			return zipParts(t, withParts(map[string][]byte{"xl/sharedStrings.bin": rec(brtSSTItem, []byte{0}, le32(3), le16('a'))}))
		}, "part xl/sharedStrings.bin: record 19 (string 0) at offset 0"},
		{"short format", func(t *testing.T) []byte {
			return zipParts(t, withParts(map[string][]byte{"xl/styles.bin": rec(brtFmt, le16(164))}))
		}, "part xl/styles.bin: record 44 at offset 0: BrtFmt stFmtCode length"},
		{"short xf", func(t *testing.T) []byte {
			return zipParts(t, withParts(map[string][]byte{"xl/styles.bin": concat(rec(brtBeginCellXFs), rec(brtXF, le16(0)))}))
		}, "part xl/styles.bin: record 47 at offset 3: BrtXF iFmt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			z := tt.zip(t)
			_, err := OpenReader(bytes.NewReader(z), int64(len(z)))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestStylesFormats(t *testing.T) {
	xf := func(ifmt uint16) []byte { return rec(brtXF, le16(0), le16(ifmt), make([]byte, 12)) }
	data := concat(
		rec(brtFmt, le16(14), wstr("dd/mm/yyyy")), // overrides the built-in id
		rec(brtBeginCellXFs),
		xf(0), xf(14), xf(22), xf(49), xf(30), xf(163),
		rec(brtEndCellXFs),
		xf(2), // outside the collection: not a cell format
	)
	got, err := parseStyles(data)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"General", "dd/mm/yyyy", "m/d/yy h:mm", "@", "General", "General"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseStyles = %q, want %q", got, want)
	}
}

// FuzzRecords feeds arbitrary bytes to the record reader and to every part
// parser built on it: none may panic, and the reader's records must tile
// the input exactly.
func FuzzRecords(f *testing.F) {
	for _, p := range fixtureParts() {
		f.Add(p)
	}
	f.Add([]byte{0x80, 0x80, 0x80})
	f.Add(concat(rowHdr(0), rec(brtCellIsst, cellHdr(0, 0), le32(7))))
	f.Fuzz(func(t *testing.T, data []byte) {
		rr := recordReader{buf: data}
		end := 0
		for {
			r, ok, err := rr.next()
			if err != nil || !ok {
				if err == nil && end != len(data) {
					t.Fatalf("clean end at %d of %d bytes", end, len(data))
				}
				break
			}
			if r.off != end || r.typ < 0 || r.typ >= 1<<14 {
				t.Fatalf("record at %d (type %d), previous ended at %d", r.off, r.typ, end)
			}
			end = rr.off
		}
		sst := []string{"a", "b"}
		if sd, err := parseSheet(data, sst, []string{"General"}, false); err == nil {
			// Building a grid near MaxCells takes hundreds of megabytes;
			// the fuzzer checks the limit is enforced, and builds only
			// small grids.
			switch n := (sd.maxRow + 1) * (sd.maxCol + 1); {
			case n > MaxCells:
				if _, err := sd.grid(); !errors.Is(err, ErrLimit) {
					t.Fatalf("grid of %d cells passed the limit: %v", n, err)
				}
			case n > 0 && n <= 1<<16:
				rows, err := sd.grid()
				if err != nil || len(rows) != sd.maxRow+1 || len(rows[0]) != sd.maxCol+1 {
					t.Fatalf("grid of %d x %d: %d rows, %v", sd.maxRow+1, sd.maxCol+1, len(rows), err)
				}
			}
		}
		parseSheet(data, sst, nil, true)
		parseSST(data)
		parseStyles(data)
		parseWorkbook(data)
	})
}

// FuzzOpenReader opens arbitrary bytes as a package and reads every sheet.
func FuzzOpenReader(f *testing.F) {
	z := zipParts(f, fixtureParts())
	f.Add(z)
	f.Add(z[:len(z)/2])
	f.Add(zipParts(f, withParts(map[string][]byte{"xl/_rels/workbook.bin.rels": nil})))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := OpenReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		for _, s := range w.Sheets() {
			w.Rows(s.Name)
			w.Dimension(s.Name)
		}
		w.Close()
	})
}

// gridString renders a grid compactly: cells separated by spaces, rows by
// "|", Empty as "_", numbers in %v, strings quoted.
func gridString(rows [][]Cell) string {
	var b strings.Builder
	for r, row := range rows {
		if r > 0 {
			b.WriteString("|")
		}
		for c, cell := range row {
			if c > 0 {
				b.WriteString(" ")
			}
			switch cell.Kind {
			case Empty:
				b.WriteString("_")
			case Number:
				fmt.Fprint(&b, cell.Num)
			case String:
				fmt.Fprintf(&b, "%q", cell.Str)
			case Bool:
				fmt.Fprint(&b, cell.Bool)
			case Error:
				fmt.Fprintf(&b, "%#x", cell.Err)
			}
		}
	}
	return b.String()
}

// TestSheetRecords pins which records of a worksheet count, following
// pyxlsb: the last BrtWsDim before the cell table, cells from the first
// BrtBeginSheetData to BrtEndSheetData, and rows placed by their index.
func TestSheetRecords(t *testing.T) {
	rk := func(col uint32, v int32) []byte { return rec(brtCellRk, cellHdr(col, 0), le32(uint32(v<<2)|2)) }
	tests := []struct {
		name             string
		part             []byte
		dimRows, dimCols int
		grid             string
	}{
		{"plain", concat(wsDim(0, 1, 0, 1), rec(145), rowHdr(0), rk(0, 1), rk(1, 2), rowHdr(1), rk(1, 3), rec(146)),
			2, 2, "1 2|_ 3"},
		{"leading empty rows and columns", concat(wsDim(2, 2, 1, 1), rec(145), rowHdr(2), rk(1, 7), rec(146)),
			3, 2, "_ _|_ _|_ 7"},
		{"cells before the cell table are dropped", concat(rowHdr(5), rk(5, 9), wsDim(0, 0, 0, 0), rec(145), rowHdr(0), rk(0, 1), rec(146)),
			1, 1, "1"},
		{"last dimension before the table wins", concat(wsDim(0, 9, 0, 9), wsDim(0, 0, 0, 2), rec(145), rowHdr(0), rk(0, 1), wsDim(0, 99, 0, 99), rec(146)),
			1, 3, "1"},
		{"no cell table record: whole part", concat(rowHdr(1), rk(0, 4)),
			0, 0, "_|4"},
		{"cell past the dimension widens the grid", concat(wsDim(0, 0, 0, 0), rec(145), rowHdr(0), rk(3, 5), rec(146)),
			1, 1, "_ _ _ 5"},
		{"later cell at the same place wins", concat(rec(145), rowHdr(0), rk(0, 1), rk(0, 2), rec(146)),
			0, 0, "2"},
		{"rows out of order are placed by index", concat(rec(145), rowHdr(1), rk(0, 1), rowHdr(0), rk(0, 2), rec(146)),
			0, 0, "2|1"},
		{"repeated row header continues the row", concat(rec(145), rowHdr(0), rk(0, 1), rowHdr(0), rk(1, 2), rec(146)),
			0, 0, "1 2"},
		{"row headers alone give no rows", concat(rec(145), rowHdr(0), rowHdr(4), rec(146)),
			0, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sd, err := parseSheet(tt.part, nil, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := sd.grid()
			if err != nil {
				t.Fatal(err)
			}
			if got := gridString(rows); got != tt.grid {
				t.Errorf("grid %q, want %q", got, tt.grid)
			}
			dim, err := parseSheet(tt.part, nil, nil, true)
			if err != nil {
				t.Fatal(err)
			}
			if dim.dimRows != tt.dimRows || dim.dimCols != tt.dimCols {
				t.Errorf("dimension %d x %d, want %d x %d", dim.dimRows, dim.dimCols, tt.dimRows, tt.dimCols)
			}
		})
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Empty: "Empty", Number: "Number", String: "String", Bool: "Bool", Error: "Error", 9: "Kind(9)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", uint8(k), got, want)
		}
	}
}
