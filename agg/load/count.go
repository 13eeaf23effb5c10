package load

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/evalmd/evalmd/internal/readfile"
	"github.com/evalmd/evalmd/result"
)

// streamAbove is the size past which an output file is read a question at
// a time (result.ScanFile) rather than decoded whole by the loader's workers:
// a run's file of a million questions is 657 MB, and decoded whole it was
// 2.2 GB. Files below it, which a folder of many holds, are decoded in
// parallel. The reports that need every question of a file (Each, the
// answers kept for LIME's report types) have every file decoded whole.
const streamAbove = 8 << 20

// fileCount counts one output file, question by question, whether it was
// decoded whole or is read a question at a time: begin sees its sheet
// record, question each question in order, end what was counted. Until
// end, what it added can be taken back (rollback).
type fileCount struct {
	l     *loader
	path  string
	sheet *result.Sheet
	sum   [sha256.Size]byte
	// why is why the file is not counted ("" when it is): dry run, older
	// version, a copy of a run counted already (dupOf).
	why, dupOf string
	// version hashes the questions' version (result.File.Version) when
	// the sheet records none and agg tells versions apart.
	version *result.Versioner
	total   int // questions read

	add      *adder
	occ      map[string]int // the file's questions so far, by name (result.SampleOf)
	kept     []bool         // of a file decoded whole, which questions count
	nKept    int
	first    string // the file the first answer carried by an earlier one was counted from
	carried  []int  // the rows of those answers
	answered bool   // a question counted has an answer
	rows     int    // where the file's rows start in d.rows
	added    []result.SampleID
}

// Reasons a file is not counted.
const (
	notDryRun = "dry run"
	notOlder  = "older version"
	notCopy   = "copy"
)

// begin starts counting the file at path whose sheet record is sheet (sum:
// its bytes' sha256, for a run without an id); n is its number of
// questions when known (a file decoded whole), else -1.
func (l *loader) begin(path string, sheet *result.Sheet, sum [sha256.Size]byte, n int) *fileCount {
	c := &fileCount{l: l, path: path, sheet: sheet, sum: sum}
	switch {
	case sheet.DryRun && !l.opt.IncludeDryRuns:
		c.why = notDryRun
	case l.leave[path]:
		c.why = notOlder
	default:
		if first, dup := l.seen.lookup(path, sheet, sum); dup {
			c.why, c.dupOf = notCopy, first
		}
	}
	if sheet.Version == "" && !l.opt.LatestVersion && c.why != notDryRun {
		c.version = &result.Versioner{}
	}
	if c.why != "" {
		return c
	}
	d := l.d
	if d.Files == 0 && n > 0 && cap(d.rows) == 0 {
		// Files are usually alike: size the rows for all of them at once
		// instead of doubling a million-row slice.
		d.rows = make([]Row, 0, min(l.nPaths*n, 1<<24))
	}
	c.add, c.occ, c.rows = d.fileAdder(sheet), map[string]int{}, len(d.rows)
	if n >= 0 {
		c.kept = make([]bool, 0, n)
	}
	return c
}

// question counts the file's next question: its row is added unless an
// earlier file carries its answer (result.Sample: a rerun's reused
// answers), the first file in name order that carries a sample counting
// it.
func (c *fileCount) question(q *result.Question) {
	c.total++
	if c.why != "" {
		if c.version != nil {
			c.version.Add(q.Name, q.Question, q.GroundTruth)
		}
		return
	}
	s, ok := result.SampleOf(c.path, q, c.occ[q.Name])
	c.occ[q.Name]++
	var id result.SampleID
	if ok {
		id = s.ID()
		if at, found := c.l.samples[id]; found {
			if c.first == "" {
				c.first = at.path
			}
			c.carried = append(c.carried, at.row)
			if c.kept != nil {
				c.kept = append(c.kept, false)
			}
			return
		}
		c.l.samples[id] = sampleAt{c.path, len(c.l.d.rows)}
		c.added = append(c.added, id)
	}
	if c.kept != nil {
		c.kept = append(c.kept, true)
	}
	c.nKept++
	c.answered = c.answered || q.HasAnswer()
	c.add.add(q)
	if c.version != nil {
		c.version.Add(q.Name, q.Question, q.GroundTruth)
	}
}

// end ends the file's count and says whether it counts; all says that
// every answer in it is counted from earlier files (it is not counted
// either, and no report sees it).
func (c *fileCount) end() (counted, all bool) {
	l, d, sh := c.l, c.l.d, c.sheet
	switch c.why {
	case notDryRun:
		d.DryRuns = append(d.DryRuns, c.path)
		return false, false
	case notOlder:
		d.OlderVersions = append(d.OlderVersions, c.path)
	case notCopy:
		d.Duplicates = append(d.Duplicates, c.path)
		fmt.Fprintf(l.warn, "agg: skipping %s: the same run as %s (run id %q, sheet %q, model %q)\n",
			d.Named(c.path), d.Named(c.dupOf), sh.RunID, sh.Name, sh.ModelName)
	default:
		l.seen.remember(c.path, sh, c.sum)
		if c.nKept == 0 && c.total > 0 {
			d.Duplicates = append(d.Duplicates, c.path)
			fmt.Fprintf(l.warn, "agg: skipping %s: every answer in it is counted from %s (a rerun reused them: one answer, one sample)\n", d.Named(c.path), d.Named(c.first))
			return false, true
		}
		c.commit()
	}
	if !l.opt.LatestVersion {
		l.fvs = append(l.fvs, c.fileVersion())
	}
	return c.why == "", false
}

