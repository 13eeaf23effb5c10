package table

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// parquet-go makes room for what a file's sizes and counts claim before
// it reads what they describe: the footer's length, a thrift list's
// length, a page's compressed and uncompressed sizes and its number of
// values. A file of a few hundred bytes claiming a 2 GiB page had it
// take 2.8 GB; one claiming a list of 2^31 schema elements ended the
// process out of memory, which no recover catches. The checks below read
// those claims first and hold them to what the file holds, or to the
// bounds of a table.

// Bounds of what a parquet file's pages may claim.
const (
	// maxPageBytes bounds a page inflated.
	maxPageBytes = 256 << 20
	// maxInflated bounds a table's pages inflated, all together.
	maxInflated = 1 << 30
	// maxHeaderBytes bounds a page header (its statistics included).
	maxHeaderBytes = 16 << 20
	// maxThriftDepth bounds the nesting of thrift structures, lists and
	// maps: parquet's own go a few deep.
	maxThriftDepth = 64
)

// errPastEnd says a thrift value runs past the bytes that hold it.
var errPastEnd = errors.New("runs past its end")

// checkFooter checks the footer of the parquet file of size bytes r
// reads, before parquet-go reads it: its length within the file, and
// every length and count its thrift claims within the footer's bytes.
func checkFooter(r io.ReaderAt, size int64) error {
	if size < 12 {
		return fmt.Errorf("%d bytes: too short for a parquet file: %w", size, ErrUnsupported)
	}
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return err
	}
	switch string(tail[4:]) {
	case "PAR1":
	case "PARE":
		return fmt.Errorf("an encrypted parquet file: %w", ErrUnsupported)
	default:
		return fmt.Errorf("not a parquet file (it ends in %q)", tail[4:])
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n > size-12 {
		return fmt.Errorf("a footer of %d bytes in a file of %d", n, size)
	}
	footer := make([]byte, n)
	if _, err := r.ReadAt(footer, size-8-n); err != nil {
		return err
	}
	if _, err := skipThrift(footer, 0, thrift.STRUCT, 0); err != nil {
		return fmt.Errorf("footer: %w", err)
	}
	return nil
}

// pageBudget is what the pages of a table read so far have claimed.
type pageBudget struct {
	values, maxValues int64
	inflated          int64
}

// checkPages checks the page headers of every column chunk of f, the
// parquet file of size bytes r reads, before parquet-go reads a page: a
// chunk lies in the file, a page's bytes in its chunk, a page inflates
// to at most maxPageBytes, the pages together to maxInflated, and they
// hold at most maxValues values (the bound of a table's values).
func checkPages(r io.ReaderAt, size int64, f *parquet.File, maxValues int64) error {
	b := &pageBudget{maxValues: maxValues}
	for i, rg := range f.Metadata().RowGroups {
		for j := range rg.Columns {
			if err := b.chunk(r, size, &rg.Columns[j].MetaData); err != nil {
				return fmt.Errorf("row group %d, column chunk %d: %w", i, j, err)
			}
		}
	}
	return nil
}

// chunk checks the pages of the column chunk md describes, where
// parquet-go reads them: from its dictionary page, or else its first data
// page, for its compressed size.
func (b *pageBudget) chunk(r io.ReaderAt, size int64, md *format.ColumnMetaData) error {
	start := md.DataPageOffset
	if md.DictionaryPageOffset != 0 {
		start = md.DictionaryPageOffset
	}
	end := start + md.TotalCompressedSize
	if start < 0 || md.TotalCompressedSize < 0 || start > size || md.TotalCompressedSize > size-start {
		return fmt.Errorf("%d bytes at byte %d, past the end of the file (%d bytes)", md.TotalCompressedSize, start, size)
	}
	for at := start; at < end; {
		h, n, err := readPageHeader(r, at, end-at)
		if err != nil {
			return fmt.Errorf("page header at byte %d: %w", at, err)
		}
		at += int64(n)
		if err := b.page(h, end-at); err != nil {
			return fmt.Errorf("page at byte %d: %w", at-int64(n), err)
		}
		at += int64(h.CompressedPageSize)
	}
	return nil
}

// page takes the claims of a page header h, left bytes of its chunk
// following it.
func (b *pageBudget) page(h *format.PageHeader, left int64) error {
	switch {
	case h.CompressedPageSize < 0 || int64(h.CompressedPageSize) > left:
		return fmt.Errorf("%d bytes, and its chunk holds %d more", h.CompressedPageSize, left)
	case h.UncompressedPageSize < 0 || h.UncompressedPageSize > maxPageBytes:
		return fmt.Errorf("%d bytes inflated, more than %d: %w", h.UncompressedPageSize, maxPageBytes, ErrTooLarge)
	}
	b.inflated += int64(h.UncompressedPageSize)
	if b.inflated > maxInflated {
		return fmt.Errorf("pages of more than %d bytes inflated: %w", maxInflated, ErrTooLarge)
	}
	var n int32
	switch {
	case h.DataPageHeader.Valid:
		n = h.DataPageHeader.V.NumValues
	case h.DataPageHeaderV2.Valid:
		n = h.DataPageHeaderV2.V.NumValues
	case h.DictionaryPageHeader.Valid:
		n = h.DictionaryPageHeader.V.NumValues
	}
	if n < 0 {
		return fmt.Errorf("%d values", n)
	}
	b.values += int64(n)
	if b.values > b.maxValues {
		return fmt.Errorf("pages of more than %d values: %w", b.maxValues, ErrTooLarge)
	}
	return nil
}

