// Package load reads a folder of output files for agg, counting each
// answer once: Load finds the files (result.Find), decodes them on every
// core (result.Parse; a file past a few megabytes a question at a time),
// merges the parts of a run split in shards (result.Parts), tells a copy,
// a dry run, an older version of a sheet and a rerun's reused answers
// (result.Sample) from what counts, and reduces each question to one Row
// of interned strings (Str, NoStr; GradeNull, GradeFalse, GradeTrue),
// dropping the file. Data holds the rows (Rows, Str, Meta: the question
// meta a Metric reads), the per-model sums of tokens, cost and time
// (Usages, as Usage), the texts of every answer when asked (Kept, as
// Answer), the answers a person's verdict covers (Reviews, as Review;
// each grader's agreement with people: Agreements, as Agreement, each
// answer they graded otherwise a Differ) and the notes of what was left
// out, a run split in shards named by its parts (Data.Named, JoinParts);
// NewData and Data.Add count files held in memory. Units numbers the
// questions as the statistics count them, and Tallies counts each model's
// answers to each (a Tally). LoadOptions say what counts.
package load

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"math"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/evalmd/evalmd/internal/readfile"
	"github.com/evalmd/evalmd/result"
)

// strID is an interned string. noStr stands for a missing meta value,
// which pandas holds as None/NaN and drops from group keys.
type Str uint32

const NoStr Str = math.MaxUint32

// interner gives each distinct string a small id, so a million question rows
// hold four integers instead of four strings.
type interner struct {
	ids  map[string]Str
	strs []string
}

func newInterner() *interner { return &interner{ids: map[string]Str{}} }

// id interns s.
func (in *interner) id(s string) Str {
	if id, ok := in.ids[s]; ok {
		return id
	}
	id := Str(len(in.strs))
	in.strs = append(in.strs, s)
	in.ids[s] = id
	return id
}

func (in *interner) str(id Str) string {
	if id == NoStr {
		return ""
	}
	return in.strs[id]
}

// Grade states of a row.
const (
	GradeNull  int8 = -1
	GradeFalse int8 = 0
	GradeTrue  int8 = 1
)

// row is one question of one output file, reduced to what the tables need.
// It is LIME's data frame row (sheet name, sheet model, run id, question
// name, grade) plus this tool's fields.
type Row struct {
	Sheet, Model, Run, Name Str
	Truth                   Str // the ground truth the answer was graded against; noStr when null
	// meta is where the row's values of its metric's meta keys start in
	// Data.meta (one strID per key, noStr when absent).
	meta                 uint32
	SubTotal, SubCorrect uint16
	Epoch                uint16 // the file's epoch (1..N; 1 for a run of one epoch)
	Occ                  uint16 // how many questions of the file before it have its name
	Grade                int8
	// fresh: a run the baseline of a comparison does not hold carries
	// the answer (LoadOptions.Baseline).
	Fresh               bool
	Errored, Unanswered bool
	NoResponse          bool  // completion null or empty
	Limited             bool  // agent mode: a limit ended the question
	Liberal             bool  // graded in liberal mode (the grading setting)
	Metric              uint8 // 1 + the index of the row's metric in Data.metrics; 0 for none
}

// usage sums a model's tokens, cost and time.
type usage struct {
	questions    int
	tok          result.Totals // the token counts alone (Totals.AddTokens)
	tokQuestions int           // questions that reported any token count
	saved        float64       // what the prompt cache saved (cache_saved)
	cost         float64
	costN        int
	batchN       int // questions answered through a batch API
	evalTime     float64
	evalN        int
	badFigures   int // eval_time or cost values left out: negative or absurdly large
}

// maxFigure bounds a question's eval_time (seconds) and cost (US dollars)
// that agg sums: a value past it (31 years, a billion dollars), or a
// negative one, is no real figure but a hand-edited or damaged file, and
// summing it would show -Inf or +Inf.
const maxFigure = 1e9

// figure says whether x is a time or cost agg can sum.
func figure(x float64) bool { return x >= 0 && x <= maxFigure }

