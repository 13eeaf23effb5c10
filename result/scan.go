package result

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/evalmd/evalmd/internal/readfile"
)

// errScan says ScanFile could not read a file a question at a time; Read can
// still read it whole, or say what is wrong with it, at its line.
var errScan = errors.New("not read a question at a time")

// Span is where a question's JSON lies in the file ScanFile read it from:
// QuestionAt reads it again from there.
type Span struct {
	Off int64
	Len int
}

// ScanFile reads the output file at path as Parse decodes it, a question
// at a time: sheet is given the sheet record, then question each question
// in order, with its Span in the file, and only the question at hand is
// held, so a reader of a file of a million questions (agg, a rerun's
// index) holds what it keeps of each. The members besides "sheet" and
// "questions" are skipped. A file whose "questions" come before its
// "sheet", or that holds either twice, or anything Parse refuses, is an
// error, once the callbacks have seen what came before it: the caller
// drops what it took and reads the file with Read, which decodes it or
// says why not (a string past MaxString, ErrLongString, Read refuses too:
// a caller may say so without reading the file whole). An error of sheet
// or question stops ScanFile and is returned as it is.
func ScanFile(path string, sheet func(*Sheet) error, question func(*Question, Span) error) error {
	fh, err := readfile.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	return scan(&guardedReader{r: bufio.NewReaderSize(fh, 1<<20)}, sheet, func(dec *json.Decoder) error { return scanQuestions(dec, question) })
}

// Scan is ScanFile reading the output file r reads, from its start to its
// end: a reader that does more with the bytes (a rerun's index sums them
// as it reads) hands them over itself.
func Scan(r io.Reader, sheet func(*Sheet) error, question func(*Question, Span) error) error {
	return scan(bufio.NewReaderSize(r, 1<<20), sheet, func(dec *json.Decoder) error { return scanQuestions(dec, question) })
}

// ScanPositions is ScanFile handing over of each question its Position
// and its Span alone, without decoding the rest of it (a question whose
// "position" is spelt otherwise, or is not a plain whole number, is an
// error; the caller reads the file whole): a reader that puts
// the questions of several files in order (agg, of a run's shards' parts)
// learns where each lies first, then reads each with QuestionAt. A
// question QuestionAt cannot decode is its error, not this one's.
func ScanPositions(path string, sheet func(*Sheet) error, position func(pos int, at Span) error) error {
	fh, err := readfile.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	return scan(&guardedReader{r: bufio.NewReaderSize(fh, 1<<20)}, sheet, func(dec *json.Decoder) error {
		return scanRaws(dec, func(raw json.RawMessage, at Span) error {
			pos, ok := positionOf(raw)
			if !ok {
				return scanError(errors.New("a question whose position is not a plain number"))
			}
			return position(pos, at)
		})
	})
}

// QuestionAt decodes the question at span of r, an output file ScanFile
// read, as ScanFile decoded it there.
func QuestionAt(r io.ReaderAt, at Span) (Question, error) {
	raw := make([]byte, at.Len)
	if _, err := r.ReadAt(raw, at.Off); err != nil {
		return Question{}, err
	}
	q, err := decodeQuestion(raw)
	if err != nil {
		return Question{}, fmt.Errorf("question at byte %d: %w", at.Off, err)
	}
	return q, nil
}

// scan reads the output file r reads as ScanFile does, its questions
// array (or null) read by questions.
func scan(r io.Reader, sheet func(*Sheet) error, questions func(*json.Decoder) error) error {
	dec := json.NewDecoder(r)
	if err := delim(dec, '{'); err != nil {
		return err
	}
	var haveSheet, haveQuestions bool
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return scanError(err)
		}
		switch tok {
		case "sheet":
			if haveSheet {
				return scanError(errors.New(`a second "sheet"`))
			}
			haveSheet = true
			var s Sheet
			if err := dec.Decode(&s); err != nil {
				return scanError(err)
			}
			if err := errors.Join(CheckEpoch(s.Epoch, s.Epochs), CheckShard(s.Shard, s.Shards)); err != nil {
				return scanError(err)
			}
			if err := sheet(&s); err != nil {
				return err
			}
		case "questions":
			if !haveSheet || haveQuestions {
				return scanError(errors.New(`"questions" before "sheet", or twice`))
			}
			haveQuestions = true
			if err := questions(dec); err != nil {
				return err
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return scanError(err)
			}
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return scanError(err)
	}
	if tok, err := dec.Token(); err != io.EOF {
		if err == nil {
			err = fmt.Errorf("data after the top-level object: %s", describe(tok))
		}
		return scanError(err)
	}
	if !haveSheet || !haveQuestions {
		return scanError(ErrNotOutput)
	}
	return nil
}

// scanQuestions reads the questions array (or null) at dec, handing each
// question to question. The array is read by one goroutine and its
// questions decoded by as many as there are cores, in batches, and handed
// over in order: reading a question's bytes and decoding them cost about
// alike.
func scanQuestions(dec *json.Decoder, question func(*Question, Span) error) error {
	if ok, err := openArray(dec); !ok {
		return err
	}
	workers := max(1, runtime.GOMAXPROCS(0))
	ordered, work := make(chan *batch, workers), make(chan *batch, workers)
	stop := make(chan struct{})
	var readErr error
	go func() {
		defer close(ordered)
		defer close(work)
		readErr = readBatches(dec, stop, ordered, work)
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for b := range work {
				b.decode()
			}
		})
	}
	var err error
	for b := range ordered {
		if err != nil {
			continue // drained: the reader stops at its next batch
		}
		<-b.done
		if err = b.hand(question); err != nil {
			close(stop)
		}
	}
	wg.Wait()
	if err != nil {
		return err
	}
	return readErr
}