// commit counts the file: its rows are d's, its usage its model's.
func (c *fileCount) commit() {
	l, d, sh := c.l, c.l.d, c.sheet
	if c.first != "" {
		fmt.Fprintf(l.warn, "agg: %s: %d of its %d answers are counted from %s (a rerun reused them: one answer, one sample)\n",
			d.Named(c.path), c.total-c.nKept, c.total, d.Named(c.first))
	}
	if !c.answered && c.nKept > 0 {
		d.NoAnswers = append(d.NoAnswers, fmt.Sprintf("%s (model %s, sheet %s)", d.Named(c.path), sh.ModelName, sh.Name))
	}
	if sh.Subset != nil {
		d.Subsets = append(d.Subsets, fmt.Sprintf("%s (model %s, sheet %s): %s", d.Named(c.path), sh.ModelName, sh.Name, sh.Subset.Describe(c.total)))
	}
	d.Files++
	d.Counted = append(d.Counted, c.path)
	if l.fresh(sh) {
		// A run the baseline does not hold: its answers, and those it
		// carries that earlier files counted, are marked where counted.
		for i := c.rows; i < len(d.rows); i++ {
			d.rows[i].Fresh = true
		}
		for _, i := range c.carried {
			d.rows[i].Fresh = true
		}
	}
	c.add.done()
}

// rollback takes back what the file added: its rows, meta values and
// samples (a file read a question at a time that turned out not to be
// readable so, to be decoded whole instead).
func (c *fileCount) rollback() {
	if c == nil || c.why != "" {
		return
	}
	d := c.l.d
	d.rows = d.rows[:c.rows]
	d.meta = d.meta[:c.add.meta]
	d.reviews = d.reviews[:c.add.reviews]
	for _, id := range c.added {
		delete(c.l.samples, id)
	}
}

// fileVersion is the file's version, as versionOf reads a file decoded
// whole.
func (c *fileCount) fileVersion() fileVersion {
	v := c.sheet.Version
	if c.version != nil {
		v = c.version.Sum()
	}
	return fileVersionOf(c.path, c.l.d.PartsOf[c.path], c.sheet, v)
}

// dropCarried takes out of f, a file decoded whole and counted, the
// questions an earlier file carries, so the reports that see it
// (LoadOptions.Each) show each answer once.
func (c *fileCount) dropCarried(f *result.File) {
	if c.nKept == len(f.Questions) {
		return
	}
	f.Keep(c.kept)
}

// adder reduces the questions of one file to rows, its usage summed apart
// until the file is counted (done).
type adder struct {
	d                 *Data
	sheet, model, run Str
	epoch             uint16
	sheetMetric       uint8
	seen              map[Str]uint16 // the file's names so far
	u                 usage
	meta              int // where the file's meta values start in d.meta
	reviews           int // where the file's reviews start in d.reviews
	// judge is the model the file's judged answers name, judges how
	// many times it changed (noteJudge).
	judge  string
	judges int
}

// fileAdder starts reducing a file whose sheet record is sheet.
func (d *Data) fileAdder(sheet *result.Sheet) *adder {
	in := d.strs
	// The model as its runs are told apart: one model at two reasoning
	// efforts is two models (result.ModelLabel).
	return &adder{d: d, sheet: in.id(sheet.Name), model: in.id(sheet.ModelLabel()), run: in.id(sheet.RunID),
		epoch: uint16(max(sheet.Epoch, 1)), sheetMetric: d.metricFor(sheet.MetaData["benchmark"]),
		seen: map[Str]uint16{}, meta: len(d.meta), reviews: len(d.reviews)}
}

