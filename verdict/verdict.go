// Package verdict keeps people's verdicts on answers. A verdict is a
// person's right or wrong (and an optional reason) on one answer: a
// question of a sheet, answered by a model, graded against a truth. It is
// keyed to the question (sheet, name, occurrence), the model, and digests
// of the truth and the graded text, so it applies wherever that same
// answer is graded against that same truth (a rerun that reuses it, a
// regrade, another epoch that gave the same text) and to no other: when
// the answer or the truth changes, the verdict is stale, and readers list
// it rather than apply it elsewhere.
//
// Verdicts live beside the output files they judge, in a plain text file
// (FileName) a person can read, edit and commit: one verdict a line (Line
// writes one, ParseLine reads it back), in a stable order. Read (and
// Parse, of bytes) keeps every line it can parse and names each one it
// cannot by FILE:LINE (a LineError). Add merges new verdicts into the file
// as it is at the moment of writing, so two reviewers at once lose
// nothing. A Key holds a Digest of the truth and of the graded text.
package verdict

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"time"

	"github.com/evalmd/evalmd/result"
)

// FileName is the verdicts file of a folder of output files.
const FileName = "verdicts.txt"

// Key names the answer a verdict is on.
type Key struct {
	Sheet    string // the sheet's name (its "# " title, Sheet.Name)
	Question string // the question's name
	// N is which question of that name the answer is to, counted from 1
	// in its output file's order (a name a sheet repeats).
	N      int
	Model  string // the model that answered, as the output names it
	Truth  string // Digest of the ground truth
	Answer string // Digest of the text graded
}

// Verdict is a person's grade of one answer.
type Verdict struct {
	Key
	Right  bool
	By     string    // who decided
	At     time.Time // when, in UTC to the second
	Reason string
	// Grader is the grade the answer's grader gave when the verdict was
	// made (nil: none), which the verdict replaced.
	Grader *bool
	// Said is the start of the answer, for a person reading the file;
	// matching reads only the Key.
	Said string
	// Line is where the verdict was read from (0 for one made now).
	Line int
}

// Digest is the digest a Key holds of a text: the first 12 hex digits of
// its SHA-256, or "none" for no text.
func Digest(text *string) string {
	if text == nil {
		return "none"
	}
	sum := sha256.Sum256([]byte(*text))
	return hex.EncodeToString(sum[:6])
}

// KeyOf is the key of q's answer, q being question n (from 1) of its name
// in f, and graded the text its grader reads (its completion with any
// leading reasoning split off, or code mode's answer).
func KeyOf(f *result.File, q *result.Question, n int, graded *string) Key {
	return Key{Sheet: f.Sheet.Name, Question: q.Name, N: max(n, 1),
		Model: cmp.Or(q.ModelName, f.Sheet.ModelName), Truth: Digest(q.GroundTruth), Answer: Digest(graded)}
}

// Occurrences returns, for each question of f, which question of its name
// it is, counted from 1 in file order: Key's N.
func Occurrences(f *result.File) []int {
	seen := make(map[string]int, len(f.Questions))
	ns := make([]int, len(f.Questions))
	for i := range f.Questions {
		seen[f.Questions[i].Name]++
		ns[i] = seen[f.Questions[i].Name]
	}
	return ns
}

// Review is what an output records of the verdict on its answer.
func (v *Verdict) Review() *result.Review {
	return &result.Review{By: v.By, At: v.At.UTC().Format(time.RFC3339), Reason: v.Reason, GraderGrade: v.Grader}
}

// Set is the verdicts of one folder.
type Set struct {
	Path string // the file they were read from
	list []Verdict
	at   map[Key]int // index in list
}

// NewSet returns the set of vs at path; a later verdict on the same
// answer replaces an earlier one.
func NewSet(path string, vs []Verdict) *Set {
	s := &Set{Path: path, at: make(map[Key]int, len(vs))}
	for _, v := range vs {
		s.put(v)
	}
	return s
}

func (s *Set) put(v Verdict) {
	if i, ok := s.at[v.Key]; ok {
		s.list[i] = v
		return
	}
	s.at[v.Key] = len(s.list)
	s.list = append(s.list, v)
}

// Len is the number of verdicts; a nil Set has none.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.list)
}

// Find returns the verdict on the answer k names.
func (s *Set) Find(k Key) (Verdict, bool) {
	if s == nil {
		return Verdict{}, false
	}
	i, ok := s.at[k]
	if !ok {
		return Verdict{}, false
	}
	return s.list[i], true
}

// All returns the verdicts in the file's order (Sort's).
func (s *Set) All() []Verdict {
	if s == nil {
		return nil
	}
	return slices.Clone(s.list)
}