// Data is everything agg keeps from a folder of output files: one small row
// per question and per-model usage sums. Whole files are never kept.
type Data struct {
	strs  *interner
	rows  []Row
	usage map[Str]*usage
	// metricOf finds a metric the data was loaded for by its lowercased
	// benchmark name. keys is every meta key a metric reads, "benchmark"
	// first; meta holds the rows' values of those keys.
	metricOf   map[string]uint8
	metricKeys [][]string // per metric, its MetaKeys
	meta       []Str
	reviews    []Review // the rows a person's verdict covers
	// kept are every counted question's texts, when Load was asked to keep
	// them (LoadOptions.Answers) for LIME's report types.
	kept        []Answer
	answersKept bool
	// Files is the number of output files counted, the parts of a run
	// split in shards (run --shard) counting as the one file they make
	// (result.Parts); Skipped lists the files that could not be read,
	// each with the reason.
	Files   int
	Skipped []string
	// Duplicates are files of a run already read (the same run id, sheet
	// and model, or for a run without an id the same bytes: a copy) or
	// every answer of which an earlier file carries (result.Sample: a
	// rerun's reused answers), and DryRuns the dry-run outputs left out;
	// neither is counted. A file some of whose answers an earlier file
	// carries counts the others only.
	Duplicates, DryRuns []string
	// NoAnswers are the runs counted in which no question was answered
	// (every request failed), each as "FILE (model M, sheet S)".
	NoAnswers []string
	// PartsOf are the parts of each run split in shards (run --shard),
	// by the path of the one file agg reads them as (that of Counted,
	// Duplicates...): found files, but each run of them one file.
	PartsOf map[string][]string
	// PartialShards are the runs split in shards (run --shard) counted
	// without the part of some shard, none having been found, each named
	// by the parts there are (the one file they make is on no disk):
	// "PART, PART, PART (model M, sheet S): no part of shard 3 of 4".
	PartialShards []string
	// Subsets are the runs counted that asked only some of their sheet's
	// questions (run --limit, --questions), each as "FILE (model M, sheet
	// S): 3 of 10 questions (--limit 3)".
	Subsets []string
	// Versions say, one line per sheet whose runs answer more than one
	// version of its questions, which (and, with LoadOptions.LatestVersion,
	// that the older ones' runs are left out: OlderVersions).
	Versions, OlderVersions []string
	// Paths are the output files found, read or not: agg never writes
	// over one. Found counts them as the report does, the parts of a run
	// split in shards as the one file they make.
	Paths []string
	// Counted are the output files counted, in name order.
	Counted []string
}

// Found is the number of output files found, the parts of a run split
// in shards counting as the one file they make (PartsOf).
func (d *Data) Found() int {
	n := len(d.Paths)
	for _, parts := range d.PartsOf {
		n += 1 - len(parts)
	}
	return n
}

// Named names the output file at path as it is on disk: a run split in
// shards (PartsOf) by its parts (JoinParts), the one file they make
// being on no disk; any other file by its path.
func (d *Data) Named(path string) string {
	if parts := d.PartsOf[path]; len(parts) > 0 {
		return JoinParts(parts)
	}
	return path
}

// JoinParts names the parts of a run split in shards in one line: each,
// up to four, then how many more.
func JoinParts(parts []string) string {
	const shown = 4
	if len(parts) <= shown {
		return strings.Join(parts, ", ")
	}
	return fmt.Sprintf("%s and %d more parts", strings.Join(parts[:shown], ", "), len(parts)-shown)
}

// Questions is the number of question rows read.
func (d *Data) Questions() int { return len(d.rows) }

// findOutputs lists the output files below dir, sorted. A folder below dir
// that cannot be read is reported on warn and skipped.
func findOutputs(dir string, warn io.Writer) ([]string, error) {
	paths, err := result.Find(dir, func(err error) { fmt.Fprintf(warn, "agg: skipping %v\n", err) })
	if err != nil {
		return nil, fmt.Errorf("agg: %w", err)
	}
	return paths, nil
}

