package table

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

type oneInt struct {
	A int64 `parquet:"a"`
}

// threeInts is a small parquet file: one column, one page.
func threeInts(t testing.TB) []byte {
	return writeParquet(t, []oneInt{{1}, {2}, {3}}, parquet.Compression(&parquet.Uncompressed))
}

// maxVarint is 2^31-1 as a zigzag varint, what a thrift i32 of that
// value is; as a plain varint (a list's length) it is 2^31-1 too.
var (
	maxZigzag = []byte{0xfe, 0xff, 0xff, 0xff, 0x0f}
	maxPlain  = []byte{0xff, 0xff, 0xff, 0xff, 0x07}
)

// splice is b with b[i:j] replaced by with.
func splice(b []byte, i, j int, with []byte) []byte {
	return append(append(append([]byte{}, b[:i]...), with...), b[j:]...)
}

// claimingList is f with its footer's schema list claiming 2^31-1
// elements.
func claimingList(t testing.TB, f []byte) []byte {
	n := int(binary.LittleEndian.Uint32(f[len(f)-8:]))
	start := len(f) - 8 - n
	i := bytes.Index(f[start:], []byte{0x19, 0x2c}) // field 2, a list of 2 structs
	if i < 0 {
		t.Fatal("no schema list in the footer")
	}
	footer := splice(f[start:len(f)-8], i+1, i+2, append([]byte{0xfc}, maxPlain...))
	out := append(append([]byte{}, f[:start]...), footer...)
	return append(binary.LittleEndian.AppendUint32(out, uint32(len(footer))), "PAR1"...)
}

// claimingPage is f with its first page's compressed size 2^31-1.
func claimingPage(t testing.TB, f []byte) []byte {
	// The page header after "PAR1": its type, uncompressed size, then
	// compressed size, each an i32 field (0x15) of a one-byte varint.
	if f[4] != 0x15 || f[6] != 0x15 || f[8] != 0x15 {
		t.Fatalf("unexpected page header % x", f[4:12])
	}
	return splice(f, 9, 10, maxZigzag)
}

// A parquet file's lengths and counts are claims: a planted one is an
// error naming the file, and sizes nothing past what the file holds.
func TestParquetClaims(t *testing.T) {
	f := threeInts(t)
	footerSize := append(append([]byte{}, f[:len(f)-8]...), 0xff, 0xff, 0xff, 0xff)
	footerSize = append(footerSize, "PAR1"...)
	for _, tc := range []struct {
		name, data, want string
	}{
		{"a schema list of 2^31-1", string(claimingList(t, f)), "a list of 2147483647"},
		{"a page of 2^31-1 bytes", string(claimingPage(t, f)), "2147483647 bytes, and its chunk holds"},
		{"a footer of 4 GiB", string(footerSize), "a footer of 4294967295 bytes"},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := readParquet(t.Context(), strings.NewReader(tc.data), int64(len(tc.data)), "planted.parquet", Options{})
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), "planted.parquet") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want an error naming the file and %q", tc.name, err, tc.want)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
			t.Errorf("%s: %d MB allocated", tc.name, grew>>20)
		}
	}
}

// The checks refuse no file parquet-go writes: compressed or not, with
// dictionaries, many pages and row groups, lists and statistics.
func TestParquetChecksPassWritten(t *testing.T) {
	rows := make([]oneInt, 5000)
	for i := range rows {
		rows[i].A = int64(i % 7)
	}
	for name, opts := range map[string][]parquet.WriterOption{
		"snappy":     {parquet.Compression(&parquet.Snappy)},
		"zstd":       {parquet.Compression(&parquet.Zstd)},
		"gzip pages": {parquet.Compression(&parquet.Gzip), parquet.PageBufferSize(256)},
		"row groups": {parquet.MaxRowsPerRowGroup(700), parquet.DataPageStatistics(true)},
	} {
		data := writeParquet(t, rows, opts...)
		tb, err := readParquet(t.Context(), bytes.NewReader(data), int64(len(data)), name, Options{})
		if err != nil || tb.Rows != len(rows) {
			t.Errorf("%s: %v", name, err)
		}
	}
	readSample(t) // every column type, lists and pandas metadata
}

// A page's inflated size and values are held to a table's bounds.
func TestPageBudget(t *testing.T) {
	header := func(compressed, inflated, values int32) *format.PageHeader {
		h := &format.PageHeader{CompressedPageSize: compressed, UncompressedPageSize: inflated}
		h.DataPageHeader.Valid, h.DataPageHeader.V.NumValues = true, values
		return h
	}
	for _, tc := range []struct {
		name string
		h    *format.PageHeader
		want string
	}{
		{"fits", header(10, 100, 5), ""},
		{"past its chunk", header(11, 100, 5), "its chunk holds 10 more"},
		{"inflated past the bound", header(10, maxPageBytes+1, 5), "bytes inflated, more than"},
		{"values past the bound", header(10, 100, 1001), "more than 1000 values"},
		{"values less than none", header(10, 100, -1), "-1 values"},
	} {
		b := &pageBudget{maxValues: 1000}
		err := b.page(tc.h, 10)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v; want %q", tc.name, err, tc.want)
		}
	}
	b := &pageBudget{maxValues: 1 << 40}
	for range maxInflated / maxPageBytes {
		if err := b.page(header(0, maxPageBytes, 0), 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.page(header(0, 1, 0), 0); err == nil {
		t.Error("pages past maxInflated taken")
	}
}
