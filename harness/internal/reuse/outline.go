package reuse

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"github.com/evalmd/evalmd/result"
)

// Outline is what Repeats and Supersedes need of an output file: where
// it is, its sheet record, and of each question, in order, digests of
// its sample and of what a rerun may change of it. A run builds its
// output's as it grades each question (Set); Load builds each earlier
// output's as it reads it (Add).
type Outline struct {
	Path  string
	Sheet *result.Sheet
	qs    []outlined
	// carried and now are its samples and texts by place, made once
	// for Supersedes (sets).
	carried []digest
	now     []placed
}

// outlined is a question of an Outline. The sample and the name are
// digested without the name's occurrence in the file, which Supersedes
// counts in order (digest.with).
type outlined struct {
	sample digest // the file it was asked for, its request key, its name
	name   short
	text   short // its text and ground truth, by which a question is as it was
	// asked is what Repeats compares besides the sample: meta, texts,
	// grader, grade and grading mode.
	asked           digest
	keyed, answered bool
}

// digest is 16 bytes of a SHA-256: a million questions' take 16 MB, and
// two differ but by chance of 2^-128.
type digest [16]byte

// NewOutline is the Outline of an output of n questions, filled by Set.
func NewOutline(path string, sheet *result.Sheet, n int) *Outline {
	return &Outline{Path: path, Sheet: sheet, qs: make([]outlined, n)}
}

// Add outlines the output's next question.
func (o *Outline) Add(q *result.Question) {
	o.qs = append(o.qs, outline(o.Path, q))
}

// Set outlines the output's question i.
func (o *Outline) Set(i int, q *result.Question) {
	o.qs[i] = outline(o.Path, q)
}

// outline is question q of the output at path outlined.
func outline(path string, q *result.Question) outlined {
	s, keyed := result.SampleOf(path, q, 0)
	grade := "null"
	if q.Grade != nil {
		grade = strconv.FormatBool(*q.Grade)
	}
	meta := make([]string, 0, 2*len(q.MetaData))
	for _, k := range slices.Sorted(maps.Keys(q.MetaData)) {
		meta = append(meta, k, q.MetaData[k])
	}
	asked := []string{q.Question, q.QuestionUsr, opt(q.GroundTruth), opt(q.System), q.Grader, grade, q.GradeDetail,
		q.Grading, q.GradingFrom, digestOf(meta...).string(), reviewOf(q), opt(q.Completion), q.Reasoning}
	if len(q.Accepted) > 0 {
		// An output that lacks the sheet's accepted answers is not one
		// a rerun only repeats: a regrade would miss them.
		asked = append(asked, digestOf(q.Accepted...).string())
	}
	if len(q.Conversation) > 0 || q.ResponseSchema != "" {
		// Only then, so the outlines of outputs without either stay as
		// they were: another conversation or schema is another question.
		turns := []string{q.ResponseSchema}
		for _, m := range q.Conversation {
			turns = append(turns, m.Role, m.Content)
		}
		asked = append(asked, digestOf(turns...).string())
	}
	return outlined{
		sample:   digestOf(s.From, s.Key, s.Name),
		name:     shortOf(q.Name),
		text:     shortOf(q.Question, opt(q.GroundTruth), settingsOf(q)),
		asked:    digestOf(asked...),
		keyed:    keyed,
		answered: q.Error == nil && !q.Unanswered && q.Completion != nil,
	}
}

// settingsOf is the generation settings sent with q, as a text: a
// question steered otherwise is not the question it was.
func settingsOf(q *result.Question) string {
	if q.Settings == nil || q.Settings.IsZero() {
		return ""
	}
	data, _ := json.Marshal(q.Settings)
	return string(data)
}

// reviewOf is who reviewed q's answer and why, as a text: a grade a
// person gave is not the grader's.
func reviewOf(q *result.Question) string {
	if q.Review == nil {
		return ""
	}
	return q.Review.By + "\x00" + q.Review.At + "\x00" + q.Review.Reason
}

// sets are the samples o carries and the text of each question by its
// place (its name and its occurrence of it), each sorted to be searched
// (has, textAt), made on first use: sorted slices hold a million
// questions in 48 MB, where maps took three times that.
func (o *Outline) sets() (carried []digest, now []placed) {
	if o.carried != nil {
		return o.carried, o.now
	}
	occ := occurrences(o.qs)
	o.carried, o.now = make([]digest, 0, len(o.qs)), make([]placed, len(o.qs))
	for i := range o.qs {
		q := &o.qs[i]
		if q.keyed {
			o.carried = append(o.carried, q.sample.with(occ[i]))
		}
		o.now[i] = placed{q.name.with(occ[i]), q.text}
	}
	slices.SortFunc(o.carried, compare)
	slices.SortFunc(o.now, func(a, b placed) int { return compareShort(a.place, b.place) })
	return o.carried, o.now
}

// placed is a question's text by its place.
type placed struct{ place, text short }

// has says whether the sorted ds hold d.
func has(ds []digest, d digest) bool {
	_, ok := slices.BinarySearchFunc(ds, d, compare)
	return ok
}

// textAt is the text of the question at place in the sorted now.
func textAt(now []placed, place short) (short, bool) {
	i, ok := slices.BinarySearchFunc(now, place, func(p placed, d short) int { return compareShort(p.place, d) })
	if !ok {
		return short{}, false
	}
	return now[i].text, true
}

func compare(a, b digest) int     { return bytes.Compare(a[:], b[:]) }
func compareShort(a, b short) int { return bytes.Compare(a[:], b[:]) }

// occurrences are, for each question of qs, how many before it have its
// name: found by sorting their places by name, which holds a million
// questions in 4 MB, where a map of names took ten times that.
func occurrences(qs []outlined) []int {
	order := make([]int32, len(qs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return compareShort(qs[a].name, qs[b].name) })
	occ := make([]int, len(qs))
	for j := 1; j < len(order); j++ {
		if i, prev := order[j], order[j-1]; qs[i].name == qs[prev].name {
			occ[i] = occ[prev] + 1
		}
	}
	return occ
}

// short is 8 bytes of a SHA-256, for what is compared with a few others
// alone: a question's name or text with those of its place in another
// file, where two differ but by chance of 2^-64.
type short [8]byte

// shortOf is digestOf(parts...) cut short.
func shortOf(parts ...string) short {
	d := digestOf(parts...)
	return short(d[:8])
}

// with is s and an occurrence k, digested; the first occurrence is s
// itself.
func (s short) with(k int) short {
	if k == 0 {
		return s
	}
	return shortOf(string(s[:]), strconv.Itoa(k))
}

// digestOf digests parts, each told apart by its length.
func digestOf(parts ...string) digest {
	h := sha256.New()
	for _, p := range parts {
		h.Write(strconv.AppendInt(nil, int64(len(p)), 10))
		h.Write([]byte{':'})
		h.Write([]byte(p))
	}
	var d digest
	copy(d[:], h.Sum(nil))
	return d
}

// with is d and an occurrence k, digested; the first occurrence, as most
// questions' names have one, is d itself.
func (d digest) with(k int) digest {
	if k == 0 {
		return d
	}
	return digestOf(d.string(), strconv.Itoa(k))
}

func (d digest) string() string { return string(d[:]) }

// opt tells a missing string from an empty one.
func opt(s *string) string {
	if s == nil {
		return "\x00"
	}
	return "=" + *s
}
