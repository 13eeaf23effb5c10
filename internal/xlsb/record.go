package xlsb

import (
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf16"
)

// Record types used by this reader ([MS-XLSB] 2.3.2, "Record Enumeration").
const (
	brtRowHdr            = 0
	brtCellBlank         = 1
	brtCellRk            = 2
	brtCellError         = 3
	brtCellBool          = 4
	brtCellReal          = 5
	brtCellSt            = 6
	brtCellIsst          = 7
	brtFmlaString        = 8
	brtFmlaNum           = 9
	brtFmlaBool          = 10
	brtFmlaError         = 11
	brtSSTItem           = 19
	brtFmt               = 44
	brtXF                = 47
	brtCellRString       = 62
	brtEndBundleShs      = 144
	brtBeginSheetData    = 145
	brtEndSheetData      = 146
	brtWsDim             = 148
	brtBundleSh          = 156
	brtBeginCellXFs      = 617
	brtEndCellXFs        = 618
	brtBeginCellStyleXFs = 626
	brtEndCellStyleXFs   = 627
)

// record is one record of a part: its type, the byte offset of its header
// within the part (for error messages) and its payload, which aliases the
// part's buffer.
type record struct {
	typ  int
	off  int
	data []byte
}

// recordReader walks the records of one part held in memory. Parts are read
// whole because the zip layer has already bounded their size, and slicing a
// buffer needs no allocation per record.
type recordReader struct {
	buf []byte
	off int
}

// next returns the next record; ok is false at the clean end of the part.
// A header or payload cut short by the end of the part is an error, never a
// silent stop, so truncated files are reported.
func (r *recordReader) next() (rec record, ok bool, err error) {
	if r.off >= len(r.buf) {
		return record{}, false, nil
	}
	start := r.off
	// The type is 1-2 bytes and the size 1-4 bytes, 7 bits each, low group
	// first, with the high bit set on every byte but the last.
	typ, n, err := readVarint(r.buf[r.off:], 2)
	if err != nil {
		return record{}, false, fmt.Errorf("record type at offset %d: %w", start, err)
	}
	r.off += n
	size, n, err := readVarint(r.buf[r.off:], 4)
	if err != nil {
		return record{}, false, fmt.Errorf("record %d at offset %d: size: %w", typ, start, err)
	}
	r.off += n
	if size > len(r.buf)-r.off {
		return record{}, false, fmt.Errorf("record %d at offset %d: payload of %d bytes runs past the end of the part (%d bytes left)", typ, start, size, len(r.buf)-r.off)
	}
	rec = record{typ: typ, off: start, data: r.buf[r.off : r.off+size]}
	r.off += size
	return rec, true, nil
}

// readVarint decodes at most maxBytes 7-bit groups.
func readVarint(b []byte, maxBytes int) (v, n int, err error) {
	for i := 0; i < maxBytes; i++ {
		if i >= len(b) {
			return 0, 0, fmt.Errorf("cut short after %d bytes", i)
		}
		v |= int(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			return v, i + 1, nil
		}
	}
	return 0, 0, fmt.Errorf("longer than %d bytes", maxBytes)
}

// payload decodes the fields of one record's payload. Every read checks the
// bytes left, so a short record yields an error instead of a panic; the
// first failure sticks and later reads return zero values, which lets a
// caller read a whole layout and check err once.
type payload struct {
	b   []byte
	pos int
	err error
}

func (p *payload) need(n int, what string) bool {
	if p.err != nil {
		return false
	}
	if n < 0 || n > len(p.b)-p.pos {
		p.err = fmt.Errorf("%s needs %d bytes at payload byte %d, record has %d", what, n, p.pos, len(p.b))
		return false
	}
	return true
}

func (p *payload) u8(what string) byte {
	if !p.need(1, what) {
		return 0
	}
	v := p.b[p.pos]
	p.pos++
	return v
}

func (p *payload) u16(what string) uint16 {
	if !p.need(2, what) {
		return 0
	}
	v := binary.LittleEndian.Uint16(p.b[p.pos:])
	p.pos += 2
	return v
}

func (p *payload) u32(what string) uint32 {
	if !p.need(4, what) {
		return 0
	}
	v := binary.LittleEndian.Uint32(p.b[p.pos:])
	p.pos += 4
	return v
}

func (p *payload) f64(what string) float64 {
	if !p.need(8, what) {
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(p.b[p.pos:]))
	p.pos += 8
	return v
}

// nullWideString is the character count that marks a null
// XLNullableWideString ([MS-XLSB] 2.5.166).
const nullWideString = 0xFFFFFFFF

// wideString reads an XLWideString: a 4-byte character count, then that many
// UTF-16LE code units. The count is checked against the bytes left before
// anything is allocated, so a forged count cannot exhaust memory. Unpaired
// surrogates become U+FFFD.
func (p *payload) wideString(what string) string {
	s, _ := p.nullableWideString(what)
	return s
}

// nullableWideString is wideString that also reports the null marker.
func (p *payload) nullableWideString(what string) (s string, null bool) {
	n := p.u32(what + " length")
	if p.err != nil {
		return "", false
	}
	if n == nullWideString {
		return "", true
	}
	if uint64(n)*2 > uint64(len(p.b)-p.pos) {
		p.err = fmt.Errorf("%s of %d characters at payload byte %d runs past the record (%d bytes left)", what, n, p.pos-4, len(p.b)-p.pos)
		return "", false
	}
	u := make([]uint16, n)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(p.b[p.pos+2*i:])
	}
	p.pos += 2 * int(n)
	return string(utf16.Decode(u)), false
}

// rkNumber decodes an RkNumber ([MS-XLSB] 2.5.122). Bit 0 (fX100) means the
// value was multiplied by 100; bit 1 (fInt) means the upper 30 bits are a
// signed integer, otherwise they are the upper 30 bits of an IEEE double
// whose low 34 bits are zero.
func rkNumber(v uint32) float64 {
	var f float64
	if v&0x02 != 0 {
		f = float64(int32(v) >> 2)
	} else {
		f = math.Float64frombits(uint64(v&0xFFFFFFFC) << 32)
	}
	if v&0x01 != 0 {
		f /= 100
	}
	return f
}
