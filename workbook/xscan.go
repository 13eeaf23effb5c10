package workbook

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// xscan is a small streaming XML tokenizer for the two big parts of a
// workbook, the sheet data and the shared strings. encoding/xml spends most
// of a render reading those byte by byte; this reads a buffered window and
// only decodes what the reader asks for (tag names, a few attributes, the
// text of <v> and <t>). It knows the XML a spreadsheet writer produces:
// elements, attributes in either quote, entity and character references,
// CDATA, comments and processing instructions. It does not check
// well-formedness beyond what it needs to find the next tag.
type xscan struct {
	r   io.Reader
	buf []byte
	p   int // next unread byte in buf
	n   int // bytes of buf in use
	err error

	// The current tag after next().
	name      []byte // local name (prefix removed)
	attrs     []byte // raw attribute text
	end       bool   // </name>
	selfClose bool   // <name ... />
}

var errXMLSyntax = errors.New("malformed XML")

func newXScan(r io.Reader) *xscan {
	return &xscan{r: r, buf: make([]byte, 64<<10)}
}

// fill makes more bytes available, keeping the unread ones; false at EOF
// or on a read error (kept in s.err).
func (s *xscan) fill() bool {
	if s.err != nil {
		return false
	}
	if s.p > 0 {
		copy(s.buf, s.buf[s.p:s.n])
		s.n -= s.p
		s.p = 0
	}
	if s.n == len(s.buf) {
		nb := make([]byte, 2*len(s.buf))
		copy(nb, s.buf[:s.n])
		s.buf = nb
	}
	m, err := s.r.Read(s.buf[s.n:])
	s.n += m
	if err != nil {
		s.err = err
		return m > 0
	}
	return true
}

func (s *xscan) readByte() (byte, bool) {
	if s.p >= s.n && !s.fill() {
		return 0, false
	}
	if s.p >= s.n {
		return 0, false
	}
	c := s.buf[s.p]
	s.p++
	return c, true
}

// Err is the first read error other than EOF.
func (s *xscan) Err() error {
	if s.err == io.EOF {
		return nil
	}
	return s.err
}

// hasPrefix reports whether the unread bytes start with lit, reading more
// if needed.
func (s *xscan) hasPrefix(lit string) bool {
	for s.n-s.p < len(lit) {
		if !s.fill() {
			break
		}
	}
	return bytes.HasPrefix(s.buf[s.p:s.n], []byte(lit))
}

// skipPast discards input up to and including lit.
func (s *xscan) skipPast(lit string) bool {
	for {
		if i := bytes.Index(s.buf[s.p:s.n], []byte(lit)); i >= 0 {
			s.p += i + len(lit)
			return true
		}
		// keep the last len(lit)-1 bytes, which may start a match
		if keep := s.n - s.p - (len(lit) - 1); keep > 0 {
			s.p += keep
		}
		if !s.fill() {
			return false
		}
	}
}

// next advances to the next element tag, skipping text, comments,
// processing instructions and declarations. It returns false at the end of
// input or on an error (see Err).
func (s *xscan) next() bool {
	for {
		// find '<'
		for {
			if i := bytes.IndexByte(s.buf[s.p:s.n], '<'); i >= 0 {
				s.p += i + 1
				break
			}
			s.p = s.n
			if !s.fill() {
				return false
			}
		}
		c, ok := s.readByte()
		if !ok {
			s.setErr(io.ErrUnexpectedEOF)
			return false
		}
		switch c {
		case '?':
			if !s.skipPast("?>") {
				s.setErr(io.ErrUnexpectedEOF)
				return false
			}
			continue
		case '!':
			var ok bool
			switch {
			case s.hasPrefix("--"):
				ok = s.skipPast("-->")
			case s.hasPrefix("[CDATA["):
				ok = s.skipPast("]]>")
			default:
				ok = s.skipPast(">")
			}
			if !ok {
				s.setErr(io.ErrUnexpectedEOF)
				return false
			}
			continue
		case '/':
			s.end, s.selfClose = true, false
			return s.readTag()
		default:
			s.end, s.selfClose = false, false
			s.p--
			return s.readTag()
		}
	}
}

func (s *xscan) setErr(err error) {
	if s.err == nil || s.err == io.EOF {
		s.err = err
	}
}

// readTag reads a tag's name and attributes up to its '>', honouring
// quotes so a '>' inside an attribute value does not end it. name and
// attrs point into the buffer: they are valid until the next read.
func (s *xscan) readTag() bool {
	i := 0
	var quote byte
	for {
		win := s.buf[s.p:s.n]
		for ; i < len(win); i++ {
			c := win[i]
			if quote != 0 {
				if c == quote {
					quote = 0
				}
				continue
			}
			if c == '"' || c == '\'' {
				quote = c
			} else if c == '>' {
				goto found
			}
		}
		if i > 1<<20 {
			s.setErr(fmt.Errorf("tag longer than 1 MiB: %w", errXMLSyntax))
			return false
		}
		if !s.fill() || s.p+i >= s.n {
			s.setErr(io.ErrUnexpectedEOF)
			return false
		}
	}
found:
	t := s.buf[s.p : s.p+i]
	s.p += i + 1
	if len(t) > 0 && t[len(t)-1] == '/' && !s.end {
		s.selfClose = true
		t = t[:len(t)-1]
	}
	j := 0
	for j < len(t) && !isXMLSpace(t[j]) {
		j++
	}
	name := t[:j]
	if k := bytes.LastIndexByte(name, ':'); k >= 0 {
		name = name[k+1:]
	}
	if len(name) == 0 {
		s.setErr(fmt.Errorf("tag without a name: %w", errXMLSyntax))
		return false
	}
	s.name = name
	s.attrs = t[j:]
	return true
}

func isXMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// is reports whether the current tag has local name n.
func (s *xscan) is(n string) bool { return string(s.name) == n }

// attr returns the decoded value of the attribute named exactly key.
func (s *xscan) attr(key string) (string, bool) {
	a := s.attrs
	for len(a) > 0 {
		for len(a) > 0 && isXMLSpace(a[0]) {
			a = a[1:]
		}
		eq := bytes.IndexByte(a, '=')
		if eq < 0 {
			return "", false
		}
		k := bytes.TrimRight(a[:eq], " \t\r\n")
		a = bytes.TrimLeft(a[eq+1:], " \t\r\n")
		if len(a) == 0 || (a[0] != '"' && a[0] != '\'') {
			return "", false
		}
		q := a[0]
		e := bytes.IndexByte(a[1:], q)
		if e < 0 {
			return "", false
		}
		v := a[1 : 1+e]
		a = a[2+e:]
		if string(k) == key {
			if bytes.IndexByte(v, '&') < 0 {
				return string(v), true
			}
			d, err := appendUnescaped(nil, v)
			if err != nil {
				return "", false
			}
			return string(d), true
		}
	}
	return "", false
}

// text reads the character data that follows the current start tag up to
// the next tag, appending it decoded to dst: entity and character
// references resolved, CDATA kept verbatim, line ends normalised to "\n"
// as an XML parser does. Comments inside the text are skipped.
func (s *xscan) text(dst []byte) ([]byte, error) {
	for {
		i := bytes.IndexByte(s.buf[s.p:s.n], '<')
		if i < 0 {
			// keep a possibly split reference for the next round: decode
			// up to the last '&' only.
			chunk := s.buf[s.p:s.n]
			if amp := bytes.LastIndexByte(chunk, '&'); amp >= 0 && bytes.IndexByte(chunk[amp:], ';') < 0 {
				chunk = chunk[:amp]
			} else if len(chunk) > 0 && chunk[len(chunk)-1] == '\r' {
				chunk = chunk[:len(chunk)-1] // may be the first half of "\r\n"
			}
			var err error
			if dst, err = appendUnescaped(dst, chunk); err != nil {
				return dst, err
			}
			s.p += len(chunk)
			if !s.fill() {
				if s.p < s.n {
					return dst, fmt.Errorf("unterminated reference: %w", errXMLSyntax)
				}
				return dst, io.ErrUnexpectedEOF
			}
			continue
		}
		var err error
		if dst, err = appendUnescaped(dst, s.buf[s.p:s.p+i]); err != nil {
			return dst, err
		}
		s.p += i
		switch {
		case s.hasPrefix("<![CDATA["):
			s.p += len("<![CDATA[")
			for {
				if j := bytes.Index(s.buf[s.p:s.n], []byte("]]>")); j >= 0 {
					dst = appendNormalised(dst, s.buf[s.p:s.p+j])
					s.p += j + 3
					break
				}
				keep := s.n - s.p - 2
				if keep > 0 {
					dst = appendNormalised(dst, s.buf[s.p:s.p+keep])
					s.p += keep
				}
				if !s.fill() {
					return dst, io.ErrUnexpectedEOF
				}
			}
		case s.hasPrefix("<!--"):
			s.p += 4
			if !s.skipPast("-->") {
				return dst, io.ErrUnexpectedEOF
			}
		default:
			return dst, nil
		}
	}
}

// skipElement skips to the end of the element whose start tag was just
// read.
func (s *xscan) skipElement() bool {
	if s.selfClose {
		return true
	}
	depth := 1
	for s.next() {
		switch {
		case s.end:
			depth--
			if depth == 0 {
				return true
			}
		case !s.selfClose:
			depth++
		}
	}
	return false
}

// appendNormalised appends b with "\r\n" and lone "\r" turned into "\n".
func appendNormalised(dst, b []byte) []byte {
	for {
		i := bytes.IndexByte(b, '\r')
		if i < 0 {
			return append(dst, b...)
		}
		dst = append(dst, b[:i]...)
		dst = append(dst, '\n')
		b = b[i+1:]
		if len(b) > 0 && b[0] == '\n' {
			b = b[1:]
		}
	}
}

var entities = map[string]string{"amp": "&", "lt": "<", "gt": ">", "quot": `"`, "apos": "'"}

// appendUnescaped appends b with references resolved and line ends
// normalised.
func appendUnescaped(dst, b []byte) ([]byte, error) {
	for {
		i := bytes.IndexByte(b, '&')
		if i < 0 {
			return appendNormalised(dst, b), nil
		}
		dst = appendNormalised(dst, b[:i])
		b = b[i+1:]
		j := bytes.IndexByte(b, ';')
		if j < 0 {
			return dst, fmt.Errorf("unterminated reference: %w", errXMLSyntax)
		}
		ref := string(b[:j])
		b = b[j+1:]
		if len(ref) > 1 && ref[0] == '#' {
			var n uint64
			var err error
			if ref[1] == 'x' || ref[1] == 'X' {
				n, err = strconv.ParseUint(ref[2:], 16, 32)
			} else {
				n, err = strconv.ParseUint(ref[1:], 10, 32)
			}
			if err != nil || n > utf8.MaxRune {
				return dst, fmt.Errorf("bad character reference &%s;: %w", ref, errXMLSyntax)
			}
			dst = utf8.AppendRune(dst, rune(n))
			continue
		}
		e, ok := entities[ref]
		if !ok {
			return dst, fmt.Errorf("unknown entity &%s;: %w", ref, errXMLSyntax)
		}
		dst = append(dst, e...)
	}
}
