// Package reuse finds, for the questions a run is about to ask, the answers
// earlier runs got to the very same requests, so that rerunning after an
// edit asks only the questions whose request changed (run --fresh asks
// them all).
//
// Every question a run writes records its request's Key (the output's
// request_key). The earlier outputs of the same sheet and model in the
// folder a run writes to are its Index: a question whose key one of them
// recorded with an answer takes that answer, marked with the file it came
// from (reused_from), and is graded again by the run against the ground
// truth the sheet holds now. Files without keys (LIME's, evalmd's from
// before keys were recorded) are never reused from; neither are errors,
// questions the model had no answer to, nor dry runs.
//
// Only what evalmd wrote on this machine is reused: a file whose content
// is sealed under the machine's key (internal/outfile: a run seals what it
// writes, evalmd trust what the user vouches for). Anything else, a
// stranger's output planted beside the sheets or in superseded/ with
// answers of its choosing, is read for nothing and named in Strangers.
//
// A reused answer is the same sample as the one it came from: an output
// the run would only repeat is not written (Repeats), and the earlier
// outputs the new one supersedes are put aside (Supersedes), so a folder
// holds each answer once.
package reuse

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/readfile"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/runner"
)

// BasisModel is a model whose answer depends on more than the task it is put:
// the offline built-ins answer from their own options (mock's reply,
// random's seed) or a file (replay's lines). ReuseBasis says what its
// answer to q depends on besides the task; Key covers it.
type BasisModel interface {
	ReuseBasis(q model.QuestionRef) string
}

// Key is the reuse key of t put to m: runner.RequestKey (the model, its
// server, everything sent, and the question for a model that answers from
// it, Info.FromQuestion: the oracle's key covers the ground truth), and
// for a BasisModel model what else its answer depends on. It is "" when an
// answer of m cannot be reused: an offline model that answers from neither
// the request nor the question and does not say from what.
func Key(m model.Model, t model.Task) string {
	info := m.Info()
	key := runner.RequestKey(m.Name(), info, t)
	b, ok := m.(BasisModel)
	switch {
	case ok:
		h := sha256.New()
		fmt.Fprintf(h, "%s\x00%s", key, b.ReuseBasis(t.Question))
		return hex.EncodeToString(h.Sum(nil))
	case info.Offline && !info.FromQuestion:
		return ""
	}
	return key
}

// Index holds where the answers of earlier output files lie, by request
// key: a rerun of a million questions holds their places, not the
// answers, and reads each answer it reuses from its file (Take).
type Index struct {
	// byKey holds each key's answer once, sorted by key: a million
	// answers take 32 MB, half a map's.
	byKey []keyed
	// held are the answers of the files read whole (read), by key.
	held    map[digest]*result.Question
	sources []*source // the files read, oldest first
	// Files are the earlier output files read, Skipped those that could
	// not be (each with the reason; they are left out, not fatal).
	Files   []string
	Skipped []string
	// Strangers are the earlier outputs not sealed on this machine, as
	// they are now, under the key Load was given: none of their answers
	// is reused, and they are not Earlier.
	Strangers []Stranger
	// Earlier are the earlier outputs in the folder itself (not those
	// superseded), oldest first: the run's output may repeat one
	// (Repeats) or supersede some (Supersedes).
	Earlier []Earlier
}

// Earlier is an earlier output of a sheet and model: its File holds the
// sheet record alone (its questions are outlined, and Tally counts
// them), unless it had to be read whole.
type Earlier struct {
	Path    string
	File    *result.File
	Outline *Outline
	Tally   result.Tally
}

// Stranger is an earlier output evalmd did not write on this machine (or
// that was changed since), and the answers it holds.
type Stranger struct {
	Path    string
	Answers int
}

// answer is where an answered question of an earlier output lies: in
// sources[file] at span, or in held when file's was read whole (n < 0).
type answer struct {
	off  int64
	n    int32
	file int32
}

// source is an earlier output an answer is read from, opened on first
// use.
type source struct {
	path string
	mu   sync.Mutex
	fh   *os.File
}

