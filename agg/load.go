package agg

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"

	"github.com/evalmd/evalmd/internal/readfile"
	"github.com/evalmd/evalmd/result"
)

// strID is an interned string. noStr stands for JSON null or a missing
// member, which pandas holds as None/NaN and drops from group keys.
type strID uint32

const noStr strID = math.MaxUint32

// interner gives each distinct string a small id, so a million question rows
// hold four integers instead of four strings.
type interner struct {
	ids  map[string]strID
	strs []string
}

func newInterner() *interner { return &interner{ids: map[string]strID{}} }

// id interns b; nil (JSON null) is noStr. Looking up string(b) does not
// allocate, so only new strings cost memory.
func (in *interner) id(b []byte) strID {
	if b == nil {
		return noStr
	}
	if id, ok := in.ids[string(b)]; ok {
		return id
	}
	s := string(b)
	id := strID(len(in.strs))
	in.strs = append(in.strs, s)
	in.ids[s] = id
	return id
}

func (in *interner) str(id strID) string {
	if id == noStr {
		return ""
	}
	return in.strs[id]
}

// Grade states of a row.
const (
	gradeNull  int8 = -1
	gradeFalse int8 = 0
	gradeTrue  int8 = 1
)

// row is one question of one output file, reduced to what the tables need.
// It is LIME's data frame row (sheet name, sheet model, run id, question
// name, grade) plus this tool's fields.
type row struct {
	sheet, model, run, name strID
	// meta is where the row's values of its metric's meta keys start in
	// Data.meta (one strID per key, noStr when absent).
	meta                 uint32
	subTotal, subCorrect uint16
	epoch                uint16 // the file's epoch (1..N; 1 for a run of one epoch)
	occ                  uint16 // how many questions of the file before it have its name
	grade                int8
	errored, unanswered  bool
	noResponse           bool  // completion null or empty
	limited              bool  // agent mode: a limit ended the question
	metric               uint8 // 1 + the index of the row's metric in Data.metrics; 0 for none
}

// usage sums a model's tokens, cost and time.
type usage struct {
	questions     int
	inTok, outTok int64
	reasonTok     int64 // a part of outTok
	tokQuestions  int   // questions that reported any token count
	cost          float64
	costN         int
	batchN        int // questions answered through a batch API
	evalTime      float64
	evalN         int
	badFigures    int // eval_time or cost values left out: negative or absurdly large
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
	rows  []row
	usage map[strID]*usage
	// metrics are the benchmark metrics the data was loaded for, and
	// metricOf finds one by its lowercased benchmark name. keys is every
	// meta key a metric reads, "benchmark" first; meta holds the rows'
	// values of those keys.
	metrics    []Metric
	metricOf   map[string]uint8
	metricKeys [][]uint8 // per metric, its meta keys' indexes in keys
	keys       map[string]uint8
	meta       []strID
	// Reducer turns a model's answers to one question into its score in
	// Totals (the zero value: the mean).
	Reducer Reducer
	// Files is the number of output files read; Skipped lists the files that
	// could not be read, each with the reason.
	Files   int
	Skipped []string
	// Duplicates are files of a run already read (the same run id, sheet
	// and model, or for a run without an id the same bytes: a copy), and
	// DryRuns the dry-run outputs left out; neither is counted.
	Duplicates, DryRuns []string
	// NoAnswers are the runs counted in which no question was answered
	// (every request failed), each as "FILE (model M, sheet S)".
	NoAnswers []string
	// Subsets are the runs counted that asked only some of their sheet's
	// questions (run --limit, --questions), each as "FILE (model M, sheet
	// S): 3 of 10 questions (--limit 3)".
	Subsets []string
	// Versions say, one line per sheet whose runs answer more than one
	// version of its questions, which (and, with LoadOptions.LatestVersion,
	// that the older ones' runs are left out: OlderVersions).
	Versions, OlderVersions []string
	// Paths are the output files found, read or not: agg never writes
	// over one.
	Paths []string
	// Counted are the output files counted, in name order: what the
	// reports that show every question (HTML, xlsx) read again.
	Counted []string
}

// Questions is the number of question rows read.
func (d *Data) Questions() int { return len(d.rows) }

// jsFile is the part of an output file agg reads (see decodeOutput).
type jsFile struct {
	Sheet     jsSheet
	Questions []jsQuestion
}

type jsSheet struct {
	Name, RunID, ModelName []byte // nil for null
	Benchmark              []byte // meta_data["benchmark"]
	DryRun                 bool   // written by run -y: prompts, no answers
	Epoch, Epochs          int    // the file's epoch of its run's; 0 when absent (epoch 1 of 1)
	Subset                 []byte // the "subset" member as written (run --limit, --questions); nil without one
	// Effort and Thinking are the run's reasoning settings (the
	// "settings" member's reasoning_effort and reasoning_tokens), which
	// tell two runs of a model apart (result.ModelLabel).
	Effort   []byte
	Thinking int
}