// decoded is one decoded file. sum is the sha256 of its bytes when its
// run has no id (a copy of such a run is told by its bytes).
type decoded struct {
	path string
	file *result.File
	sum  [sha256.Size]byte
	err  error
	// stream says the file is to be read a question at a time by the
	// loader (streamAbove), not decoded by a worker.
	stream bool
}

// LoadOptions say which output files count and who else sees them.
type LoadOptions struct {
	// IncludeDryRuns counts the outputs of dry runs (run -y), which hold
	// prompts and no answers; by default they are left out.
	IncludeDryRuns bool
	// Metrics are the benchmarks' figures the data is loaded for.
	Metrics []Metric
	// LatestVersion counts, of each sheet, only the runs of the newest
	// version of its questions (the version of the run started last):
	// the leaderboard is the sheet's as it is now. By default every run
	// counts, as in LIME's agg.
	LatestVersion bool
	// Answers keeps every counted question's completion and answer, for
	// LIME's report types (Completions, DiscrepanciesFull).
	Answers bool
	// Baseline is the baseline a comparison will be made with (Compare),
	// whose runs this folder may hold too (a CI restores the last results
	// into the folder it runs in): an answer a run it does not hold
	// carries, asked or reused, is marked, so that Compare counts, of a
	// sheet and model run again since, what the new runs carry.
	Baseline *Data
	// Each, when set, is called in name order with every output file
	// decoded, whole, and whether it counts (a dry run left out or a
	// second copy of a run does not): the reports that show every question
	// (HTML, xlsx) and the Inspect logs read the folder through it, so it
	// is read once for all of them. The file is dropped after the call.
	Each func(path string, f *result.File, counted bool)

	// StreamAbove, when not 0, replaces the size past which a file is
	// read a question at a time (the package's streamAbove; negative:
	// every file), for tests; Whole reads every file whole, shards' parts
	// too, for tests to compare the two ways.
	StreamAbove int64
	Whole       bool
}

// Load reads every output file below dir. Files that are not output files
// (bad JSON, a half-written file, a foreign JSON document) are reported on
// warn with their name and skipped; so are a second copy of a run and, unless
// opt says otherwise, dry runs; a run with no answer is named. An answer
// several files carry (a rerun's reused answers: result.Sample) counts
// once, from the first of them in name order: a file's questions counted
// from an earlier file are taken out of it (also for Each), and a file
// left with none is not counted. The parts of a run split in shards (run
// --shard) are counted, and seen by Each, as the one file a single
// machine would have written (result.Parts), at its path, once its last
// part is read; a run some of whose parts are missing is counted with
// those there are, at the end, and named (PartialShards). Files are
// decoded in parallel but merged in name order, and at most a few files are
// held at once. opt.Metrics are the benchmark metrics the report will
// carry: a file whose "benchmark" meta names one of them keeps the
// question meta that metric reads.
func Load(ctx context.Context, dir string, warn io.Writer, opt LoadOptions) (*Data, error) {
	d, err := NewData(opt.Metrics)
	if err != nil {
		return nil, err
	}
	paths, err := findOutputs(dir, warn)
	if err != nil {
		return nil, err
	}
	d.Paths = paths
	// Which files to leave out must be known before any is counted: with
	// LatestVersion, each file's version is read first (its sheet member,
	// or the whole file when it records none). Otherwise versions are told
	// apart in the one read, for the notes.
	var leave map[string]bool
	if opt.LatestVersion {
		leave, d.Versions = sheetVersions(paths, true, opt.IncludeDryRuns)
	}
	d.answersKept = opt.Answers
	l := &loader{d: d, opt: opt, warn: warn, leave: leave, seen: runs{}, samples: sampleSet{}, nPaths: len(paths)}
	if opt.Baseline != nil {
		l.baseRuns = opt.Baseline.runKeys()
	}
	if err := decodeInOrder(ctx, paths, l.streamed, l.take); err != nil {
		return nil, err
	}
	for _, w := range l.parts.Rest() {
		// A run some of whose shards wrote nothing (yet): counted with
		// the parts there are, and said.
		sh := &w.File.Sheet
		missing := make([]string, len(w.Missing))
		for i, k := range w.Missing {
			missing[i] = strconv.Itoa(k)
		}
		d.PartialShards = append(d.PartialShards, fmt.Sprintf("%s (model %s, sheet %s): no part of shard %s of %d", strings.Join(w.Parts, ", "), sh.ModelName, sh.Name, strings.Join(missing, ", "), w.Shards))
		l.countWhole(w)
	}
	if !opt.LatestVersion {
		_, d.Versions = versions(l.fvs, false)
	}
	return d, nil
}