// Load indexes the earlier outputs of the sheet at sheetPath on the model
// named modelName in dir and in its result.Superseded folder (an answer
// put aside is still an answer: a question edited and edited back is not
// asked again): the files result.FileName names for them, with any run
// id, whose model is modelName and that are no dry run. skip is a file
// left out (the output the run itself writes, when it resumes). A newer
// file's answer wins over an older one's, by the time its run started.
// Only the files sealed under key as they are now are reused from (a nil
// key trusts none). Close lets the files go.
func Load(dir, sheetPath, modelName, skip string, key *outfile.Key) (*Index, error) {
	var files []found
	var skipped []string
	for _, d := range []string{dir, filepath.Join(dir, result.Superseded)} {
		fs, sk, err := list(d, sheetPath, modelName, skip, d == dir, key)
		if err != nil {
			return nil, err
		}
		files, skipped = append(files, fs...), append(skipped, sk...)
	}
	// Oldest first, so a newer answer to a key replaces an older one.
	sort.SliceStable(files, func(i, j int) bool { return files[i].before(files[j]) })
	for {
		ix, bad := index(files)
		if bad < 0 {
			ix.Skipped = skipped
			return ix, nil
		}
		// A file that could be read neither a question at a time nor
		// whole (it changed since its sheet was read) is left out, with
		// what it put in the index.
		skipped = append(skipped, files[bad].err.Error())
		files = slices.Delete(files, bad, bad+1)
	}
}

// index indexes files, oldest first, reading each a question at a time;
// bad is the place of one that could not be read (its err set), -1
// when none.
func index(files []found) (ix *Index, bad int) {
	// As many keys as the largest file has questions, at least: the
	// map is made at once, not grown (which leaves its smaller tables
	// to the collector).
	hint := 0
	for _, fd := range files {
		hint = max(hint, fd.File.Sheet.QuestionsHint(fd.size))
	}
	ix = &Index{byKey: make([]keyed, 0, hint)}
	for k := range files {
		fd := &files[k]
		ix.Files = append(ix.Files, fd.path)
		ix.sources = append(ix.sources, &source{path: fd.path})
		if fd.err = fd.read(ix, int32(k)); fd.err != nil {
			return nil, k
		}
		if fd.stranger {
			continue
		}
		if fd.current {
			ix.Earlier = append(ix.Earlier, fd.Earlier)
		}
	}
	ix.Earlier = slices.Clip(ix.Earlier)
	ix.sortKeys()
	return ix, -1
}

// keyed is an answer by the digest of its request key.
type keyed struct {
	key digest
	answer
}

// sortKeys sorts the answers by key, keeping of each key the answer put
// in last: the newest file's.
func (ix *Index) sortKeys() {
	slices.SortStableFunc(ix.byKey, func(a, b keyed) int { return compare(a.key, b.key) })
	kept := ix.byKey[:0]
	for i, a := range ix.byKey {
		if i+1 < len(ix.byKey) && ix.byKey[i+1].key == a.key {
			continue
		}
		kept = append(kept, a)
	}
	ix.byKey = slices.Clip(kept)
}

// find is the answer to key.
func (ix *Index) find(key digest) (answer, bool) {
	i, ok := slices.BinarySearchFunc(ix.byKey, key, func(a keyed, k digest) int { return compare(a.key, k) })
	if !ok {
		return answer{}, false
	}
	return ix.byKey[i].answer, true
}

// found is an earlier output, its sheet read.
type found struct {
	Earlier
	path    string
	current bool         // in the folder itself, not put aside: outlined
	written time.Time    // runs started in one second are ordered by it
	size    int64        // its size when listed, which bounds its totals' claims
	whole   *result.File // the file, when it was read whole to find its sheet
	seals   *outfile.Seals
	// stranger: the file is not sealed as it is (its answers were taken
	// out of the index again)
	stranger bool
	err      error
}

// before says whether a's run started before b's.
func (a found) before(b found) bool {
	at, aok := a.File.Sheet.StartTime()
	bt, bok := b.File.Sheet.StartTime()
	if aok && bok && !at.Equal(bt) {
		return at.Before(bt)
	}
	return a.written.Before(b.written)
}