type jsQuestion struct {
	Name                      []byte   // nil for null
	Benchmark                 []byte   // meta_data["benchmark"]
	Meta                      []jsMeta // the other meta_data members a metric reads
	Errored                   bool     // error is there and not null
	Responded                 bool     // completion is a non-empty string
	EvalTime                  float64
	HasEvalTime               bool
	Grade                     int8 // gradeNull, gradeFalse or gradeTrue
	InputTokens, OutputTokens int64
	ReasoningTokens           int64 // a part of OutputTokens
	Cost                      float64
	HasCost                   bool
	Batched                   bool // answered through a batch API (batch_id), priced at batch rates
	SubTotal, SubCorrect      int
	Unanswered                bool
	Limited                   bool // "limit" is a non-empty string
}

// jsMeta is one meta_data member a metric reads: its key's index in
// Data.keys and its value (a string, or a number's text).
type jsMeta struct {
	key uint8
	val []byte
}

// findOutputs lists the output files below dir, sorted. A folder below dir
// that cannot be read is reported on warn and skipped.
func findOutputs(dir string, warn io.Writer) ([]string, error) {
	paths, err := result.Find(dir, func(err error) { fmt.Fprintf(warn, "agg: skipping %v\n", err) })
	if err != nil {
		return nil, fmt.Errorf("agg: %w", err)
	}
	return paths, nil
}

// decoded is one decoded file, before interning. Its byte slices point
// into buf, which goes back to the pool once the file is merged.
type decoded struct {
	path string
	file *jsFile
	buf  []byte
	err  error
}

// scratch is what a worker reuses from file to file: the read buffer and
// the decoded questions.
type scratch struct {
	buf  []byte
	file *jsFile
}

// LoadOptions say which output files count.
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
}

// Load reads every output file below dir. Files that are not output files
// (bad JSON, a half-written file, a foreign JSON document) are reported on
// warn with their name and skipped; so are a second copy of a run and, unless
// opt says otherwise, dry runs; a run with no answer is named. Files are
// decoded in parallel but merged in name order, and at most a few files are
// held at once. opt.Metrics are the benchmark metrics the report will
// carry: a file whose "benchmark" meta names one of them keeps the
// question meta that metric reads.
func Load(ctx context.Context, dir string, warn io.Writer, opt LoadOptions) (*Data, error) {
	d, err := newData(opt.Metrics)
	if err != nil {
		return nil, err
	}
	paths, err := findOutputs(dir, warn)
	if err != nil {
		return nil, err
	}
	d.Paths = paths
	leave, notes := sheetVersions(paths, opt.LatestVersion, opt.IncludeDryRuns)
	d.Versions = notes
	seen := runs{}
	workers := max(1, runtime.GOMAXPROCS(0))
	results := make([]chan decoded, len(paths))
	for i := range results {
		results[i] = make(chan decoded, 1)
	}
	// tokens bounds how many decoded files wait to be merged; their read
	// buffers are recycled through pool, so memory stays at a few files.
	tokens := make(chan struct{}, 2*workers)
	pool := make(chan scratch, 2*workers+workers)
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
				var sc scratch
				select {
				case sc = <-pool:
				default:
					sc.file = &jsFile{}
				}
				buf, err := decodeFile(paths[i], sc.buf, sc.file, d.keys)
				results[i] <- decoded{paths[i], sc.file, buf, err}
			}
		}()
	}
	for i := range paths {
		var r decoded
		select {
		case r = <-results[i]:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if r.err != nil {
			d.Skipped = append(d.Skipped, r.err.Error())
			fmt.Fprintf(warn, "agg: skipping %v\n", r.err)
		} else if r.file.Sheet.DryRun && !opt.IncludeDryRuns {
			d.DryRuns = append(d.DryRuns, r.path)
		} else if leave[r.path] {
			d.OlderVersions = append(d.OlderVersions, r.path)
		} else if first, dup := seen.first(r); dup {
			d.Duplicates = append(d.Duplicates, r.path)
			fmt.Fprintf(warn, "agg: skipping %s: the same run as %s (run id %q, sheet %q, model %q)\n",
				r.path, first, r.file.Sheet.RunID, r.file.Sheet.Name, r.file.Sheet.ModelName)
		} else {
			if noAnswers(r.file) {
				d.NoAnswers = append(d.NoAnswers, fmt.Sprintf("%s (model %s, sheet %s)", r.path, r.file.Sheet.ModelName, r.file.Sheet.Name))
			}
			if sub := r.file.Sheet.Subset; sub != nil {
				var rec result.Subset
				if json.Unmarshal(sub, &rec) == nil {
					d.Subsets = append(d.Subsets, fmt.Sprintf("%s (model %s, sheet %s): %s", r.path, r.file.Sheet.ModelName, r.file.Sheet.Name, rec.Describe(len(r.file.Questions))))
				}
			}
			if d.Files == 0 {
				// Files are usually alike: size the rows for all of them
				// at once instead of doubling a million-row slice.
				d.rows = make([]row, 0, min(len(paths)*len(r.file.Questions), 1<<24))
			}
			d.Files++
			d.Counted = append(d.Counted, r.path)
			d.add(r.file)
		}
		select {
		case pool <- scratch{r.buf, r.file}:
		default:
		}
		<-tokens
	}
	return d, nil
}