// decodeInOrder decodes the files at paths in parallel and hands each to
// take in the order of paths; a file streamed says is handed over
// undecoded, for take to read a question at a time. At most a few
// decoded files wait to be taken, and read buffers are recycled (the
// decoded file holds copies of its strings), so memory stays at a few
// files.
func decodeInOrder(ctx context.Context, paths []string, streamed func(string) bool, take func(decoded)) error {
	workers := max(1, runtime.GOMAXPROCS(0))
	results := make([]chan decoded, len(paths))
	for i := range results {
		results[i] = make(chan decoded, 1)
	}
	// tokens bounds how many decoded files wait to be taken; read buffers
	// go back through pool.
	tokens := make(chan struct{}, 2*workers)
	pool := make(chan []byte, 2*workers+workers)
	jobs := make(chan int)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		defer close(jobs)
		for i := range paths {
			select {
			case tokens <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	for w := 0; w < workers; w++ {
		go func() {
			for i := range jobs {
				var buf []byte
				select {
				case buf = <-pool:
				default:
				}
				var r decoded
				r, buf = decodeOne(paths[i], buf, streamed)
				select {
				case pool <- buf:
				default:
				}
				results[i] <- r
			}
		}()
	}
	for i := range paths {
		select {
		case r := <-results[i]:
			take(r)
		case <-ctx.Done():
			return ctx.Err()
		}
		<-tokens
	}
	return nil
}

// decodeOne decodes the file at path into buf (grown as needed, and
// returned for reuse), unless streamed says it is read a question at a
// time.
func decodeOne(path string, buf []byte, streamed func(string) bool) (decoded, []byte) {
	r := decoded{path: path, stream: streamed(path)}
	if !r.stream {
		buf, r.file, r.err = decodeFile(path, buf)
		if r.err == nil && r.file.Sheet.RunID == "" {
			r.sum = sha256.Sum256(buf)
		}
	}
	return r, buf
}

// loader counts the decoded files, in name order, into d.
type loader struct {
	d       *Data
	opt     LoadOptions
	warn    io.Writer
	leave   map[string]bool // older versions left out (LatestVersion)
	seen    runs
	samples sampleSet
	fvs     []fileVersion
	nPaths  int
	// baseRuns are the runs of LoadOptions.Baseline (runKeys), nil
	// without one.
	baseRuns map[string]bool
	// parts gathers the shards' parts of a run until its last is in;
	// partSums are the sums of those whose run has no id, and scanned
	// those of which only the sheet record was read (to be read a
	// question at a time: countWhole).
	parts    result.Parts
	partSums map[string][sha256.Size]byte
	scanned  map[string]bool
}

// take takes one decoded file: a shard's part waits for the run's other
// parts (addPart), and is counted with them as the one file a single
// machine would have written.
func (l *loader) take(r decoded) {
	if r.stream {
		l.stream(r.path)
		return
	}
	if r.err != nil || !l.grouped(r.path, &r.file.Sheet) {
		l.count(r)
		return
	}
	l.addPart(r.path, r.file, r.sum)
}

// grouped says whether the file at path whose sheet record is sheet is a
// shard's part that waits for the run's other parts: one left out (a dry
// run, an older version) is taken on its own.
func (l *loader) grouped(path string, sheet *result.Sheet) bool {
	return sheet.Shards > 0 && !(sheet.DryRun && !l.opt.IncludeDryRuns) && !l.leave[path]
}

// addPart takes f, a shard's part read from path (sum: its bytes'
// sha256, for a run without an id), into the parts of its run
// (result.Parts); the run's whole, once they are in, is counted. A
// second copy of a part is left out, unseen by Each.
func (l *loader) addPart(path string, f *result.File, sum [sha256.Size]byte) {
	w, dup := l.parts.Add(path, f)
	switch {
	case dup != "":
		sh := &f.Sheet
		l.d.Duplicates = append(l.d.Duplicates, path)
		fmt.Fprintf(l.warn, "agg: skipping %s: the same shard as %s (shard %d of %d of run id %q, sheet %q, model %q)\n",
			path, dup, sh.Shard, sh.Shards, sh.RunID, sh.Name, sh.ModelName)
		delete(l.scanned, path)
		return
	case f.Sheet.RunID == "":
		if l.partSums == nil {
			l.partSums = map[string][sha256.Size]byte{}
		}
		l.partSums[path] = sum
	}
	if w != nil {
		l.countWhole(*w)
	}
}

// whole is a run put together from its shards' parts, as a decoded file;
// a run without an id is told from a copy by the sums of its parts.
func (l *loader) whole(w result.Merged) decoded {
	r := decoded{path: w.Path, file: w.File}
	if l.d.PartsOf == nil {
		l.d.PartsOf = map[string][]string{}
	}
	l.d.PartsOf[w.Path] = append(l.d.PartsOf[w.Path], w.Parts...)
	if w.File.Sheet.RunID == "" {
		h := sha256.New()
		for _, p := range w.Parts {
			s := l.partSums[p]
			h.Write(s[:])
			delete(l.partSums, p)
		}
		h.Sum(r.sum[:0])
	}
	return r
}

// count counts one file decoded whole: left out when it could not be
// read, is a dry run, an older version of its sheet or a copy of a run
// counted, and taken without the answers an earlier file carries
// (result.Sample, fileCount); a file all of whose answers an earlier one
// carries is not handed to Each.
func (l *loader) count(r decoded) {
	if r.err != nil {
		l.d.Skipped = append(l.d.Skipped, r.err.Error())
		fmt.Fprintf(l.warn, "agg: skipping %v\n", r.err)
		return
	}
	c := l.begin(r.path, &r.file.Sheet, r.sum, len(r.file.Questions))
	for i := range r.file.Questions {
		c.question(&r.file.Questions[i])
	}
	counted, all := c.end()
	if all {
		return // unseen by Each too: an Inspect log of it would hold every answer a second time
	}
	if counted {
		c.dropCarried(r.file)
		if l.opt.Answers {
			l.d.keep(r.file)
		}
	}
	if l.opt.Each != nil {
		l.opt.Each(r.path, r.file, counted)
	}
}

// runs remembers the runs read, to tell a second copy of one.
type runs map[string]string

// runOf names the run of a file: its run id, sheet and model, and its
// epoch; a run without an id (LIME's -u 0) is its bytes (sum).
func runOf(sheet *result.Sheet, sum [sha256.Size]byte) string {
	if sheet.RunID != "" {
		// The epochs of a run share its id: each is a file of its own.
		return fmt.Sprintf("id\x00%s\x00%s\x00%s\x00%d", sheet.RunID, sheet.Name, sheet.ModelName, max(sheet.Epoch, 1))
	}
	return "sum\x00" + string(sum[:])
}

// lookup returns the file that already holds the run of the file at path.
func (rs runs) lookup(path string, sheet *result.Sheet, sum [sha256.Size]byte) (string, bool) {
	p, ok := rs[runOf(sheet, sum)]
	return p, ok && p != path
}

// remember notes the run of the file at path.
func (rs runs) remember(path string, sheet *result.Sheet, sum [sha256.Size]byte) {
	if key := runOf(sheet, sum); rs[key] == "" {
		rs[key] = path
	}
}

// fresh says whether the run of a file whose sheet record is sheet is one
// the baseline does not hold.
func (l *loader) fresh(sheet *result.Sheet) bool {
	return l.baseRuns != nil && !l.baseRuns[runKey(sheet.Name, sheet.ModelLabel(), sheet.RunID)]
}

// runKey names a run: its sheet, its model (result.ModelLabel) and its id.
func runKey(sheet, model, runID string) string { return sheet + "\x00" + model + "\x00" + runID }

// runKeys are the runs of d's rows (runKey).
func (d *Data) runKeys() map[string]bool {
	keys := map[string]bool{}
	for i := range d.rows {
		r := &d.rows[i]
		keys[runKey(d.strs.str(r.Sheet), d.strs.str(r.Model), d.strs.str(r.Run))] = true
	}
	return keys
}

// sampleSet holds the samples counted (result.Sample), each with the
// file it was counted from and its row, so that an answer carried by
// several files (a rerun's reused answers) is counted once.
type sampleSet map[result.SampleID]sampleAt

// sampleAt is where a sample was counted: its file and row.
type sampleAt struct {
	path string
	row  int
}

// decodeFile reads one output file into buf (grown as needed) and decodes
// it with result.Parse, the one decoder of output files; it returns the
// buffer for reuse.
func decodeFile(path string, buf []byte) ([]byte, *result.File, error) {
	data, err := readInto(path, buf)
	if err != nil {
		return data, nil, err
	}
	f, err := result.Parse(data)
	if err != nil {
		return data, nil, fmt.Errorf("%s%w", path, err)
	}
	return data, f, nil
}

// readInto reads a whole file into buf's storage.
func readInto(path string, buf []byte) ([]byte, error) {
	fh, err := readfile.Open(path)
	if err != nil {
		return buf, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return buf, err
	}
	// One byte more than the size so a file that grew is still read whole.
	if n := int(st.Size()) + 1; cap(buf) < n {
		buf = make([]byte, 0, n)
	}
	buf = buf[:0]
	r := result.GuardStrings(fh)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if len(buf) > readfile.Output {
			return buf[:0], fmt.Errorf("%s: %w: more than %d MB", path, readfile.ErrTooLarge, readfile.Output>>20)
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, fmt.Errorf("%s: %w", path, err)
		}
	}
}

// gradeOf is a grade's state.
func gradeOf(g *bool) int8 {
	switch {
	case g == nil:
		return GradeNull
	case *g:
		return GradeTrue
	}
	return GradeFalse
}

// keep keeps the texts of a counted file's questions for LIME's report
// types. An epoch of a run of several is a run of its own there, its run
// id saying the epoch ("ab12 (epoch 2)").
func (d *Data) keep(f *result.File) {
	sh := &f.Sheet
	run := sh.RunID
	k, n := sh.EpochOf()
	if n > 1 {
		run = fmt.Sprintf("%s (epoch %d)", sh.RunID, k)
	}
	for i := range f.Questions {
		q := &f.Questions[i]
		d.kept = append(d.kept, Answer{Sheet: sh.Name, Name: q.Name, Model: sh.ModelName, Run: run, RunID: sh.RunID, Epoch: k,
			Grade: q.Grade, Completion: q.Completion, Code: q.Answer})
	}
}

// Answer is one question of one counted output file, as the report types
// show it.
type Answer struct {
	Sheet, Name, Model, Run string // Run: the run id, and its epoch when it has several
	RunID                   string
	Epoch                   int
	Grade                   *bool
	Completion, Code        *string // Code: code mode's answer (the text graded)
}

// NewData returns an empty Data for the metrics: the index of each metric's
// benchmark name and of the meta keys they read.
func NewData(metrics []Metric) (*Data, error) {
	if len(metrics) >= math.MaxUint8 {
		return nil, fmt.Errorf("agg: %d metrics, at most %d", len(metrics), math.MaxUint8-1)
	}
	d := &Data{strs: newInterner(), usage: map[Str]*usage{}, metricOf: map[string]uint8{}}
	for i, m := range metrics {
		name := strings.ToLower(strings.TrimSpace(m.Benchmark()))
		if name == "" {
			return nil, fmt.Errorf("agg: metric %d names no benchmark", i+1)
		}
		if d.metricOf[name] != 0 {
			return nil, fmt.Errorf("agg: two metrics for benchmark %q", name)
		}
		d.metricOf[name] = uint8(i + 1)
		d.metricKeys = append(d.metricKeys, m.MetaKeys())
	}
	return d, nil
}

// metricFor is 1 + the index of the metric a "benchmark" meta value names,
// or 0.
func (d *Data) metricFor(b string) uint8 {
	if b == "" {
		return 0
	}
	if m, ok := d.metricOf[b]; ok {
		return m
	}
	return d.metricOf[strings.ToLower(strings.TrimSpace(b))]
}

// Metric is what Load reads for one benchmark's figures (agg.Metric): the
// "benchmark" meta value of its files, compared without regard to case,
// and the question meta keys it keeps.
type Metric interface {
	Benchmark() string
	MetaKeys() []string
}

// Rows are the question rows read, one a counted question, in the order
// the files were read (by name), each file's in order.
func (d *Data) Rows() []Row { return d.rows }

// Str is the string an interned id stands for; "" for NoStr.
func (d *Data) Str(id Str) string { return d.strs.str(id) }

// Meta is the values of r's metric's meta keys (Metric.MetaKeys), in
// their order, NoStr where the question has none; nil without a metric.
func (d *Data) Meta(r *Row) []Str {
	if r.Metric == 0 {
		return nil
	}
	return d.meta[r.meta : int(r.meta)+len(d.metricKeys[r.Metric-1])]
}

// Kept is every counted question's texts, in the order they were read,
// and whether Load kept them (LoadOptions.Answers).
func (d *Data) Kept() ([]Answer, bool) { return d.kept, d.answersKept }

// Add counts every question of f, decoded by the caller, as Load counts
// a file it read.
func (d *Data) Add(f *result.File) {
	a := d.fileAdder(&f.Sheet)
	for i := range f.Questions {
		a.add(&f.Questions[i])
	}
	a.done()
}

// Usage is one model's tokens, cost and time.
type Usage struct {
	Model                     string
	Questions                 int
	TokenQuestions            int // questions that reported tokens
	InputTokens, OutputTokens int64
	ReasoningTokens           int64 // a part of OutputTokens: tokens spent reasoning
	// CacheReadTokens and CacheWriteTokens are parts of InputTokens: read
	// from and written to the provider's prompt cache.
	CacheReadTokens, CacheWriteTokens int64
	// CacheSaved sums what the prompt cache saved on the questions
	// (their cache_saved): the cost at the full input price less the cost.
	CacheSaved     float64
	CostQuestions  int // questions that reported a cost
	Cost           float64
	BatchQuestions int // questions answered through a batch API, costed at batch prices
	TimeQuestions  int // questions with an eval_time
	Seconds        float64
	BadFigures     int // eval_time and cost values left out (negative, or past a billion)
}

// Usages returns per-model usage, by model name.
func (d *Data) Usages() []Usage {
	var out []Usage
	for m, u := range d.usage {
		if m == NoStr || u.questions == 0 {
			continue
		}
		out = append(out, Usage{Model: d.strs.str(m), Questions: u.questions,
			TokenQuestions: u.tokQuestions, InputTokens: int64(u.tok.InputTokens), OutputTokens: int64(u.tok.OutputTokens),
			ReasoningTokens: int64(u.tok.ReasoningTokens), CacheReadTokens: int64(u.tok.CacheReadTokens), CacheWriteTokens: int64(u.tok.CacheWriteTokens),
			CacheSaved:    u.saved,
			CostQuestions: u.costN, Cost: u.cost, BatchQuestions: u.batchN, TimeQuestions: u.evalN, Seconds: u.evalTime,
			BadFigures: u.badFigures})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Model < out[j].Model })
	return out
}
