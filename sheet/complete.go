package sheet

import "fmt"

// Incomplete lists, each an *Error at its line, what keeps a sheet from
// being run: no question at all, a question without a question section
// (LIME skips it: a question lost), or, when graded (a run that grades,
// not a dry run), one without an answer section (every grader grades
// against it). A sheet saved half-written while it is edited is such a
// sheet: run refuses it (CheckComplete), so it never becomes the version
// a folder's newest outputs answer, and LIME's parser, which would skip
// what it lacks, is not asked to guess.
func (d *Doc) Incomplete(graded bool) []error {
	var out []error
	questions := 0
	for i := range d.Blocks {
		b := &d.Blocks[i]
		if b.Kind != QuestionKind {
			continue
		}
		questions++
		switch {
		case b.First("question") == nil:
			out = append(out, d.incomplete(b.Line, "question %q has no question section", b.Name))
		case graded && b.First("answer") == nil:
			out = append(out, d.incomplete(b.Line, "question %q cannot be graded: it has no answer section", b.Name))
		}
	}
	if questions == 0 {
		line := 1
		if len(d.Blocks) > 0 {
			line = d.Blocks[0].Line
		}
		out = append(out, d.incomplete(line, "the sheet has no question"))
	}
	return out
}

// CheckComplete is the first of Incomplete's errors, nil when there is
// none.
func (d *Doc) CheckComplete(graded bool) error {
	if errs := d.Incomplete(graded); len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// incomplete is Incomplete's error at line.
func (d *Doc) incomplete(line int, format string, args ...any) error {
	return &Error{Diag{Path: d.Path, Line: line, Msg: fmt.Sprintf(format, args...) + " (saved half-written?)"}}
}