// runs remembers the runs read, to tell a second copy of one.
type runs map[string]string

// first returns the file that already holds r's run, if any, and
// remembers r's otherwise. A run is its run id, sheet and model; a run
// without an id (LIME's -u 0) is its bytes.
func (rs runs) first(r decoded) (string, bool) {
	sh := r.file.Sheet
	var key string
	if len(sh.RunID) > 0 {
		// The epochs of a run share its id: each is a file of its own.
		key = fmt.Sprintf("id\x00%s\x00%s\x00%s\x00%d", sh.RunID, sh.Name, sh.ModelName, max(sh.Epoch, 1))
	} else {
		sum := sha256.Sum256(r.buf)
		key = "sum\x00" + string(sum[:])
	}
	if p, ok := rs[key]; ok {
		return p, true
	}
	rs[key] = r.path
	return "", false
}

// noAnswers says whether a file with questions has no answer at all.
func noAnswers(f *jsFile) bool {
	for i := range f.Questions {
		if f.Questions[i].Responded {
			return false
		}
	}
	return len(f.Questions) > 0
}

// decodeFile reads one output file into buf (grown as needed) and decodes
// it into f; it returns the buffer for reuse.
func decodeFile(path string, buf []byte, f *jsFile, keys map[string]uint8) ([]byte, error) {
	data, err := readInto(path, buf)
	if err != nil {
		return buf, err
	}
	if err := decodeInto(data, f, keys); err != nil {
		return data, fmt.Errorf("%s: not an output file: %w", path, err)
	}
	return data, nil
}

// readInto reads a whole file into buf's storage.
func readInto(path string, buf []byte) ([]byte, error) {
	fh, err := os.Open(path)
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
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := fh.Read(buf[len(buf):cap(buf)])
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

// add reduces one decoded file to rows.
func (d *Data) add(f *jsFile) {
	in := d.strs
	sheet := in.id(f.Sheet.Name)
	model := in.id(f.Sheet.ModelName)
	if f.Sheet.ModelName != nil && (f.Sheet.Effort != nil || f.Sheet.Thinking > 0) {
		model = in.id([]byte(result.ModelLabel(string(f.Sheet.ModelName), string(f.Sheet.Effort), f.Sheet.Thinking)))
	}
	run := in.id(f.Sheet.RunID)
	epoch := uint16(max(f.Sheet.Epoch, 1))
	u := d.usage[model]
	if u == nil {
		u = &usage{}
		d.usage[model] = u
	}
	sheetMetric := d.metricFor(f.Sheet.Benchmark)
	seen := make(map[strID]uint16, len(f.Questions)) // the file's names so far
	for i := range f.Questions {
		q := &f.Questions[i]
		r := row{sheet: sheet, model: model, run: run, epoch: epoch, name: in.id(q.Name), grade: q.Grade,
			errored: q.Errored, unanswered: q.Unanswered, noResponse: !q.Responded, limited: q.Limited,
			subTotal: uint16(min(q.SubTotal, math.MaxUint16)), subCorrect: uint16(min(q.SubCorrect, math.MaxUint16))}
		// A name repeated in a sheet (LIME allows it) is another question,
		// told from the first by its occurrence.
		r.occ = seen[r.name]
		seen[r.name] = min(r.occ+1, math.MaxUint16)
		// The question's own "benchmark" meta (the sheet's, cascaded) wins
		// when it names a metric; else the sheet's.
		r.metric = d.metricFor(q.Benchmark)
		if r.metric == 0 {
			r.metric = sheetMetric
		}
		if r.metric != 0 {
			r.meta = uint32(len(d.meta))
			for _, k := range d.metricKeys[r.metric-1] {
				v := noStr
				for _, m := range q.Meta {
					if m.key == k {
						v = in.id(m.val)
					}
				}
				d.meta = append(d.meta, v)
			}
		}
		d.rows = append(d.rows, r)

		u.questions++
		if q.InputTokens != 0 || q.OutputTokens != 0 {
			u.tokQuestions++
			u.inTok += q.InputTokens
			u.reasonTok += q.ReasoningTokens
			u.outTok += q.OutputTokens
		}
		switch {
		case !q.HasCost:
		case figure(q.Cost):
			u.cost += q.Cost
			u.costN++
		default:
			u.badFigures++
		}
		if q.Batched {
			u.batchN++
		}
		switch {
		case !q.HasEvalTime:
		case figure(q.EvalTime):
			u.evalTime += q.EvalTime
			u.evalN++
		default:
			u.badFigures++
		}
	}
}

// itoa is strconv.Itoa for table cells.
func itoa(n int) string { return strconv.Itoa(n) }
