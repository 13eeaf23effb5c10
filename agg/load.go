package agg

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/buger/jsonparser"
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

func (in *interner) id(s *string) strID {
	if s == nil {
		return noStr
	}
	if id, ok := in.ids[*s]; ok {
		return id
	}
	id := strID(len(in.strs))
	in.strs = append(in.strs, *s)
	in.ids[*s] = id
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

// Benchmarks a row can belong to.
const (
	benchNone uint8 = iota
	benchDSBench
	benchDABench
)

// row is one question of one output file, reduced to what the tables need.
// It is LIME's data frame row (sheet name, sheet model, run id, question
// name, grade) plus this tool's fields.
type row struct {
	sheet, model, run, name strID
	concepts, level         strID // DABench question meta, noStr when absent
	subTotal, subCorrect    uint16
	grade                   int8
	errored, unanswered     bool
	noResponse              bool // completion null or empty
	bench                   uint8
}

// usage sums a model's tokens, cost and time.
type usage struct {
	questions     int
	inTok, outTok int64
	tokQuestions  int // questions that reported any token count
	cost          float64
	costN         int
	evalTime      float64
	evalN         int
}

// Data is everything agg keeps from a folder of output files: one small row
// per question and per-model usage sums. Whole files are never kept.
type Data struct {
	strs  *interner
	rows  []row
	usage map[strID]*usage
	// Files is the number of output files read; Skipped lists the files that
	// could not be read, each with the reason.
	Files   int
	Skipped []string
}

// Questions is the number of question rows read.
func (d *Data) Questions() int { return len(d.rows) }

// jsFile is the part of an output file agg reads, decoded by decodeOutput.
type jsFile struct {
	Sheet     jsSheet
	Questions []jsQuestion
}

type jsSheet struct {
	Name, RunID, ModelName *string
	Benchmark              string // meta_data["benchmark"]
}

type jsQuestion struct {
	Name                      *string
	Benchmark                 string  // meta_data["benchmark"]
	Concepts, Level           *string // meta_data["concepts"], ["level"]
	Errored                   bool    // error is there and not null
	Responded                 bool    // completion is a non-empty string
	EvalTime                  *float64
	Grade                     *bool
	InputTokens, OutputTokens int64
	Cost                      *float64
	Grader                    string
	SubTotal, SubCorrect      int
	Unanswered                bool
}

// errNotOutput marks a JSON document that is not an output file.
var errNotOutput = errors.New(`no "sheet" or "questions"`)

// decodeOutput reads the members agg needs from an output file. It walks
// the bytes with jsonparser rather than encoding/json: prompts and
// completions are most of a file and are skipped without being decoded,
// which makes a 10,000-file folder several times faster to read. (The
// shared result.Parse decodes every object twice to keep unknown members
// for rewriting; agg only reads.) jsonparser checks the structure it walks,
// so a half-written file fails: its last array or object is never closed.
func decodeOutput(data []byte) (*jsFile, error) {
	var f jsFile
	var haveSheet, haveQuestions bool
	err := jsonparser.ObjectEach(data, func(key, value []byte, vt jsonparser.ValueType, _ int) error {
		switch string(key) {
		case "sheet":
			if vt != jsonparser.Object {
				return fmt.Errorf(`"sheet" is a %v, not an object`, vt)
			}
			haveSheet = true
			return decodeSheet(value, &f.Sheet)
		case "questions":
			if vt != jsonparser.Array {
				return fmt.Errorf(`"questions" is a %v, not an array`, vt)
			}
			haveQuestions = true
			f.Questions = f.Questions[:0]
			var qerr error
			_, err := jsonparser.ArrayEach(value, func(v []byte, vt jsonparser.ValueType, _ int, _ error) {
				if qerr != nil {
					return
				}
				if vt != jsonparser.Object {
					qerr = fmt.Errorf("question %d is a %v, not an object", len(f.Questions)+1, vt)
					return
				}
				var q jsQuestion
				if err := decodeQuestion(v, &q); err != nil {
					qerr = fmt.Errorf("question %d: %w", len(f.Questions)+1, err)
					return
				}
				f.Questions = append(f.Questions, q)
			})
			if err != nil {
				return fmt.Errorf(`"questions": %w`, err)
			}
			return qerr
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if t := bytes.TrimRight(data, " \t\r\n"); len(t) == 0 || t[len(t)-1] != '}' {
		return nil, errors.New("unexpected end of JSON input")
	}
	if !haveSheet || !haveQuestions {
		return nil, errNotOutput
	}
	return &f, nil
}

// str decodes a JSON string member; null (or another type) gives nil.
func str(value []byte, vt jsonparser.ValueType) (*string, error) {
	if vt != jsonparser.String {
		if vt == jsonparser.Number || vt == jsonparser.Boolean {
			s := string(value) // a run id written as a number still counts
			return &s, nil
		}
		return nil, nil
	}
	s, err := jsonparser.ParseString(value)
	if err != nil {
		return nil, err
	}
	return &s, nil
}

func decodeSheet(data []byte, s *jsSheet) error {
	return jsonparser.ObjectEach(data, func(key, value []byte, vt jsonparser.ValueType, _ int) error {
		var err error
		switch string(key) {
		case "name":
			s.Name, err = str(value, vt)
		case "run_id":
			s.RunID, err = str(value, vt)
		case "model_name":
			s.ModelName, err = str(value, vt)
		case "meta_data":
			if vt == jsonparser.Object {
				err = decodeMeta(value, func(k string, v *string) {
					if k == "benchmark" {
						s.Benchmark = *v
					}
				})
			}
		}
		return err
	})
}

// decodeMeta calls set for the meta keys agg uses.
func decodeMeta(data []byte, set func(key string, value *string)) error {
	return jsonparser.ObjectEach(data, func(key, value []byte, vt jsonparser.ValueType, _ int) error {
		switch string(key) {
		case "benchmark", "concepts", "level":
			v, err := str(value, vt)
			if err != nil {
				return err
			}
			if v != nil {
				set(string(key), v)
			}
		}
		return nil
	})
}

func decodeQuestion(data []byte, q *jsQuestion) error {
	return jsonparser.ObjectEach(data, func(key, value []byte, vt jsonparser.ValueType, _ int) error {
		var err error
		switch string(key) {
		case "name":
			q.Name, err = str(value, vt)
		case "meta_data":
			if vt == jsonparser.Object {
				err = decodeMeta(value, func(k string, v *string) {
					switch k {
					case "benchmark":
						q.Benchmark = *v
					case "concepts":
						q.Concepts = v
					case "level":
						q.Level = v
					}
				})
			}
		case "error":
			q.Errored = vt != jsonparser.Null
		case "completion":
			q.Responded = vt == jsonparser.String && len(value) > 0
		case "eval_time":
			if vt == jsonparser.Number {
				x, e := jsonparser.ParseFloat(value)
				q.EvalTime, err = &x, e
			}
		case "grade":
			if vt == jsonparser.Boolean {
				b, e := jsonparser.ParseBoolean(value)
				q.Grade, err = &b, e
			}
		case "input_tokens":
			if vt == jsonparser.Number {
				q.InputTokens, err = jsonparser.ParseInt(value)
			}
		case "output_tokens":
			if vt == jsonparser.Number {
				q.OutputTokens, err = jsonparser.ParseInt(value)
			}
		case "cost":
			if vt == jsonparser.Number {
				x, e := jsonparser.ParseFloat(value)
				q.Cost, err = &x, e
			}
		case "grader":
			if vt == jsonparser.String {
				q.Grader = string(value)
			}
		case "unanswered":
			if vt == jsonparser.Boolean {
				q.Unanswered, err = jsonparser.ParseBoolean(value)
			}
		case "sub_answers":
			if vt == jsonparser.Array {
				var serr error
				_, err = jsonparser.ArrayEach(value, func(v []byte, vt jsonparser.ValueType, _ int, _ error) {
					if vt != jsonparser.Object {
						return
					}
					q.SubTotal++
					if ok, e := jsonparser.GetBoolean(v, "correct"); e == nil && ok {
						q.SubCorrect++
					} else if e != nil && e != jsonparser.KeyPathNotFoundError && serr == nil {
						serr = e
					}
				})
				if err == nil {
					err = serr
				}
			}
		}
		if err != nil {
			return fmt.Errorf("%q: %w", key, err)
		}
		return nil
	})
}

// isOutputFile is LIME's rule for which files agg reads: the name starts
// with "output" and ends with ".json".
func isOutputFile(name string) bool {
	return strings.HasPrefix(name, "output") && strings.HasSuffix(name, ".json")
}

// findOutputs lists the output files below dir, sorted.
func findOutputs(dir string) ([]string, error) {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() && isOutputFile(e.Name()) {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("agg: reading %s: %w", dir, err)
	}
	sort.Strings(paths)
	return paths, nil
}

// decoded is one file reduced to string-keyed rows, before interning.
type decoded struct {
	path string
	file *jsFile
	err  error
}

// Load reads every output file below dir. Files that are not output files
// (bad JSON, a half-written file, a foreign JSON document) are reported on
// warn with their name and skipped. Files are decoded in parallel but merged
// in name order, and at most a few files are held at once.
func Load(ctx context.Context, dir string, warn io.Writer) (*Data, error) {
	paths, err := findOutputs(dir)
	if err != nil {
		return nil, err
	}
	d := &Data{strs: newInterner(), usage: map[strID]*usage{}}
	workers := max(1, runtime.GOMAXPROCS(0))
	results := make([]chan decoded, len(paths))
	for i := range results {
		results[i] = make(chan decoded, 1)
	}
	// tokens bounds how many decoded files wait to be merged.
	tokens := make(chan struct{}, 2*workers)
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
				f, err := decodeFile(paths[i])
				results[i] <- decoded{paths[i], f, err}
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
		<-tokens
		if r.err != nil {
			d.Skipped = append(d.Skipped, r.err.Error())
			fmt.Fprintf(warn, "agg: skipping %v\n", r.err)
			continue
		}
		d.Files++
		d.add(r.file)
	}
	return d, nil
}

// decodeFile reads one output file.
func decodeFile(path string) (*jsFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := decodeOutput(data)
	if err != nil {
		return nil, fmt.Errorf("%s: not an output file: %w", path, err)
	}
	return f, nil
}

// add reduces one decoded file to rows.
func (d *Data) add(f *jsFile) {
	in := d.strs
	sheet := in.id(f.Sheet.Name)
	model := in.id(f.Sheet.ModelName)
	run := in.id(f.Sheet.RunID)
	u := d.usage[model]
	if u == nil {
		u = &usage{}
		d.usage[model] = u
	}
	sheetBench := benchOf(f.Sheet.Benchmark, "")
	for i := range f.Questions {
		q := &f.Questions[i]
		r := row{sheet: sheet, model: model, run: run, name: in.id(q.Name),
			concepts: in.id(q.Concepts), level: in.id(q.Level), grade: gradeNull,
			errored: q.Errored, unanswered: q.Unanswered, noResponse: !q.Responded,
			subTotal: uint16(min(q.SubTotal, math.MaxUint16)), subCorrect: uint16(min(q.SubCorrect, math.MaxUint16))}
		if q.Grade != nil {
			r.grade = gradeFalse
			if *q.Grade {
				r.grade = gradeTrue
			}
		}
		r.bench = benchOf(q.Benchmark, q.Grader)
		if r.bench == benchNone {
			r.bench = sheetBench
		}
		d.rows = append(d.rows, r)

		u.questions++
		if q.InputTokens != 0 || q.OutputTokens != 0 {
			u.tokQuestions++
			u.inTok += q.InputTokens
			u.outTok += q.OutputTokens
		}
		if q.Cost != nil {
			u.cost += *q.Cost
			u.costN++
		}
		if q.EvalTime != nil {
			u.evalTime += *q.EvalTime
			u.evalN++
		}
	}
}

// benchOf names the benchmark a sheet's meta or a grader asks for.
func benchOf(meta, grader string) uint8 {
	switch strings.ToLower(strings.TrimSpace(meta)) {
	case "dsbench":
		return benchDSBench
	case "dabench", "infiagent-dabench":
		return benchDABench
	}
	if grader == "dabench" {
		return benchDABench
	}
	return benchNone
}

// itoa is strconv.Itoa for table cells.
func itoa(n int) string { return strconv.Itoa(n) }
