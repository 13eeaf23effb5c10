package result

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
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
	var v Versioner
	for i := range n {
		v.Add(at(i))
	}
	return v.Sum()
}

// Versioner is SheetVersion a question at a time (Add, in order), for a
// file read one question at a time (Scan). The zero value is ready.
type Versioner struct {
	h   hash.Hash
	buf []byte
}

// Add adds the next question.
func (v *Versioner) Add(name, question string, truth *string) {
	if v.h == nil {
		v.h = sha256.New()
	}
	v.field(name)
	v.field(question)
	if truth == nil {
		v.h.Write([]byte{'~'})
	} else {
		v.h.Write([]byte{'='})
		v.field(*truth)
	}
}

func (v *Versioner) field(s string) {
	v.buf = strconv.AppendInt(v.buf[:0], int64(len(s)), 10)
	v.buf = append(v.buf, ':')
	v.h.Write(v.buf)
	v.h.Write([]byte(s))
}

// Sum is the version of the questions added.
func (v *Versioner) Sum() string {
	if v.h == nil {
		v.h = sha256.New()
	}
	return hex.EncodeToString(v.h.Sum(nil))[:12]
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
