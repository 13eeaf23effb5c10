package result

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// SheetVersion names a version of a sheet's questions: 12 hex digits of a
// sha256 over, question by question in order, its name, LIME's question
// text (the sheet's question and the question's own, as a LIME output's
// "question" holds it) and its ground truth (null told from ""). Editing a
// question or an answer, adding, removing or reordering questions makes
// another version; a setting, a grader or a note does not. at gives
// question i of n.
func SheetVersion(n int, at func(i int) (name, question string, truth *string)) string {
	h := sha256.New()
	var buf []byte
	field := func(s string) {
		buf = strconv.AppendInt(buf[:0], int64(len(s)), 10)
		buf = append(buf, ':')
		h.Write(buf)
		h.Write([]byte(s))
	}
	for i := range n {
		name, question, truth := at(i)
		field(name)
		field(question)
		if truth == nil {
			h.Write([]byte{'~'})
		} else {
			h.Write([]byte{'='})
			field(*truth)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// Version is the version of the sheet's questions f holds answers to: the
// one its run recorded, else (LIME's files, evalmd's from before versions
// were recorded) SheetVersion over f's own questions, whose "question" is
// LIME's question text.
func (f *File) Version() string {
	if f.Sheet.Version != "" {
		return f.Sheet.Version
	}
	return SheetVersion(len(f.Questions), func(i int) (string, string, *string) {
		q := &f.Questions[i]
		return q.Name, q.Question, q.GroundTruth
	})
}
