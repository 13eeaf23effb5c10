package sheet

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/evalmd/evalmd/internal/py"
	"github.com/evalmd/evalmd/schema"
)

// Format renders a Doc as sheet markdown that parses back to the same
// blocks, names, notes, meta and texts (each text as CutEnd sees it). A text whose
// line would be read as a header is escaped (schema.EscapeHeaders) or, when
// the schema has no escapes, refused.
func Format(doc *Doc, s *schema.Schema) ([]byte, error) {
	if s == nil {
		s = schema.Default()
	}
	var buf bytes.Buffer
	for _, b := range doc.Blocks {
		level, depth := &s.Sheet, s.Sheet.MdHeader
		if b.Kind == QuestionKind {
			level, depth = &s.Question, s.Question.MdHeader
		}
		mark := marker(depth)
		if strings.ContainsAny(b.Name, "\r\n") || strings.Contains(b.Name, mark) || b.Name != py.Strip(b.Name) {
			return nil, fmt.Errorf("%s %q: a name must be one line without %q or surrounding space", b.Kind, b.Name, mark)
		}
		buf.WriteString(mark)
		buf.WriteString(b.Name)
		buf.WriteString("\n")
		if b.Notes != "" {
			for i, line := range strings.SplitAfter(b.Notes, "\n") {
				if isHeaderLike(line, s) {
					return nil, fmt.Errorf("%s %q, notes line %d %q would be read as a header", b.Kind, b.Name, i+1, strings.TrimRight(line, "\n"))
				}
			}
			if strings.ContainsRune(b.Notes, '\r') {
				return nil, fmt.Errorf("%s %q: notes hold a carriage return, which a sheet cannot keep", b.Kind, b.Name)
			}
			buf.WriteString(b.Notes)
			if !strings.HasSuffix(b.Notes, "\n") {
				buf.WriteString("\n")
			}
		}
		for _, sec := range b.Sections {
			if !level.Has(sec.Kind) {
				return nil, fmt.Errorf("%s %q: %q is not a section of a %s in this schema", b.Kind, b.Name, sec.Kind, b.Kind)
			}
			buf.WriteString(marker(level.Children.MdHeader))
			buf.WriteString(sec.Kind)
			buf.WriteString("\n")
			text, err := escapeText(sec.Text, s)
			if err != nil {
				return nil, fmt.Errorf("%s %q, %s section: %w", b.Kind, b.Name, sec.Kind, err)
			}
			buf.WriteString(text)
			if text != "" && !strings.HasSuffix(text, "\n") {
				// The next header must start a line; an end token keeps the
				// text's cut value unchanged by the newline.
				// Meta is read line by line with values stripped, so a
				// newline cannot change it; other texts are cut at the
				// end token, which makes the newline invisible.
				if sec.Kind != "meta" && !hasEnd(text) {
					buf.WriteString(endTokens[1])
				}
				buf.WriteString("\n\n")
			}
		}
	}
	return buf.Bytes(), nil
}

// escapeText makes every line of a text read back as text.
func escapeText(text string, s *schema.Schema) (string, error) {
	if strings.ContainsRune(text, '\r') {
		// Universal newlines would turn it into '\n'.
		return "", fmt.Errorf("text holds a carriage return, which a sheet cannot keep")
	}
	if !strings.Contains(text, "#") {
		return text, nil
	}
	lines := strings.SplitAfter(text, "\n")
	for i, line := range lines {
		if !isHeaderLike(line, s) && !(s.EscapeHeaders && escaped(line)) {
			continue
		}
		if !s.EscapeHeaders {
			return "", fmt.Errorf("line %d %q would be read as a header, and the schema has no escapes", i+1, strings.TrimRight(line, "\n"))
		}
		lines[i] = `\` + line
	}
	return strings.Join(lines, ""), nil
}

// isHeaderLike reports whether a line would open a block or a section.
func isHeaderLike(line string, s *schema.Schema) bool {
	if strings.HasPrefix(line, marker(s.Sheet.MdHeader)) || strings.HasPrefix(line, marker(s.Question.MdHeader)) {
		return true
	}
	for _, l := range []*schema.Level{&s.Sheet, &s.Question} {
		m := marker(l.Children.MdHeader)
		if strings.HasPrefix(line, m) && l.Has(strings.ToLower(headerName(line, m))) {
			return true
		}
	}
	return false
}

// escaped reports whether a line is backslashes followed by '#', the form
// the parser unescapes.
func escaped(line string) bool {
	t := strings.TrimLeft(line, `\`)
	return len(t) < len(line) && strings.HasPrefix(t, "#")
}

// unescape undoes escapeText on one line.
func unescape(line string) string {
	if escaped(line) {
		return line[1:]
	}
	return line
}

// Exact returns a section text that reads back as exactly s: s followed by
// an end token, so no trailing newline is added. It is for converters that
// must reproduce a benchmark's text byte for byte.
func Exact(s string) string { return s + endTokens[1] + "\n\n" }

// MetaText renders key/value pairs as a meta section's text, one
// "- key: value" line each, in the order given. Keys should already be in
// ParseMeta's normal form; values must be one line.
func MetaText(pairs ...[2]string) string {
	var b strings.Builder
	for _, kv := range pairs {
		b.WriteString("- ")
		b.WriteString(kv[0])
		b.WriteString(": ")
		b.WriteString(kv[1])
		b.WriteString("\n")
	}
	return b.String()
}
