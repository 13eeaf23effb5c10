package sheet

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/evalmd/evalmd/internal/py"
	"github.com/evalmd/evalmd/internal/readfile"
	"github.com/evalmd/evalmd/schema"
)

// maxSize is the largest sheet file Parse accepts.
const maxSize = 256 << 20

// ParseFile reads and parses a sheet file with the schema (nil: default).
// A sheet is read only where its files may be sent from: a link to a sheet
// outside its own folder is refused (a downloaded folder's input-x.md may
// lead to ~/.ssh), as is anything but a regular file.
func ParseFile(path string, s *schema.Schema) (*Doc, error) {
	if _, err := readfile.Below(path, filepath.Dir(path)); errors.Is(err, readfile.ErrOutside) {
		return nil, fmt.Errorf("sheet %w: a sheet is read from its own folder only (name the file it leads to instead)", err)
	}
	text, err := readfile.ReadString(path, maxSize)
	if err != nil {
		return nil, err
	}
	return parse(path, text, s)
}

// Parse parses a sheet. path is only used in messages. It fails on input
// that is not a text sheet (NUL bytes, invalid UTF-8, no header at all) and
// warns about what LIME would silently drop or misread.
func Parse(path string, data []byte, s *schema.Schema) (*Doc, error) {
	return parse(path, string(data), s)
}

// parse is Parse of the sheet's text. Its sections' texts and names are
// made of it: a sheet of a million questions is held once, with what the
// parse adds.
func parse(path, text string, s *schema.Schema) (*Doc, error) {
	if s == nil {
		s = schema.Default()
	}
	if len(text) > maxSize {
		return nil, &Error{Diag{path, 1, fmt.Sprintf("sheet is %d bytes, more than the %d allowed", len(text), maxSize)}}
	}
	if i := strings.IndexByte(text, 0); i >= 0 {
		return nil, &Error{Diag{path, lineAt(text, i), "binary data (NUL byte): not a markdown sheet"}}
	}
	if !utf8.ValidString(text) {
		i := invalidUTF8(text)
		return nil, &Error{Diag{path, lineAt(text, i), fmt.Sprintf("invalid UTF-8 at byte %d", i)}}
	}
	p := parser{path: path, s: s, doc: &Doc{Path: path}}
	if strings.HasPrefix(text, bom) {
		// LIME reads the BOM as text, so its first header line is no header
		// and the sheet's name and meta are lost; here the BOM goes.
		text = text[len(bom):]
		p.warn(1, "byte order mark (BOM) removed; LIME would lose the first header")
	}
	p.text = universalNewlines(text)
	// Room for every block at once: growing a slice of a million of them
	// would hold twice as many for a while.
	p.doc.Blocks = make([]Block, 0, strings.Count(p.text, "\n"+marker(s.Question.MdHeader))+2)
	p.run()
	if p.fail != nil {
		return nil, p.fail
	}
	if len(p.doc.Blocks) == 0 {
		return nil, &Error{Diag{path, 1, fmt.Sprintf("no %q sheet or %q question header: not a sheet",
			marker(s.Sheet.MdHeader), marker(s.Question.MdHeader))}}
	}
	return p.doc, nil
}

// bom is UTF-8's byte order mark, which some editors put at the start.
const bom = "\ufeff"

func lineAt(text string, off int) int { return strings.Count(text[:off], "\n") + 1 }

