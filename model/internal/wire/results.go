package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"

	"github.com/evalmd/evalmd/model"
)

// Results reads a batch's results file (JSONL, as Client.Open streams
// it): result turns each line that is not blank into its result, which
// fn is given. A results file holds many answers, so it is read a line at
// a time, each line capped as a live reply is, at limit (plus room for
// its envelope): a longer line is its question's error, a *TooLargeError
// found by the custom_id at its start, not the whole file's.
func Results(body io.Reader, provider string, limit int64, result func(line []byte) (model.BatchResult, error), fn func(model.BatchResult) error) error {
	maxLine := int(min(limit+1<<20, math.MaxInt32))
	br := bufio.NewReaderSize(body, 1<<20)
	var buf []byte
	for n := 1; ; n++ {
		line, long, err := readLine(br, buf[:0], maxLine)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading line %d: %w", n, err)
		}
		buf = line
		var r model.BatchResult
		switch {
		case long:
			id := customIDOf(line[:min(len(line), 64<<10)])
			if id == "" {
				return fmt.Errorf("line %d: longer than %s, with no custom_id at its start (--max-reply raises the cap)", n, Size(int64(maxLine)))
			}
			r = model.BatchResult{CustomID: id, Err: &model.APIError{Provider: provider, Message: (&TooLargeError{Limit: limit}).Error()}}
		case len(bytes.TrimSpace(line)) == 0:
			continue
		default:
			if r, err = result(line); err != nil {
				return fmt.Errorf("line %d: %w", n, err)
			}
		}
		if err := fn(r); err != nil {
			return err
		}
	}
}

// readLine reads one line from br into buf, without its newline, keeping
// at most keep bytes of it: a longer line is read to its end, its first
// keep bytes returned, and long set. io.EOF comes only after the last line.
func readLine(br *bufio.Reader, buf []byte, keep int) (line []byte, long bool, err error) {
	for {
		frag, err := br.ReadSlice('\n')
		if err == nil {
			frag = frag[:len(frag)-1] // the newline is not the line's: a line of keep bytes is whole
		}
		if room := keep - len(buf); len(frag) > room {
			frag, long = frag[:max(room, 0)], true
		}
		buf = append(buf, frag...)
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && (len(buf) > 0 || long):
			return buf, long, nil
		case err != nil:
			return nil, false, err
		}
		return buf, long, nil
	}
}

// customIDRE finds a result line's custom_id, which OpenAI and Anthropic
// write before the answer.
var customIDRE = regexp.MustCompile(`"custom_id"\s*:\s*("(?:[^"\\]|\\.)*")`)

// customIDOf returns the custom_id at the start of a result line, or "".
func customIDOf(start []byte) string {
	m := customIDRE.FindSubmatch(start)
	if m == nil {
		return ""
	}
	var id string
	if json.Unmarshal(m[1], &id) != nil {
		return ""
	}
	return id
}