// readPageHeader reads the page header at byte at of r, left bytes of its
// chunk from there: the header and its length in bytes. It reads a few
// KiB first, and more as the header needs, up to maxHeaderBytes.
func readPageHeader(r io.ReaderAt, at, left int64) (*format.PageHeader, int, error) {
	for w := min(left, 4<<10); ; w = min(2*w, left, maxHeaderBytes) {
		buf := make([]byte, w)
		if _, err := r.ReadAt(buf, at); err != nil && err != io.EOF {
			return nil, 0, err
		}
		n, err := skipThrift(buf, 0, thrift.STRUCT, 0)
		if errors.Is(err, errPastEnd) && w < min(left, maxHeaderBytes) {
			continue
		}
		if err != nil {
			return nil, 0, err
		}
		// Every length and count in buf[:n] is held to buf[:n]:
		// parquet-go decodes it without making room for more.
		h := new(format.PageHeader)
		if err := thrift.NewDecoder(new(thrift.CompactProtocol).NewReaderFromBytes(buf[:n])).Decode(h); err != nil {
			return nil, 0, err
		}
		return h, n, nil
	}
}

// skipThrift is the end in b of the compact-protocol thrift value of
// type typ at b[at:], nested depth deep: every length and count in it
// held to the bytes left (each element takes one at least), its nesting
// to maxThriftDepth.
func skipThrift(b []byte, at int, typ thrift.Type, depth int) (int, error) {
	if depth > maxThriftDepth {
		return 0, fmt.Errorf("thrift nested more than %d deep", maxThriftDepth)
	}
	switch typ {
	case thrift.TRUE, thrift.FALSE, thrift.I8: // a bool in a list or map is a byte
		return need(b, at, 1)
	case thrift.DOUBLE:
		return need(b, at, 8)
	case thrift.UUID:
		return need(b, at, 16)
	case thrift.I16, thrift.I32, thrift.I64:
		_, at, err := uvarint(b, at)
		return at, err
	case thrift.BINARY:
		n, at, err := uvarint(b, at)
		if err != nil {
			return 0, err
		}
		return need(b, at, n)
	case thrift.LIST, thrift.SET:
		return skipList(b, at, depth)
	case thrift.MAP:
		return skipMap(b, at, depth)
	case thrift.STRUCT:
		return skipStruct(b, at, depth)
	}
	return 0, fmt.Errorf("thrift type %d at byte %d", typ, at)
}

// skipStruct is skipThrift of a struct: its fields up to the stop byte.
func skipStruct(b []byte, at, depth int) (int, error) {
	for {
		if at >= len(b) {
			return 0, errPastEnd
		}
		h := b[at]
		at++
		if h == 0 {
			return at, nil
		}
		if h>>4 == 0 { // the field's id follows in full
			var err error
			if _, at, err = uvarint(b, at); err != nil {
				return 0, err
			}
		}
		typ := thrift.Type(h & 0xf)
		if typ == thrift.TRUE || typ == thrift.FALSE {
			continue // a field's bool is its type
		}
		var err error
		if at, err = skipThrift(b, at, typ, depth+1); err != nil {
			return 0, err
		}
	}
}

// skipList is skipThrift of a list or a set.
func skipList(b []byte, at, depth int) (int, error) {
	start := at
	if at >= len(b) {
		return 0, errPastEnd
	}
	h := b[at]
	at++
	n := int(h >> 4)
	if n == 0xf {
		var err error
		if n, at, err = uvarint(b, at); err != nil {
			return 0, err
		}
	}
	if n > len(b)-at {
		return 0, fmt.Errorf("a list of %d at byte %d: %w", n, start, errPastEnd)
	}
	for range n {
		var err error
		if at, err = skipThrift(b, at, thrift.Type(h&0xf), depth+1); err != nil {
			return 0, err
		}
	}
	return at, nil
}

// skipMap is skipThrift of a map.
func skipMap(b []byte, at, depth int) (int, error) {
	start := at
	n, at, err := uvarint(b, at)
	if err != nil || n == 0 {
		return at, err
	}
	if at >= len(b) || n > (len(b)-at-1)/2 {
		return 0, fmt.Errorf("a map of %d at byte %d: %w", n, start, errPastEnd)
	}
	kv := b[at]
	at++
	for range n {
		if at, err = skipThrift(b, at, thrift.Type(kv>>4), depth+1); err != nil {
			return 0, err
		}
		if at, err = skipThrift(b, at, thrift.Type(kv&0xf), depth+1); err != nil {
			return 0, err
		}
	}
	return at, nil
}

// uvarint reads the varint at b[at:] (zigzag or not: its length is what
// matters), which is at most 2^31-1 as a length or count.
func uvarint(b []byte, at int) (int, int, error) {
	u, n := binary.Uvarint(b[min(at, len(b)):])
	switch {
	case n == 0:
		return 0, 0, errPastEnd
	case n < 0:
		return 0, 0, fmt.Errorf("a varint of more than 64 bits at byte %d", at)
	}
	return int(min(u, 1<<31-1)), at + n, nil
}

// need is the end of n bytes at b[at:].
func need(b []byte, at, n int) (int, error) {
	if n > len(b)-at {
		return 0, errPastEnd
	}
	return at + n, nil
}