func invalidUTF8(data string) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRuneInString(data[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(data)
}

// universalNewlines makes text's lines those of Python's readlines on a
// file opened in text mode: "\r\n" and "\r" become "\n" (universal
// newlines). Its lines are then read one at a time (strings.Lines), each
// keeping its "\n": a slice of a million sheet's lines would be 80 MB.
func universalNewlines(text string) string {
	if strings.IndexByte(text, '\r') >= 0 {
		text = strings.ReplaceAll(text, "\r\n", "\n")
		text = strings.ReplaceAll(text, "\r", "\n")
	}
	return text
}

func marker(depth int) string { return strings.Repeat("#", depth) + " " }

type parser struct {
	path string
	s    *schema.Schema
	doc  *Doc
	text string
	fail *Error // the first line the sheet cannot be read at, found by check
}

func (p *parser) warn(line int, format string, args ...any) {
	p.doc.Warnings = append(p.doc.Warnings, Diag{p.path, line, fmt.Sprintf(format, args...)})
}

// headerName is LIME's `line.replace(marker, "").strip()`: every occurrence
// of the marker is removed, not just the leading one.
func headerName(line, mark string) string {
	return py.Strip(strings.ReplaceAll(line, mark, ""))
}

func (p *parser) run() {
	sheetMark, questionMark := marker(p.s.Sheet.MdHeader), marker(p.s.Question.MdHeader)
	minorSheet, minorQuestion := marker(p.s.Sheet.Children.MdHeader), marker(p.s.Question.Children.MdHeader)

	fence := fenceTracker{}
	var b blockBuilder
	firstText := 0 // line of the first dropped non-blank line in a block, 0 if none
	n := 0
	for line := range strings.Lines(p.text) {
		n++
		inFence := fence.inside(line)
		var kind Kind
		var name string
		switch {
		case strings.HasPrefix(line, sheetMark):
			kind, name = SheetKind, headerName(line, sheetMark)
		case strings.HasPrefix(line, questionMark):
			kind, name = QuestionKind, headerName(line, questionMark)
		}
		if kind != "" {
			if inFence {
				p.warn(n, "%q inside a code block starts a new %s, as in LIME", strings.TrimRight(line, "\n"), kind)
			}
			b.close(p.doc)
			b.cur = &Block{Kind: kind, Name: name, Line: n}
			b.level, b.minor = &p.s.Sheet, minorSheet
			if kind == QuestionKind {
				b.level, b.minor = &p.s.Question, minorQuestion
			}
			firstText = 0
			continue
		}
		if b.cur == nil {
			// Notes above the first header are fine; a section there is a
			// mistake, since its text goes nowhere.
			if firstText == 0 && (isMinor(line, minorSheet, &p.s.Sheet) || isMinor(line, minorQuestion, &p.s.Question)) {
				firstText = n
				p.warn(n, "%q before the first header is ignored", strings.TrimRight(line, "\n"))
			}
			continue
		}
		p.blockLine(&b, n, line, inFence)
	}
	b.close(p.doc)
	p.check()
}

// blockBuilder is the block being read: its level in the schema and
// minor header, its notes, and the section being read.
type blockBuilder struct {
	cur   *Block
	level *schema.Level
	minor string
	text  strings.Builder // the current minor section's text
	notes strings.Builder // the current block's notes
	sec   *Section
}

// flush ends the section being read.
func (b *blockBuilder) flush() {
	if b.sec != nil {
		b.sec.Text = b.text.String()
		b.cur.Sections = append(b.cur.Sections, *b.sec)
		b.sec = nil
	}
	b.text.Reset()
}

// close ends the block being read, if any, and adds it to doc.
func (b *blockBuilder) close(doc *Doc) {
	if b.cur == nil {
		return
	}
	b.flush()
	b.cur.Notes = b.notes.String()
	b.notes.Reset()
	doc.Blocks = append(doc.Blocks, *b.cur)
	b.cur = nil
}

// blockLine reads line n, below a block's header: a minor header starts
// a section; other text goes to the section being read, or to the block's
// notes before its first section.
func (p *parser) blockLine(b *blockBuilder, n int, line string, inFence bool) {
	if strings.HasPrefix(line, b.minor) {
		if isMinor(line, b.minor, b.level) {
			opt := strings.ToLower(headerName(line, b.minor))
			if inFence {
				p.warn(n, "%q inside a code block starts a new section, as in LIME", strings.TrimRight(line, "\n"))
			}
			b.flush()
			b.sec = &Section{Kind: opt, Line: n}
			return
		}
		if !inFence {
			p.unknownSection(n, line, b.minor, b.level, b.sec)
		}
	}
	if b.sec == nil {
		// Text between a header and its first section is ignored, as
		// in LIME, whose sheets keep notes there ("#### info"); it is
		// kept as the block's notes.
		b.notes.WriteString(line)
		return
	}
	if p.s.EscapeHeaders {
		line = unescape(line)
	}
	b.text.WriteString(line)
}

// unknownSection warns about a minor header the schema does not list
// where it changes what the sheet means: inside a section, whose text it
// (and the lines after it) joins, or when it looks like a typo of a
// section name. A note before a block's first section ("#### info" in
// LIME's sheets) is ignored by LIME and stays quiet.
func (p *parser) unknownSection(n int, line, mark string, level *schema.Level, sec *Section) {
	name := strings.ToLower(headerName(line, mark))
	header := strings.TrimRight(line, "\n")
	near := ""
	for _, o := range level.Children.Options {
		if editDistance(name, o) <= 2 {
			near = o
			break
		}
	}
	switch {
	case near != "" && sec != nil:
		p.warn(n, "%q is not a section (did you mean %q?): its lines are text of the %s section, as in LIME", header, near, sec.Kind)
	case near != "":
		p.warn(n, "%q is not a section (did you mean %q?): its lines are ignored, as in LIME", header, near)
	case sec != nil && p.s.EscapeHeaders:
		p.warn(n, "%q is not a section: its lines are text of the %s section, as in LIME (write \\%s to keep it as text quietly)", header, sec.Kind, strings.TrimSpace(mark))
	case sec != nil:
		p.warn(n, "%q is not a section: its lines are text of the %s section, as in LIME", header, sec.Kind)
	}
}

// editDistance is the Levenshtein distance between a and b, in code points.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// isMinor reports whether line opens a minor section of level.
func isMinor(line, mark string, level *schema.Level) bool {
	return strings.HasPrefix(line, mark) && level.Has(strings.ToLower(headerName(line, mark)))
}

// check reports what LIME accepts silently but a sheet author would want
// to know.
func (p *parser) check() {
	seen := make(map[string]int, len(p.doc.Blocks))
	sheets, questions := 0, 0
	for bi := range p.doc.Blocks {
		b := &p.doc.Blocks[bi]
		if b.Kind == SheetKind {
			sheets++
			if sheets == 2 {
				p.warn(b.Line, "a second sheet header: LIME records only the first one's name and meta")
			}
		}
		if b.Kind == QuestionKind {
			questions++
			if prev, ok := seen[b.Name]; ok {
				p.warn(b.Line, "duplicate question name %q (first at line %d): both kept", b.Name, prev)
			} else {
				seen[b.Name] = b.Line
			}
			if b.First("question") == nil {
				p.warn(b.Line, "question %q has no question section: skipped, as in LIME", b.Name)
			}
			if b.Name == "" {
				p.warn(b.Line, "question without a name")
			}
		}
		if b.Kind == QuestionKind {
			p.checkTurns(b)
		}
		for _, s := range b.Sections {
			if b.Kind == QuestionKind && s.Kind == "answer" {
				p.checkAccepted(s)
			}
			if s.Kind == "schema" {
				p.checkSchema(s)
			}
			if py.Strip(CutEnd(s.Text)) == "" && s.Kind != "meta" {
				p.warn(s.Line, "empty %s section", s.Kind)
			}
			if !hasEnd(s.Text) && (strings.Contains(s.Text, "EVAL-ENDCHAR") || strings.Contains(s.Text, "EVAL_ENDCHAR")) {
				p.warn(s.Line, "%s section holds a malformed end token (the tokens are <EVAL-ENDCHAR> and |EVAL-ENDCHAR|)", s.Kind)
			}
			if s.Kind == "meta" {
				for i, line := range strings.Split(CutEnd(s.Text), "\n") {
					if !strings.Contains(line, ":") && py.Strip(line) != "" {
						p.warn(s.Line+1+i, "meta line %q has no ':' and is ignored, as in LIME", line)
					}
				}
			}
		}
	}
	if questions == 0 && len(p.doc.Blocks) > 0 {
		p.warn(p.doc.Blocks[0].Line, "the sheet has no questions (a question is a %q header)", marker(p.s.Question.MdHeader))
	}
}

// fenceTracker follows fenced code blocks (``` and ~~~), only to warn when
// a header line inside one is taken as a header (LIME does not know fences).
type fenceTracker struct {
	open string // the opening fence run, "" when outside
}

func (f *fenceTracker) inside(line string) bool {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return f.open != ""
	}
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(t) && t[n] == c {
			n++
		}
		if n < 3 {
			continue
		}
		run := t[:n]
		if f.open == "" {
			f.open = run
			return true
		}
		if run[0] == f.open[0] && len(run) >= len(f.open) && strings.TrimSpace(t[n:]) == "" {
			f.open = ""
			return true
		}
	}
	return f.open != ""
}