// add reduces one question to a row.
func (a *adder) add(q *result.Question) {
	d, in := a.d, a.d.strs
	r := Row{Sheet: a.sheet, Model: a.model, Run: a.run, Epoch: a.epoch, Name: in.id(q.Name), Truth: NoStr, Grade: gradeOf(q.Grade),
		Errored: q.Error != nil, Unanswered: q.Unanswered, NoResponse: !q.HasAnswer(), Limited: q.Limit != "", Liberal: q.Liberal()}
	if q.GroundTruth != nil {
		r.Truth = in.id(*q.GroundTruth)
	}
	subCorrect := 0
	for _, s := range q.SubAnswers {
		if s.Correct {
			subCorrect++
		}
	}
	r.SubTotal, r.SubCorrect = uint16(min(len(q.SubAnswers), math.MaxUint16)), uint16(min(subCorrect, math.MaxUint16))
	// A name repeated in a sheet (LIME allows it) is another question,
	// told from the first by its occurrence.
	r.Occ = a.seen[r.Name]
	a.seen[r.Name] = min(r.Occ+1, math.MaxUint16)
	// The question's own "benchmark" meta (the sheet's, cascaded) wins
	// when it names a metric; else the sheet's.
	r.Metric = d.metricFor(q.MetaData["benchmark"])
	if r.Metric == 0 {
		r.Metric = a.sheetMetric
	}
	if r.Metric != 0 {
		r.meta = uint32(len(d.meta))
		for _, k := range d.metricKeys[r.Metric-1] {
			v := NoStr
			if val, ok := q.MetaData[k]; ok {
				v = in.id(val)
			}
			d.meta = append(d.meta, v)
		}
	}
	a.noteJudge(q)
	if q.Review != nil {
		a.review(q, len(d.rows))
	}
	d.rows = append(d.rows, r)
	a.u.addQuestion(q)
}

// done adds the file's usage to its model's.
func (a *adder) done() {
	a.lendJudge()
	u := a.d.usage[a.model]
	if u == nil {
		u = &usage{}
		a.d.usage[a.model] = u
	}
	u.merge(&a.u)
}

// addQuestion sums a question's usage.
func (u *usage) addQuestion(q *result.Question) {
	u.questions++
	if q.InputTokens != 0 || q.OutputTokens != 0 {
		u.tokQuestions++
		tok := q.Tokens()
		u.tok.AddTokens(&tok)
	}
	if q.CacheSaved != nil && figure(math.Abs(*q.CacheSaved)) {
		u.saved += *q.CacheSaved
	}
	switch {
	case q.Cost == nil:
	case figure(*q.Cost):
		u.cost += *q.Cost
		u.costN++
	default:
		u.badFigures++
	}
	if q.BatchID != "" {
		u.batchN++
	}
	switch {
	case q.EvalTime == nil:
	case figure(*q.EvalTime):
		u.evalTime += *q.EvalTime
		u.evalN++
	default:
		u.badFigures++
	}
}

// merge adds v's sums to u's.
func (u *usage) merge(v *usage) {
	u.questions += v.questions
	u.tok.AddTokens(&v.tok)
	u.saved += v.saved
	u.tokQuestions += v.tokQuestions
	u.cost += v.cost
	u.costN += v.costN
	u.batchN += v.batchN
	u.evalTime += v.evalTime
	u.evalN += v.evalN
	u.badFigures += v.badFigures
}

// errPart stops a file read a question at a time at its sheet record
// when it is a shard's part: the parts of a run are read together, once
// they are in (countWhole).
var errPart = errors.New("a shard's part")

// stream counts the file at path reading it a question at a time
// (result.ScanFile). Of a shard's part only the sheet record is read, and it
// waits for the run's other parts (addPart). A file that cannot be read
// so (one result.ScanFile leaves to result.Parse) has what it added taken
// back and is decoded whole and taken as the workers' files are.
func (l *loader) stream(path string) {
	var c *fileCount
	var part *result.Sheet
	err := result.ScanFile(path, func(s *result.Sheet) error {
		if l.grouped(path, s) {
			part = s
			return errPart
		}
		var sum [sha256.Size]byte
		if s.RunID == "" {
			// A copy of a run without an id is told by its bytes.
			var err error
			if sum, err = fileSum(path); err != nil {
				return err
			}
		}
		c = l.begin(path, s, sum, -1)
		return nil
	}, func(q *result.Question, _ result.Span) error {
		c.question(q)
		return nil
	})
	if err == nil {
		c.end()
		return
	}
	if part != nil && l.scanPart(path, part) {
		return
	}
	c.rollback()
	if errors.Is(err, result.ErrLongString) {
		// Read would refuse it too, once it held the whole file.
		l.take(decoded{path: path, err: fmt.Errorf("%s: %w", path, err)})
		return
	}
	r, _ := decodeOne(path, nil, never)
	l.take(r)
}

// never is a streamed that says no file is read a question at a time.
func never(string) bool { return false }

// fileSum is the sha256 of the file at path.
func fileSum(path string) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	fh, err := readfile.Open(path)
	if err != nil {
		return sum, err
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return sum, err
	}
	h.Sum(sum[:0])
	return sum, nil
}

// streamed says whether the file at path is read a question at a time.
func (l *loader) streamed(path string) bool {
	if l.opt.Each != nil || l.opt.Answers || l.opt.Whole {
		return false
	}
	above := int64(streamAbove)
	if l.opt.StreamAbove != 0 {
		above = l.opt.StreamAbove
	}
	st, err := os.Stat(path)
	// A shard's part, whatever its size: the parts of a run in many
	// shards may each be small and together a million questions.
	return err == nil && (st.Size() > above || result.IsShardName(filepath.Base(path)))
}