// list finds the earlier outputs of the sheet and model in dir (none
// when dir is missing), current when dir is the run's own folder, each
// with its sheet read; files that cannot be read are left out, each said
// in skipped.
func list(dir, sheetPath, modelName, skip string, current bool, key *outfile.Key) (files []found, skipped []string, err error) {
	base := strings.TrimSuffix(result.FileName(sheetPath, modelName, ""), ".json")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("earlier outputs: %w", err)
	}
	seals, err := outfile.ReadSeals(dir, key)
	if err != nil {
		return nil, nil, fmt.Errorf("earlier outputs: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".json") ||
			name != base+".json" && !strings.HasPrefix(name, base+"-") {
			continue
		}
		path := filepath.Join(dir, name)
		if skip != "" && sameFile(path, skip) {
			continue
		}
		fd := found{path: path, current: current, seals: seals}
		if err := fd.sheet(modelName); errors.Is(err, errOther) {
			continue
		} else if err != nil {
			skipped = append(skipped, err.Error())
			continue
		}
		if info, err := e.Info(); err == nil {
			fd.written, fd.size = info.ModTime(), info.Size()
		}
		files = append(files, fd)
	}
	return files, skipped, nil
}

// errOther says an output file is not one to reuse from: another model's
// whose name shares the prefix ("gpt-4" and "gpt-4-turbo"), or another
// sheet's (the model name tells; the keys would never match anyway), or
// a dry run.
var errOther = errors.New("another model's output, or a dry run")

// errSheet stops a file's reading once its sheet is read.
var errSheet = errors.New("the sheet read")

// sheet reads the sheet record of the file (all of it, when it cannot be
// read a question at a time) and says whether it is one to reuse from.
func (fd *found) sheet(modelName string) error {
	var sh *result.Sheet
	err := result.ScanFile(fd.path, func(s *result.Sheet) error {
		sh = s
		return errSheet
	}, func(*result.Question, result.Span) error { return nil })
	if !errors.Is(err, errSheet) {
		if fd.whole, err = result.Read(fd.path); err != nil {
			return err
		}
		sh = &fd.whole.Sheet
	}
	if sh.ModelName != modelName || sh.DryRun {
		return errOther
	}
	fd.Earlier = Earlier{Path: fd.path, File: &result.File{Sheet: *sh}}
	return nil
}

// read indexes the file's answers as its source k, a question at a time
// (or whole, when it cannot be read so), counting and outlining each
// question. Errors, questions the model had no answer to and questions
// without a key are never reused from.
func (fd *found) read(ix *Index, k int32) error {
	begin := func(n int) {
		fd.Tally = result.Tally{}
		if fd.current {
			fd.Outline = &Outline{Path: fd.path, Sheet: &fd.File.Sheet, qs: make([]outlined, 0, n)}
		}
	}
	add := func(q *result.Question, a answer) {
		fd.Tally.Add(q)
		if fd.Outline != nil {
			fd.Outline.Add(q)
		}
		if q.RequestKey == "" || q.Error != nil || q.Unanswered || q.Completion == nil {
			return
		}
		key := digestOf(q.RequestKey)
		ix.byKey = append(ix.byKey, keyed{key, a})
		if a.n < 0 {
			ix.held[key] = q
		}
	}
	start := len(ix.byKey)
	if fd.whole == nil {
		begin(fd.File.Sheet.QuestionsHint(fd.size))
		sum, err := scanSum(fd.path, func(q *result.Question, at result.Span) error {
			add(q, answer{off: at.Off, n: int32(at.Len), file: k})
			return nil
		})
		if err == nil {
			fd.trust(ix, start, sum)
			return nil
		}
		// Read whole, its answers replace those the scan put in.
		ix.byKey = ix.byKey[:start]
		if fd.whole, err = result.Read(fd.path); err != nil {
			return err
		}
	}
	fd.File = fd.whole
	if ix.held == nil {
		ix.held = map[digest]*result.Question{}
	}
	begin(len(fd.whole.Questions))
	for i := range fd.whole.Questions {
		add(&fd.whole.Questions[i], answer{n: -1, file: k})
	}
	// Summed apart, as it was read: a file read whole is small, or one a
	// question at a time could not read.
	sum, err := outfile.State(fd.path)
	if err != nil {
		return err
	}
	fd.trust(ix, start, sum)
	return nil
}

// trust keeps the answers the file put in the index from start on when
// its content, of this sum, is sealed; else it takes them out again and
// names the file a stranger.
func (fd *found) trust(ix *Index, start int, sum string) {
	if fd.seals.Sealed(filepath.Base(fd.path), sum) {
		return
	}
	fd.stranger = true
	for _, a := range ix.byKey[start:] {
		delete(ix.held, a.key)
	}
	ix.Strangers = append(ix.Strangers, Stranger{Path: fd.path, Answers: len(ix.byKey) - start})
	ix.byKey = ix.byKey[:start]
}

