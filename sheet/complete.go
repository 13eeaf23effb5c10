package sheet

import "fmt"

// CheckComplete says, as one *Error at its line, what keeps a sheet from
// being run: no question at all, a question without a question section
// (LIME skips it: a question lost), or, when graded (a run that grades,
// not a dry run), one without an answer section (every grader grades
// against it). A sheet saved half-written while it is edited is such a
// sheet: run refuses it, so it never becomes the version a folder's newest
// outputs answer, and LIME's parser, which would skip what it lacks, is
// not asked to guess.
func (d *Doc) CheckComplete(graded bool) error {
	questions := 0
	for i := range d.Blocks {
		b := &d.Blocks[i]
		if b.Kind != QuestionKind {
			continue
		}
		questions++
		switch {
		case b.First("question") == nil:
			return d.incomplete(b.Line, "question %q has no question section", b.Name)
		case graded && b.First("answer") == nil:
			return d.incomplete(b.Line, "question %q cannot be graded: it has no answer section", b.Name)
		}
	}
	if questions == 0 {
		line := 1
		if len(d.Blocks) > 0 {
			line = d.Blocks[0].Line
		}
		return d.incomplete(line, "the sheet has no question")
	}
	return nil
}

// incomplete is CheckComplete's error at line.
func (d *Doc) incomplete(line int, format string, args ...any) error {
	return &Error{Diag{Path: d.Path, Line: line, Msg: fmt.Sprintf(format, args...) + " (saved half-written?)"}}
}
