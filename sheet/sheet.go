// Package sheet parses and writes question sheets: markdown files in LIME's
// format, split into sections by a schema (package schema).
//
// Parsing follows LIME's own parser line for line, because the prompts and
// ground truths it yields must equal LIME's: a line that starts with the
// sheet marker ("# ") or the question marker ("## ") opens a major section
// wherever it stands (even inside a code fence); inside it, a "#### name"
// line whose name is a schema option opens a minor section; any other line
// is text of the section it stands in. What LIME drops silently (text
// before the first header, a question without a question section) is
// dropped here too, and reported as a warning with file:line.
//
// A parsed sheet is a Doc of Blocks, each of a Kind (SheetKind or
// QuestionKind) with its Sections; a sheet that cannot be parsed is an
// *Error naming the file and line. Format writes a Doc back as markdown.
// A question's answers accepted besides its truth follow the answer's end
// token, where LIME's parser drops them: AcceptLine writes one such line,
// and AddAccepted adds one to a sheet file in place.
//
// Beyond LIME, a question may hold a conversation before its question:
// "user" and "assistant" sections, each a Turn, in order before its
// question section (a turn after it is an *Error at its line); the same
// sections in the sheet block are few-shot turns every question gets
// first. A "schema" section is the JSON Schema an answer must follow,
// refused at its line when CheckSchema finds it is not one.
package sheet

import (
	"fmt"
	"strings"
)

// Kind is the kind of a major block.
type Kind string

// The major block kinds.
const (
	SheetKind    Kind = "sheet"
	QuestionKind Kind = "question"
)

// Doc is a parsed sheet file: its major blocks in file order.
type Doc struct {
	Path     string
	Blocks   []Block
	Warnings []Diag
}

// Block is a major section: the sheet header or a question.
type Block struct {
	Kind Kind
	Name string // the header line without its markers, trimmed
	Line int    // 1-based line of the header
	// Notes are the lines between the header and its first section,
	// which LIME ignores: notes for people ("#### info" in LIME's sheets).
	Notes    string
	Sections []Section
}

// Section is a minor section ("#### meta", "#### question", ...).
type Section struct {
	Kind string // the schema option it matched, lowercase
	Text string // its lines joined, newlines kept, as LIME keeps them
	Line int    // 1-based line of the "####" header
}

// Diag is a warning or error at a place in a sheet file.
type Diag struct {
	Path string
	Line int
	Msg  string
}

func (d Diag) String() string { return fmt.Sprintf("%s:%d: %s", d.Path, d.Line, d.Msg) }

// Error is a parse failure at a place in a sheet file.
type Error struct{ Diag }

func (e *Error) Error() string { return e.Diag.String() }

// First returns the block's first section of the kind, or nil.
func (b *Block) First(kind string) *Section {
	for i := range b.Sections {
		if b.Sections[i].Kind == kind {
			return &b.Sections[i]
		}
	}
	return nil
}

// endTokens end a section's text; see CutEnd.
var endTokens = [...]string{"|EVAL-ENDCHAR|", "<EVAL-ENDCHAR>"}

// CutEnd returns text up to its end token. As LIME does, it looks for the
// first occurrence of each token and cuts at the later of the two.
func CutEnd(text string) string {
	cut := -1
	for _, tok := range endTokens {
		if i := strings.Index(text, tok); i > cut {
			cut = i
		}
	}
	if cut >= 0 {
		return text[:cut]
	}
	return text
}

// hasEnd reports whether text holds an end token.
func hasEnd(text string) bool {
	for _, tok := range endTokens {
		if strings.Contains(text, tok) {
			return true
		}
	}
	return false
}