// scanSum reads the output file at path a question at a time
// (result.Scan), handing each to question, and returns the sha256 of all
// it read: the one read that indexes a file also tells whether it is
// sealed as it is.
func scanSum(path string, question func(*result.Question, result.Span) error) (string, error) {
	fh, err := readfile.Open(path)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	h := sha256.New()
	r := io.TeeReader(fh, h)
	if err := result.Scan(r, func(*result.Sheet) error { return nil }, question); err != nil {
		return "", err
	}
	if _, err := io.Copy(io.Discard, r); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// sameFile says whether a and b name one file (b need not exist).
func sameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// Empty says the index holds no answer and no earlier output: a run
// with nothing to reuse, compare or supersede.
func (ix *Index) Empty() bool { return ix == nil || len(ix.byKey) == 0 && len(ix.Earlier) == 0 }

// Close closes the files answers were read from.
func (ix *Index) Close() error {
	if ix == nil {
		return nil
	}
	var errs []error
	for _, s := range ix.sources {
		if s.fh != nil {
			errs = append(errs, s.fh.Close())
			s.fh = nil
		}
	}
	return errors.Join(errs...)
}

// Grading is how an earlier answer was graded: its mode and where the
// mode was set.
type Grading struct{ Mode, From string }

// Take gives q, a question about to be asked whose RequestKey is set, the
// answer an earlier output recorded under that key, and says whether there
// was one and how it was graded. What the run planned (name, meta, ground
// truth, prompt, settings, grader, key, place in a shard's part) stays
// q's; everything the answer brought (completion, tokens, cost, time, the
// model that served it, code and agent work, members this evalmd does not
// know) is the earlier question's; the grade is cleared, for the run to
// grade again, in the grading mode planned, or the one a flag gave the
// answer when no source sets one now (result.Question.SetGrading).
// ReusedFrom names the file the answer was taken from, which holds it;
// AskedIn, for an answer that file had reused itself, the run that asked
// the model (its own AskedIn, else its ReusedFrom: a sealed file's claim
// is evalmd's), so that the answer stays one sample (result.Sample). An
// answer whose file changed since Load read it is not taken: the
// question is asked. A chat answer recorded under another think_tags rule
// is split again under q's (result.Question.Resplit).
func (ix *Index) Take(q *result.Question) (Grading, bool) {
	if ix == nil || q.RequestKey == "" {
		return Grading{}, false
	}
	key := digestOf(q.RequestKey)
	a, ok := ix.find(key)
	if !ok {
		return Grading{}, false
	}
	var n result.Question
	src := ix.sources[a.file]
	if a.n < 0 {
		n = *ix.held[key]
	} else if n, ok = src.question(result.Span{Off: a.off, Len: int(a.n)}); !ok || n.RequestKey != q.RequestKey {
		return Grading{}, false
	}
	was := Grading{n.Grading, n.GradingFrom}
	rule := n.SolveSettings["think_tags"]
	if n.SolveSettings == nil {
		rule = n.MetaData["think_tags"]
	}
	n.Resplit(rule, q.SolveSettings["think_tags"])
	n.Name, n.MetaData, n.GroundTruth, n.Accepted, n.Question, n.ModelName = q.Name, q.MetaData, q.GroundTruth, q.Accepted, q.Question, q.ModelName
	n.QuestionUsr, n.System, n.Settings, n.SolveSettings, n.Grader = q.QuestionUsr, q.System, q.Settings, q.SolveSettings, q.Grader
	n.Conversation, n.ResponseSchema = q.Conversation, q.ResponseSchema
	n.Grade, n.GradeDetail, n.SubAnswers, n.Judge = nil, "", nil, nil
	n.SetGrading(q.Grading, q.GradingFrom)
	n.RequestKey, n.Position = q.RequestKey, q.Position
	asked := cmp.Or(n.AskedIn, n.ReusedFrom)
	n.ReusedFrom, n.AskedIn = filepath.Base(src.path), ""
	if asked != n.ReusedFrom {
		n.AskedIn = asked
	}
	*q = n
	return was, true
}

// question reads the question at span of the source.
func (s *source) question(at result.Span) (result.Question, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fh == nil {
		fh, err := readfile.Open(s.path)
		if err != nil {
			return result.Question{}, false
		}
		s.fh = fh
	}
	q, err := result.QuestionAt(s.fh, at)
	return q, err == nil
}