// batchSize is how many questions a batch of scanQuestions holds.
const batchSize = 256

// batch is questions of the array as read (raw, at spans) and decoded
// (qs, or err for the first that cannot be), done once decoded.
type batch struct {
	raws  []json.RawMessage
	spans []Span
	qs    []Question
	err   error
	done  chan struct{}
}

// readBatches reads the array's questions into batches, each sent to be
// decoded (work) and to be handed over in order (ordered), until the
// array's end or stop.
func readBatches(dec *json.Decoder, stop <-chan struct{}, ordered, work chan<- *batch) error {
	for dec.More() {
		b := &batch{raws: make([]json.RawMessage, 0, batchSize), done: make(chan struct{})}
		for len(b.raws) < batchSize && dec.More() {
			raw, at, err := nextRaw(dec)
			if err != nil {
				return err
			}
			b.raws, b.spans = append(b.raws, raw), append(b.spans, at)
		}
		for _, ch := range []chan<- *batch{work, ordered} {
			select {
			case ch <- b:
			case <-stop:
				return nil
			}
		}
	}
	return delim(dec, ']')
}

// positionOf is the "position" member of raw, a question as the decoder
// read it (valid JSON), 0 when it has none or it is null; false when raw
// is no object, or the member is not a plain whole number or is spelt
// with other letters or an escape (which Go's decoder would take too).
func positionOf(raw []byte) (int, bool) {
	i := skipSpace(raw, 0)
	if raw[i] != '{' {
		return 0, false
	}
	pos := 0
	for i = skipSpace(raw, i+1); raw[i] != '}'; i = skipSpace(raw, i+1) {
		end := skipString(raw, i)
		key := raw[i+1 : end-1]
		v := skipSpace(raw, skipSpace(raw, end)+1) // past ':'
		vend := skipValue(raw, v)
		switch {
		case string(key) == "position" && string(raw[v:vend]) == "null":
			pos = 0
		case string(key) == "position":
			n, err := strconv.Atoi(string(raw[v:vend]))
			if err != nil {
				return 0, false
			}
			pos = n
		case bytes.IndexByte(key, '\\') >= 0 || strings.EqualFold(string(key), "position"):
			return 0, false
		}
		if i = skipSpace(raw, vend); raw[i] == '}' {
			break
		}
	}
	return pos, true
}

// openArray reads the opening of the questions array at dec; false for
// null (no questions, as Parse reads it).
func openArray(dec *json.Decoder) (bool, error) {
	tok, err := dec.Token()
	switch {
	case err != nil:
		return false, scanError(err)
	case tok == nil:
		return false, nil
	case tok != json.Delim('['):
		return false, scanError(fmt.Errorf("questions: want an array, found %s", describe(tok)))
	}
	return true, nil
}

// nextRaw reads the array's next question as it is, and where it lies.
func nextRaw(dec *json.Decoder) (json.RawMessage, Span, error) {
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, Span{}, scanError(err)
	}
	// The decoder stands just past the question it decoded.
	return raw, Span{dec.InputOffset() - int64(len(raw)), len(raw)}, nil
}

// scanRaws reads the questions array (or null) at dec, one question at a
// time, each handed to each as it is.
func scanRaws(dec *json.Decoder, each func(json.RawMessage, Span) error) error {
	if ok, err := openArray(dec); !ok {
		return err
	}
	for dec.More() {
		raw, at, err := nextRaw(dec)
		if err != nil {
			return err
		}
		if err := each(raw, at); err != nil {
			return err
		}
	}
	return delim(dec, ']')
}

// decode decodes the batch's questions.
func (b *batch) decode() {
	defer close(b.done)
	b.qs = make([]Question, len(b.raws))
	for i, raw := range b.raws {
		var err error
		if b.qs[i], err = decodeQuestion(raw); err != nil {
			b.err = scanError(fmt.Errorf("question at byte %d: %w", b.spans[i].Off, err))
			return
		}
	}
}

// hand hands the batch's questions over, in order.
func (b *batch) hand(question func(*Question, Span) error) error {
	if b.err != nil {
		return b.err
	}
	for i := range b.qs {
		if err := question(&b.qs[i], b.spans[i]); err != nil {
			return err
		}
	}
	return nil
}

// delim reads the delimiter d from dec.
func delim(dec *json.Decoder, d json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return scanError(err)
	}
	if tok != d {
		return scanError(fmt.Errorf("want %v, found %s", d, describe(tok)))
	}
	return nil
}

// scanError is err as ScanFile returns it: wrapping errScan, but for a
// string past MaxString, which Read refuses too.
func scanError(err error) error {
	if errors.Is(err, ErrLongString) {
		return err
	}
	return fmt.Errorf("%w: %w", errScan, unexpected(err))
}
