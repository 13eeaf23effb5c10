package sandbox

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// capture keeps the head and the tail of a call's output within a cap and
// counts all of it, so that memory stays bounded whatever a call prints.
type capture struct {
	headMax, tailMax int
	head, tail       []byte
	total            int64
}

func newCapture(limit int) *capture {
	return &capture{headMax: limit / 2, tailMax: limit - limit/2}
}

func (c *capture) write(p []byte) {
	c.total += int64(len(p))
	if n := c.headMax - len(c.head); n > 0 {
		n = min(n, len(p))
		c.head = append(c.head, p[:n]...)
		p = p[n:]
	}
	c.tail = append(c.tail, p...)
	if len(c.tail) > 2*c.tailMax {
		n := copy(c.tail, c.tail[len(c.tail)-c.tailMax:])
		c.tail = c.tail[:n]
	}
}

// String is the output as a model should see it: whole when it fits,
// otherwise head and tail cut at character boundaries with a line between
// them saying which bytes were left out. Invalid UTF-8 becomes U+FFFD.
func (c *capture) String() string {
	head, tail := c.head, c.tail
	if len(tail) > c.tailMax {
		tail = tail[len(tail)-c.tailMax:]
	}
	if int64(len(head)+len(tail)) == c.total {
		return strings.ToValidUTF8(string(head)+string(tail), "\uFFFD")
	}
	// Cut whole characters only: drop a rune the head's end splits, and
	// continuation bytes at the tail's start.
	if i := lastRuneStart(head); i >= 0 && !utf8.FullRune(head[i:]) {
		head = head[:i]
	}
	for k := 0; k < utf8.UTFMax && len(tail) > 0 && !utf8.RuneStart(tail[0]); k++ {
		tail = tail[1:]
	}
	from, to := int64(len(head)), c.total-int64(len(tail))
	note := fmt.Sprintf("\n[... output cut here: bytes %d to %d of %d left out ...]\n", from, to, c.total)
	return strings.ToValidUTF8(string(head), "\uFFFD") + note + strings.ToValidUTF8(string(tail), "\uFFFD")
}

func lastRuneStart(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			return i
		}
	}
	return -1
}

// markerScanner finds the end-of-call marker in the output stream, which
// may arrive split across reads.
type markerScanner struct {
	marker []byte
	carry  []byte
}

// feed takes the next chunk and returns the bytes before the marker that
// are certain not to be part of it, whether the marker was found, and
// (when found) the bytes after it.
func (m *markerScanner) feed(p []byte) (out []byte, found bool, rest []byte) {
	data := append(m.carry, p...)
	if i := bytes.Index(data, m.marker); i >= 0 {
		m.carry = nil
		return data[:i], true, data[i+len(m.marker):]
	}
	keep := min(len(m.marker)-1, len(data))
	// Keep only a suffix that could begin the marker.
	for keep > 0 && !bytes.HasPrefix(m.marker, data[len(data)-keep:]) {
		keep--
	}
	m.carry = append([]byte(nil), data[len(data)-keep:]...)
	return data[:len(data)-keep], false, nil
}
